import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDocument, stringify } from 'yaml';
import { seededRandom } from '../../src/index.js';
import { parseSimpleYaml } from '../../src/structured/simple-yaml.js';

// The fast reader must give exactly what the yaml package gives, or step aside (undefined).
function agreesWithYaml(text: string): boolean {
  const fast = parseSimpleYaml(text);
  if (fast === undefined) return false;
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: false });
  expect(doc.errors.map((e) => e.message), `yaml rejects what the fast reader took:\n${text}`).toEqual([]);
  expect(fast.value, `different values for:\n${text}`).toEqual(doc.toJS({ maxAliasCount: 100 }));
  return true;
}

const tricky = fc.constantFrom(...'ab :#-"\'\\10.ex~[]{},?!&*|>%@`é\u00a0/untr+_<='.split(''));
const words = fc.constantFrom('true', 'True', 'FALSE', 'null', 'Null', '~', 'yes', 'no', '0', '-0', '007', '1.5', '1.', '.5', '1e3', '0x1F', '0o17', '.inf', '-.inf', '.nan', '-', '--', '3 apples', '10 - 4 = 6', 'Done', 'Pending', 'a: b', 'x #y', 'x#y', 'http://x.y', 'note:', 'b:c:', 'x :', '');
const text = fc.oneof(fc.string({ unit: tricky, maxLength: 10 }), words, fc.string({ maxLength: 6 }));
const key = fc.oneof(fc.constantFrom('description', 'status', 'result', 'sub_steps', 'planning', 'a', 'b', 'x-y', '_k', 'true', 'null', '__proto__', 'constructor'), fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_-]{0,5}$/));
const scalar = fc.oneof(text, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null));
const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(key, tie('value'), { maxKeys: 4 })),
}));
const document = fc.oneof(fc.dictionary(key, value, { minKeys: 1, maxKeys: 5 }), fc.array(value, { minLength: 1, maxLength: 4 }));

/** Writes YAML the way models do, with a different habit at every choice. */
function modelStyle(v: unknown, pick: () => number): string {
  const width = pick() < 0.5 ? 2 : 4;
  const compact = pick() < 0.5;
  const pad = () => (pick() < 0.1 ? ' ' : '');
  const blank = () => (pick() < 0.05 ? '\n' : '');
  const scalarText = (s: unknown): string => {
    const style = pick();
    if (typeof s === 'string' && style < 0.3) return JSON.stringify(s);
    if (typeof s === 'string' && style < 0.45) return `'${s.replaceAll("'", "''")}'`;
    return String(s);
  };
  const isBlock = (x: unknown) => typeof x === 'object' && x !== null && (Array.isArray(x) ? x.length > 0 : Object.keys(x).length > 0);
  const lines = (x: unknown, indent: number): string[] => {
    const sp = ' '.repeat(indent);
    if (Array.isArray(x)) {
      return x.flatMap((item) => {
        if (!isBlock(item)) return [`${sp}-${pick() < 0.9 ? ' ' : '  '}${Array.isArray(item) ? '[]' : item !== null && typeof item === 'object' ? '{}' : scalarText(item)}${pad()}${blank()}`];
        const inner = lines(item, indent + width);
        if (!Array.isArray(item) && pick() < 0.7) return [`${sp}- ${inner[0]!.trimStart()}`, ...inner.slice(1)];
        return [`${sp}-`, ...inner];
      });
    }
    return Object.entries(x as Record<string, unknown>).flatMap(([k, item]) => {
      if (!isBlock(item)) return [`${sp}${k}: ${Array.isArray(item) ? '[]' : item !== null && typeof item === 'object' ? '{}' : scalarText(item)}${pad()}${blank()}`];
      const nestedIndent = Array.isArray(item) && compact ? indent : indent + width;
      return [`${sp}${k}:${pad()}`, ...lines(item, nestedIndent)];
    });
  };
  return lines(v, 0).join('\n');
}

const edit = fc.record({ at: fc.nat(), kind: fc.constantFrom('insert', 'delete', 'indent', 'duplicate'), char: fc.oneof(tricky, fc.constantFrom('\n', '\t', '\r', ' ', '- ')) });
function mangle(source: string, edits: { at: number; kind: string; char: string }[]): string {
  let s = source;
  for (const e of edits) {
    const at = s.length === 0 ? 0 : e.at % s.length;
    if (e.kind === 'insert') s = s.slice(0, at) + e.char + s.slice(at);
    else if (e.kind === 'delete') s = s.slice(0, at) + s.slice(at + 1);
    else {
      const lines = s.split('\n');
      const n = at % lines.length;
      if (e.kind === 'indent') lines[n] = ` ${lines[n]}`;
      else lines.splice(n, 0, lines[n]!);
      s = lines.join('\n');
    }
  }
  return s;
}

describe('parseSimpleYaml', () => {
  // The documents are full of awkward strings on purpose, so the reader takes only a share of
  // them (about a fifth); the floors check that both of its branches are exercised.
  it('agrees with the yaml package on what the yaml package writes, and reads a share of it', () => {
    let read = 0;
    fc.assert(fc.property(document, (v) => void (agreesWithYaml(stringify(v)) && (read += 1))), { numRuns: 3_000 });
    expect(read).toBeGreaterThan(300);
  });

  it('agrees with the yaml package on YAML written in the habits of models (quoting, compact lists, spacing)', () => {
    let read = 0;
    fc.assert(fc.property(document, fc.integer(), (v, seed) => void (agreesWithYaml(modelStyle(v, seededRandom(seed))) && (read += 1))), { numRuns: 3_000 });
    expect(read).toBeGreaterThan(300);
  });

  it('agrees with the yaml package, or steps aside, on mangled documents', () => {
    let read = 0;
    fc.assert(
      fc.property(document, fc.integer(), fc.array(edit, { minLength: 1, maxLength: 3 }), (v, seed, edits) => void (agreesWithYaml(mangle(modelStyle(v, seededRandom(seed)), edits)) && (read += 1))),
      { numRuns: 5_000 },
    );
    expect(read).toBeGreaterThan(150);
  });

  it('reads a chain-of-thought reply in the seed format, nested sub-steps included', () => {
    const reply = [
      'current_thinking: "Evaluate: the numbers 4 and 6 give 24 with 4 * 6."',
      'planning:',
      '  - description: "Understand the problem"',
      '    status: "Done"',
      '    result: "four numbers, target 24"',
      '  - description: Try products',
      '    status: Pending',
      '    sub_steps:',
      '      - description: 4 * 6',
      '        status: Verification Needed',
      '        mark: check the arithmetic',
      '  - description: "Conclusion"',
      '    status: "Pending"',
      'next_thought_needed: true',
    ].join('\n');
    expect(agreesWithYaml(reply)).toBe(true);
    expect(parseSimpleYaml(reply)!.value).toMatchObject({ next_thought_needed: true, planning: [{ status: 'Done' }, { sub_steps: [{ mark: 'check the arithmetic' }] }, {}] });
  });

  it('steps aside on what it does not read: comments, anchors, flow collections, block scalars, other number notations', () => {
    for (const text of ['a: 1 # one', 'a: &x 1\nb: *x', 'a: [1, 2]', 'a: |\n  text', 'a: 1e3', 'a: 0x1F', 'a: .5', 'a: 1\na: 2', 'a: b\n  c', '# note\na: 1', 'a:\tb', 'plain text']) {
      expect(parseSimpleYaml(text), text).toBeUndefined();
    }
  });
});
