import { indexOfSteps as indexOf, MAX_NESTING, SCAN_CHUNK, type Steps } from './syntax-limits.js';

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
/** A fence's language word is read up to this length: no language name is longer. */
const MAX_LANG = 32;

// Every scan below is a single forward pass (indexOf, or one loop with a stack): a reply is
// untrusted text, and the earlier regular expressions and per-bracket rescans took seconds to
// minutes on 100 KB runs of backticks, brackets or spaces. Each is a generator that yields
// after every chunk it reads, so that a caller can give way to the event loop and stop on abort
// however long the reply (a single pass over 16 million characters held the loop for seconds).

/**
 * The snippets of `text` that may hold the answer, most likely first: fenced blocks in the wanted
 * format, other fenced blocks, the whole text, then (JSON) balanced `{…}`/`[…]` spans or (YAML)
 * the lines from the first `key:` line to the last line that looks like YAML. An unterminated
 * fence (a truncated reply) counts as running to the end. Linear in the length of `text`.
 */
export function* extractCandidates(text: string, format: StructuredFormat): Steps<string[]> {
  const preferred: string[] = [];
  const other: string[] = [];
  for (const fence of yield* fencedBlocks(text)) {
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
  if (format === 'json') (yield* balancedSpans(text)).forEach(push);
  else {
    const block = yield* yamlBlock(text);
    if (block !== undefined) push(block);
  }
  return out;
}

const isLangChar = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c === 0x2b || c === 0x2d;

/**
 * Fenced blocks: three backticks, a language word, the rest of that line, then the body up to
 * the next three backticks or the end of the text. After the language word, the line must end or
 * go on after a space: three backticks followed by other text (a YAML key "```" in `"```": null`)
 * open no fence.
 */
function* fencedBlocks(text: string): Steps<{ lang: string; body: string }[]> {
  const blocks: { lang: string; body: string }[] = [];
  let from = 0;
  for (;;) {
    const open = yield* indexOf(text, '```', from);
    if (open === -1) break;
    const lineEnd = yield* indexOf(text, '\n', open + 3);
    // No newline after this fence means none after any later one either.
    if (lineEnd === -1) break;
    let i = open + 3;
    while (i < lineEnd && (text.charCodeAt(i) === 0x20 || text.charCodeAt(i) === 0x09)) {
      if (++i % SCAN_CHUNK === 0) yield SCAN_CHUNK;
    }
    const langStart = i;
    while (i < lineEnd && i - langStart < MAX_LANG && isLangChar(text.charCodeAt(i))) i++;
    const after = i < lineEnd ? text.charCodeAt(i) : 0x0a;
    if (after !== 0x20 && after !== 0x09 && after !== 0x0d && after !== 0x0a) {
      from = open + 3;
      continue;
    }
    const lang = text.slice(langStart, i).toLowerCase();
    const close = yield* indexOf(text, '```', lineEnd + 1);
    const bodyEnd = close === -1 ? text.length : close;
    blocks.push({ lang, body: text.slice(lineEnd + 1, bodyEnd).trim() });
    if (close === -1) break;
    // A pause point per block: a reply of fifty thousand small fences is a long read too.
    yield close + 3 - from;
    from = close + 3;
  }
  return blocks;
}

/**
 * The open brackets of a scan, innermost last, as `position * 2 + (1 for a brace)`: a ring that
 * keeps the innermost {@link MAX_NESTING} + 1. A pair around more levels than that could only
 * be refused for its depth, so an opener pushed out of the ring loses nothing (and a reply of
 * millions of open brackets costs no memory).
 */
class OpenBrackets {
  private readonly ring = new Float64Array(MAX_NESTING + 1);
  private head = 0;
  size = 0;

  push(entry: number): void {
    this.ring[this.head] = entry;
    this.head = (this.head + 1) % this.ring.length;
    if (this.size < this.ring.length) this.size++;
  }

  /** The innermost open bracket, taken off; -1 when none is open. */
  pop(): number {
    if (this.size === 0) return -1;
    this.head = (this.head - 1 + this.ring.length) % this.ring.length;
    this.size--;
    return this.ring[this.head]!;
  }
}

/**
 * Top-level balanced `{…}` / `[…]` spans, skipping brackets inside strings: the outermost pairs
 * that close, in order. An opener that never closes is passed over and the pairs inside it still
 * count; a closer that matches nothing open starts the scan afresh after it. Quotes count only
 * inside brackets, so a stray `"` in the prose does not hide the JSON after it.
 */
function* balancedSpans(text: string): Steps<string[]> {
  const spans: { start: number; end: number }[] = [];
  const open = new OpenBrackets();
  let inString = false;
  let i = 0;
  for (let chunkEnd = Math.min(text.length, SCAN_CHUNK); ; chunkEnd = Math.min(text.length, chunkEnd + SCAN_CHUNK)) {
    for (; i < chunkEnd && spans.length < MAX_EMBEDDED; i++) {
      const c = text.charCodeAt(i);
      if (inString) {
        if (c === 0x5c) i++;
        else if (c === 0x22) inString = false;
        continue;
      }
      if (c === 0x22) inString = open.size > 0;
      else if (c === 0x7b) open.push(i * 2 + 1);
      else if (c === 0x5b) open.push(i * 2);
      else if (c === 0x7d || c === 0x5d) {
        const entry = open.pop();
        if (entry === -1) continue;
        if (entry % 2 !== (c === 0x7d ? 1 : 0)) {
          open.size = 0;
          continue;
        }
        const start = (entry - (entry % 2)) / 2;
        // A pair closes: it replaces the pairs found inside it.
        while (spans.length > 0 && spans.at(-1)!.start > start) spans.pop();
        spans.push({ start, end: i });
      }
    }
    if (i >= text.length || spans.length >= MAX_EMBEDDED) break;
    yield SCAN_CHUNK;
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
function* yamlBlock(text: string): Steps<string | undefined> {
  let start = -1;
  let end = -1;
  let read = 0;
  for (let from = 0; ; ) {
    const newline = yield* indexOf(text, '\n', from);
    const lineEnd = newline === -1 ? text.length : newline;
    const line = text.slice(from, lineEnd);
    if (start === -1) {
      if (isKeyLine(line)) [start, end] = [from, lineEnd];
    } else if (line.trim() !== '') {
      if (!looksLikeYaml(line)) break;
      end = lineEnd;
    }
    if (newline === -1) break;
    read += newline + 1 - from;
    from = newline + 1;
    if (read >= SCAN_CHUNK) {
      yield read;
      read = 0;
    }
  }
  return start === -1 ? undefined : text.slice(start, end);
}
