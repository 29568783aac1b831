import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { documentedAnswers, hostileInputs, storeAnswers } from '../../bench/store-hostile-inputs.js';

// The table of docs/event-store.md is rendered from a run of bench/store-hostile-inputs.ts against
// all three stores; this keeps the stores to it (PostgreSQL too when a server is configured).
describe('the hostile inputs of docs/event-store.md', () => {
  it('has one row for each input', () => {
    const documented = documentedAnswers(readFileSync(new URL('../../docs/event-store.md', import.meta.url), 'utf8'));
    expect([...documented.keys()]).toEqual(hostileInputs.map((input) => `${input.group} / ${input.input}`));
  });

  it('gets the answer the table gives from every store', async () => {
    const documented = documentedAnswers(readFileSync(new URL('../../docs/event-store.md', import.meta.url), 'utf8'));
    const { stores, answers } = await storeAnswers(fileURLToPath(new URL('../../src/', import.meta.url)));
    const wrong: string[] = [];
    hostileInputs.forEach((input, i) => {
      const expected = documented.get(`${input.group} / ${input.input}`);
      stores.forEach((store, j) => {
        if (answers[i]![j] !== expected) wrong.push(`${store}, ${input.group} ${input.input}: ${answers[i]![j]} (the table: ${expected})`);
      });
    });
    expect(wrong).toEqual([]);
  }, 120_000);
});
