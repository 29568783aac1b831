import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLooseObject, parsePythonLiteral } from '../../src/deliberation/python-literal.js';
import { TotError } from '../../src/index.js';

/** The error `fn` throws, which must be a TotError. */
function errorOf(fn: () => unknown): TotError {
  try {
    fn();
  } catch (error) {
    if (TotError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a throw');
}

// A made-up moderator reply in the shape GPT models write them (a Python dict, not JSON): single-
// quoted keys, a double-quoted value holding escaped double quotes and a bare apostrophe, an
// escaped apostrophe inside single quotes, and an escape Python does not know (\d), kept as written.
const MODERATOR_REPLY = String.raw`{'Whether there is a preference': 'Yes', 'Supported Side': 'Affirmative', 'Reason': "Both sides call \"windfall\" the key word; the affirmative side's version keeps the fable's irony, and \d is no escape.", 'Correct Translation': 'Don\'t wait by the stump for another hare.'}`;

describe('parsePythonLiteral', () => {
  it('reads a moderator reply written as a Python dict', () => {
    expect(parsePythonLiteral(MODERATOR_REPLY)).toEqual({
      'Whether there is a preference': 'Yes',
      'Supported Side': 'Affirmative',
      Reason: 'Both sides call "windfall" the key word; the affirmative side\'s version keeps the fable\'s irony, and \\d is no escape.',
      'Correct Translation': "Don't wait by the stump for another hare.",
    });
  });

  it('reads nested dicts and lists', () => {
    expect(parsePythonLiteral("{'a': {'b': [1, [2, {'c': []}]], 'd': {}}, 'e': [{'f': 'g'}]}")).toEqual({ a: { b: [1, [2, { c: [] }]], d: {} }, e: [{ f: 'g' }] });
  });

  it('reads True, False and None, and JSON\'s true, false and null', () => {
    expect(parsePythonLiteral('[True, False, None, true, false, null]')).toEqual([true, false, null, true, false, null]);
  });

  it('reads tuples as arrays, and a parenthesised value without a comma as the value', () => {
    expect(parsePythonLiteral("{'t': (1, 'a'), 'one': (2,), 'empty': (), 'plain': (3)}")).toEqual({ t: [1, 'a'], one: [2], empty: [], plain: 3 });
  });

  it('reads Python numbers: signs, exponents, underscores, hex, octal and binary', () => {
    expect(parsePythonLiteral('[-1, +2, 1_000, 1.5e-3, -2.5E2, .5, 3., 0x_ff, 0o17, 0b101]')).toEqual([-1, 2, 1000, 0.0015, -250, 0.5, 3, 255, 15, 5]);
  });

  it('accepts a trailing comma in dicts, lists and tuples', () => {
    expect(parsePythonLiteral("{'a': [1, 2,], 'b': (3, 4,),}")).toEqual({ a: [1, 2], b: [3, 4] });
  });

  it('skips whitespace and # comments', () => {
    expect(parsePythonLiteral("{\n  'a': 1,  # the first\n  'b': 2,\n}")).toEqual({ a: 1, b: 2 });
  });

  describe('strings', () => {
    it('takes double quotes inside a single-quoted string as they are', () => {
      expect(parsePythonLiteral(`'say "hi"'`)).toBe('say "hi"');
    });

    it('reads \\\' inside single quotes as a quote', () => {
      expect(parsePythonLiteral("'the negative side\\'s turn'")).toBe("the negative side's turn");
    });

    it('reads Python\'s escapes', () => {
      expect(parsePythonLiteral(String.raw`'\\ \' \" \n \t \r \b \f \v \0 \a'`)).toBe('\\ \' " \n \t \r \b \f \v \0 \x07');
    });

    it('reads \\x, \\u and \\U escapes, and octal ones', () => {
      expect(parsePythonLiteral(String.raw`'\x41\u00e9\U0001F600\101\7'`)).toBe('Aé😀A\x07');
    });

    it('keeps the backslash of an unknown escape such as \\d, as Python does', () => {
      expect(parsePythonLiteral(String.raw`'\d+\_x'`)).toBe('\\d+\\_x');
    });

    it('drops a backslash-newline inside a string', () => {
      expect(parsePythonLiteral("'one \\\ntwo'")).toBe('one two');
    });

    it('reads triple-quoted strings, with quotes and newlines inside', () => {
      expect(parsePythonLiteral(`'''it's\n"fine"'''`)).toBe(`it's\n"fine"`);
      expect(parsePythonLiteral(`"""a ""quoted"" b"""`)).toBe('a ""quoted"" b');
    });

    it('concatenates adjacent string literals', () => {
      expect(parsePythonLiteral(`{'a': 'one ' "two "\n  'three'}`)).toEqual({ a: 'one two three' });
    });

    it('keeps every backslash in a raw string', () => {
      expect(parsePythonLiteral(String.raw`r'\n\'x'`)).toBe(String.raw`\n\'x`);
    });
  });

  describe('the text around the literal', () => {
    it('takes the first balanced dict out of prose around it', () => {
      expect(parsePythonLiteral("Here's my verdict: {'Supported Side': 'Affirmative', 'note': 'a } in a string'} Hope it helps {'x': 1}")).toEqual({
        'Supported Side': 'Affirmative',
        note: 'a } in a string',
      });
    });

    it('takes a dict out of the prose after it', () => {
      expect(parsePythonLiteral("{'a': 1}\n\nI chose this because {reasons}.")).toEqual({ a: 1 });
    });

    it('reads a text that is a literal as a whole, braces inside a string included', () => {
      expect(parsePythonLiteral("'a {b} c'")).toBe('a {b} c');
    });

    it('strips a markdown code fence', () => {
      expect(parsePythonLiteral("```python\n{'a': 1}\n```")).toEqual({ a: 1 });
    });
  });

  describe('errors', () => {
    it('reports an unterminated string as INVALID_FORMAT with its position', () => {
      const error = errorOf(() => parsePythonLiteral("{'a': 'abc"));
      expect(error.code).toBe('INVALID_FORMAT');
      expect(error.message).toBe("parsePythonLiteral: at position 11: expected a closing ' for the string that starts at position 7, found the end of the text.");
    });

    it('counts the position in the whole text, prose included', () => {
      expect(errorOf(() => parsePythonLiteral("Verdict: {'a' 1}")).message).toBe(`parsePythonLiteral: at position 15: expected ':' after the key, found "1}".`);
    });

    it('names what was expected after a value in a list', () => {
      expect(errorOf(() => parsePythonLiteral('[1 2]')).message).toContain("at position 4: expected ',' or ']'");
    });

    it('rejects names other than True, False and None', () => {
      expect(errorOf(() => parsePythonLiteral("{'a': undefined}")).message).toContain('at position 7: expected a value (True, False and None are the only names');
    });

    it('rejects text after the literal', () => {
      expect(errorOf(() => parsePythonLiteral('[1] [2]')).message).toContain('at position 5: expected the end of the literal');
    });

    it('rejects a truncated \\x escape and a named \\N escape', () => {
      expect(errorOf(() => parsePythonLiteral(String.raw`'\x4'`)).message).toContain('expected 2 hex digits after \\x');
      expect(errorOf(() => parsePythonLiteral(String.raw`'\N{BULLET}'`)).code).toBe('INVALID_FORMAT');
    });

    it('rejects nesting deeper than 128 levels rather than overflowing the stack', () => {
      expect(errorOf(() => parsePythonLiteral('['.repeat(10_000))).message).toContain('at most 128 levels of nesting');
    });
  });

  it('reads any JSON text as JSON.parse does (any code points, lone surrogates included)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'binary' }), (value) => {
        const text = JSON.stringify(value);
        // Compared with JSON's own reading, not `value`: JSON writes -0 as 0.
        expect(parsePythonLiteral(text)).toEqual(JSON.parse(text));
      }),
    );
  });
});

describe('parseLooseObject', () => {
  it('reads JSON', () => {
    expect(parseLooseObject('{"a": [1, true, null]}')).toEqual({ a: [1, true, null] });
  });

  it('reads a Python dict when the text is not JSON', () => {
    expect(parseLooseObject(MODERATOR_REPLY)['Supported Side']).toBe('Affirmative');
  });

  it('reads JSON out of prose and a code fence', () => {
    expect(parseLooseObject('Sure:\n```json\n{"a": 1}\n```')).toEqual({ a: 1 });
    expect(parseLooseObject('My answer is {"a": 1}, final.')).toEqual({ a: 1 });
  });

  it('reads the dict inside a reply that quotes it as a string', () => {
    expect(parseLooseObject(`"{'a': 1}"`)).toEqual({ a: 1 });
  });

  it('rejects a value that is not an object', () => {
    expect(errorOf(() => parseLooseObject('[1, 2]')).message).toBe('parseLooseObject: expected an object (a dict), got a list.');
    expect(errorOf(() => parseLooseObject('None')).code).toBe('INVALID_FORMAT');
  });

  it('reports the Python parser\'s error when neither reading works', () => {
    expect(errorOf(() => parseLooseObject("{'a': 'abc")).message).toContain('at position 11');
  });
});
