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
 * Whether the JSON text `text` nests deeper than `limit`, counting brackets outside strings in
 * one pass. Exact for valid JSON and an upper bound for anything else.
 */
export function jsonNestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if ((c === 0x7d || c === 0x5d) && depth > 0) depth--;
  }
  return false;
}
