import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bfs } from '../../src/index.js';
import { loadReplayLog } from '../../examples/game24/replay.js';
import { replayAll } from '../../examples/game24/reproduce.js';

const log = loadReplayLog(fileURLToPath(new URL('../../bench/fixtures/game24-gpt4-bfs.json', import.meta.url)));

describe('the recorded GPT-4 Tree-of-Thoughts run, replayed through Explorer', () => {
  it('selects exactly the logged states at every step of all 100 puzzles and solves 69', async () => {
    const figures = await replayAll(log);
    expect(figures).toMatchObject({ puzzles: 100, solved: 69, stepMismatches: 0, generatorCalls: 1600, evaluatorCalls: 400, dedupedStates: 0 });
  }, 60_000);

  it('notices a different selection rule (the check can fail)', async () => {
    const figures = await replayAll(log.slice(0, 10), { strategy: bfs({ beamWidth: 5, selection: 'sample' }) });
    expect(figures.stepMismatches).toBeGreaterThan(0);
  });

  it('notices a narrower beam (the check can fail)', async () => {
    const figures = await replayAll(log.slice(0, 10), { strategy: bfs({ beamWidth: 4 }) });
    expect(figures.stepMismatches).toBeGreaterThan(0);
  });

  it('saves evaluations with state dedup', async () => {
    const figures = await replayAll(log.slice(0, 10), { dedup: true });
    expect(figures.dedupedStates).toBeGreaterThan(0);
  });
});
