import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleFixture } from '../helpers/bundle-fixture.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const recording = fileURLToPath(new URL('../../../shared/data/got-reference/example_prompts_sorting_032.md', import.meta.url));
if (!existsSync(recording)) console.warn(`[graph-of-thoughts example] replay skipped: no recording at ${recording}`);
// The example bundled with its sources, run under plain node: tsx would compile them on every start.
let example = '';
beforeAll(async () => {
  example = await bundleFixture('examples/graph-of-thoughts/main.ts');
}, 120_000);
const run = (...args: string[]) => execFileSync(process.execPath, [example, ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, OPENAI_API_KEY: '', OPENAI_BASE_URL: '' } });

describe('examples/graph-of-thoughts', () => {
  it('sorts 32 digits on the simulated model through the paper\'s graph, printing each kept thought', () => {
    const out = run('--list', '[9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 5, 5]');
    expect(out).toContain('Simulated model');
    for (const op of ['best-1', 'best-2', 'best-merge', 'best-improve']) expect(out).toContain(`  ${op}`);
    expect(out).toContain('Result: [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 5, 5, 6, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9, 9] — correctly sorted (completed)');
    expect(out).toContain('5 model calls, 69 thoughts');
  }, 60_000);

  it.runIf(existsSync(recording))('replays the recorded sorting run and says it ended as recorded', () => {
    const out = run('--replay', recording);
    expect(out).toContain('ok   keep the best of step 3: the list step 4 improved');
    expect(out).toContain('Replayed: 5 calls, 69 thoughts, final result as recorded.');
  }, 60_000);
});
