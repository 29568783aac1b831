/**
 * Runs a recorded Tree-of-Thoughts Game of 24 log through Explorer (BFS, beam 5, depth = the
 * log's steps) and compares, at every step of every puzzle, the states Explorer selects with the
 * log's `select_new_ys`.
 */
import { bfs, Explorer, ThoughtTree, type SearchStrategy } from '@tot/core';
import { game24StateKey, replayEvaluator, replayGenerator, stateOf, type ReplayPuzzle, type ReplayRoleOptions } from './replay.js';
import { checkAnswer } from './verifier.js';

export interface ReproduceOptions extends ReplayRoleOptions {
  /** Evaluate equal states (same remaining numbers) once. Default false. */
  dedup?: boolean;
  /** Default concurrency 16. */
  concurrency?: number;
  /** Default bfs({ beamWidth: 5 }), as the log. */
  strategy?: SearchStrategy;
}

export interface ReplayFigures {
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

export async function replayAll(log: ReplayPuzzle[], options: ReproduceOptions = {}): Promise<ReplayFigures> {
  const figures: ReplayFigures = { puzzles: log.length, solved: 0, stepMismatches: 0, generatorCalls: 0, evaluatorCalls: 0, dedupedStates: 0, wallMs: 0, selections: [] };
  const started = performance.now();
  for (const puzzle of log) {
    const explorer = new Explorer({
      generator: replayGenerator(puzzle, options),
      evaluator: replayEvaluator(puzzle, options),
      strategy: options.strategy ?? bfs({ beamWidth: 5 }),
      maxDepth: puzzle.steps.length,
      // The reference keeps every proposal and prunes nothing: only the beam selects.
      branchingFactor: 1000,
      pruningThreshold: 0,
      concurrency: options.concurrency ?? 16,
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

