import { z } from 'zod';
import { Budget, type BudgetWarning } from '../budget/budget.js';
import { TotError } from '../errors/index.js';
import { foldRunEvents } from '../events/replay-run.js';
import { RunEmitter } from '../events/run-emitter.js';
import { RunRecorder } from '../events/run-recorder.js';
import type { EventStore } from '../events/store/types.js';
import type { GenerateResult } from '../model/types.js';
import type { RunEvent, RunEventInput } from '../events/run-event.js';
import { linkedController } from '../internal/abort.js';
import { fnSchema, parseOptions, signalSchema } from '../internal/validate.js';
import type { TaskContext, ThoughtEvaluator, ThoughtGenerator } from '../roles/types.js';
import { ThoughtTree } from '../tree/thought-tree.js';
import type { ThoughtNode } from '../tree/types.js';
import { seededRandom } from './random.js';
import { emptyStats, SearchRun, snapshot } from './search-run.js';
import { bfs } from './strategies/bfs.js';
import type { ExplorationResult, ExplorerOptions, ExplorerResumeOptions, ExplorerRunOptions, SearchStats, SearchStrategy, StopReason } from './types.js';

const roleSchema = <T>(method: string) =>
  z.custom<T>((v) => typeof v === 'object' && v !== null && typeof (v as Record<string, unknown>)[method] === 'function', `expected an object with a ${method}() method`);

const optionsSchema = z.object({
  generator: roleSchema<ThoughtGenerator>('generate'),
  evaluator: roleSchema<ThoughtEvaluator>('evaluate'),
  strategy: z
    .custom<SearchStrategy>((v) => typeof v === 'object' && v !== null && typeof (v as SearchStrategy).run === 'function' && typeof (v as SearchStrategy).name === 'string', 'expected a SearchStrategy ({ name, run })')
    .optional(),
  maxDepth: z.number().int().min(1).max(10_000).default(3),
  branchingFactor: z.number().int().min(1).max(1_000).default(5),
  pruningThreshold: z.number().min(0).max(10).default(3),
  concurrency: z.number().int().min(1).max(10_000).default(16),
  stateKey: fnSchema<NonNullable<ExplorerOptions['stateKey']>>().optional(),
  isSolution: fnSchema<NonNullable<ExplorerOptions['isSolution']>>().optional(),
  stopOnSolution: z.boolean().default(true),
  budget: z.instanceof(Budget, { message: 'expected a Budget' }).optional(),
  taskType: z.string().min(1).default('general'),
  goal: z.string().optional(),
  constraints: z.array(z.string()).optional(),
  granularity: z.string().optional(),
  seed: z.number().int().default(0),
  now: fnSchema<() => number>().optional(),
});

const storeSchema = z.custom<EventStore>((v) => typeof v === 'object' && v !== null && typeof (v as EventStore).append === 'function' && typeof (v as EventStore).readStream === 'function', 'expected an EventStore');

const runOptionsSchema = z.object({
  signal: signalSchema,
  runId: z.string().min(1).optional(),
  taskId: z.string().min(1).optional(),
  data: z.record(z.string(), z.unknown()).optional(),
  store: storeSchema.optional(),
  maxContentChars: z.number().int().positive().optional(),
});

const resumeOptionsSchema = z.object({
  store: storeSchema,
  runId: z.string().min(1),
  signal: signalSchema,
  data: z.record(z.string(), z.unknown()).optional(),
  maxContentChars: z.number().int().positive().optional(),
});

/**
 * Searches a tree of thoughts with a strategy, a generator and an evaluator (seed 000's explorer).
 *
 * Independent calls run concurrently up to `concurrency` (generation across a level, evaluation
 * across candidates), so a BFS level costs about one generation plus one evaluation latency.
 * Equal states (`stateKey`) are evaluated once per run; a candidate equal to an earlier sibling is
 * kept with score 0 and never sent to the evaluator (as in the Tree-of-Thoughts reference code).
 * Every stop — depth, solution, budget, exhaustion — resolves with the tree so far and its
 * `stopReason`; an abort rejects with `ABORTED`, carrying the same result in `details.result`.
 * Role failures never crash a run: they are recorded on the node (`metadata.error`), which is pruned.
 *
 * Runs emit typed events (`node.created`, `node.evaluated`, `node.pruned`, …) and can be
 * consumed as a stream with `explorer.stream()`.
 *
 * @example
 * ```ts
 * import { bfs, createEvaluator, createGenerator, Explorer } from '@tot/core';
 *
 * const explorer = new Explorer({
 *   generator: createGenerator({ model }),
 *   evaluator: createEvaluator({ model, samples: 3 }),
 *   strategy: bfs({ beamWidth: 5 }),
 *   maxDepth: 4,
 *   isSolution: (node) => node.content.includes('= 24'),
 * });
 * const { bestPath, stopReason, stats } = await explorer.run('Use 4 9 10 13 to make 24.');
 * ```
 */
export class Explorer extends RunEmitter {
  private readonly options: z.output<typeof optionsSchema>;
  private readonly strategy: SearchStrategy;
  private runs = 0;

  constructor(options: ExplorerOptions) {
    const o = parseOptions(optionsSchema, options, 'Explorer');
    super(o.now ? { now: o.now } : {});
    this.options = o;
    this.strategy = o.strategy ?? bfs({ beamWidth: 5 });
  }

  /**
   * Searches from a problem (a new tree) or from an existing tree (its pending nodes).
   *
   * @example
   * ```ts
   * const result = await explorer.run('Use 4 9 10 13 to make 24.', { signal: AbortSignal.timeout(120_000) });
   * console.log(result.stopReason, result.bestPath.map((n) => n.content));
   * ```
   */
  async run(problem: string | ThoughtTree, options: ExplorerRunOptions = {}): Promise<ExplorationResult> {
    if (typeof problem !== 'string' && !(problem instanceof ThoughtTree)) {
      throw new TotError('INVALID_ARGUMENT', 'Explorer.run: problem: expected a string or a ThoughtTree', { details: { field: 'problem' } });
    }
    const r = parseOptions(runOptionsSchema, options, 'Explorer.run');
    const o = this.options;
    this.runs += 1;
    const runId = r.runId ?? `run-${this.runs}`;
    const tree =
      typeof problem === 'string'
        ? new ThoughtTree({
            problem,
            taskId: r.taskId ?? runId,
            taskType: o.taskType,
            searchConfig: { strategy: this.strategy.name, maxDepth: o.maxDepth, branchingFactor: o.branchingFactor, pruningThreshold: o.pruningThreshold },
          })
        : problem;
    const recorder = r.store ? RunRecorder.begin({ store: r.store, runId, ...(r.maxContentChars ? { maxContentChars: r.maxContentChars } : {}) }) : undefined;
    return this.execute(tree, runId, r, recorder, undefined);
  }

  /**
   * Continues a run recorded with `run(problem, { store, runId })` that was interrupted (a crash,
   * a deploy). The run is replayed deterministically: every model call the log holds is served
   * from it, never made again, so the finished tree equals that of an uninterrupted run. Of two
   * workers resuming the same run, exactly one proceeds; the other gets
   * `EXPECTED_VERSION_CONFLICT`. A run that had finished is returned as it was.
   *
   * The explorer must be configured as it was for the original run (same roles, strategy and options).
   *
   * @example
   * ```ts
   * import { SqliteEventStore } from '@tot/core/sqlite';
   *
   * const store = new SqliteEventStore({ path: './runs.db' });
   * const result = await explorer.resume({ store, runId: 'run-42' });
   * ```
   */
  async resume(options: ExplorerResumeOptions): Promise<ExplorationResult> {
    const r = parseOptions(resumeOptionsSchema, options, 'Explorer.resume');
    const { recorder, recorded } = await RunRecorder.resume({ store: r.store, runId: r.runId, ...(r.maxContentChars ? { maxContentChars: r.maxContentChars } : {}) });
    const tree = foldRunEvents(recorded.start).tree;
    if (!recorder) {
      // Finished already: rebuild it from the log rather than search again.
      const replayed = foldRunEvents(recorded.events);
      const stats = { ...emptyStats(), ...(recorded.finished?.stats as Partial<SearchStats> | undefined) };
      return { runId: r.runId, tree: replayed.tree, bestPath: replayed.tree.searchState.bestPath.map((id) => replayed.tree.node(id)), solutions: [...replayed.tree.all()].filter((n) => n.metadata.solution === true), stopReason: recorded.finished!.stopReason as StopReason, stats };
    }
    return this.execute(tree, r.runId, { ...(r.signal ? { signal: r.signal } : {}), ...(r.data ? { data: r.data } : {}) }, recorder, recorded.modelResults);
  }

  /**
   * Builds an explorer from `options` and resumes a recorded run with it (see {@link Explorer.resume}).
   *
   * @example
   * ```ts
   * import { Explorer } from '@tot/core';
   *
   * const result = await Explorer.resume({ store, runId: 'run-42', generator, evaluator, maxDepth: 4 });
   * ```
   */
  static resume(options: ExplorerOptions & ExplorerResumeOptions): Promise<ExplorationResult> {
    const { store, runId, signal, data, maxContentChars, ...explorerOptions } = options;
    return new Explorer(explorerOptions).resume({ store, runId, ...(signal ? { signal } : {}), ...(data ? { data } : {}), ...(maxContentChars ? { maxContentChars } : {}) });
  }

  private async execute(
    tree: ThoughtTree,
    runId: string,
    r: { signal?: AbortSignal; data?: Record<string, unknown> },
    recorder: RunRecorder | undefined,
    served: Map<string, GenerateResult[]> | undefined,
  ): Promise<ExplorationResult> {
    const o = this.options;
    // The run stops when the caller aborts or the budget's deadline passes.
    const { controller, release } = linkedController([r.signal, o.budget?.deadline === undefined ? undefined : o.budget.signal]);
    const onWarning = (w: BudgetWarning) => this.emitEvent({ type: 'budget.warning', runId, limit: w.limit, used: w.used, max: w.max, ratio: w.ratio });
    o.budget?.on('budget.warning', onWarning);
    const record = (event: RunEvent) => {
      if (event.runId === runId) recorder?.record(event);
    };
    if (recorder) {
      this.on('event', record);
      // A lost claim or a refused event stops the run at once.
      recorder.onFailure((error) => controller.abort(error));
    }

    const context: TaskContext = {
      problem: tree.problem,
      taskType: tree.taskType,
      maxDepth: o.maxDepth,
      pruningThreshold: o.pruningThreshold,
      ...(o.goal === undefined ? {} : { goal: o.goal }),
      ...(o.constraints === undefined ? {} : { constraints: o.constraints }),
      ...(o.granularity === undefined ? {} : { granularity: o.granularity }),
      ...(r.data === undefined ? {} : { data: r.data }),
    };
    const run = new SearchRun({
      tree,
      runId,
      context,
      limits: { maxDepth: o.maxDepth, branchingFactor: o.branchingFactor, pruningThreshold: o.pruningThreshold, concurrency: o.concurrency, stopOnSolution: o.stopOnSolution },
      generator: o.generator,
      evaluator: o.evaluator,
      signal: controller.signal,
      budget: o.budget,
      random: seededRandom(o.seed),
      stateKey: o.stateKey,
      isSolution: o.isSolution,
      emit: (event: RunEventInput<RunEvent>) => this.emitEvent(event),
      ...(served ? { served } : {}),
      ...(recorder ? { durable: () => recorder.durable() } : {}),
    });

    // The run's clock (not performance.now) so that a run with an injected clock is fully deterministic.
    const clock = o.now ?? Date.now;
    const started = clock();
    let failure: unknown;
    try {
      this.emitEvent({
        type: 'run.started',
        runId,
        problem: tree.problem,
        config: { taskId: tree.taskId, taskType: tree.taskType, searchConfig: { ...tree.searchConfig }, strategy: this.strategy.name, concurrency: o.concurrency },
      });
      for (const node of tree.all()) this.emitEvent({ type: 'node.created', runId, node: snapshot(node) });
      if (controller.signal.aborted) run.stop(TotError.hasCode(controller.signal.reason, 'BUDGET_EXCEEDED') ? 'budget_exceeded' : 'aborted');
      else await this.strategy.run(run);
    } catch (error) {
      failure = error;
    } finally {
      release();
      o.budget?.off('budget.warning', onWarning);
    }
    try {
      if (failure === undefined && recorder?.failure) failure = recorder.failure;
      if (failure !== undefined) {
        this.emitEvent({ type: 'run.finished', runId, stopReason: 'error', error: TotError.isInstance(failure) ? failure.toProtocolError() : { code: 'INTERNAL', message: String(failure), recoverable: false } });
        throw failure;
      }
      const stopReason: StopReason = r.signal?.aborted ? 'aborted' : (run.stopped ?? (run.found.length > 0 ? 'solution_found' : 'search_exhausted'));
      const result = this.finish(run, stopReason, clock() - started);
      const state = tree.searchState;
      this.emitEvent({ type: 'search.state', runId, currentDepth: state.currentDepth, frontier: [...state.frontier], bestPath: [...state.bestPath] });
      this.emitEvent({ type: 'run.finished', runId, stopReason, stats: { ...result.stats } });
      if (recorder) await recorder.durable();
      if (stopReason === 'aborted') {
        throw new TotError('ABORTED', 'The search was aborted.', { cause: r.signal?.reason, details: { result } });
      }
      return result;
    } finally {
      if (recorder) this.off('event', record);
    }
  }

  private finish(run: SearchRun, stopReason: StopReason, wallMs: number): ExplorationResult {
    const { tree } = run;
    const usage = run.meter.snapshot();
    const stats = {
      ...run.counters,
      totalNodes: tree.size,
      llmCalls: usage.calls,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      cacheHits: usage.cacheHits,
      wallMs: Math.round(wallMs * 1000) / 1000,
    };
    // A verified solution beats any score: the best path ends at the best-scoring solution found.
    let solution: ThoughtNode | undefined;
    for (const node of run.found) if (!solution || (node.evaluation?.score ?? 0) > (solution.evaluation?.score ?? 0)) solution = node;
    const bestPath: ThoughtNode[] = run.chosenPath ?? (solution ? tree.path(solution.id) : tree.bestPath());
    let depth = 0;
    for (const node of tree.all()) if (node.status !== 'pruned' && node.depth > depth) depth = node.depth;
    tree.setSearchState({ currentDepth: depth, frontier: tree.frontier().map((n) => n.id), bestPath: bestPath.map((n) => n.id) });
    return { runId: run.runId, tree, bestPath, solutions: [...run.found], stopReason, stats };
  }
}
