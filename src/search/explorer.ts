import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { fnSchema, parseOptions } from '../internal/validate.js';
import { describeFunction } from '../run/config-diff.js';
import type { RunEventBase } from '../run/run-event.js';
import { RunEmitter } from '../run/run-emitter.js';
import { createRunId } from '../run/run-id.js';
import { resumeOptionsShape, runnerOptionsShape, runOptionsShape } from '../run/run-options.js';
import { resumeRun, startRun, type RunProgram, type RunSettings } from '../run/run.js';
import type { TaskContext, ThoughtEvaluator, ThoughtGenerator } from '../roles/types.js';
import { ThoughtTree } from '../tree/thought-tree.js';
import type { SearchEvent } from './search-events.js';
import { searchProgram, searchResultFromLog, startingTree, type SearchProgram, type SearchSetup } from './search-program.js';
import { bfs } from './strategies/bfs.js';
import type { ExplorationResult, ExplorerOptions, ExplorerResumeOptions, ExplorerRunOptions, SearchStrategy } from './types.js';
import { foldSearchEvents, problemTree } from './replay-search.js';

const roleSchema = <T>(method: string) =>
  z.custom<T>((v) => typeof v === 'object' && v !== null && typeof (v as Record<string, unknown>)[method] === 'function', `expected an object with a ${method}() method`);

export const explorerOptionsSchema = z.strictObject({
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
  taskType: z.string().min(1).default('general'),
  goal: z.string().optional(),
  constraints: z.array(z.string()).optional(),
  granularity: z.string().optional(),
  seed: z.number().int().default(0),
  ...runnerOptionsShape,
});

type Parsed = z.output<typeof explorerOptionsSchema>;

const runOptionsSchema = z.strictObject({
  ...runOptionsShape,
  taskId: z.string().min(1).optional(),
  data: z.record(z.string(), z.unknown()).optional(),
  maxContentChars: z.number().int().positive().optional(),
});

const resumeOptionsSchema = z.strictObject({ ...resumeOptionsShape, maxContentChars: z.number().int().positive().optional() });

/** The configuration a search records and a resume must match: everything that decides what it does. */
export function searchConfig(o: Parsed, strategy: SearchStrategy): Record<string, unknown> {
  return {
    strategy: { name: strategy.name, options: strategy.options ?? 'custom' },
    maxDepth: o.maxDepth,
    branchingFactor: o.branchingFactor,
    pruningThreshold: o.pruningThreshold,
    stopOnSolution: o.stopOnSolution,
    seed: o.seed,
    taskType: o.taskType,
    goal: o.goal,
    constraints: o.constraints,
    granularity: o.granularity,
    generator: o.generator.config ?? 'custom',
    evaluator: o.evaluator.config ?? 'custom',
    stateKey: describeFunction(o.stateKey),
    isSolution: describeFunction(o.isSolution),
  };
}

/** Refuses, when recording, a thought longer than `maxContentChars`. */
export function contentCap(maxContentChars: number | undefined): ((event: RunEventBase) => TotError | undefined) | undefined {
  if (maxContentChars === undefined) return undefined;
  return (event) => {
    if (event.type !== 'node.created') return undefined;
    const { node } = event as Extract<SearchEvent, { type: 'node.created' }>;
    if (node.content.length <= maxContentChars) return undefined;
    return new TotError('INVALID_ARGUMENT', `Thought ${node.id} has ${node.content.length} characters, more than the recording limit of ${maxContentChars}.`, {
      details: { field: 'maxContentChars', nodeId: node.id },
    });
  };
}

/** The search part of a run's task context. */
function taskContext(o: Parsed, tree: ThoughtTree, data: Record<string, unknown> | undefined): TaskContext {
  return {
    problem: tree.problem,
    taskType: tree.taskType,
    maxDepth: o.maxDepth,
    pruningThreshold: o.pruningThreshold,
    ...(o.goal === undefined ? {} : { goal: o.goal }),
    ...(o.constraints === undefined ? {} : { constraints: o.constraints }),
    ...(o.granularity === undefined ? {} : { granularity: o.granularity }),
    ...(data === undefined ? {} : { data }),
  };
}

/** The explorer's run: the search alone. */
function explorerProgram(search: SearchProgram): RunProgram<ExplorationResult> {
  return {
    main: () => search.main(),
    result: (end) => ({ runId: end.runId, ...search.conclude(end.halted, end.errors), errors: end.errors, stats: search.stats(end.stats) }),
  };
}

/** A search's setup from the explorer's options. */
export function searchSetup(o: Parsed, strategy: SearchStrategy, tree: ThoughtTree, data: Record<string, unknown> | undefined): SearchSetup {
  return {
    tree,
    context: taskContext(o, tree, data),
    limits: { maxDepth: o.maxDepth, branchingFactor: o.branchingFactor, pruningThreshold: o.pruningThreshold, concurrency: o.concurrency, stopOnSolution: o.stopOnSolution },
    generator: o.generator,
    evaluator: o.evaluator,
    strategy,
    seed: o.seed,
    stateKey: o.stateKey,
    isSolution: o.isSolution,
  };
}

/**
 * Searches a tree of thoughts with a strategy, a generator and an evaluator (the Tree-of-Thoughts agent protocol's explorer).
 *
 * Independent calls run concurrently up to `concurrency` (generation across a level, evaluation
 * across candidates), so a BFS level costs about one generation plus one evaluation latency.
 * Equal states (`stateKey`) are evaluated once per run; a candidate equal to an earlier sibling is
 * kept with score 0 and never sent to the evaluator (as in the Tree-of-Thoughts reference code).
 * Every stop — depth, solution, budget, time limit, exhaustion — resolves with the tree so far
 * and its `stopReason`; an abort rejects with `ABORTED`, carrying the same result in
 * `details.result`. A role failure is recorded where it happened (the node's `metadata.error`,
 * and `result.errors`) and the node is pruned; with `strict: true` the first one rejects the run.
 * A run whose every role or model call failed stops with `error`.
 *
 * Runs emit typed events (`node.created`, `node.evaluated`, `llm.completed`, …); `stream()`
 * yields them from `run.started` on; `run(problem, { store })` records them, and
 * `resume({ store, runId })` continues a recorded run.
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
export class Explorer extends RunEmitter<SearchEvent> {
  private readonly options: Parsed;
  private readonly strategy: SearchStrategy;

  constructor(options: ExplorerOptions) {
    super();
    this.options = parseOptions(explorerOptionsSchema, options, 'Explorer');
    this.strategy = this.options.strategy ?? bfs({ beamWidth: 5 });
  }

  private settings(maxContentChars: number | undefined): RunSettings<SearchEvent> {
    const o = this.options;
    return {
      runner: 'search',
      what: 'search',
      emitter: this,
      options: o,
      concurrency: o.concurrency,
      config: searchConfig(o, this.strategy),
      replayLog: foldSearchEvents,
      ...(maxContentChars === undefined ? {} : { checkEvent: contentCap(maxContentChars) }),
    };
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
    const runId = r.runId ?? createRunId();
    const settings = this.settings(r.maxContentChars);
    // run.started tells a resume where the search started: from the problem (the tree is rebuilt
    // from run.started alone, as `problemTree` does here) or from a given tree (its nodes follow).
    const input = { ...(typeof problem === 'string' ? { taskId: r.taskId ?? runId } : { tree: 'given' }), ...(r.data === undefined ? {} : { data: r.data }) };
    const tree = typeof problem === 'string' ? problemTree({ runId, problem, config: settings.config, input })! : problem;
    return startRun(settings, { ...r, runId }, { problem: tree.problem, input }, (run) => explorerProgram(searchProgram(run, searchSetup(o, this.strategy, tree, r.data))));
  }

  /**
   * Continues a run recorded with `run(problem, { store, runId })` that was interrupted (a crash,
   * a deploy). The run is replayed deterministically: every model call the log holds is served
   * from it, never made again, so the finished tree equals that of an uninterrupted run. The
   * explorer must be configured as the run was (same strategy and settings, same roles, models
   * and prompts): otherwise `RESUME_MISMATCH`, and nothing is written. Of two workers resuming
   * the same run, exactly one proceeds; the other gets `EXPECTED_VERSION_CONFLICT`. A run that
   * had finished is returned as it was.
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
    const o = this.options;
    return resumeRun(this.settings(r.maxContentChars), r, {
      fromLog: searchResultFromLog,
      program: (run, log) => {
        const data = log.started.input?.data as Record<string, unknown> | undefined;
        return explorerProgram(searchProgram(run, searchSetup(o, this.strategy, startingTree(log), data)));
      },
    });
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
    const { store, runId, signal, onEvent, maxContentChars, ...explorerOptions } = options;
    return new Explorer(explorerOptions).resume({ store, runId, ...(signal ? { signal } : {}), ...(onEvent ? { onEvent } : {}), ...(maxContentChars ? { maxContentChars } : {}) });
  }
}
