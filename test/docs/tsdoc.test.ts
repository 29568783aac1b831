import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { missingExamples } from './tsdoc-coverage.js';

const path = (p: string) => fileURLToPath(new URL(p, import.meta.url));

describe('TSDoc coverage', () => {
  it('finds every export without an @example (checked on a fixture)', () => {
    expect(missingExamples(path('./fixtures/partly-documented.ts'))).toEqual(['Widget.bare', 'noExample', 'undocumentedConst']);
  });

  // Every entry point of the package: the root and each subpath.
  it.each([
    ['@tot/core', 'index'],
    ['@tot/core/testing', 'testing/index'],
    ['@tot/core/sqlite', 'sqlite/index'],
    ['@tot/core/postgres', 'postgres/index'],
    ['@tot/core/ai-sdk', 'ai-sdk/index'],
    ['@tot/core/openai', 'openai/index'],
    ['@tot/core/mcp', 'mcp/index'],
    ['@tot/core/viewer', 'viewer/index'],
    ['@tot/core/queue', 'queue/index'],
  ])('every export of %s has TSDoc with an @example', (_name, entry) => {
    expect(missingExamples(path(`../../src/${entry}.ts`))).toEqual([]);
  }, 60_000);
});
