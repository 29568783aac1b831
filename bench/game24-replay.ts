/**
 * Reproduces a recorded Tree-of-Thoughts Game of 24 run with this library's Explorer (BFS, beam 5,
 * depth 4): the replay generator serves the logged proposals and the replay evaluator the logged
 * values, and at every step of every puzzle the states the Explorer selects must equal the log's
 * `select_new_ys`, in order. Runs twice: as recorded, and with state dedup (remaining numbers).
 *
 * npm run bench:game24 -- [--log <path>]   (default: bench/fixtures/game24-gpt4-bfs.json)
 */
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadReplayLog } from '../examples/game24/replay.js';
import { replayAll } from '../examples/game24/reproduce.js';
import { report } from './harness.js';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { log: { type: 'string' } } });
  const path = values.log ?? fileURLToPath(new URL('./fixtures/game24-gpt4-bfs.json', import.meta.url));
  const log = loadReplayLog(path);
  const plain = await replayAll(log);
  const dedup = await replayAll(log, { dedup: true });
  let changedSteps = 0;
  plain.selections.forEach((puzzle, p) => puzzle.forEach((states, s) => {
    const other = dedup.selections[p]?.[s] ?? [];
    if (states.length !== other.length || states.some((x, i) => x !== other[i])) changedSteps += 1;
  }));
  const { selections: _a, ...asRecorded } = plain;
  const { selections: _b, ...withDedup } = dedup;
  report('game24-replay', {
    log: relative(process.cwd(), path),
    ...asRecorded,
    dedup: {
      stateKey: 'remaining numbers',
      ...withDedup,
      evaluationsSaved: withDedup.dedupedStates,
      stepsWithChangedSelection: changedSteps,
      solvedChange: withDedup.solved - asRecorded.solved,
    },
  });
}

await main();
