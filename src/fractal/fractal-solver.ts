import { z } from 'zod';
import { Budget } from '../budget/budget.js';
import { TotError } from '../errors/index.js';
import { RunEmitter } from '../events/run-emitter.js';
import { RunRecorder } from '../events/run-recorder.js';
import type { EventStore } from '../events/store/types.js';
import { linkedController, raceAbort } from '../internal/abort.js';
import { fnSchema, parseOptions, signalSchema } from '../internal/validate.js';
import { languageModelSchema } from '../model/schemas.js';
import type { LanguageModel } from '../model/types.js';
import { UsageMeter } from '../model/usage-meter.js';
import { withBudget } from '../model/with-budget.js';
import { withUsage } from '../model/with-usage.js';
import { promptTemplateSchema, type PromptTemplate } from '../roles/prompt-template.js';
import { FrameTree } from './frame-tree.js';
import { DEFAULT_EVAL_PROMPT, DEFAULT_THINK_PROMPT, llmEval, llmThink } from './llm-operators.js';
import type { EvalFunction, EvalOutput, FractalTool, Frame, FrameContext, ThinkFunction, ThinkOutput } from './types.js';

/**
 * Options of {@link FractalSolver}. Give a `model` for LLM-backed think and eval, or functions for
 * either (or both); they mix freely.
 *
 * @example
 * ```ts
 * import type { FractalSolverOptions } from '@tot/core';
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
  /** Tools think may call (never eval: seed 002). */
  tools?: Record<string, FractalTool>;
  /** Deepest frame (the root is 0); a frame at it cannot call sub-goals and returns its state. Default 4. */
  maxDepth?: number;
  /** Think and eval calls allowed in a run. Default 200. */
  maxSteps?: number;
  /** Calls of the same sub-goal in a frame without new results before `LOOP_DETECTED`. Default 3. */
  maxRepeats?: number;
  /** Wall time of a run, in milliseconds. */
  timeoutMs?: number;
  /** Token and call limits of the LLM-backed operators. */
  budget?: Budget;
  /** Repairs of an invalid think or eval reply. Default 2. */
  maxRepairs?: number;
  /** Tool calls per think. Default 5. */
  maxToolCalls?: number;
  /** Clock for event timestamps. Default `Date.now`. */
  now?: () => number;
}

/**
 * Per-run options of {@link FractalSolver.solve}.
 *
 * @example
 * ```ts
 * import { InMemoryEventStore, type FractalSolveOptions } from '@tot/core';
 *
 * const options: FractalSolveOptions = { runId: 'essay-1', store: new InMemoryEventStore() };
 * ```
 */
export interface FractalSolveOptions {
  signal?: AbortSignal;
  /** Default `fractal-<n>`. */
  runId?: string;
  /** Record every event of the run (an audit trail that `replayFractalRun` folds back into the frames). */
  store?: EventStore;
}

/**
 * How a run ended: `completed`, `degraded` (a limit stopped it; the result is built from what was
 * done) or `failed` (the root itself failed).
 *
 * @example
 * ```ts
 * import type { FractalStatus } from '@tot/core';
 *
 * const ok = (s: FractalStatus) => s !== 'failed';
 * ```
 */
export type FractalStatus = 'completed' | 'degraded' | 'failed';

/**
 * Counters of a {@link FractalSolver} run.
 *
 * @example
 * ```ts
 * import type { FractalStats } from '@tot/core';
 *
 * const summary = (s: FractalStats) => `${s.frames} frames, ${s.steps} steps`;
 * ```
 */
export interface FractalStats {
  frames: number;
  /** Think and eval calls. */
  steps: number;
  thinkCalls: number;
  evalCalls: number;
  toolCalls: number;
  deepest: number;
  llmCalls: number;
  inputTokens: number;
  outputTokens: number;
  wallMs: number;
}

/**
 * What {@link FractalSolver.solve} returns.
 *
 * @example
 * ```ts
 * import type { FractalResult } from '@tot/core';
 *
 * const show = (r: FractalResult) => console.log(r.status, r.result, r.root.toMermaid());
 * ```
 */
export interface FractalResult {
  status: FractalStatus;
  result: string;
  /** Why the run degraded or failed. */
  reason?: string;
  root: FrameTree;
  stats: FractalStats;
}

const toolSchema = z.object({ description: z.string().optional(), input: z.custom<z.ZodType>((v) => v instanceof z.ZodType, 'expected a zod schema'), run: fnSchema() });

const optionsSchema = z
  .object({
    model: languageModelSchema.optional(),
    think: fnSchema<ThinkFunction>().optional(),
    eval: fnSchema<EvalFunction>().optional(),
    thinkPrompt: promptTemplateSchema.optional(),
    evalPrompt: promptTemplateSchema.optional(),
    tools: z.record(z.string().regex(/^[\w.-]+$/), toolSchema).default({}),
    maxDepth: z.number().int().min(0).max(100).default(4),
    maxSteps: z.number().int().positive().max(100_000).default(200),
    maxRepeats: z.number().int().min(2).default(3),
    timeoutMs: z.number().positive().optional(),
    budget: z.instanceof(Budget, { message: 'expected a Budget' }).optional(),
    maxRepairs: z.number().int().min(0).max(10).default(2),
    maxToolCalls: z.number().int().min(0).max(100).default(5),
    now: fnSchema<() => number>().optional(),
  })
  .refine((o) => o.model !== undefined || (o.think !== undefined && o.eval !== undefined), { message: 'give a model, or both think and eval functions', path: ['model'] });

/** A limit that stops the whole run; the run then degrades. */
class Stop extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

const outputSchema = <T extends string>(types: readonly [T, T]) => z.object({ type: z.enum(types), description: z.string() });
const thinkOut = outputSchema(['RETURN', 'TODO'] as const);
const evalOut = outputSchema(['RETURN', 'CALL'] as const);

const normalise = (goal: string) => goal.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

const goalSchema = z.string().min(1);
const solveOptionsSchema = z.object({
  signal: signalSchema,
  runId: z.string().min(1).optional(),
  store: z.custom<EventStore>((v) => typeof v === 'object' && v !== null && typeof (v as EventStore).append === 'function', 'expected an EventStore').optional(),
});

/**
 * Seed 002's fractal thinking: a recursive think/eval loop over frames `{ goal, parent, todo, done }`.
 * Think runs first on every new frame and either returns a result or writes a plan; eval then
 * either calls a sub-goal (a child frame, solved recursively) or returns. A child's result —
 * success or failure — is appended to the parent's `done` before the parent's next eval (the
 * seed's strong invariant). Limits (`maxDepth`, `maxSteps`, `timeoutMs`, the budget) and loop
 * detection end in a graceful degradation built from what is done; an invalid think or eval reply
 * is repaired, then fails only its branch. An abort rejects with `ABORTED`.
 *
 * @example
 * ```ts
 * import { FractalSolver } from '@tot/core';
 *
 * const solver = new FractalSolver({ model, maxDepth: 3 });
 * const { status, result, root } = await solver.solve('Write an 800-word essay on AI and art');
 * console.log(status, result);
 * console.log(root.toMermaid());
 * ```
 */
export class FractalSolver extends RunEmitter {
  private readonly o: z.output<typeof optionsSchema>;
  private runs = 0;

  constructor(options: FractalSolverOptions) {
    const o = parseOptions(optionsSchema, options, 'FractalSolver');
    super(o.now ? { now: o.now } : {});
    this.o = o;
  }

  /**
   * Solves `goal` from a fresh root frame.
   *
   * @example
   * ```ts
   * const { status, result, stats } = await solver.solve('Plan a product launch', { signal: AbortSignal.timeout(300_000) });
   * ```
   */
  async solve(goal: string, options: FractalSolveOptions = {}): Promise<FractalResult> {
    const g = parseOptions(goalSchema, goal, 'FractalSolver.solve', 'goal');
    const r = parseOptions(solveOptionsSchema, options, 'FractalSolver.solve');
    const o = this.o;
    this.runs += 1;
    const runId = r.runId ?? `fractal-${this.runs}`;
    const clock = o.now ?? Date.now;
    const started = clock();
    const deadline = o.timeoutMs === undefined ? undefined : Date.now() + o.timeoutMs;
    const { controller, release } = linkedController([r.signal]);
    const timer = deadline === undefined ? undefined : setTimeout(() => controller.abort(new Stop(`the time limit of ${o.timeoutMs} ms was reached`)), o.timeoutMs);
    const meter = new UsageMeter();
    let model = o.model;
    if (model && o.budget) model = withBudget(model, { budget: o.budget });
    if (model) model = withUsage(model, { meter });
    const think = o.think ?? llmThink(model!, o.tools, o.thinkPrompt ?? DEFAULT_THINK_PROMPT, o.maxRepairs, o.maxToolCalls);
    const evaluate = o.eval ?? llmEval(model!, o.evalPrompt ?? DEFAULT_EVAL_PROMPT, o.maxRepairs);
    const tree = new FrameTree();
    const stats: FractalStats = { frames: 0, steps: 0, thinkCalls: 0, evalCalls: 0, toolCalls: 0, deepest: 0, llmCalls: 0, inputTokens: 0, outputTokens: 0, wallMs: 0 };
    const recorder = r.store ? RunRecorder.begin({ store: r.store, runId }) : undefined;
    const emit = (event: Record<string, unknown>) => {
      const stamped = this.emitEvent({ runId, ...event } as never);
      recorder?.record(stamped);
    };

    const newFrame = (goalText: string, parent: Frame | null): Frame => {
      const frame: Frame = { id: `f${stats.frames++}`, goal: goalText, parentId: parent?.id ?? null, todo: '', done: [], depth: parent ? parent.depth + 1 : 0, status: 'open', toolCalls: [] };
      stats.deepest = Math.max(stats.deepest, frame.depth);
      tree.add(frame);
      emit({ type: 'frame.created', frameId: frame.id, parentId: frame.parentId, goal: frame.goal, depth: frame.depth });
      return frame;
    };

    const step = () => {
      if (controller.signal.aborted) {
        const reason: unknown = controller.signal.reason;
        if (reason instanceof Stop) throw reason;
        throw TotError.isInstance(reason) && reason.code === 'BUDGET_EXCEEDED' ? new Stop(reason.message) : new TotError('ABORTED', 'The fractal run was aborted.', { cause: reason });
      }
      if (stats.steps >= o.maxSteps) throw new Stop(`the step limit of ${o.maxSteps} was reached`);
      if (o.budget?.snapshot().exhausted) throw new Stop('the budget is exhausted');
      stats.steps += 1;
    };

    const context = (frame: Frame): FrameContext => {
      const snapshot: Frame = { ...frame, done: [...frame.done], toolCalls: [...frame.toolCalls] };
      return {
        frame: snapshot,
        ancestors: tree.ancestors(frame.id),
        signal: controller.signal,
        callTool: async (name, input) => {
          const tool = o.tools[name] as FractalTool | undefined;
          const call = { tool: name, input } as Frame['toolCalls'][number];
          frame.toolCalls.push(call);
          snapshot.toolCalls.push(call);
          stats.toolCalls += 1;
          try {
            if (!tool) throw new TotError('INVALID_ARGUMENT', `no tool named "${name}" (known: ${Object.keys(o.tools).join(', ') || 'none'})`);
            const parsed = tool.input.safeParse(input);
            if (!parsed.success) throw new TotError('INVALID_ARGUMENT', `tool "${name}": ${z.prettifyError(parsed.error)}`);
            call.output = await raceAbort(Promise.resolve((tool.run as (input: unknown, options: { signal?: AbortSignal }) => unknown)(parsed.data, { signal: controller.signal })), controller.signal, 'tool call');
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

    const operator = async <T>(fn: () => Promise<T> | T, schema: z.ZodType<T>, what: string): Promise<T> => {
      let value: unknown;
      try {
        value = await raceAbort(Promise.resolve().then(fn), controller.signal, what);
      } catch (error) {
        if (controller.signal.aborted) step();
        if (TotError.hasCode(error, 'BUDGET_EXCEEDED')) throw new Stop(error.message);
        throw error;
      }
      const parsed = schema.safeParse(value);
      if (!parsed.success) throw new TotError('INVALID_FORMAT', `${what} returned ${JSON.stringify(value)}: ${parsed.error.issues[0]?.message}`, { details: { value } });
      return parsed.data;
    };

    const finish = (frame: Frame, result: string, forced?: string): string => {
      frame.status = 'returned';
      frame.result = result;
      if (forced) frame.reason = forced;
      emit({ type: 'frame.returned', frameId: frame.id, result, ...(forced ? { forced } : {}) });
      return result;
    };

    /** The state of a frame, as a result: its results so far, else its plan, else its goal. */
    const state = (frame: Frame) => (frame.done.length > 0 ? frame.done.join('\n') : frame.todo || `(nothing done for: ${frame.goal})`);

    const solveFrame = async (frame: Frame): Promise<string> => {
      step();
      stats.thinkCalls += 1;
      const thought = await operator<ThinkOutput>(() => think(context(frame)), thinkOut as z.ZodType<ThinkOutput>, 'think');
      emit({ type: 'frame.thought', frameId: frame.id, output: thought });
      if (thought.type === 'RETURN') return finish(frame, thought.description);
      frame.todo = thought.description;
      const repeats = new Map<string, { count: number; result: string | undefined }>();
      for (;;) {
        step();
        stats.evalCalls += 1;
        const ctx = context(frame);
        const decision = await operator<EvalOutput>(() => evaluate(ctx), evalOut as z.ZodType<EvalOutput>, 'eval');
        emit({ type: 'frame.evaluated', frameId: frame.id, done: ctx.frame.done, output: decision });
        if (decision.type === 'RETURN') return finish(frame, decision.description);
        if (frame.depth >= o.maxDepth) return finish(frame, state(frame), `the depth limit of ${o.maxDepth} was reached`);
        const key = normalise(decision.description);
        const seen = repeats.get(key) ?? { count: 0, result: undefined };
        const child = newFrame(decision.description, frame);
        emit({ type: 'frame.called', frameId: frame.id, childId: child.id, goal: child.goal });
        let result: string;
        try {
          result = await solveFrame(child);
        } catch (error) {
          if (error instanceof Stop || TotError.hasCode(error, 'ABORTED')) throw error;
          const failure = TotError.isInstance(error) ? error : new TotError('GENERATION_FAILED', String(error), { cause: error });
          child.status = 'failed';
          child.reason = `${failure.code}: ${failure.message}`;
          emit({ type: 'frame.failed', frameId: child.id, error: failure.toProtocolError() });
          result = `FAILED (${failure.code}): ${failure.message}`;
        }
        // The strong invariant: the child's result is archived before the parent decides again.
        frame.done.push(result);
        seen.count = seen.result === result ? seen.count + 1 : 1;
        seen.result = result;
        repeats.set(key, seen);
        if (seen.count >= o.maxRepeats) {
          throw new TotError('LOOP_DETECTED', `Frame ${frame.id} called "${decision.description}" ${seen.count} times without a new result.`, { details: { frameId: frame.id, goal: decision.description } });
        }
      }
    };

    const root = newFrame(g, null);
    emit({ type: 'run.started', problem: g, config: { maxDepth: o.maxDepth, maxSteps: o.maxSteps } });
    let status: FractalStatus = 'completed';
    let result: string;
    let reason: string | undefined;
    try {
      result = await solveFrame(root);
    } catch (error) {
      if (error instanceof Stop) {
        status = 'degraded';
        reason = error.reason;
        result = state(root);
        finish(root, result, reason);
      } else if (TotError.hasCode(error, 'ABORTED')) {
        emit({ type: 'run.finished', stopReason: 'aborted' });
        throw error;
      } else {
        const failure = TotError.isInstance(error) ? error : new TotError('GENERATION_FAILED', String(error), { cause: error });
        status = 'failed';
        reason = `${failure.code}: ${failure.message}`;
        root.status = 'failed';
        root.reason = reason;
        result = state(root);
        emit({ type: 'frame.failed', frameId: root.id, error: failure.toProtocolError() });
      }
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      release();
    }
    const usage = meter.snapshot();
    Object.assign(stats, { llmCalls: usage.calls, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, wallMs: clock() - started });
    emit({ type: 'run.finished', stopReason: status, stats: { ...stats }, ...(reason ? { reason } : {}) });
    if (recorder) await recorder.durable();
    return { status, result, ...(reason ? { reason } : {}), root: tree, stats };
  }
}
