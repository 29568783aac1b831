import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { describeIssues, standardSchemaOption, validatorOf } from '../internal/standard-schema.js';
import { fnSchema, parseOptions } from '../internal/validate.js';
import { languageModelSchema } from '../model/schemas.js';
import type { LanguageModel } from '../model/types.js';
import { describeFunction } from '../run/config-diff.js';
import type { RecordedRun } from '../run/recorded-run.js';
import type { RunEventInput } from '../run/run-event.js';
import { RunEmitter } from '../run/run-emitter.js';
import { resumeOptionsShape, runnerOptionsShape, runOptionsShape, type ResumeOptions, type RunBudget, type RunOptions } from '../run/run-options.js';
import type { RunResult, RunStats } from '../run/run-result.js';
import { resumeRun, startRun, type Run, type RunEnd, type RunProgram, type RunSettings } from '../run/run.js';
import type { SharedStopReason, StopDetail } from '../run/stop-detail.js';
import { describePrompt, promptTemplateSchema, type PromptTemplate } from '../roles/prompt-template.js';
import type { FractalEvent } from './fractal-events.js';
import { failedResult, foldFractalEvents, FrameTree } from './frame-tree.js';
import { DEFAULT_EVAL_PROMPT, DEFAULT_THINK_PROMPT, llmEval, llmThink } from './llm-operators.js';
import type { EvalFunction, EvalOutput, FractalTool, Frame, FrameContext, ThinkFunction, ThinkOutput } from './types.js';

/**
 * Options of {@link FractalSolver}. Give a `model` for LLM-backed think and eval, or functions for
 * either (or both); they mix freely.
 *
 * @example
 * ```ts
 * import type { FractalSolverOptions } from '@tot/core/fractal';
 *
 * const options: FractalSolverOptions = { model, maxDepth: 3, maxSteps: 60, timeoutMs: 120_000 };
 * ```
 */
export interface FractalSolverOptions {
  model?: LanguageModel;
  think?: ThinkFunction;
  eval?: EvalFunction;
  thinkPrompt?: PromptTemplate;
  evalPrompt?: PromptTemplate;
  /** Tools think may call (never eval). */
  tools?: Record<string, FractalTool>;
  /** Deepest frame (the root is 0); a frame at it cannot call sub-goals and returns its state. Default 4. */
  maxDepth?: number;
  /** Think and eval calls allowed in a run. Default 200. */
  maxSteps?: number;
  /** Calls of the same sub-goal in a frame without new results before `LOOP_DETECTED`. Default 3. */
  maxRepeats?: number;
  /** Wall time of a run, in milliseconds: the run then degrades. */
  timeoutMs?: number;
  /** Limits on the run's model calls (a `Budget`, `budget.perRun()` or plain limits: see `RunBudget`). */
  budget?: RunBudget;
  /** Repairs of an invalid think or eval reply. Default 2. */
  maxRepairs?: number;
  /** Tool calls per think. Default 5. */
  maxToolCalls?: number;
  /** Reject the run at the first failed branch, with its error (for tests). Default false. */
  strict?: boolean;
  /** Clock for event timestamps and `wallMs`. Default `Date.now`. */
  now?: () => number;
}

/**
 * Per-run options of {@link FractalSolver.run}.
 *
 * @example
 * ```ts
 * import { InMemoryEventStore } from '@tot/core';
 * import type { FractalRunOptions } from '@tot/core/fractal';
 *
 * const options: FractalRunOptions = { runId: 'essay-1', store: new InMemoryEventStore() };
 * ```
 */
export type FractalRunOptions = RunOptions<FractalEvent>;

/**
 * Per-run options of the deprecated {@link FractalSolver.solve}.
 *
 * @deprecated Use {@link FractalRunOptions}.
 *
 * @example
 * ```ts
 * import type { FractalSolveOptions } from '@tot/core/fractal';
 *
 * const options: FractalSolveOptions = { runId: 'essay-1' };
 * ```
 */
export type FractalSolveOptions = FractalRunOptions;

/**
 * How a run ended: `completed`, `degraded` (a limit stopped it; the result is built from what was
 * done) or `failed` (the root itself failed).
 *
 * @example
 * ```ts
 * import type { FractalStatus } from '@tot/core/fractal';
 *
 * const ok = (s: FractalStatus) => s !== 'failed';
 * ```
 */
export type FractalStatus = 'completed' | 'degraded' | 'failed';

/**
 * Why a fractal run stopped: `completed`, `max_steps` (degraded), `loop_detected` (the root
 * looped: failed), and the shared `budget_exceeded` and `timeout` (degraded), `error` (failed),
 * `aborted`.
 *
 * @example
 * ```ts
 * import type { FractalStopReason } from '@tot/core/fractal';
 *
 * const limited = (r: FractalStopReason) => r === 'max_steps' || r === 'timeout' || r === 'budget_exceeded';
 * ```
 */
export type FractalStopReason = 'max_steps' | 'loop_detected' | SharedStopReason;

/**
 * Counters of a {@link FractalSolver} run: the shared {@link RunStats} and the solver's own.
 *
 * @example
 * ```ts
 * import type { FractalStats } from '@tot/core/fractal';
 *
 * const summary = (s: FractalStats) => `${s.frames} frames, ${s.steps} steps`;
 * ```
 */
export interface FractalStats extends RunStats {
  frames: number;
  /** Think and eval calls. */
  steps: number;
  thinkCalls: number;
  evalCalls: number;
  toolCalls: number;
  deepest: number;
}

/**
 * What {@link FractalSolver.run} returns. `detail` says which limit degraded the run, or why the
 * root failed, as data.
 *
 * @example
 * ```ts
 * import type { FractalResult } from '@tot/core/fractal';
 *
 * const show = (r: FractalResult) => console.log(r.status, r.detail?.kind, r.result, r.root.toMermaid());
 * ```
 */
export interface FractalResult extends RunResult<FractalStopReason, FractalStats> {
  status: FractalStatus;
  result: string;
  root: FrameTree;
}

const toolSchema = z.strictObject({ description: z.string().optional(), input: standardSchemaOption, run: fnSchema() });

const optionsSchema = z
  .strictObject({
    model: languageModelSchema.optional(),
    think: fnSchema<ThinkFunction>().optional(),
    eval: fnSchema<EvalFunction>().optional(),
    thinkPrompt: promptTemplateSchema.optional(),
    evalPrompt: promptTemplateSchema.optional(),
    tools: z.record(z.string().regex(/^[\w.-]+$/), toolSchema).default({}),
    maxDepth: z.number().int().min(0).max(100).default(4),
    maxSteps: z.number().int().positive().max(100_000).default(200),
    maxRepeats: z.number().int().min(2).default(3),
    maxRepairs: z.number().int().min(0).max(10).default(2),
    maxToolCalls: z.number().int().min(0).max(100).default(5),
    ...runnerOptionsShape,
  })
  .refine((o) => o.model !== undefined || (o.think !== undefined && o.eval !== undefined), { message: 'give a model, or both think and eval functions', path: ['model'] });

type Parsed = z.output<typeof optionsSchema>;

/** A limit that stops the whole run; the run then degrades. */
class Stop extends Error {
  constructor(readonly stopReason: FractalStopReason, readonly detail: StopDetail) {
    super(detail.kind);
  }
}

const outputSchema = <T extends string>(types: readonly [T, T]) => z.object({ type: z.enum(types), description: z.string() });
const thinkOut = outputSchema(['RETURN', 'TODO'] as const);
const evalOut = outputSchema(['RETURN', 'CALL'] as const);

const normalise = (goal: string) => goal.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

const goalSchema = z.string().min(1);
const runOptionsSchema = z.strictObject(runOptionsShape);
const resumeOptionsSchema = z.strictObject(resumeOptionsShape);

/** The state of a frame, as a result: its results so far, else its plan, else its goal. */
const stateOf = (frame: Frame) => (frame.done.length > 0 ? frame.done.join('\n') : frame.todo || `(nothing done for: ${frame.goal})`);

const statusOf = (stopReason: FractalStopReason): FractalStatus => (stopReason === 'completed' ? 'completed' : stopReason === 'error' || stopReason === 'loop_detected' ? 'failed' : 'degraded');

/** One run of the solver: the recursion over frames, on a run. */
function fractalProgram(o: Parsed, run: Run<FractalEvent>, goal: string): RunProgram<FractalResult> {
  const tree = new FrameTree();
  const stats = { frames: 0, steps: 0, thinkCalls: 0, evalCalls: 0, toolCalls: 0, deepest: 0 };
  const model = o.model ? run.runModel(o.model) : undefined;
  const think = o.think ?? llmThink(model!, o.tools, o.thinkPrompt ?? DEFAULT_THINK_PROMPT, o.maxRepairs, o.maxToolCalls);
  const evaluate = o.eval ?? llmEval(model!, o.evalPrompt ?? DEFAULT_EVAL_PROMPT, o.maxRepairs);
  const runModel = (m: LanguageModel) => run.runModel(m);
  const emit = (event: RunEventInput<FractalEvent>) => run.emit(event);
  // Which operator a frame's failure came from, for the error's location.
  const failedIn = new WeakMap<object, 'think' | 'eval' | 'tool'>();
  let outcome: { stopReason: FractalStopReason; detail?: StopDetail; result: string } | undefined;
  let root: Frame | undefined;

  const newFrame = (goalText: string, parent: Frame | null): Frame => {
    const frame: Frame = { id: `f${stats.frames++}`, goal: goalText, parentId: parent?.id ?? null, todo: '', done: [], depth: parent ? parent.depth + 1 : 0, status: 'open', toolCalls: [] };
    stats.deepest = Math.max(stats.deepest, frame.depth);
    tree.add(frame);
    emit({ type: 'frame.created', frameId: frame.id, parentId: frame.parentId, goal: frame.goal, depth: frame.depth });
    return frame;
  };

  /** A stopping run ends the recursion: a halt degrades it, an abort or a failure rejects it. */
  const checkRun = () => {
    if (!run.stopping) return;
    const halted = run.halted;
    if (halted && (halted.reason === 'timeout' || halted.reason === 'budget_exceeded')) throw new Stop(halted.reason, halted.detail ?? { kind: 'aborted' });
    throw new TotError('ABORTED', 'The fractal run stopped.');
  };

  const step = () => {
    checkRun();
    if (stats.steps >= o.maxSteps) throw new Stop('max_steps', { kind: 'steps', limit: o.maxSteps });
    stats.steps += 1;
  };

  const context = (frame: Frame, operator: 'think' | 'eval'): FrameContext => {
    const snapshot: Frame = { ...frame, done: [...frame.done], toolCalls: [...frame.toolCalls] };
    return {
      frame: snapshot,
      ancestors: tree.ancestors(frame.id),
      signal: run.signal,
      runModel,
      ask: (request) => run.ask(request, { kind: 'frame', frameId: frame.id, operator }),
      callTool: async (name, input) => {
        const tool = o.tools[name] as FractalTool | undefined;
        const call = { tool: name, input } as Frame['toolCalls'][number];
        frame.toolCalls.push(call);
        snapshot.toolCalls.push(call);
        stats.toolCalls += 1;
        try {
          if (!tool) throw new TotError('INVALID_ARGUMENT', `no tool named "${name}" (known: ${Object.keys(o.tools).join(', ') || 'none'})`);
          // The schema is the user's code too (an async check may wait on anything): never waited on past an abort.
          const parsed = await run.guard(() => validatorOf(tool.input)(input), 'tool input check');
          if (!parsed.ok) throw new TotError('INVALID_ARGUMENT', `tool "${name}": ${describeIssues(parsed.issues)}`, { details: { issues: parsed.issues } });
          call.output = await run.guard(() => (tool.run as (input: unknown, options: { signal?: AbortSignal }) => unknown)(parsed.value, { signal: run.signal }), 'tool call');
          emit({ type: 'frame.tool', frameId: frame.id, tool: name, input, output: call.output });
          return call.output;
        } catch (error) {
          call.error = error instanceof Error ? error.message : String(error);
          emit({ type: 'frame.tool', frameId: frame.id, tool: name, input, error: call.error });
          throw error;
        }
      },
    };
  };

  const operator = async <T>(fn: () => Promise<T> | T, schema: z.ZodType<T>, what: 'think' | 'eval'): Promise<T> => {
    let value: unknown;
    try {
      value = await run.guard(fn, what);
    } catch (error) {
      checkRun();
      if (typeof error === 'object' && error !== null) failedIn.set(error, what);
      throw error;
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const error = new TotError('INVALID_FORMAT', `${what} returned ${JSON.stringify(value)}: ${parsed.error.issues[0]?.message}`, { details: { value } });
      failedIn.set(error, what);
      throw error;
    }
    return parsed.data;
  };

  const finish = (frame: Frame, result: string, forced?: StopDetail): string => {
    frame.status = 'returned';
    frame.result = result;
    if (forced) frame.forced = forced;
    emit({ type: 'frame.returned', frameId: frame.id, result, ...(forced ? { forced } : {}) });
    return result;
  };

  const failFrame = (frame: Frame, error: unknown): TotError => {
    const failure = TotError.isInstance(error) ? error : new TotError('INTERNAL', error instanceof Error ? error.message : String(error), { cause: error });
    frame.status = 'failed';
    frame.error = failure.toProtocolError();
    run.recordError(error, { kind: 'frame', frameId: frame.id, operator: (typeof error === 'object' && error !== null && failedIn.get(error)) || 'think' });
    emit({ type: 'frame.failed', frameId: frame.id, error: failure.toProtocolError() });
    return failure;
  };

  const solveFrame = async (frame: Frame): Promise<string> => {
    step();
    stats.thinkCalls += 1;
    const thought = await operator<ThinkOutput>(() => think(context(frame, 'think')), thinkOut as z.ZodType<ThinkOutput>, 'think');
    emit({ type: 'frame.thought', frameId: frame.id, output: thought });
    if (thought.type === 'RETURN') return finish(frame, thought.description);
    frame.todo = thought.description;
    const repeats = new Map<string, { count: number; result: string | undefined }>();
    for (;;) {
      step();
      stats.evalCalls += 1;
      const ctx = context(frame, 'eval');
      const decision = await operator<EvalOutput>(() => evaluate(ctx), evalOut as z.ZodType<EvalOutput>, 'eval');
      emit({ type: 'frame.evaluated', frameId: frame.id, done: ctx.frame.done, output: decision });
      if (decision.type === 'RETURN') return finish(frame, decision.description);
      if (frame.depth >= o.maxDepth) return finish(frame, stateOf(frame), { kind: 'depth', limit: o.maxDepth });
      const key = normalise(decision.description);
      const seen = repeats.get(key) ?? { count: 0, result: undefined };
      const child = newFrame(decision.description, frame);
      emit({ type: 'frame.called', frameId: frame.id, childId: child.id, goal: child.goal });
      let result: string;
      try {
        result = await solveFrame(child);
      } catch (error) {
        if (error instanceof Stop || run.stopping) throw error;
        result = failedResult(failFrame(child, error));
      }
      // The strong invariant: the child's result is archived before the parent decides again.
      frame.done.push(result);
      seen.count = seen.result === result ? seen.count + 1 : 1;
      seen.result = result;
      repeats.set(key, seen);
      if (seen.count >= o.maxRepeats) {
        throw new TotError('LOOP_DETECTED', `Frame ${frame.id} called "${decision.description}" ${seen.count} times without a new result.`, { details: { frameId: frame.id, goal: decision.description, repeats: seen.count } });
      }
    }
  };

  return {
    async main() {
      root = newFrame(goal, null);
      try {
        outcome = { stopReason: 'completed', result: await solveFrame(root) };
      } catch (error) {
        if (error instanceof Stop) {
          const result = stateOf(root);
          finish(root, result, error.detail);
          outcome = { stopReason: error.stopReason, detail: error.detail, result };
        } else if (!run.stopping) {
          const failure = failFrame(root, error);
          const detail: StopDetail = TotError.hasCode(failure, 'LOOP_DETECTED') && failure.details
            ? { kind: 'loop', frameId: failure.details.frameId, goal: failure.details.goal, repeats: failure.details.repeats ?? o.maxRepeats }
            : { kind: 'error', code: failure.code, message: failure.message };
          outcome = { stopReason: detail.kind === 'loop' ? 'loop_detected' : 'error', detail, result: stateOf(root) };
        }
      }
    },
    result(end: RunEnd): FractalResult {
      const stopReason: FractalStopReason = end.halted?.reason ?? outcome?.stopReason ?? 'completed';
      const detail = end.halted?.detail ?? outcome?.detail;
      return {
        runId: end.runId,
        status: statusOf(stopReason),
        stopReason,
        ...(detail ? { detail } : {}),
        result: outcome?.result ?? (root ? stateOf(root) : ''),
        root: tree,
        errors: end.errors,
        stats: { ...end.stats, ...stats },
      };
    },
  };
}

/** A finished fractal run rebuilt from its log. */
function resultFromLog(log: RecordedRun): FractalResult {
  const finished = log.finished!;
  const root = foldFractalEvents(log.events);
  const stopReason = finished.stopReason as FractalStopReason;
  const f0 = root.all()[0];
  return {
    runId: log.runId,
    status: statusOf(stopReason),
    stopReason,
    ...(finished.detail ? { detail: finished.detail } : {}),
    result: f0?.result ?? (f0 ? stateOf(f0) : ''),
    root,
    errors: finished.errors.map((e) => ({ code: e.code as FractalResult['errors'][number]['code'], message: e.message, ...(e.where ? { where: e.where } : {}) })),
    stats: finished.stats as unknown as FractalStats,
  };
}

/**
 * Fractal thinking: a recursive think/eval loop over frames `{ goal, parent, todo, done }`.
 * Think runs first on every new frame and either returns a result or writes a plan; eval then
 * either calls a sub-goal (a child frame, solved recursively) or returns. A child's result —
 * success or failure — is appended to the parent's `done` before the parent's next eval (the
 * protocol's strong invariant). Limits (`maxDepth`, `maxSteps`, `timeoutMs`, the budget) and loop
 * detection end in a graceful degradation built from what is done, with the limit as data in
 * `detail`; an invalid think or eval reply is repaired, then fails only its branch (recorded in
 * `errors`; with `strict: true` it rejects the run). An abort rejects with `ABORTED`. Runs record
 * to any event store and resume like every runner.
 *
 * @example
 * ```ts
 * import { FractalSolver } from '@tot/core/fractal';
 *
 * const solver = new FractalSolver({ model, maxDepth: 3 });
 * const { status, result, root } = await solver.run('Write an 800-word essay on AI and art');
 * console.log(status, result);
 * console.log(root.toMermaid());
 * ```
 */
export class FractalSolver extends RunEmitter<FractalEvent> {
  private readonly o: Parsed;

  constructor(options: FractalSolverOptions) {
    super();
    this.o = parseOptions(optionsSchema, options, 'FractalSolver');
  }

  private settings(): RunSettings<FractalEvent> {
    const o = this.o;
    return {
      runner: 'fractal',
      what: 'fractal run',
      emitter: this,
      options: o,
      config: {
        modelId: o.model?.modelId,
        think: o.think ? describeFunction(o.think) : { prompt: describePrompt(o.thinkPrompt ?? DEFAULT_THINK_PROMPT) },
        eval: o.eval ? describeFunction(o.eval) : { prompt: describePrompt(o.evalPrompt ?? DEFAULT_EVAL_PROMPT) },
        tools: Object.keys(o.tools).sort(),
        maxDepth: o.maxDepth,
        maxSteps: o.maxSteps,
        maxRepeats: o.maxRepeats,
        maxRepairs: o.maxRepairs,
        maxToolCalls: o.maxToolCalls,
      },
      replayLog: foldFractalEvents,
    };
  }

  /**
   * Solves `goal` from a fresh root frame.
   *
   * @example
   * ```ts
   * const { status, result, stats } = await solver.run('Plan a product launch', { signal: AbortSignal.timeout(300_000) });
   * ```
   */
  run(goal: string, options: FractalRunOptions = {}): Promise<FractalResult> {
    const g = parseOptions(goalSchema, goal, 'FractalSolver.run', 'goal');
    const r = parseOptions(runOptionsSchema, options, 'FractalSolver.run');
    return startRun<FractalEvent, FractalResult>(this.settings(), r, { problem: g }, (run) => fractalProgram(this.o, run, g));
  }

  /**
   * The same as {@link FractalSolver.run}.
   *
   * @deprecated Use `run`; `solve` will be removed in 1.0.
   *
   * @example
   * ```ts
   * const { result } = await solver.solve('Plan a product launch');
   * ```
   */
  solve(goal: string, options: FractalRunOptions = {}): Promise<FractalResult> {
    return this.run(goal, options);
  }

  /**
   * Continues a run recorded with `run(goal, { store, runId })` that was interrupted: the run is
   * replayed with every recorded model call served from the log, then goes on. The solver must
   * be configured as it was (`RESUME_MISMATCH`, nothing written, otherwise); a finished run is
   * returned as it was.
   *
   * @example
   * ```ts
   * const result = await solver.resume({ store, runId: 'essay-1' });
   * ```
   */
  resume(options: ResumeOptions<FractalEvent>): Promise<FractalResult> {
    const r = parseOptions(resumeOptionsSchema, options, 'FractalSolver.resume');
    return resumeRun<FractalEvent, FractalResult>(this.settings(), r, {
      fromLog: resultFromLog,
      program: (run, log) => fractalProgram(this.o, run, log.started.problem),
    });
  }

  /**
   * Builds a solver from `options` and resumes a recorded run with it (see {@link FractalSolver.resume}).
   *
   * @example
   * ```ts
   * import { FractalSolver } from '@tot/core/fractal';
   *
   * const result = await FractalSolver.resume({ store, runId: 'essay-1', model, maxDepth: 3 });
   * ```
   */
  static resume(options: FractalSolverOptions & ResumeOptions<FractalEvent>): Promise<FractalResult> {
    const { store, runId, signal, onEvent, ...solverOptions } = options;
    return new FractalSolver(solverOptions).resume({ store, runId, ...(signal ? { signal } : {}), ...(onEvent ? { onEvent } : {}) });
  }
}
