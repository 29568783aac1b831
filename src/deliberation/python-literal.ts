import { TotError } from '../errors/index.js';
import { MAX_NESTING } from '../structured/syntax-limits.js';

// Hand-written on purpose: no maintained npm package parses Python literals with Python's escape
// rules, and those rules matter here. Models write "broken" escapes such as `\d` inside their
// dicts; Python keeps the backslash of an unknown escape, and JSON5 parsers (`json5`) drop it.

const WHITESPACE = new Set([' ', '\t', '\n', '\r', '\f', '\v']);
const CLOSERS: Record<string, string> = { '{': '}', '[': ']', '(': ')' };
const SIMPLE_ESCAPES: Record<string, string> = { '\\': '\\', "'": "'", '"': '"', a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };
const NAMES = new Map<string, boolean | null>([
  ['True', true],
  ['False', false],
  ['None', null],
  ['true', true],
  ['false', false],
  ['null', null],
]);
const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
const HEX_INT = /0[xX](?:_?[0-9a-fA-F])+/y;
const OCT_INT = /0[oO](?:_?[0-7])+/y;
const BIN_INT = /0[bB](?:_?[01])+/y;
// Python's floats and decimal integers: `1`, `1_000`, `1.`, `.5`, `1.5e-3`, `1e5`. Each
// underscore sits between two digits.
const DECIMAL = /(?:\d(?:_?\d)*)?\.\d(?:_?\d)*(?:[eE][+-]?\d(?:_?\d)*)?|\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?(?:[eE][+-]?\d(?:_?\d)*)?/y;
const NAME_CHAR = /[A-Za-z0-9_]/;
const HEX_DIGITS = /^[0-9a-fA-F]+$/;

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const isOctal = (c: string | undefined) => c !== undefined && c >= '0' && c <= '7';

/** Where the literal is in `text`: half-open, 0-based. */
interface Span {
  start: number;
  end: number;
}

/**
 * Where the literal may be in a reply, most likely first: the text trimmed and without one
 * markdown code fence; then, when that is not the whole of it, the first balanced `{…}` (models
 * write prose before or after their dict), or with no balanced pair the text from the first `{`
 * to the end, so that the parser says what is wrong with a truncated dict. One pass: a reply is
 * untrusted text.
 */
function literalSpans(text: string): Span[] {
  let { start, end } = trimmed(text, 0, text.length);
  if (text.startsWith('```', start)) {
    let i = start + 3;
    while (i < end && NAME_CHAR.test(text[i]!)) i++;
    // A fence that never closes is a truncated reply: the literal runs to the end.
    const closes = end - 3 >= i && text.startsWith('```', end - 3);
    ({ start, end } = trimmed(text, i, closes ? end - 3 : end));
  }
  const whole = { start, end };
  const embedded = firstBraces(text, whole);
  return embedded === undefined || (embedded.start === start && embedded.end === end) ? [whole] : [whole, embedded];
}

function firstBraces(text: string, within: Span): Span | undefined {
  let depth = 0;
  let open = -1;
  let quote = '';
  for (let i = within.start; i < within.end; i++) {
    const c = text[i]!;
    if (quote !== '') {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
      continue;
    }
    // Quotes count only inside braces: an apostrophe in the prose ("Here's the dict") opens nothing.
    if ((c === "'" || c === '"') && depth > 0) quote = c;
    else if (c === '{') {
      if (depth++ === 0) open = i;
    } else if (c === '}' && depth > 0 && --depth === 0) return { start: open, end: i + 1 };
  }
  return open === -1 ? undefined : { start: open, end: within.end };
}

function trimmed(text: string, start: number, end: number): Span {
  while (start < end && /\s/.test(text[start]!)) start++;
  while (end > start && /\s/.test(text[end - 1]!)) end--;
  return { start, end };
}

/** Sets `key` as an own property, even `__proto__` (which assignment would take as the prototype). */
function setKey(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  else object[key] = value;
}

class Parser {
  /** The text up to the end of the literal: past it, `text[i]` is `undefined` like at the end of any string. */
  private readonly text: string;
  private i: number;

  /** Positions stay those of `whole`, which the error messages and details refer to. */
  constructor(
    private readonly whole: string,
    span: Span,
  ) {
    this.text = whole.slice(0, span.end);
    this.i = span.start;
  }

  document(): unknown {
    this.skip();
    const value = this.value(0, 'a value');
    this.skip();
    if (this.i < this.text.length) this.fail('the end of the literal');
    return value;
  }

  /** Skips whitespace, `#` comments and backslash line continuations. */
  private skip(): void {
    const { text } = this;
    while (this.i < this.text.length) {
      const c = text[this.i]!;
      if (WHITESPACE.has(c)) this.i++;
      else if (c === '#') {
        while (this.i < this.text.length && text[this.i] !== '\n' && text[this.i] !== '\r') this.i++;
      } else if (c === '\\' && (text[this.i + 1] === '\n' || text[this.i + 1] === '\r')) this.i += 2;
      else break;
    }
  }

  private value(depth: number, expected: string): unknown {
    const c = this.i < this.text.length ? this.text[this.i] : undefined;
    if (c === '{' || c === '[' || c === '(') {
      if (depth >= MAX_NESTING) this.fail(`at most ${MAX_NESTING} levels of nesting`);
      return c === '{' ? this.dict(depth + 1) : this.sequence(depth + 1, c);
    }
    if (c === "'" || c === '"') return this.strings();
    if (c === '-' || c === '+') {
      this.i++;
      this.skip();
      if (!isDigit(this.text[this.i]) && !(this.text[this.i] === '.' && isDigit(this.text[this.i + 1]))) this.fail(`a number after '${c}'`);
      return this.number(c === '-');
    }
    if (isDigit(c) || (c === '.' && isDigit(this.text[this.i + 1]))) return this.number(false);
    if (c !== undefined && /[A-Za-z_]/.test(c)) {
      if (/^[rRuU]$/.test(c) && (this.text[this.i + 1] === "'" || this.text[this.i + 1] === '"')) return this.strings();
      NAME.lastIndex = this.i;
      const name = NAME.exec(this.text)![0];
      const known = NAMES.get(name);
      if (known === undefined) this.fail(`${expected} (True, False and None are the only names a literal may use)`);
      this.i += name.length;
      return known;
    }
    return this.fail(expected);
  }

  private dict(depth: number): Record<string, unknown> {
    this.i++;
    const out: Record<string, unknown> = {};
    for (;;) {
      this.skip();
      if (this.text[this.i] === '}') {
        this.i++;
        return out;
      }
      const keyAt = this.i;
      const key = this.value(depth, "a key or '}'");
      if (typeof key !== 'string' && typeof key !== 'number') this.fail('a string or number as the key', keyAt);
      this.skip();
      if (this.text[this.i] !== ':') this.fail("':' after the key");
      this.i++;
      this.skip();
      setKey(out, String(key), this.value(depth, 'a value'));
      this.skip();
      if (this.text[this.i] === ',') this.i++;
      else if (this.text[this.i] !== '}') this.fail("',' or '}'");
    }
  }

  /** A list, a tuple (also a list), or a value in parentheses, which Python reads as the value itself. */
  private sequence(depth: number, opener: string): unknown {
    const closer = CLOSERS[opener]!;
    this.i++;
    const out: unknown[] = [];
    for (;;) {
      this.skip();
      if (this.text[this.i] === closer) {
        this.i++;
        return out;
      }
      out.push(this.value(depth, `a value or '${closer}'`));
      this.skip();
      if (this.text[this.i] === ',') this.i++;
      else if (this.text[this.i] === closer) {
        this.i++;
        // `(1)` is 1; only the comma makes a tuple, `(1,)`.
        return opener === '(' && out.length === 1 ? out[0] : out;
      } else this.fail(`',' or '${closer}'`);
    }
  }

  /** One string, or adjacent ones concatenated as Python does: `'a' "b"` is `'ab'`. */
  private strings(): string {
    let out = this.string();
    for (;;) {
      const before = this.i;
      this.skip();
      const c = this.text[this.i];
      const next = this.text[this.i + 1];
      const prefixed = c !== undefined && /^[rRuU]$/.test(c) && (next === "'" || next === '"');
      if (this.i < this.text.length && (c === "'" || c === '"' || prefixed)) out += this.string();
      else {
        this.i = before;
        return out;
      }
    }
  }

  private string(): string {
    const { text } = this;
    const begin = this.i;
    let raw = false;
    if (text[this.i] !== "'" && text[this.i] !== '"') {
      raw = text[this.i] === 'r' || text[this.i] === 'R';
      this.i++;
    }
    const quote = text[this.i]!;
    const triple = text.startsWith(quote.repeat(3), this.i);
    this.i += triple ? 3 : 1;
    let out = '';
    let run = this.i;
    // Newlines are allowed in a one-quote string too (Python forbids them): models write them.
    for (;;) {
      if (this.i >= this.text.length) this.fail(`a closing ${triple ? quote.repeat(3) : quote} for the string that starts at position ${begin + 1}`);
      const c = text[this.i]!;
      if (c === quote && (!triple || text.startsWith(quote.repeat(3), this.i))) {
        out += text.slice(run, this.i);
        this.i += triple ? 3 : 1;
        return out;
      }
      if (c !== '\\') {
        this.i++;
        continue;
      }
      if (this.i + 1 >= text.length) this.fail(`a closing ${triple ? quote.repeat(3) : quote} for the string that starts at position ${begin + 1}`);
      if (raw) {
        // A raw string keeps every backslash; `\'` still does not close it.
        this.i += 2;
        continue;
      }
      out += text.slice(run, this.i);
      out += this.escape();
      run = this.i;
    }
  }

  /** The escape at `this.i` (a backslash), with Python's rules; moves past it. */
  private escape(): string {
    const { text } = this;
    const at = this.i;
    const c = text[at + 1]!;
    this.i += 2;
    const simple = SIMPLE_ESCAPES[c];
    if (simple !== undefined) return simple;
    if (c === '\n') return '';
    if (c === '\r') {
      if (text[this.i] === '\n') this.i++;
      return '';
    }
    if (isOctal(c)) {
      let end = at + 2;
      while (end < at + 4 && isOctal(text[end])) end++;
      this.i = end;
      return String.fromCharCode(parseInt(text.slice(at + 1, end), 8));
    }
    const width = c === 'x' ? 2 : c === 'u' ? 4 : c === 'U' ? 8 : 0;
    if (width > 0) {
      const digits = text.slice(this.i, Math.min(this.i + width, this.text.length));
      if (digits.length !== width || !HEX_DIGITS.test(digits)) this.fail(`${width} hex digits after \\${c}`, at);
      const code = parseInt(digits, 16);
      if (code > 0x10ffff) this.fail(`a code point up to \\U0010ffff`, at);
      this.i += width;
      return String.fromCodePoint(code);
    }
    if (c === 'N') this.fail('an escape other than \\N{…} (named characters are not supported)', at);
    // Python keeps an unknown escape as it is written, backslash included.
    return `\\${c}`;
  }

  private number(negative: boolean): number {
    const { text } = this;
    const at = this.i;
    let match: RegExpExecArray | null = null;
    for (const pattern of [HEX_INT, OCT_INT, BIN_INT, DECIMAL]) {
      pattern.lastIndex = at;
      match = pattern.exec(text);
      if (match) break;
    }
    const written = match![0];
    this.i = at + written.length;
    if (this.i < this.text.length && (NAME_CHAR.test(text[this.i]!) || text[this.i] === '.')) this.fail('the end of the number');
    const digits = written.replaceAll('_', '');
    const integer = !/[.eE]/.test(digits) || /^0[xXoObB]/.test(digits);
    if (integer && /^0+[1-9]/.test(digits)) this.fail('a decimal integer without leading zeros', at);
    const value = Number(digits);
    // Python's integer zero has no sign (`-0` is 0); its float zero has one (`-0.0`).
    return negative ? (integer && value === 0 ? 0 : -value) : value;
  }

  private fail(expected: string, at = this.i): never {
    const found = at >= this.text.length ? 'the end of the text' : JSON.stringify(this.text.slice(at, at + 12));
    const position = at + 1;
    throw new TotError('INVALID_FORMAT', `parsePythonLiteral: at position ${position}: expected ${expected}, found ${found}.`, {
      details: { reply: this.whole },
    });
  }
}

/**
 * Reads a Python literal — what `repr` writes and `ast.literal_eval` reads — into a JSON value:
 * dicts, lists, tuples (as arrays), strings with Python's quotes and escapes (an unknown escape
 * such as `\d` keeps its backslash), numbers, `True`/`False`/`None` (and JSON's `true`/`false`/
 * `null`), with `#` comments. Models asked for JSON often answer with a Python dict instead.
 *
 * It drops one markdown code fence around the text, and when the text is not a literal, it reads
 * the first balanced `{…}` in it (models write prose around their dict). A one-quote string may
 * span lines (Python forbids that; models do it). A dict's number keys become their JavaScript
 * string form.
 *
 * @throws `INVALID_FORMAT` saying where (the 1-based position in `text`) and what was expected.
 *
 * @example
 * ```ts
 * import { parsePythonLiteral } from '@tot/core/deliberation';
 *
 * parsePythonLiteral(`{'Supported Side': 'Negative', 'Reason': "the negative side's argument wins", 'score': (1, 2.5), 'done': True}`);
 * // { 'Supported Side': 'Negative', Reason: "the negative side's argument wins", score: [1, 2.5], done: true }
 * ```
 */
export function parsePythonLiteral(text: string): unknown {
  let failure: unknown;
  for (const span of literalSpans(text)) {
    try {
      return new Parser(text, span).document();
    } catch (error) {
      if (!TotError.isInstance(error)) throw error;
      failure = error;
    }
  }
  throw failure;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads the object in a model's reply, written as JSON or as a Python dict. Each place
 * {@link parsePythonLiteral} would look (the whole text, then the first `{…}` in it) is read
 * with `JSON.parse` first (the fast path, and JSON's own reading of JSON: `\/` is `/` there),
 * then as a Python literal; the first object found is the answer.
 *
 * @throws `INVALID_FORMAT` when no object is found: the text is another value (a list, a string),
 * or it cannot be read (the error of the last reading, with its position).
 *
 * @example
 * ```ts
 * import { parseLooseObject } from '@tot/core/deliberation';
 *
 * parseLooseObject(`Here is my verdict: {'Whether there is a preference': 'Yes', 'Supported Side': 'Negative'}`);
 * // { 'Whether there is a preference': 'Yes', 'Supported Side': 'Negative' }
 * ```
 */
export function parseLooseObject(text: string): Record<string, unknown> {
  let failure: unknown;
  let other: { value: unknown } | undefined;
  for (const span of literalSpans(text)) {
    let value: unknown;
    try {
      value = JSON.parse(text.slice(span.start, span.end));
    } catch {
      try {
        value = new Parser(text, span).document();
      } catch (error) {
        if (!TotError.isInstance(error)) throw error;
        failure = error;
        continue;
      }
    }
    if (isPlainObject(value)) return value;
    other ??= { value };
  }
  if (!other) throw failure;
  const { value } = other;
  const kind = Array.isArray(value) ? 'a list' : value === null ? 'None' : `a ${typeof value}`;
  throw new TotError('INVALID_FORMAT', `parseLooseObject: expected an object (a dict), got ${kind}.`, { details: { reply: text, value } });
}
