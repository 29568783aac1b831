/**
 * The output formats structured output understands.
 *
 * @example
 * ```ts
 * import type { StructuredFormat } from '@tot/core';
 *
 * const format: StructuredFormat = 'yaml';
 * ```
 */
export type StructuredFormat = 'json' | 'yaml';

const FENCE = /```[ \t]*([\w+-]*)[^\n]*\n([\s\S]*?)(?:```|$)/g;
const LANGS: Record<StructuredFormat, readonly string[]> = { json: ['json', 'jsonc', 'json5'], yaml: ['yaml', 'yml'] };
const MAX_EMBEDDED = 16;

/**
 * The snippets of `text` that may hold the answer, most likely first: fenced blocks in the wanted
 * format, other fenced blocks, the whole text, then (JSON) balanced `{…}`/`[…]` spans or (YAML)
 * the lines from the first `key:` line to the last line that looks like YAML. An unterminated
 * fence (a truncated reply) counts as running to the end.
 */
export function extractCandidates(text: string, format: StructuredFormat): string[] {
  const preferred: string[] = [];
  const other: string[] = [];
  for (const match of text.matchAll(FENCE)) {
    const lang = match[1]!.toLowerCase();
    const body = match[2]!.trim();
    if (body === '') continue;
    (lang === '' || LANGS[format].includes(lang) ? preferred : other).push(body);
  }
  const seen = new Set<string>();
  const out: string[] = [];
  const push = (candidate: string) => {
    const trimmed = candidate.trim();
    if (trimmed !== '' && !seen.has(trimmed)) {
      seen.add(trimmed);
      out.push(trimmed);
    }
  };
  preferred.forEach(push);
  other.forEach(push);
  push(text);
  if (format === 'json') balancedSpans(text).forEach(push);
  else {
    const block = yamlBlock(text);
    if (block !== undefined) push(block);
  }
  return out;
}

/** Top-level balanced `{…}` / `[…]` spans, skipping brackets inside strings. */
function balancedSpans(text: string): string[] {
  const spans: string[] = [];
  let i = 0;
  while (i < text.length && spans.length < MAX_EMBEDDED) {
    const ch = text[i];
    if (ch !== '{' && ch !== '[') {
      i++;
      continue;
    }
    const end = matchingClose(text, i);
    if (end === -1) {
      i++;
      continue;
    }
    spans.push(text.slice(i, end + 1));
    i = end + 1;
  }
  return spans;
}

function matchingClose(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{') stack.push('}');
    else if (ch === '[') stack.push(']');
    else if (ch === '}' || ch === ']') {
      if (stack.pop() !== ch) return -1;
      if (stack.length === 0) return i;
    }
  }
  return -1;
}

const YAML_KEY = /^["']?[\w$][\w $.-]*["']?\s*:(\s|$)/;
const YAML_LINE = /^(\s+\S|["']?[\w$][\w $.-]*["']?\s*:(\s|$)|-(\s|$)|#)/;

/** From the first `key:` line to the last line that still looks like YAML. */
function yamlBlock(text: string): string | undefined {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => YAML_KEY.test(line));
  if (start === -1) return undefined;
  let end = start;
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    if (!YAML_LINE.test(line)) break;
    end = i;
  }
  return lines.slice(start, end + 1).join('\n');
}
