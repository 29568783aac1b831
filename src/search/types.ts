import type { AskAnswer, AskRequest } from '../run/question.js';
import type { StandardSchemaV1 } from '../internal/standard-schema.js';
import type { Budget } from '../budget/budget.js';
import type { LanguageModel } from '../model/types.js';
import type { RunEventInput } from '../run/run-event.js';
import type { ResumeOptions, RunBudget, RunOptions } from '../run/run-options.js';
import type { RunResult, RunStats } from '../run/run-result.js';
import type { SharedStopReason } from '../run/stop-detail.js';
import type { TaskContext, ThoughtEvaluator, ThoughtGenerator } from '../roles/types.js';
import type { ThoughtTree } from '../tree/thought-tree.js';
import type { ThoughtNode } from '../tree/types.js';
import type { SearchEvent } from './search-events.js';

/**
 * Why a search stopped.
 *
 * - `solution_found`: `isSolution` accepted a node (and `stopOnSolution` is on).
 * - `max_depth`: the search reached `maxDepth` (BFS, ToT style).
 * - `search_exhausted`: nothing is left to expand (the Tree-of-Thoughts agent protocol's `SEARCH_EXHAUSTED`).
 * - `max_states`: the strategy's state limit was reached.
 * - `iterations`: MCTS ran all its iterations.
 * - and the shared reasons: `completed` (a strategy that stopped without a reason),
 *   `budget_exceeded`, `timeout`, `aborted` (the run rejects with `ABORTED`), `error` (every
 *   model call, or every role call, failed: see `errors`).
 *
 * @example
 * ```ts
 * import type { StopReason } from '@tot/core';
 *
 * const ok = (r: StopReason) => r === 'solution_found' || r === 'max_depth';
 * ```
 */
export type StopReason = 'solution_found' | 'max_depth' | 'search_exhausted' | 'max_states' | 'iterations' | SharedStopReason;

/**
 * Counters of one search: the shared {@link RunStats} plus the search's own. `totalNodes`,
 * `totalBacktracks` and `llmCalls` are the Tree-of-Thoughts agent protocol's `total_nodes`, `total_backtracks` and `llm_calls`.
 *
 * @example
 * ```ts
 * import type { SearchStats } from '@tot/core';
 *
 * const summary = (s: SearchStats) => `${s.totalNodes} nodes, ${s.llmCalls} calls, ${s.wallMs} ms`;
 * ```
 */
export interface SearchStats extends RunStats {
  totalNodes: number;
  totalBacktracks: number;
  /** Nodes whose evaluation was reused from an equal state (`stateKey`). */
  dedupedStates: number;
  /** Candidates equal to an earlier sibling: kept, scored 0, never sent to the evaluator. */
  duplicateCandidates: number;
  /** Candidates dropped because they were malformed (no text content). */
  invalidCandidates: number;
  generatorCalls: number;
  evaluatorCalls: number;
  expandedNodes: number;
  prunedNodes: number;
}

/**
 * The numbers a strategy works with.
 *
 * @example
 * ```ts
 * import type { SearchLimits } from '@tot/core';
 *
 * const limits: SearchLimits = { maxDepth: 4, branchingFactor: 5, pruningThreshold: 3, concurrency: 16, stopOnSolution: true };
 * ```
 */
export interface SearchLimits {
  maxDepth: number;
  branchingFactor: number;
  pruningThreshold: number;
  concurrency: number;
  stopOnSolution: boolean;
}

/**
 * Options of {@link SearchContext.select}.
 *
 * @example
 * ```ts
 * import type { SelectOptions } from '@tot/core';
 *
 * const options: SelectOptions = { mode: 'sample' };
 * ```
 */
export interface SelectOptions {
  /** `greedy` (default): the best `k`, ties in generation order. `sample`: `k` drawn in proportion to score with the run's seeded random source. */
  mode?: 'greedy' | 'sample';
}

/**
 * Everything a strategy may use — the built-in strategies use nothing else. Methods never throw
 * because the run is stopping: once `stopped` is set, `expand` and `evaluate` return `[]` and
 * start no calls, so a strategy only has to check `stopped` in its loops.
 *
 * @example
 * ```ts
 * import type { SearchContext, SearchStrategy } from '@tot/core';
 *
 * // A strategy is `{ name, run(ctx) }`: pass it as `new Explorer({ ..., strategy: greedyDive })`.
 * const greedyDive: SearchStrategy = {
 *   name: 'greedy-dive',
 *   async run(ctx: SearchContext) {
 *     let node = ctx.tree.root;
 *     while (!ctx.stopped && node.depth < ctx.limits.maxDepth) {
 *       const children = await ctx.evaluate(await ctx.expand([node]));
 *       const [best] = ctx.select(children, 1);
 *       if (!best) return ctx.stop('search_exhausted');
 *       node = best;
 *     }
 *     ctx.stop('max_depth');
 *   },
 * };
 * ```
 */
export interface SearchContext {
  readonly tree: ThoughtTree;
  readonly runId: string;
  readonly context: TaskContext;
  readonly limits: Readonly<SearchLimits>;
  /** Aborts when the search stops (its own stop, the caller's abort, the budget, the run's time limit). */
  readonly signal: AbortSignal;
  readonly budget: Budget | undefined;
  /** Seeded random source in [0, 1). */
  readonly random: () => number;
  /** Set once the run is stopping. */
  readonly stopped: StopReason | undefined;
  readonly stats: Readonly<SearchStats>;
  /** Solutions found so far, in the order found. */
  readonly solutions: readonly ThoughtNode[];
  /**
   * Generates `branchingFactor` candidates for each pending parent below `maxDepth` (concurrently)
   * and adds them to the tree in parent order. Returns the new nodes (pending, not yet evaluated).
   */
  expand(parents: readonly ThoughtNode[]): Promise<ThoughtNode[]>;
  /**
   * Evaluates the nodes that have no evaluation yet (equal states and duplicate siblings are not
   * sent to the evaluator), marks solutions terminal and prunes nodes under `pruningThreshold`.
   * Returns the nodes given, with their new state.
   */
  evaluate(nodes: readonly ThoughtNode[]): Promise<ThoughtNode[]>;
  /** Picks up to `k` of the pending nodes among `nodes`. */
  select(nodes: readonly ThoughtNode[], k: number, options?: SelectOptions): ThoughtNode[];
  /** Prunes a node and its subtree. */
  prune(node: ThoughtNode, reason?: string): void;
  /** Marks a pending node terminal. */
  markTerminal(node: ThoughtNode, options?: { solution?: boolean }): void;
  /** Counts one backtrack (the Tree-of-Thoughts agent protocol's `total_backtracks`). */
  backtrack(): void;
  /** Sets the path the result reports (default: `tree.bestPath()`). */
  setBestPath(nodes: readonly ThoughtNode[]): void;
  /** Stops the search: no new calls start, calls in flight are cancelled. The first reason wins. */
  stop(reason: StopReason): void;
  /** Emits an event of the run (the run id, sequence and time are filled in). */
  emit(event: RunEventInput<SearchEvent>): void;
  /** A model as the run sees it: admitted by its budget, limited by its concurrency, logged, resumable. */
  runModel(model: LanguageModel): LanguageModel;
  /**
   * Asks a person (see the Runs guide, "Asking a person"): answered by the run's `onAsk`, or the
   * run ends `waiting` and a resume given the answer goes on from here. The question's id is
   * `strategy/<name>#<key>`; an answered question returns its answer without asking again.
   */
  ask<S extends StandardSchemaV1 | undefined = undefined>(request: AskRequest<NonNullable<S>> & { schema?: S }): Promise<AskAnswer<S>>;
}

/**
 * `Omit` applied to each member of a union.
 *
 * @example
 * ```ts
 * import type { DistributiveOmit } from '@tot/core';
 *
 * type A = DistributiveOmit<{ t: 'a'; x: 1 } | { t: 'b'; y: 2 }, 't'>; // { x: 1 } | { y: 2 }
 * ```
 */
export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * A search strategy: a value with a name and a `run` that drives a {@link SearchContext}.
 *
 * @example
 * ```ts
 * import type { SearchStrategy } from '@tot/core';
 *
 * const oneLevel: SearchStrategy = {
 *   name: 'one-level',
 *   async run(ctx) {
 *     await ctx.evaluate(await ctx.expand([ctx.tree.root]));
 *   },
 * };
 * ```
 */
export interface SearchStrategy {
  /** Recorded in the tree's search config. */
  readonly name: string;
  /** The strategy's settings (JSON), recorded with a run: a resume with other settings is refused. */
  readonly options?: Readonly<Record<string, unknown>>;
  /** Drives the search; resolves when it is done (call `ctx.stop` with the reason). */
  run(ctx: SearchContext): Promise<void>;
}

/**
 * Options of {@link Explorer}.
 *
 * @example
 * ```ts
 * import { bfs, type ExplorerOptions } from '@tot/core';
 *
 * const options: ExplorerOptions = { generator, evaluator, strategy: bfs({ beamWidth: 5 }), maxDepth: 4, concurrency: 16 };
 * ```
 */
export interface ExplorerOptions {
  generator: ThoughtGenerator;
  evaluator: ThoughtEvaluator;
  /** Default `bfs({ beamWidth: 5 })`. */
  strategy?: SearchStrategy;
  /** Deepest level of thoughts (the root is 0). Default 3. */
  maxDepth?: number;
  /** Candidates asked for per expansion. Default 5. */
  branchingFactor?: number;
  /** Nodes scoring below it (0–10) are pruned. Default 3; 0 prunes nothing. */
  pruningThreshold?: number;
  /** Model calls in flight at once across the run. Default 16. */
  concurrency?: number;
  /** Canonical state of a node: nodes with equal keys are evaluated once per run. */
  stateKey?: (node: ThoughtNode, tree: ThoughtTree) => string;
  /** Whether a node solves the problem; solutions are marked terminal. */
  isSolution?: (node: ThoughtNode, tree: ThoughtTree) => boolean | Promise<boolean>;
  /** Stop at the first solution. Default true. */
  stopOnSolution?: boolean;
  /**
   * Limits on the run's model calls: a `Budget` (shared by every run of this explorer), or
   * `budget.perRun()` / plain limits (each run gets its own, its deadline starting with the run).
   */
  budget?: RunBudget;
  /** Wall time of a run, in milliseconds: it then stops with `timeout` and its partial result. */
  timeoutMs?: number;
  /** Reject the run at the first role error, with that error (for tests). Default false: errors are recorded on nodes and in `errors`. */
  strict?: boolean;
  /** Task fields passed to the roles. */
  taskType?: string;
  goal?: string;
  constraints?: string[];
  granularity?: string;
  /** Seed of the random source used by sampling selection and strategies. Default 0. */
  seed?: number;
  /** Clock for event timestamps and `wallMs`. Default `Date.now`. */
  now?: () => number;
}

/**
 * Per-run options of {@link Explorer.run}.
 *
 * @example
 * ```ts
 * import type { ExplorerRunOptions } from '@tot/core';
 *
 * const options: ExplorerRunOptions = { signal: AbortSignal.timeout(60_000), runId: 'g24-900', taskId: 'g24-900' };
 * ```
 */
export interface ExplorerRunOptions extends RunOptions<SearchEvent> {
  /** Task id of a new tree. Default: the run id. */
  taskId?: string;
  /** Extra data for the roles' {@link TaskContext} (JSON, when the run is recorded). */
  data?: Record<string, unknown>;
  /** Refuse to record a thought longer than this (agent sessions cap thoughts at 400 characters). */
  maxContentChars?: number;
}

/**
 * Options of {@link Explorer.resume}.
 *
 * @example
 * ```ts
 * import type { ExplorerResumeOptions } from '@tot/core';
 *
 * const options: ExplorerResumeOptions = { store, runId: 'run-42' };
 * ```
 */
export interface ExplorerResumeOptions extends ResumeOptions<SearchEvent> {
  maxContentChars?: number;
}

/**
 * What a run returns (also carried by the `ABORTED` error of an aborted run, as `details.result`).
 *
 * @example
 * ```ts
 * import type { ExplorationResult } from '@tot/core';
 *
 * const answer = (r: ExplorationResult) => r.bestPath.at(-1)?.content;
 * ```
 */
export interface ExplorationResult extends RunResult<StopReason, SearchStats> {
  tree: ThoughtTree;
  /** Root first. */
  bestPath: ThoughtNode[];
  solutions: ThoughtNode[];
}
