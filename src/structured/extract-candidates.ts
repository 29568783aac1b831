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

const LANGS: Record<StructuredFormat, readonly string[]> = { json: ['json', 'jsonc', 'json5'], yaml: ['yaml', 'yml'] };
const MAX_EMBEDDED = 16;

// Every scan below is a single forward pass (indexOf, or one loop with a stack): a reply is
// untrusted text, and the earlier regular expressions and per-bracket rescans took seconds to
// minutes on 100 KB runs of backticks, brackets or spaces.

/**
 * The snippets of `text` that may hold the answer, most likely first: fenced blocks in the wanted
 * format, other fenced blocks, the whole text, then (JSON) balanced `{…}`/`[…]` spans or (YAML)
 * the lines from the first `key:` line to the last line that looks like YAML. An unterminated
 * fence (a truncated reply) counts as running to the end. Linear in the length of `text`.
 */
export function extractCandidates(text: string, format: StructuredFormat): string[] {
  const preferred: string[] = [];
  const other: string[] = [];
  for (const fence of fencedBlocks(text)) {
    if (fence.body === '') continue;
    (fence.lang === '' || LANGS[format].includes(fence.lang) ? preferred : other).push(fence.body);
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

/**
 * Fenced blocks: three backticks, a language word, the rest of that line, then the body up to
 * the next three backticks or the end of the text.
 */
function fencedBlocks(text: string): { lang: string; body: string }[] {
  const blocks: { lang: string; body: string }[] = [];
  let from = 0;
  for (;;) {
    const open = text.indexOf('```', from);
    if (open === -1) break;
    const lineEnd = text.indexOf('\n', open + 3);
    // No newline after this fence means none after any later one either.
    if (lineEnd === -1) break;
    let i = open + 3;
    while (text[i] === ' ' || text[i] === '\t') i++;
    const langStart = i;
    while (i < lineEnd && /[\w+-]/.test(text[i]!)) i++;
    const lang = text.slice(langStart, i).toLowerCase();
    const close = text.indexOf('```', lineEnd + 1);
    const bodyEnd = close === -1 ? text.length : close;
    blocks.push({ lang, body: text.slice(lineEnd + 1, bodyEnd).trim() });
    if (close === -1) break;
    from = close + 3;
  }
  return blocks;
}

/**
 * Top-level balanced `{…}` / `[…]` spans, skipping brackets inside strings: the outermost pairs
 * that close, in order. An opener that never closes is passed over and the pairs inside it still
 * count; a closer that matches nothing open starts the scan afresh after it. Quotes count only
 * inside brackets, so a stray `"` in the prose does not hide the JSON after it.
 */
function balancedSpans(text: string): string[] {
  const spans: { start: number; end: number }[] = [];
  const stack: { close: string; at: number }[] = [];
  let inString = false;
  for (let i = 0; i < text.length && spans.length < MAX_EMBEDDED; i++) {
    const ch = text[i]!;
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = stack.length > 0;
    else if (ch === '{') stack.push({ close: '}', at: i });
    else if (ch === '[') stack.push({ close: ']', at: i });
    else if (ch === '}' || ch === ']') {
      const open = stack.pop();
      if (open === undefined) continue;
      if (open.close !== ch) {
        stack.length = 0;
        continue;
      }
      // A pair closes: it replaces the pairs found inside it.
      while (spans.length > 0 && spans.at(-1)!.start > open.at) spans.pop();
      spans.push({ start: open.at, end: i });
    }
  }
  return spans.map((s) => text.slice(s.start, s.end + 1));
}

const KEY_NAME = /^["']?[\w$][\w $.-]*["']?$/;

/** `key:` or `"key":` followed by whitespace or the end of the line. */
function isKeyLine(line: string): boolean {
  const colon = line.indexOf(':');
  if (colon <= 0) return false;
  const after = line[colon + 1];
  if (after !== undefined && !/\s/.test(after)) return false;
  return KEY_NAME.test(line.slice(0, colon).trimEnd());
}

const looksLikeYaml = (line: string) => /^\s+\S/.test(line) || isKeyLine(line) || /^-(\s|$)/.test(line) || line.startsWith('#');

/** From the first `key:` line to the last line that still looks like YAML. */
function yamlBlock(text: string): string | undefined {
  const lines = text.split('\n');
  const start = lines.findIndex(isKeyLine);
  if (start === -1) return undefined;
  let end = start;
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    if (!looksLikeYaml(line)) break;
    end = i;
  }
  return lines.slice(start, end + 1).join('\n');
}
