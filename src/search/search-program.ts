import { TotError } from '../errors/index.js';
import type { RecordedRun } from '../run/recorded-run.js';
import type { RunEnd, Run } from '../run/run.js';
import type { RunFinishedEvent } from '../run/run-event.js';
import type { RunError } from '../run/run-result.js';
import type { StopDetail } from '../run/stop-detail.js';
import type { TaskContext, ThoughtEvaluator, ThoughtGenerator } from '../roles/types.js';
import type { ThoughtTree } from '../tree/thought-tree.js';
import type { ThoughtNode } from '../tree/types.js';
import { seededRandom } from './random.js';
import { foldSearchEvents } from './replay-search.js';
import type { SearchEvent } from './search-events.js';
import { SearchRun, snapshot } from './search-run.js';
import type { ExplorationResult, SearchLimits, SearchStats, SearchStrategy, StopReason } from './types.js';

/** Everything a search needs besides its run. */
export interface SearchSetup {
  tree: ThoughtTree;
  context: TaskContext;
  limits: SearchLimits;
  generator: ThoughtGenerator;
  evaluator: ThoughtEvaluator;
  strategy: SearchStrategy;
  seed: number;
  stateKey: ((node: ThoughtNode, tree: ThoughtTree) => string) | undefined;
  isSolution: ((node: ThoughtNode, tree: ThoughtTree) => boolean | Promise<boolean>) | undefined;
}

/**
 * The tree a recorded search started from: its `search.started` header and the existing nodes
 * that follow it, or, for a log that stops right after `run.started`, the tree `run.started`
 * describes (the search starts afresh).
 */
export function startingTree(log: RecordedRun): ThoughtTree {
  const events = log.runnerEvents;
  const at = events.findIndex((e) => e.type === 'search.started');
  if (at === -1) return foldSearchEvents([log.started, ...events]).tree;
  const header = events[at] as Extract<SearchEvent, { type: 'search.started' }>;
  return foldSearchEvents([log.started, header, ...events.slice(at + 1, at + 1 + header.nodes)]).tree;
}

/**
 * The search as a program on a run: the starting nodes as events (emitted when it is built), the strategy, and at the end
 * the best path and the search state. `Explorer` runs it alone; `solve()` runs it between the
 * decomposition and the synthesis.
 */
export interface SearchProgram {
  main(): Promise<void>;
  /** The search's outcome (computed once): stop reason, best path, search state (emitted as `search.state`). */
  conclude(halted: RunEnd['halted'], errors: RunEnd['errors']): Omit<ExplorationResult, 'runId' | 'errors' | 'stats'>;
  /** The run's stats with the search's counters. */
  stats(base: RunEnd['stats']): SearchStats;
}

export function searchProgram(run: Run<SearchEvent>, setup: SearchSetup): SearchProgram {
  const search = new SearchRun({
    run,
    tree: setup.tree,
    context: setup.context,
    limits: setup.limits,
    generator: setup.generator,
    evaluator: setup.evaluator,
    random: seededRandom(setup.seed),
    stateKey: setup.stateKey,
    isSolution: setup.isSolution,
    strategyName: setup.strategy.name,
  });
  const { strategy, tree } = setup;
  let concluded: ReturnType<SearchProgram['conclude']> | undefined;
  // The starting tree is emitted now, not in main(): a runner builds its program in the turn in
  // which it emits run.started, so the first append of a recorded run holds run.started and the
  // tree together, and a crash never leaves a log without the tree of a search of a given tree.
  run.emit({ type: 'search.started', taskId: tree.taskId, taskType: tree.taskType, searchConfig: { ...tree.searchConfig }, nodes: tree.size });
  for (const node of tree.all()) run.emit({ type: 'node.created', node: snapshot(node) });
  return {
    async main() {
      try {
        await strategy.run(search);
      } catch (error) {
        if (run.stopping) return;
        const reason = error instanceof Error ? error.message : String(error);
        throw new TotError(TotError.isInstance(error) ? error.code : 'INTERNAL', `Search strategy "${strategy.name}" failed: ${reason}`, {
          cause: error,
          details: { where: { kind: 'strategy', name: strategy.name } },
        });
      }
    },
    conclude(halted, errors) {
      if (concluded) return concluded;
      // The kernel's reason (budget, time limit, abort, error) stands. Otherwise a verified solution
      // is what the search found, whatever the strategy said; a strategy that returned without a
      // reason completed, or exhausted the search when no pending node is left.
      let stopReason: StopReason = halted?.reason ?? (search.found.length > 0 ? 'solution_found' : (search.ownStop ?? (tree.frontier().length === 0 ? 'search_exhausted' : 'completed')));
      let detail: StopDetail | undefined = halted?.detail;
      if (halted === undefined && search.roleCalls.succeeded === 0 && search.roleCalls.failed > 0) {
        // Every role call failed: the search could not work, which is not an unsolvable problem.
        const first = errors[0];
        stopReason = 'error';
        detail = { kind: 'error', code: first?.code ?? 'GENERATION_FAILED', message: first?.message ?? 'every role call failed' };
      }
      // A verified solution beats any score: the best path ends at the best-scoring solution found.
      let solution: ThoughtNode | undefined;
      for (const node of search.found) if (!solution || (node.evaluation?.score ?? 0) > (solution.evaluation?.score ?? 0)) solution = node;
      const bestPath: ThoughtNode[] = search.chosenPath ?? (solution ? tree.path(solution.id) : tree.bestPath());
      let depth = 0;
      for (const node of tree.all()) if (node.status !== 'pruned' && node.depth > depth) depth = node.depth;
      tree.setSearchState({ currentDepth: depth, frontier: tree.frontier().map((n) => n.id), bestPath: bestPath.map((n) => n.id) });
      const state = tree.searchState;
      run.emit({ type: 'search.state', currentDepth: state.currentDepth, frontier: [...state.frontier], bestPath: [...state.bestPath] });
      concluded = { tree, bestPath, solutions: [...search.found], stopReason, ...(detail ? { detail } : {}) };
      return concluded;
    },
    stats(base) {
      return { ...base, ...search.counters, totalNodes: tree.size };
    },
  };
}

/** The errors a finished run recorded, as a result lists them (without their causes, which are not stored). */
export function errorsFromLog(finished: RunFinishedEvent): RunError[] {
  return finished.errors.map((e) => ({ code: e.code as RunError['code'], message: e.message, ...(e.where ? { where: e.where } : {}) }));
}

/** A finished search rebuilt from its log. */
export function searchResultFromLog(log: RecordedRun): ExplorationResult {
  const finished = log.finished!;
  const { tree } = foldSearchEvents(log.events);
  const bestPath = tree.searchState.bestPath.map((id) => tree.node(id));
  return {
    runId: log.runId,
    tree,
    bestPath,
    solutions: [...tree.all()].filter((n) => n.metadata.solution === true),
    stopReason: finished.stopReason as StopReason,
    ...(finished.detail ? { detail: finished.detail } : {}),
    errors: errorsFromLog(finished),
    stats: finished.stats as unknown as SearchStats,
  };
}
