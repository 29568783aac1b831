/**
 * Reproduces a recorded Tree-of-Thoughts Game of 24 run with this library's Explorer (BFS, beam 5,
 * depth = the log's steps): the replay generator serves the logged proposals and the replay
 * evaluator the logged values, and at every step of every puzzle the states the Explorer selects
 * must equal the log's `select_new_ys`, in order. Runs twice: as recorded, and with state dedup
 * (remaining numbers).
 *
 * Then measures the framework's CPU time per tree node on the same replay with every role call
 * made through a 0 ms model (one call per generation and one per candidate evaluated, as the
 * reference makes one propose request per parent and one value request per state): the process's
 * CPU time over the whole replay, divided by the tree nodes created. Target (issue #9): ≤ 10 µs.
 *
 * npm run bench:game24 -- [--log <path>] [--repeats <n>]   (default: bench/fixtures/game24-gpt4-bfs.json, 15)
 */
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadReplayLog, type ReplayPuzzle } from '../examples/game24/replay.js';
import { replayAll } from '../examples/game24/reproduce.js';
import type { LanguageModel } from '../src/index.js';
import { benchDir, median, report } from './harness.js';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { log: { type: 'string' }, repeats: { type: 'string', default: '15' } } });
  const path = values.log ?? `${benchDir}/fixtures/game24-gpt4-bfs.json`;
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
  const cpu = await cpuPerNode(log, Number(values.repeats));
  report('game24-replay', {
    log: relative(process.cwd(), path),
    cpu,
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


/** A model that answers at once: the replay's roles call it for the latency and the bookkeeping of a call. */
const zeroMs: LanguageModel = { modelId: 'zero-ms', generate: async () => ({ outputs: [''], usage: {} }) };

/** Tree nodes a replay of the log creates: every root and every proposed state. */
const nodesOf = (log: ReplayPuzzle[]) => log.reduce((sum, p) => sum + 1 + p.steps.reduce((s, step) => s + step.new_ys.length, 0), 0);

async function cpuPerNode(log: ReplayPuzzle[], repeats: number) {
  const nodes = nodesOf(log);
  const measure = async (transport: LanguageModel | undefined) => {
    const started = process.cpuUsage();
    const wall = performance.now();
    await replayAll(log, transport ? { transport } : {});
    const used = process.cpuUsage(started);
    return { cpu: (used.user + used.system) / nodes, wall: ((performance.now() - wall) * 1000) / nodes };
  };
  // Warm-up: the JIT settles over the first replays.
  for (let i = 0; i < 5; i++) await measure(zeroMs);
  const withModel: { cpu: number; wall: number }[] = [];
  const withoutModel: { cpu: number; wall: number }[] = [];
  // Interleaved, so that both see the same state of a shared machine.
  for (let i = 0; i < repeats; i++) {
    withModel.push(await measure(zeroMs));
    withoutModel.push(await measure(undefined));
  }
  const round = (x: number) => Math.round(x * 100) / 100;
  return {
    nodes,
    repeats,
    model: '0 ms',
    medianCpuMicrosPerNode: round(median(withModel.map((r) => r.cpu))),
    medianWallMicrosPerNode: round(median(withModel.map((r) => r.wall))),
    runsCpuMicrosPerNode: withModel.map((r) => round(r.cpu)),
    withoutModelCalls: { medianCpuMicrosPerNode: round(median(withoutModel.map((r) => r.cpu))) },
    target: { cpuMicrosPerNode: 10 },
  };
}

await main();
