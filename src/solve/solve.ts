import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { fnSchema, parseOptions } from '../internal/validate.js';
import { languageModelSchema } from '../model/schemas.js';
import type { LanguageModel } from '../model/types.js';
import { describeFunction } from '../run/config-diff.js';
import type { RecordedRun } from '../run/recorded-run.js';
import type { RunEventBase } from '../run/run-event.js';
import { RunEmitter } from '../run/run-emitter.js';
import { createRunId } from '../run/run-id.js';
import { resumeOptionsShape, runOptionsShape, type ResumeOptions, type RunOptions } from '../run/run-options.js';
import { resumeRun, startRun, type Run, type RunProgram, type RunSettings } from '../run/run.js';
import { createDecomposer } from '../roles/create-decomposer.js';
import { createEvaluator } from '../roles/create-evaluator.js';
import { createGenerator } from '../roles/create-generator.js';
import { createSynthesizer, runVerifier, type SolutionVerifier } from '../roles/create-synthesizer.js';
import { taskPreset } from '../roles/task-presets.js';
import type { Decomposer, Decomposition, FinalSolution, RoleCallOptions, Synthesizer, SynthesizeInput, ThoughtEvaluator, ThoughtGenerator } from '../roles/types.js';
import { contentCap, explorerOptionsSchema, searchSetup } from '../search/explorer.js';
import type { SearchEvent } from '../search/search-events.js';
import { errorsFromLog, searchProgram, searchResultFromLog } from '../search/search-program.js';
import { bfs } from '../search/strategies/bfs.js';
import { dfs } from '../search/strategies/dfs.js';
import type { ExplorationResult, ExplorerOptions, SearchStats, SearchStrategy, StopReason } from '../search/types.js';
import { ThoughtTree } from '../tree/thought-tree.js';
import type { ThoughtNode } from '../tree/types.js';
import { foldSearchEvents } from '../search/replay-search.js';

/**
 * The events of a `solve()` run: the decomposition, the search's events, the solution, and the
 * shared run events.
 *
 * @example
 * ```ts
 * import type { SolveEvent } from '@tot/core';
 *
 * const answer = (e: SolveEvent) => (e.type === 'solve.synthesized' ? e.solution.answer : undefined);
 * ```
 */
export type SolveEvent =
  | SearchEvent
  /** `fallback`: the decomposer failed or gave no valid decomposition, so the task preset's defaults stand in. */
  | (RunEventBase & { type: 'solve.decomposed'; decomposition: Decomposition; fallback?: boolean })
  /** `fallback`: the answer was built from the best path without the synthesizer. */
  | (RunEventBase & { type: 'solve.synthesized'; solution: FinalSolution; fallback?: boolean });

/**
 * Options of {@link solve}. Give a `model` to get LLM-backed defaults for every role you do not
 * pass; a generator and an evaluator are required otherwise. Without a decomposer the task
 * preset's defaults stand in; without a synthesizer the best path's last step is the answer.
 * `budget`, `timeoutMs` and `strict` apply to the whole run (decomposition, search, synthesis).
 *
 * @example
 * ```ts
 * import type { SolveOptions } from '@tot/core';
 *
 * const options: SolveOptions = { problem: 'Use 4 9 10 13 to make 24.', taskType: 'math_reasoning', model, verify: checkGame24 };
 * ```
 */
export interface SolveOptions extends Partial<Omit<ExplorerOptions, 'generator' | 'evaluator' | 'taskType' | 'strategy' | 'maxDepth'>>, RunOptions<SolveEvent> {
  problem: string;
  /** Default `'general'`; a Tree-of-Thoughts protocol task type picks the preset's strategy and evaluation. */
  taskType?: string;
  model?: LanguageModel;
  decomposer?: Decomposer;
  generator?: ThoughtGenerator;
  evaluator?: ThoughtEvaluator;
  synthesizer?: Synthesizer;
  /** Host verifier of the final answer (used by the default synthesizers). */
  verify?: SolutionVerifier;
  /** Default: the preset's (BFS, beam 5, or DFS). */
  strategy?: SearchStrategy;
  /** Default: the decomposition's depth estimate, else the preset's, else 3. */
  maxDepth?: number;
  taskId?: string;
  /** Refuse to record a thought longer than this. */
  maxContentChars?: number;
}

/**
 * Options of {@link resumeSolve}: the options the run was started with (without `problem`, which
 * comes from the log) and the store and run id.
 *
 * @example
 * ```ts
 * import type { ResumeSolveOptions } from '@tot/core';
 *
 * const options: ResumeSolveOptions = { store, runId: 'solve-7', model, taskType: 'math_reasoning' };
 * ```
 */
export type ResumeSolveOptions = Omit<SolveOptions, 'problem' | 'signal' | 'runId' | 'store' | 'onEvent'> & ResumeOptions<SolveEvent>;

/**
 * What {@link solve} returns: the Tree-of-Thoughts agent protocol's final_solution plus the search behind it. A run that
 * could not work (`stopReason: 'error'`: every model or role call failed) has no `solution`, so
 * that no code reads an empty answer as one; narrow on `stopReason` to read it.
 *
 * @example
 * ```ts
 * import type { SolveResult } from '@tot/core';
 *
 * function print(r: SolveResult) {
 *   if (r.stopReason === 'error') console.error(`could not work: ${r.detail?.kind === 'error' ? r.detail.message : ''}`);
 *   else console.log(r.solution.answer, r.solution.verification.isValid, r.stats.llmCalls);
 * }
 * ```
 */
export type SolveResult = SolveAnswered | SolveFailed;

/**
 * A {@link SolveResult} with an answer: every stop reason but `error`. `solution_found` when the
 * search or the host's `verify` verified the answer.
 *
 * @example
 * ```ts
 * import type { SolveAnswered } from '@tot/core';
 *
 * const answer = (r: SolveAnswered) => (r.solution.verification.isValid ? r.solution.answer : undefined);
 * ```
 */
export interface SolveAnswered extends Omit<ExplorationResult, 'stopReason'> {
  stopReason: Exclude<StopReason, 'error'>;
  solution: FinalSolution;
  decomposition: Decomposition;
}

/**
 * A {@link SolveResult} of a run that could not work: no solution; why is in `detail` and `errors`.
 *
 * @example
 * ```ts
 * import type { SolveFailed } from '@tot/core';
 *
 * const why = (r: SolveFailed) => r.errors.map((e) => `${e.code}: ${e.message}`).join('\n');
 * ```
 */
export interface SolveFailed extends Omit<ExplorationResult, 'stopReason'> {
  stopReason: 'error';
  solution?: undefined;
  decomposition: Decomposition;
}

/** The result with its solution, or without one when the run could not work. */
function withSolution(base: Omit<SolveAnswered, 'stopReason' | 'solution'>, stopReason: StopReason, solution: () => FinalSolution): SolveResult {
  return stopReason === 'error' ? { ...base, stopReason } : { ...base, stopReason, solution: solution() };
}

const roleOf = (method: string) => z.custom((v) => typeof v === 'object' && v !== null && typeof (v as Record<string, unknown>)[method] === 'function', `expected an object with a ${method}() method`);

const solveShape = {
  taskType: z.string().min(1).default('general'),
  model: languageModelSchema.optional(),
  decomposer: roleOf('decompose').optional(),
  generator: roleOf('generate').optional(),
  evaluator: roleOf('evaluate').optional(),
  synthesizer: roleOf('synthesize').optional(),
  verify: fnSchema<SolutionVerifier>().optional(),
  maxDepth: z.number().int().min(1).max(10_000).optional(),
  taskId: z.string().min(1).optional(),
  maxContentChars: z.number().int().positive().optional(),
};
const hasRoles = (o: { model?: unknown; generator?: unknown; evaluator?: unknown }) => o.model !== undefined || (o.generator !== undefined && o.evaluator !== undefined);
const rolesMessage = { message: 'give a model, or both a generator and an evaluator', path: ['model'] };

// The explorer's options are solve's too: handed on to it, and checked again by its schema there.
export const solveOptionsObject = z.strictObject({ ...explorerOptionsSchema.shape, problem: z.string().min(1), ...solveShape, ...runOptionsShape });
const optionsSchema = solveOptionsObject.refine(hasRoles, rolesMessage);

const resumeSchema = z
  .strictObject({ ...explorerOptionsSchema.shape, ...solveShape, ...resumeOptionsShape })
  .refine(hasRoles, rolesMessage);

const decompositionSchema = z.object({
  thoughtGranularity: z.string(),
  intermediateSteps: z.array(z.string()),
  depthEstimate: z.number().int().min(1).max(10_000),
  constraints: z.array(z.string()),
  successCriteria: z.string(),
});

/** The options both entry points share. */
type Parsed = Pick<z.output<typeof resumeSchema>, keyof typeof solveShape>;

/** The answer built without a model: the best path's last step, verified by the host if it can. */
async function synthesizeFromPath(input: SynthesizeInput, verify: SolutionVerifier | undefined, note?: string): Promise<FinalSolution> {
  const steps = input.bestPath.slice(1);
  const last: ThoughtNode | undefined = steps.at(-1);
  const answer = last?.content ?? '';
  const verification = verify
    ? await runVerifier(verify, answer, input)
    : { isValid: last?.metadata.solution === true, ...(last?.metadata.solution === true ? {} : { validationErrors: ['not verified'] }) };
  if (note) verification.validationErrors = [...(verification.validationErrors ?? []), note];
  return { answer, reasoningTrace: steps.map((n) => n.content), confidence: last?.evaluation?.confidence ?? 0, verification };
}

/** The roles and the explorer options of a solve run. */
function prepare(o: Parsed, options: Partial<SolveOptions>) {
  const preset = taskPreset(o.taskType);
  const model = options.model;
  const decomposer = options.decomposer ?? (model ? createDecomposer({ model }) : undefined);
  const generator = options.generator ?? createGenerator({ model: model!, strategy: o.taskType === 'creative_writing' ? 'independent_sampling' : 'sequential_proposal' });
  const evaluator = options.evaluator ?? createEvaluator({ model: model!, strategy: preset?.evaluation ?? 'independent_scoring' });
  const synthesizer = options.synthesizer ?? (model ? createSynthesizer({ model, ...(options.verify ? { verify: options.verify } : {}) }) : undefined);
  const strategy = options.strategy ?? (preset?.strategy === 'dfs' ? dfs() : bfs({ beamWidth: 5 }));
  const { problem: _p, taskType: _t, model: _m, decomposer: _d, generator: _g, evaluator: _e, synthesizer: _s, verify: _v, taskId: _i, signal: _sig, strategy: _st, maxDepth: _md, runId: _r, store: _store, onEvent: _oe, onAsk: _oa, answers: _an, maxContentChars: _mc, ...explorerOptions } = options as SolveOptions & { answers?: unknown };
  // The explorer's own options, checked by its schema (maxDepth is set from the decomposition per run).
  const base = parseOptions(explorerOptionsSchema, { ...explorerOptions, generator, evaluator, taskType: o.taskType, strategy }, 'solve');
  const config = {
    taskType: o.taskType,
    strategy: { name: strategy.name, options: strategy.options ?? 'custom' },
    maxDepth: o.maxDepth,
    branchingFactor: base.branchingFactor,
    pruningThreshold: base.pruningThreshold,
    stopOnSolution: base.stopOnSolution,
    seed: base.seed,
    goal: base.goal,
    constraints: base.constraints,
    decomposer: decomposer ? (decomposer.config ?? 'custom') : 'preset',
    generator: generator.config ?? 'custom',
    evaluator: evaluator.config ?? 'custom',
    synthesizer: synthesizer ? (synthesizer.config ?? 'custom') : 'best-path',
    verify: describeFunction(options.verify),
    stateKey: describeFunction(base.stateKey),
    isSolution: describeFunction(base.isSolution),
  };
  return { preset, decomposer, synthesizer, strategy, base, config };
}

type Prepared = ReturnType<typeof prepare>;

function settings(emitter: RunEmitter<SolveEvent>, p: Prepared, maxContentChars: number | undefined): RunSettings<SolveEvent> {
  const { base } = p;
  return {
    runner: 'solve',
    what: 'solve run',
    emitter,
    options: base,
    concurrency: base.concurrency,
    config: p.config,
    // A run stopped before its search began has no tree to fold.
    replayLog: (events) => (events.some((e) => e.type === 'search.started') ? foldSearchEvents(events) : undefined),
    ...(maxContentChars === undefined ? {} : { checkEvent: contentCap(maxContentChars) }),
  };
}

/** The decomposition that stands in when there is none: the task preset's. */
function presetDecomposition(o: Parsed, p: Prepared): Decomposition {
  return {
    thoughtGranularity: p.preset?.granularity ?? 'step',
    intermediateSteps: [],
    depthEstimate: o.maxDepth ?? p.preset?.depth?.[1] ?? 3,
    constraints: p.base.constraints ?? [],
    successCriteria: p.base.goal ?? 'solve the problem',
  };
}

/** The solution of a run that stopped before its synthesis: the best path's last step. */
function unsynthesized(steps: readonly ThoughtNode[]): FinalSolution {
  return { answer: steps.at(-1)?.content ?? '', reasoningTrace: steps.map((n) => n.content), confidence: 0, verification: { isValid: false, validationErrors: ['not synthesized: the run stopped first'] } };
}

/** The Tree-of-Thoughts agent protocol's pipeline on one run: decompose, search, synthesise. */
function solveProgram(run: Run<SolveEvent>, o: Parsed, p: Prepared, problem: string, taskId: string, verify: SolutionVerifier | undefined): RunProgram<SolveResult> {
  const roleOptions: RoleCallOptions = { signal: run.signal, runModel: (m) => run.runModel(m) };
  let decomposition: Decomposition | undefined;
  let search: ReturnType<typeof searchProgram> | undefined;
  let solution: FinalSolution | undefined;
  let tree: ThoughtTree | undefined;

  const decompose = async (): Promise<{ decomposition: Decomposition; fallback: boolean }> => {
    if (!p.decomposer) return { decomposition: presetDecomposition(o, p), fallback: false };
    const decomposer = p.decomposer;
    try {
      const value = await run.guard(() => decomposer.decompose({ problem, taskType: o.taskType }, roleOptions), 'decomposer');
      const parsed = decompositionSchema.safeParse(value);
      if (parsed.success) return { decomposition: parsed.data, fallback: false };
      run.recordError(new TotError('INVALID_FORMAT', `The decomposer returned an invalid decomposition: ${z.prettifyError(parsed.error)}`, { details: { value, issues: parsed.error.issues } }), { kind: 'phase', phase: 'decompose' });
    } catch (error) {
      if (run.stopping) throw error;
      run.recordError(error, { kind: 'phase', phase: 'decompose' });
    }
    return { decomposition: presetDecomposition(o, p), fallback: true };
  };

  const synthesize = async (input: SynthesizeInput): Promise<{ solution: FinalSolution; fallback: boolean }> => {
    // The host's check makes no model call, so a run stopped by its budget or time limit still
    // verifies its answer; the run's unwind grace bounds a verifier that never settles.
    const guardedVerify: SolutionVerifier | undefined = verify
      ? (answer, i) => (run.stopping ? Promise.resolve().then(() => verify(answer, i)) : run.guard(() => verify(answer, i), 'verifier'))
      : undefined;
    if (!p.synthesizer || run.stopping) return { solution: await synthesizeFromPath(input, guardedVerify), fallback: p.synthesizer !== undefined };
    const synthesizer = p.synthesizer;
    try {
      return { solution: await run.guard(() => synthesizer.synthesize(input, roleOptions), 'synthesizer'), fallback: false };
    } catch (error) {
      if (!run.stopping) run.recordError(error, { kind: 'phase', phase: 'synthesize' });
      const note = `synthesizer failed: ${error instanceof Error ? error.message : String(error)}`;
      return { solution: await synthesizeFromPath(input, guardedVerify, note), fallback: true };
    }
  };

  return {
    async main() {
      const { decomposition: clean, fallback } = await decompose();
      decomposition = clean;
      run.emit({ type: 'solve.decomposed', decomposition: clean, ...(fallback ? { fallback: true } : {}) });
      const maxDepth = o.maxDepth ?? Math.min(20, Math.max(1, clean.depthEstimate));
      const explorer = { ...p.base, maxDepth, constraints: [...(p.base.constraints ?? []), ...clean.constraints], granularity: clean.thoughtGranularity, goal: p.base.goal ?? clean.successCriteria };
      tree = new ThoughtTree({
        problem,
        taskId,
        taskType: o.taskType,
        searchConfig: { strategy: p.strategy.name, maxDepth, branchingFactor: explorer.branchingFactor, pruningThreshold: explorer.pruningThreshold },
      });
      // A solve run's events include every search event: the search runs on it as on its own.
      search = searchProgram(run as unknown as Run<SearchEvent>, searchSetup(explorer, p.strategy, tree, { decomposition: clean }));
      await search.main();
      const outcome = search.conclude(run.halted, run.errors);
      // A search that could not work (every role call failed) has nothing to synthesise.
      if (outcome.stopReason === 'error') return;
      const input: SynthesizeInput = { bestPath: outcome.bestPath, problem, taskType: o.taskType, tree };
      const synthesized = await synthesize(input);
      solution = synthesized.solution;
      run.emit({ type: 'solve.synthesized', solution, ...(synthesized.fallback ? { fallback: true } : {}) });
    },
    result(end) {
      const t = tree ?? new ThoughtTree({ problem, taskId, taskType: o.taskType });
      const outcome = search?.conclude(end.halted, end.errors) ?? { tree: t, bestPath: [t.root], solutions: [], stopReason: (end.halted?.reason ?? 'error') as StopReason, ...(end.halted?.detail ? { detail: end.halted.detail } : {}) };
      // The host's verifier accepting the answer is a verified solution, as one the search verified is.
      const verified = verify !== undefined && solution?.verification.isValid === true;
      const stopReason = end.halted?.reason ?? (verified ? 'solution_found' : outcome.stopReason);
      const detail = end.halted?.detail ?? outcome.detail;
      const stats: SearchStats = search ? search.stats(end.stats) : { ...end.stats, totalNodes: t.size, totalBacktracks: 0, dedupedStates: 0, duplicateCandidates: 0, invalidCandidates: 0, generatorCalls: 0, evaluatorCalls: 0, expandedNodes: 0, prunedNodes: 0 };
      const steps = outcome.bestPath.slice(1);
      const { stopReason: _searchStop, ...found } = outcome;
      const base = { runId: end.runId, ...found, ...(detail ? { detail } : {}), errors: end.errors, stats, decomposition: decomposition ?? presetDecomposition(o, p) };
      return withSolution(base, stopReason, () => solution ?? unsynthesized(steps));
    },
  };
}

/** A finished solve run rebuilt from its log: the same result the run resolved with. */
function resultFromLog(log: RecordedRun, o: Parsed, p: Prepared): SolveResult {
  const finished = log.finished!;
  const decomposed = log.events.find((e) => e.type === 'solve.decomposed') as Extract<SolveEvent, { type: 'solve.decomposed' }> | undefined;
  const synthesized = log.events.find((e) => e.type === 'solve.synthesized') as Extract<SolveEvent, { type: 'solve.synthesized' }> | undefined;
  let search: ExplorationResult;
  if (log.events.some((e) => e.type === 'search.started')) search = searchResultFromLog(log);
  else {
    // Stopped before its search began: the run resolved with an empty tree.
    const tree = new ThoughtTree({ problem: log.started.problem, taskId: (log.started.input?.taskId as string | undefined) ?? log.runId, taskType: o.taskType });
    search = { runId: log.runId, tree, bestPath: [tree.root], solutions: [], stopReason: finished.stopReason as StopReason, ...(finished.detail ? { detail: finished.detail } : {}), errors: errorsFromLog(finished), stats: finished.stats as unknown as SearchStats };
  }
  const { stopReason, ...rest } = search;
  return withSolution({ ...rest, decomposition: decomposed?.decomposition ?? presetDecomposition(o, p) }, stopReason, () => synthesized?.solution ?? unsynthesized(search.bestPath.slice(1)));
}

/**
 * The Tree-of-Thoughts agent protocol's whole flow on one run: decompose → initialise the search from the decomposition →
 * explore → synthesise. Whatever stops it — depth, budget, time limit, exhaustion, a failed
 * decomposer (the preset's defaults stand in) or synthesizer (the best path's last step is the
 * answer) — it resolves with a solution built from the best path so far, its `stopReason`
 * (`solution_found` when the search or `verify` verified the answer) and `errors`. A run whose
 * every call failed resolves with `stopReason: 'error'` and no solution. It rejects on an abort
 * (`ABORTED`, with the partial result), on a provider error after which no call can succeed (a
 * 401, a 403, a 404, a provider that cannot be reached), or, with `strict: true`, on the first
 * role error. Like every runner, it streams events through `onEvent`, records to a `store`, and
 * resumes with {@link resumeSolve}.
 *
 * @example
 * ```ts
 * import { solve } from '@tot/core';
 *
 * const result = await solve({
 *   problem: 'Use 4 9 10 13 and + - * / to make 24.',
 *   taskType: 'math_reasoning',
 *   model,
 *   verify: (answer) => checkGame24('4 9 10 13', answer),
 * });
 * if (result.stopReason === 'solution_found') console.log(result.solution.answer, result.stats.llmCalls);
 * ```
 */
export async function solve(options: SolveOptions): Promise<SolveResult> {
  const o = parseOptions(optionsSchema, options, 'solve');
  const p = prepare(o, options);
  const runId = o.runId ?? createRunId();
  const taskId = o.taskId ?? runId;
  return startRun<SolveEvent, SolveResult>(settings(new RunEmitter<SolveEvent>(), p, o.maxContentChars), { ...o, runId }, { problem: o.problem, input: { taskId } }, (run) =>
    solveProgram(run, o, p, o.problem, taskId, options.verify),
  );
}

/**
 * Continues a `solve()` run recorded with `store` and `runId` that was interrupted: every model
 * call the log holds is served from it (the decomposition, the search and the synthesis are not
 * paid for twice), then the run goes on. Pass the options the run was started with (without
 * `problem`): a different configuration is refused with `RESUME_MISMATCH`, and nothing is
 * written. A run that had finished is returned as it was.
 *
 * @example
 * ```ts
 * import { resumeSolve } from '@tot/core';
 * import { SqliteEventStore } from '@tot/core/sqlite';
 *
 * const result = await resumeSolve({ store: new SqliteEventStore({ path: './runs.db' }), runId: 'solve-7', model, taskType: 'math_reasoning' });
 * ```
 */
export async function resumeSolve(options: ResumeSolveOptions): Promise<SolveResult> {
  const o = parseOptions(resumeSchema, options, 'resumeSolve');
  const p = prepare(o, options as Partial<SolveOptions>);
  return resumeRun<SolveEvent, SolveResult>(settings(new RunEmitter<SolveEvent>(), p, o.maxContentChars), o, {
    fromLog: (log) => resultFromLog(log, o, p),
    program: (run, log) => {
      const taskId = (log.started.input?.taskId as string | undefined) ?? log.runId;
      return solveProgram(run, o, p, log.started.problem, taskId, options.verify);
    },
  });
}
