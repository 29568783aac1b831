/**
 * Reproduces a recorded Tree-of-Thoughts Game of 24 run with this library's Explorer (BFS, beam 5,
 * depth 4): the replay generator serves the logged proposals and the replay evaluator the logged
 * values, and at every step of every puzzle the states the Explorer selects must equal the log's
 * `select_new_ys`, in order. Runs twice: as recorded, and with state dedup (remaining numbers).
 *
 * npm run bench:game24 -- [--log <path>]   (default: bench/fixtures/game24-gpt4-bfs.json)
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bfs, Explorer, ThoughtTree } from '../src/index.js';
import { checkAnswer } from '../examples/game24/verifier.js';
import { game24StateKey, loadReplayLog, replayEvaluator, replayGenerator, stateOf, type ReplayPuzzle } from '../examples/game24/replay.js';
import { report } from './harness.js';

interface ReplayFigures {
  puzzles: number;
  solved: number;
  stepMismatches: number;
  generatorCalls: number;
  evaluatorCalls: number;
  dedupedStates: number;
  wallMs: number;
  /** Per puzzle and step, the selected states (for comparing two runs). */
  selections: string[][][];
}

export async function replayAll(log: ReplayPuzzle[], options: { dedup?: boolean } = {}): Promise<ReplayFigures> {
  const figures: ReplayFigures = { puzzles: log.length, solved: 0, stepMismatches: 0, generatorCalls: 0, evaluatorCalls: 0, dedupedStates: 0, wallMs: 0, selections: [] };
  const started = performance.now();
  for (const puzzle of log) {
    const explorer = new Explorer({
      generator: replayGenerator(puzzle),
      evaluator: replayEvaluator(puzzle),
      strategy: bfs({ beamWidth: 5 }),
      maxDepth: puzzle.steps.length,
      // The reference keeps every proposal and prunes nothing: only the beam selects.
      branchingFactor: 1000,
      pruningThreshold: 0,
      concurrency: 16,
      ...(options.dedup ? { stateKey: game24StateKey } : {}),
    });
    const tree = new ThoughtTree({ problem: puzzle.steps[0]!.x, taskId: `puzzle-${puzzle.idx}`, taskType: 'math_reasoning' });
    const selected: string[][] = [];
    explorer.on('search.step', (event) => {
      selected[event.depth - 1] = event.frontier.map((id) => stateOf(tree, tree.node(id)));
    });
    const done = await explorer.run(tree, { runId: `puzzle-${puzzle.idx}` });
    figures.selections.push(selected);
    puzzle.steps.forEach((step, i) => {
      const ours = selected[i] ?? [];
      if (ours.length !== step.select_new_ys.length || ours.some((s, j) => s !== step.select_new_ys[j])) figures.stepMismatches += 1;
    });
    const finals = [...tree.all()].filter((n) => n.status === 'terminal');
    if (finals.some((n) => checkAnswer(puzzle.steps[0]!.x, stateOf(tree, n)).valid)) figures.solved += 1;
    figures.generatorCalls += done.stats.generatorCalls;
    figures.evaluatorCalls += done.stats.evaluatorCalls;
    figures.dedupedStates += done.stats.dedupedStates;
  }
  figures.wallMs = Math.round(performance.now() - started);
  return figures;
}

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
    log: path,
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
