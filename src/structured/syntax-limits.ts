/**
 * How deep a value in a model's reply may nest. Deeper replies are unusable (`INVALID_FORMAT`):
 * no answer a schema asks for nests this deep, and the parsers that build the value recurse
 * once per level (the `yaml` package's composer overflows the stack near 1,000 levels, and an
 * overflow there can leave V8 unable to compile a regular expression, which aborts the process).
 */
export const MAX_NESTING = 128;

/**
 * The longest YAML text the `yaml` package is given (the fast reader and JSON take any length).
 * Its parser reads a few hundred kilobytes a second on dense text, a pause can only come between
 * lexemes, and building the document from the syntax tree cannot pause at all: about 40 ms at
 * this length, 150 ms at 1 MB. No model answer that needs the full YAML grammar is this long.
 */
export const MAX_YAML_LENGTH = 262_144;

/** YAML aliases a reply may use: resolving each one walks the document, so many make it quadratic. */
export const MAX_ALIASES = 100;

/**
 * The longest model reply structured output reads by default, in characters: about 250,000
 * tokens, twice the longest answer any current model is allowed to write. A longer reply is a
 * runaway (a model repeating itself, a broken stream) and is refused unread, so that nothing,
 * however long, holds the event loop or memory for long.
 */
export const DEFAULT_MAX_REPLY_CHARS = 1_000_000;

/**
 * Characters a scan reads between two points where its caller may pause: about a tenth of a
 * millisecond of work.
 */
export const SCAN_CHUNK = 65_536;

/**
 * A step-wise computation: it yields the number of characters it read since its last yield
 * (0 at a pause point that read nothing) wherever its caller may give way to the event loop,
 * and returns its result. Run to the end in one go, it is the plain synchronous computation.
 * `Y` widens what it yields for a driver that answers more (structured output's async schemas).
 */
export type Steps<R, Y = number> = Generator<Y, R, void>;

/** Runs `steps` to the end without pausing. */
export function runSteps<R>(steps: Steps<R>): R {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** `text.indexOf(needle, from)`, read a chunk at a time. */
export function* indexOfSteps(text: string, needle: string, from = 0): Steps<number> {
  for (let start = from; start < text.length; start += SCAN_CHUNK) {
    if (text.length - start <= SCAN_CHUNK) return text.indexOf(needle, start);
    // A match that starts in this chunk and ends in the next is found here.
    const at = text.slice(start, start + SCAN_CHUNK + needle.length - 1).indexOf(needle);
    if (at !== -1) return start + at;
    yield SCAN_CHUNK;
  }
  return -1;
}

/** Whether `pattern`, which matches one character, matches anywhere in `text`, read a chunk at a time. */
export function* testSteps(text: string, pattern: RegExp): Steps<boolean> {
  if (text.length <= SCAN_CHUNK) return pattern.test(text);
  for (let start = 0; start < text.length; start += SCAN_CHUNK) {
    if (pattern.test(text.slice(start, start + SCAN_CHUNK))) return true;
    yield SCAN_CHUNK;
  }
  return false;
}

/** `text.split('\n')`, a chunk at a time. */
export function* splitLinesSteps(text: string): Steps<string[]> {
  if (text.length <= SCAN_CHUNK) return text.split('\n');
  const lines: string[] = [];
  let read = 0;
  for (let from = 0; ; ) {
    const newline = text.indexOf('\n', from);
    if (newline === -1) {
      lines.push(text.slice(from));
      return lines;
    }
    lines.push(text.slice(from, newline));
    read += newline + 1 - from;
    from = newline + 1;
    if (read >= SCAN_CHUNK) {
      yield read;
      read = 0;
    }
  }
}

/**
 * Whether the JSON text `text` nests deeper than `limit`, counting brackets outside strings in
 * one pass. Exact for valid JSON and an upper bound for anything else.
 */
export function* jsonNestsDeeperThan(text: string, limit: number): Steps<boolean> {
  let depth = 0;
  let inString = false;
  for (let chunkEnd = Math.min(text.length, SCAN_CHUNK), i = 0; ; chunkEnd = Math.min(text.length, chunkEnd + SCAN_CHUNK)) {
    for (; i < chunkEnd; i++) {
      const c = text.charCodeAt(i);
      if (inString) {
        if (c === 0x5c) i++;
        else if (c === 0x22) inString = false;
      } else if (c === 0x22) inString = true;
      else if (c === 0x7b || c === 0x5b) {
        if (++depth > limit) return true;
      } else if ((c === 0x7d || c === 0x5d) && depth > 0) depth--;
    }
    if (i >= text.length) return false;
    yield SCAN_CHUNK;
  }
}
