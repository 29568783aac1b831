// How the doc test reads a markdown file: which fences are blocks, and what a marker asks for.
import { describe, expect, it } from 'vitest';
import { DocMarkerError, docBlocks } from '../../scripts/doc-blocks.js';

const md = (...lines: string[]) => lines.join('\n');

describe('docBlocks', () => {
  it('takes ts and typescript fences, with the line of the opening fence, and leaves other languages out', () => {
    const blocks = docBlocks('a.md', md('# A', '```ts', 'const a = 1;', '```', '```sh', 'npm i', '```', '```typescript', 'const b = 2;', '```'));
    expect(blocks.map((b) => [b.line, b.mode, b.code])).toEqual([
      [2, 'check', 'const a = 1;\n'],
      [8, 'check', 'const b = 2;\n'],
    ]);
  });

  it('marks a block run when the line before its fence is <!-- doctest: run -->', () => {
    expect(docBlocks('a.md', md('<!-- doctest: run -->', '```ts', 'console.log(1);', '```'))[0]!.mode).toBe('run');
  });

  it('skips a block with the reason its marker gives', () => {
    const [block] = docBlocks('a.md', md('<!-- doctest: skip (a sketch of a store: MyStore is yours) -->', '```ts', 'new MyStore();', '```'));
    expect([block!.mode, block!.reason]).toEqual(['skip', 'a sketch of a store: MyStore is yours']);
  });

  it('refuses a skip without a reason, naming the file and line', () => {
    expect(() => docBlocks('docs/x.md', md('', '<!-- doctest: skip -->', '```ts', 'x;', '```'))).toThrow(new DocMarkerError('docs/x.md:3: a doctest skip needs its reason: <!-- doctest: skip (why) -->'));
  });

  it('refuses a marker it does not know', () => {
    expect(() => docBlocks('a.md', md('<!-- doctest: runn -->', '```ts', 'x;', '```'))).toThrow(DocMarkerError);
  });

  it('does not take a ts fence shown inside a longer fence for a block', () => {
    expect(docBlocks('a.md', md('````md', '```ts', 'shown, not run', '```', '````'))).toEqual([]);
  });
});
