/**
 * A fast reader for the YAML that models write when asked for a structured reply: block mappings
 * with plain keys, block sequences, one-line scalars (plain, "double" or 'single' quoted) and
 * the empty `[]` and `{}`.
 * It answers only when it is sure to agree with the `yaml` package (YAML 1.2, core schema);
 * anything else — comments, anchors, tags, flow collections, block or multi-line scalars,
 * numbers in other notations, odd indentation — returns `undefined`, and the caller parses
 * the text with `yaml`. A test holds it to `yaml`'s result on generated and mangled documents.
 *
 * Why: a full YAML parse takes about 80 µs for a short reply, more than all the other framework
 * work of a chain-of-thought step together.
 */

import { MAX_NESTING, runSteps, splitLinesSteps, testSteps, type Steps } from './syntax-limits.js';

/** Not answered here: the caller falls back to the full parser. */
const UNSURE = Symbol('unsure');

const KEY = /^([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?$/;
const RESERVED_KEYS = new Set(['__proto__', 'null', 'Null', 'NULL', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE']);
const NULLS = new Set(['~', 'null', 'Null', 'NULL']);
const BOOLEANS = new Map([
  ['true', true],
  ['True', true],
  ['TRUE', true],
  ['false', false],
  ['False', false],
  ['FALSE', false],
]);
const INTEGER = /^-?(?:0|[1-9][0-9]{0,14})$/;
const DECIMAL = /^-?(?:0|[1-9][0-9]{0,14})\.[0-9]{1,15}$/;
/** Characters that may not start a plain scalar, or make it something other than a string. */
const INDICATORS = new Set([...'-?:,[]{}#&*!|>%@`.+']);
/** Tabs, carriage returns, other control characters, byte-order marks and Unicode line breaks. */
// eslint-disable-next-line no-control-regex
const AWKWARD = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\ufeff]/;
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', n: '\n', t: '\t' };

// A loop, not `/ +$/`: that regular expression backtracks quadratically on a long run of spaces
// followed by anything else.
function trimSpaces(s: string): string {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 0x20) end--;
  return end === s.length ? s : s.slice(0, end);
}

/**
 * Reads `text` if it is in the narrow subset described above.
 *
 * @returns `{ value }`, exactly what `yaml` would give, or `undefined` when unsure.
 */
export function parseSimpleYaml(text: string): { value: unknown } | undefined {
  return runSteps(readSimpleYaml(text));
}

/**
 * {@link parseSimpleYaml} step by step: it yields every {@link LINES} lines it reads (a megabyte
 * of keys took a tenth of a second or more in one go), so an async caller can give way.
 */
export function* readSimpleYaml(text: string): Steps<{ value: unknown } | undefined> {
  if (yield* testSteps(text, AWKWARD)) return undefined;
  const lines = yield* splitLinesSteps(text);
  try {
    return { value: yield* new Reader(lines).document() };
  } catch (error) {
    if (error === UNSURE) return undefined;
    throw error;
  }
}

/** Lines read between two pause points. */
const LINES = 1024;

// Only spaces indent in YAML: other whitespace is content.
const spacesAtStart = (line: string) => /^ */.exec(line)![0].length;
const indentOf = spacesAtStart;
const isBlank = (line: string) => /^ *$/.test(line);
const isItem = (content: string) => content === '-' || content.startsWith('- ');

class Reader {
  private i = 0;
  private depth = 0;
  // The first line not yet counted by a pause point.
  private mark = 0;
  constructor(private readonly lines: string[]) {}

  *document(): Steps<unknown> {
    this.skipBlank();
    if (this.i >= this.lines.length) throw UNSURE;
    const value = yield* this.block(indentOf(this.lines[this.i]!));
    this.skipBlank();
    if (this.i < this.lines.length) throw UNSURE;
    return value;
  }

  /** The characters read since the last pause point. */
  private read(): number {
    let n = 0;
    for (; this.mark < this.i; this.mark++) n += this.lines[this.mark]!.length + 1;
    return n;
  }

  private skipBlank(): void {
    while (this.i < this.lines.length && isBlank(this.lines[this.i]!)) this.i++;
  }

  /** The next non-blank line's indentation, or -1 at the end; does not move. */
  private peekIndent(): number {
    let j = this.i;
    while (j < this.lines.length && isBlank(this.lines[j]!)) j++;
    return j < this.lines.length ? indentOf(this.lines[j]!) : -1;
  }

  private *block(indent: number): Steps<unknown> {
    // Deep documents go to the full reader, which refuses them without recursing.
    if (++this.depth > MAX_NESTING) throw UNSURE;
    try {
      return isItem(this.lines[this.i]!.slice(indent)) ? yield* this.sequence(indent) : yield* this.mapping(indent);
    } finally {
      this.depth--;
    }
  }

  /** The value of a key or item with nothing after it on its line: a nested block, or null. */
  private *nested(indent: number, compactSequence: boolean): Steps<unknown> {
    const next = this.peekIndent();
    if (next > indent) {
      this.skipBlank();
      return yield* this.block(next);
    }
    if (compactSequence && next === indent) {
      this.skipBlank();
      if (isItem(this.lines[this.i]!.slice(indent))) return yield* this.sequence(indent);
    }
    return null;
  }

  /** The next non-blank line without its indentation, if it belongs to the block at `indent`. */
  private lineOf(indent: number): string | undefined {
    this.skipBlank();
    if (this.i >= this.lines.length) return undefined;
    const line = this.lines[this.i]!;
    const at = indentOf(line);
    if (at < indent) return undefined;
    if (at > indent) throw UNSURE;
    return line.slice(indent);
  }

  private *mapping(indent: number): Steps<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    for (let content = this.lineOf(indent); content !== undefined; content = this.lineOf(indent)) {
      if (this.i - this.mark >= LINES) yield this.read();
      const m = KEY.exec(content);
      if (!m) throw UNSURE;
      const key = m[1]!;
      if (RESERVED_KEYS.has(key) || Object.hasOwn(out, key)) throw UNSURE;
      this.i++;
      const rest = trimSpaces(m[2] ?? '');
      out[key] = rest === '' ? yield* this.nested(indent, true) : scalar(rest);
    }
    return out;
  }

  private *sequence(indent: number): Steps<unknown[]> {
    const out: unknown[] = [];
    for (let content = this.lineOf(indent); content !== undefined && isItem(content); content = this.lineOf(indent)) {
      if (this.i - this.mark >= LINES) yield this.read();
      const afterDash = content.slice(1);
      const gap = spacesAtStart(afterDash);
      const rest = trimSpaces(afterDash.slice(gap));
      if (rest === '') {
        this.i++;
        out.push(yield* this.nested(indent, false));
      } else if (isItem(rest)) {
        throw UNSURE;
      } else if (KEY.test(rest)) {
        // "- key: value" opens a mapping whose keys line up with this first one.
        const column = indent + 1 + gap;
        this.lines[this.i] = ' '.repeat(column) + rest;
        out.push(yield* this.mapping(column));
      } else {
        this.i++;
        out.push(scalar(rest));
      }
    }
    return out;
  }
}

function scalar(text: string): unknown {
  const first = text[0]!;
  if (first === '"') return doubleQuoted(text);
  if (first === "'") return singleQuoted(text);
  if (text === '[]') return [];
  if (text === '{}') return {};
  if (text.includes(': ') || text.includes(' #') || text.endsWith(':')) throw UNSURE;
  if (NULLS.has(text)) return null;
  const bool = BOOLEANS.get(text);
  if (bool !== undefined) return bool;
  if (INTEGER.test(text) || DECIMAL.test(text)) return Number(text);
  // Every number of the core schema is one word, so a word-break means a string.
  if (first >= '0' && first <= '9') {
    if (text.includes(' ')) return text;
    throw UNSURE;
  }
  if (INDICATORS.has(first)) throw UNSURE;
  return text;
}

function doubleQuoted(text: string): string {
  let out = '';
  for (let i = 1; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      if (i !== text.length - 1) throw UNSURE;
      return out;
    }
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = text[++i];
    if (e === 'u') {
      const hex = text.slice(i + 1, i + 5);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw UNSURE;
      const code = Number.parseInt(hex, 16);
      if (code >= 0xd800 && code <= 0xdfff) throw UNSURE;
      out += String.fromCharCode(code);
      i += 4;
    } else if (e !== undefined && ESCAPES[e] !== undefined) out += ESCAPES[e];
    else throw UNSURE;
  }
  throw UNSURE;
}

function singleQuoted(text: string): string {
  let out = '';
  for (let i = 1; i < text.length; i++) {
    const c = text[i]!;
    if (c !== "'") {
      out += c;
      continue;
    }
    if (text[i + 1] === "'") {
      out += "'";
      i++;
      continue;
    }
    if (i !== text.length - 1) throw UNSURE;
    return out;
  }
  throw UNSURE;
}
