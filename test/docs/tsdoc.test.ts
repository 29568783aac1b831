import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { missingExamples } from './tsdoc-coverage.js';

const path = (p: string) => fileURLToPath(new URL(p, import.meta.url));

describe('TSDoc coverage', () => {
  it('finds every export without an @example (checked on a fixture)', () => {
    expect(missingExamples(path('./fixtures/partly-documented.ts'))).toEqual(['Widget.bare', 'noExample', 'undocumentedConst']);
  });

  it('every export of @tot/core has TSDoc with an @example', () => {
    expect(missingExamples(path('../../src/index.ts'))).toEqual([]);
  }, 60_000);

  it('every export of @tot/core/testing has TSDoc with an @example', () => {
    expect(missingExamples(path('../../src/testing/index.ts'))).toEqual([]);
  }, 60_000);

  it('every export of @tot/core/sqlite has TSDoc with an @example', () => {
    expect(missingExamples(path('../../src/sqlite/index.ts'))).toEqual([]);
  }, 60_000);

  it('every export of @tot/core/postgres has TSDoc with an @example', () => {
    expect(missingExamples(path('../../src/postgres/index.ts'))).toEqual([]);
  }, 60_000);

  it('every export of @tot/core/ai-sdk has TSDoc with an @example', () => {
    expect(missingExamples(path('../../src/ai-sdk/index.ts'))).toEqual([]);
  }, 60_000);

  it('every export of @tot/core/openai has TSDoc with an @example', () => {
    expect(missingExamples(path('../../src/openai/index.ts'))).toEqual([]);
  }, 60_000);
});
