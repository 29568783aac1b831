import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { missingExamples, programOf } from './tsdoc-coverage.js';

const path = (p: string) => fileURLToPath(new URL(p, import.meta.url));

// Every entry point of the package, read from its exports: the root and each subpath ('./search'
// is src/search/index.ts), so that a subpath added later is checked without a change here.
const pkg = JSON.parse(readFileSync(path('../../package.json'), 'utf8')) as { exports: Record<string, unknown> };
const entries = Object.keys(pkg.exports)
  .filter((key) => key !== './package.json')
  .map((key) => [key === '.' ? '@tot/core' : `@tot/core/${key.slice(2)}`, path(key === '.' ? '../../src/index.ts' : `../../src/${key.slice(2)}/index.ts`)] as const);

const fixture = path('./fixtures/partly-documented.ts');
let program: ReturnType<typeof programOf> | undefined;
const shared = () => (program ??= programOf([fixture, ...entries.map(([, file]) => file)]));

describe('TSDoc coverage', () => {
  it('finds every export without an @example (checked on a fixture)', () => {
    expect(missingExamples(fixture, shared())).toEqual(['Widget.bare', 'noExample', 'undocumentedConst']);
  }, 60_000);

  it('reads every entry point from the package exports, the root and the runners among them', () => {
    expect(entries.map(([name]) => name)).toEqual(expect.arrayContaining(['@tot/core', '@tot/core/testing', '@tot/core/search', '@tot/core/sessions', '@tot/core/mcp']));
  });

  it.each(entries)('every export of %s has TSDoc with an @example', (_name, entry) => {
    expect(missingExamples(entry, shared())).toEqual([]);
  }, 60_000);
});
