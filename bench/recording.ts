/**
 * What recording a run costs: the Game of 24 replay (Explorer, 100 puzzles, one model call per
 * generation and per candidate evaluated) recorded into an InMemoryEventStore, against the same
 * replay unrecorded, interleaved, medians of the repeats.
 *
 * - `zeroMs`: every call through the testing kit's 0 ms model, `withLatency(model, 0)`: answered on
 *   the next timer turn, as a provider answers on a later I/O turn. Target (issue #9): recorded
 *   ≤ 1.15 × the unrecorded wall time.
 * - `sameTurn`: a model that answers in the same turn, so that nothing but CPU is measured: what
 *   writing every event (JSON, the store's checks and index) costs against the search itself.
 */
import { parseArgs } from 'node:util';
import { bfs, Explorer, InMemoryEventStore, ThoughtTree, type LanguageModel } from '../src/index.js';
import { withLatency } from '../src/testing/index.js';
import { loadReplayLog, replayEvaluator, replayGenerator, type ReplayPuzzle } from '../examples/game24/replay.js';
import { benchDir, figure, median, passRounds, pooled, report, ROUNDS } from './harness.js';

const { values } = parseArgs({ options: { log: { type: 'string' }, repeats: { type: 'string', default: String(ROUNDS) } } });
const log = loadReplayLog(values.log ?? `${benchDir}/fixtures/game24-gpt4-bfs.json`);
const repeats = Number(values.repeats);

const sameTurn: LanguageModel = { modelId: 'same-turn', generate: async () => ({ outputs: [''], usage: {} }) };
const zeroMs = withLatency(sameTurn, 0);

async function replay(puzzles: ReplayPuzzle[], transport: LanguageModel, record: boolean): Promise<{ ms: number; events: number }> {
  const store = record ? new InMemoryEventStore() : undefined;
  const started = performance.now();
  for (const puzzle of puzzles) {
    const explorer = new Explorer({
      generator: replayGenerator(puzzle, { transport }),
      evaluator: replayEvaluator(puzzle, { transport }),
      strategy: bfs({ beamWidth: 5 }),
      maxDepth: puzzle.steps.length,
      branchingFactor: 1000,
      pruningThreshold: 0,
    });
    await explorer.run(new ThoughtTree({ problem: puzzle.steps[0]!.x, taskId: `puzzle-${puzzle.idx}` }), store ? { store, runId: `puzzle-${puzzle.idx}` } : {});
  }
  const ms = performance.now() - started;
  let events = 0;
  if (store) for await (const _ of store.readAll()) events += 1;
  return { ms, events };
}

async function compare(name: string, transport: LanguageModel) {
  await replay(log, transport, false);
  await replay(log, transport, true);
  const pairs: { plain: number; recorded: number }[] = [];
  let events = 0;
  // This pass's share of the repeats (bench/run.ts runs the list in passes); the figures are of every pass's.
  for (const _ of passRounds(repeats)) {
    const plain = (await replay(log, transport, false)).ms;
    const r = await replay(log, transport, true);
    pairs.push({ plain, recorded: r.ms });
    events = r.events;
  }
  const all = pooled(name, pairs);
  const plain = all.map((p) => p.plain);
  const recorded = all.map((p) => p.recorded);
  // The ratio of the medians (the target's figure), and the per-round ratios with their range.
  return { eventsRecorded: events, unrecordedMs: figure(plain, 1), recordedMs: figure(recorded, 1), ratio: Math.round((median(recorded) / median(plain)) * 1000) / 1000, ratioPerRound: figure(recorded.map((r, i) => r / plain[i]!), 3) };
}

report('recording', {
  puzzles: log.length,
  repeats,
  store: 'InMemoryEventStore',
  zeroMs: { ...(await compare('zeroMs', zeroMs)), target: 1.15 },
  sameTurn: await compare('sameTurn', sameTurn),
});
