import type { AskAnswer, AskRequest } from '../run/question.js';
import type { StandardSchemaV1 } from '../internal/standard-schema.js';
import { z } from 'zod';
import { parseOptions, signalSchema } from '../internal/validate.js';
import { languageModelSchema } from '../model/schemas.js';
import type { LanguageModel } from '../model/types.js';
import type { RecordedRun } from '../run/recorded-run.js';
import { RunEmitter } from '../run/run-emitter.js';
import { resumeOptionsShape, runnerOptionsShape, runOptionsShape, type ResumeOptions, type RunBudget, type RunOptions } from '../run/run-options.js';
import type { RunResult, RunStats } from '../run/run-result.js';
import { eventShapeCheck } from '../run/run-log-check.js';
import { resumeRun, startRun, type Run, type RunEnd, type RunProgram, type RunSettings } from '../run/run.js';
import type { SharedStopReason, StopDetail } from '../run/stop-detail.js';
import { describePrompt, promptTemplateSchema, renderPrompt, type PromptTemplate } from '../roles/prompt-template.js';
import { generateChecked } from '../structured/generate-structured.js';
import { chainOfThoughtEventShapes, type ChainOfThoughtEvent } from './cot-events.js';
import { copyPlan, DEFAULT_FIRST_PLAN, formatPlan, planSchema, quoteUnquotedColons, type PlanStep } from './plan.js';

/**
 * One thought of a {@link ChainOfThoughtNode} (the thought dictionary).
 *
 * @example
 * ```ts
 * import type { Thought } from '@tot/core/cot';
 *
 * const t: Thought = { thoughtNumber: 1, currentThinking: 'Two unknowns, two equations.', planning: [], nextThoughtNeeded: true };
 * ```
 */
export interface Thought {
  thoughtNumber: number;
  currentThinking: string;
  planning: PlanStep[];
  nextThoughtNeeded: boolean;
}

/**
 * The node's shared state (`shared`), for hosts that drive it with {@link ChainOfThoughtNode.step}.
 *
 * @example
 * ```ts
 * import { ChainOfThoughtNode, type ChainOfThoughtState } from '@tot/core/cot';
 *
 * const state: ChainOfThoughtState = ChainOfThoughtNode.initialState('What is 17 * 23?');
 * ```
 */
export interface ChainOfThoughtState {
  problem: string;
  thoughts: Thought[];
  currentThoughtNumber: number;
  solution: string | null;
}

/**
 * What {@link ChainOfThoughtNode.prep} hands to `exec`.
 *
 * @example
 * ```ts
 * import type { ChainOfThoughtPrep } from '@tot/core/cot';
 *
 * const first = (p: ChainOfThoughtPrep) => p.isFirstThought;
 * ```
 */
export interface ChainOfThoughtPrep {
  problem: string;
  thoughtNumber: number;
  isFirstThought: boolean;
  /** Earlier thoughts, formatted for the prompt. */
  history: string;
  /** The last plan, formatted for the prompt. */
  plan: string;
  lastPlan: PlanStep[];
}

/**
 * Why a chain-of-thought run ended: `completed` (a conclusion), `max_thoughts` (the cap, no
 * conclusion), and the shared `budget_exceeded`, `timeout`, `error` (a thought could not be had:
 * see `errors`), `aborted`.
 *
 * @example
 * ```ts
 * import type { ChainOfThoughtStopReason } from '@tot/core/cot';
 *
 * const capped = (r: ChainOfThoughtStopReason) => r === 'max_thoughts';
 * ```
 */
export type ChainOfThoughtStopReason = 'max_thoughts' | SharedStopReason;

/**
 * Counters of a chain-of-thought run.
 *
 * @example
 * ```ts
 * import type { ChainOfThoughtStats } from '@tot/core/cot';
 *
 * const perThought = (s: ChainOfThoughtStats) => s.llmCalls / Math.max(1, s.thoughts);
 * ```
 */
export interface ChainOfThoughtStats extends RunStats {
  thoughts: number;
}

/**
 * What {@link ChainOfThoughtNode.run} returns.
 *
 * @example
 * ```ts
 * import type { ChainOfThoughtResult } from '@tot/core/cot';
 *
 * const print = (r: ChainOfThoughtResult) => console.log(r.solution ?? '(no conclusion)', r.stopReason);
 * ```
 */
export interface ChainOfThoughtResult extends RunResult<ChainOfThoughtStopReason, ChainOfThoughtStats> {
  /** The conclusion, or `null` when the run stopped before one. */
  solution: string | null;
  thoughts: Thought[];
  /** The last plan. */
  plan: PlanStep[];
}

/**
 * Options of {@link ChainOfThoughtNode}.
 *
 * @example
 * ```ts
 * import type { ChainOfThoughtOptions } from '@tot/core/cot';
 *
 * const options: ChainOfThoughtOptions = { model, maxThoughts: 12, format: 'yaml' };
 * ```
 */
export interface ChainOfThoughtOptions {
  model: LanguageModel;
  /** `yaml` (default; the format the prompt was first written for) or `json`. */
  format?: 'yaml' | 'json';
  /** Hard cap on thoughts per run (the original prompt has none and can loop forever). Default 20. */
  maxThoughts?: number;
  /** Repairs per thought. Default 2. */
  maxRepairs?: number;
  /** Overrides the prompt. Variables: `problem`, `history`, `plan`, `thoughtNumber`, `instructions`, `format`. */
  prompt?: PromptTemplate;
  /** Default 0.3. */
  temperature?: number;
  /** Limits on the run's model calls (a `Budget`, `budget.perRun()` or plain limits: see `RunBudget`). */
  budget?: RunBudget;
  /** Wall time of a run, in milliseconds: it then stops with `timeout` and the thoughts so far. */
  timeoutMs?: number;
  /** Reject the run when a thought fails, with its error (for tests). Default false: the run resolves with `error`. */
  strict?: boolean;
  /** Clock for event timestamps and `wallMs`. Default `Date.now`. */
  now?: () => number;
}

const optionsSchema = z.strictObject({
  model: languageModelSchema,
  format: z.enum(['yaml', 'json']).default('yaml'),
  maxThoughts: z.number().int().positive().max(1_000).default(20),
  maxRepairs: z.number().int().min(0).max(10).default(2),
  prompt: promptTemplateSchema.optional(),
  temperature: z.number().min(0).default(0.3),
  ...runnerOptionsShape,
});

const thoughtSchema = z.object({
  current_thinking: z.union([z.string(), z.number()]).transform(String).pipe(z.string().min(1)),
  planning: planSchema,
  next_thought_needed: z.boolean(),
});

/**
 * The reply the default chain-of-thought prompt asks for, one thought (snake_case, as models write
 * it, in YAML or JSON as the node's `format` says). A custom prompt must still ask for it.
 *
 * @example
 * ```ts
 * import { chainOfThoughtReplySchema } from '@tot/core/cot';
 *
 * chainOfThoughtReplySchema.parse({ current_thinking: '13 - 9 = 4', planning: [{ description: 'Reach 24', status: 'Pending' }], next_thought_needed: true });
 * ```
 */
export const chainOfThoughtReplySchema = thoughtSchema;

/**
 * The instructions of chain of thought over a nested plan, in the prompt of every thought.
 *
 * @example
 * ```ts
 * import { CHAIN_OF_THOUGHT_INSTRUCTIONS } from '@tot/core/cot';
 *
 * console.log(CHAIN_OF_THOUGHT_INSTRUCTIONS);
 * ```
 */
export const CHAIN_OF_THOUGHT_INSTRUCTIONS = [
  '1. Evaluate the previous thought: is its reasoning and result correct? If you find an error, say so and fix the plan (mark the step "Verification Needed" with the reason in `mark`, or set it back to "Pending").',
  '2. Execute the first step of the plan that is "Pending": do the actual work in `current_thinking`.',
  '3. Update the plan: mark the executed step "Done" with a concise `result`; break a complex step into `sub_steps`; add or change steps when needed. Statuses are exactly "Pending", "Done" or "Verification Needed".',
  '4. Set `next_thought_needed` to false only when the step you executed is the final "Conclusion" step; `current_thinking` then holds the final answer.',
].join('\n');

const FORMAT = {
  yaml: [
    'Reply with YAML only, in this shape (quote any text that contains a colon):',
    'current_thinking: |',
    '  <your evaluation of the previous thought and the work of this step>',
    'planning:',
    '  - description: "<step>"',
    '    status: "Done"',
    '    result: "<concise result>"',
    '  - description: "<step>"',
    '    status: "Pending"',
    '    sub_steps:',
    '      - description: "<sub-step>"',
    '        status: "Pending"',
    '  - description: "Conclusion"',
    '    status: "Pending"',
    'next_thought_needed: true',
  ].join('\n'),
  json: 'Reply with JSON only: {"current_thinking": "...", "planning": [{"description": "...", "status": "Pending|Done|Verification Needed", "result": "...", "mark": "...", "sub_steps": [...]}], "next_thought_needed": true}',
} as const;

/**
 * The default prompt of a thought.
 *
 * @example
 * ```ts
 * import { DEFAULT_CHAIN_OF_THOUGHT_PROMPT } from '@tot/core/cot';
 *
 * console.log(DEFAULT_CHAIN_OF_THOUGHT_PROMPT);
 * ```
 */
export const DEFAULT_CHAIN_OF_THOUGHT_PROMPT = [
  'You are solving a problem by thinking step by step, following and updating a plan.',
  'Problem: {{problem}}',
  'Previous thoughts:\n{{history}}',
  'Current plan:\n{{plan}}',
  'This is thought {{thoughtNumber}}. Do the following:\n{{instructions}}',
  '{{format}}',
].join('\n\n');

// Every prompt repeats the whole history: each thought is formatted once, not once per prompt.
const formatted = new WeakMap<Thought, string>();
function formatThought(t: Thought): string {
  let text = formatted.get(t);
  if (text === undefined) {
    text = `Thought ${t.thoughtNumber}:\n${t.currentThinking.trim()}\nPlan after it:\n${formatPlan(t.planning)}`;
    formatted.set(t, text);
  }
  return text;
}

const problemSchema = z.string().min(1);
const runOptionsSchema = z.strictObject(runOptionsShape);
const resumeOptionsSchema = z.strictObject(resumeOptionsShape);
const stepOptionsSchema = z.strictObject({
  signal: signalSchema,
  runModel: z.custom<(model: LanguageModel) => LanguageModel>((v) => typeof v === 'function').optional(),
  ask: z.custom<NonNullable<ChainOfThoughtStepOptions['ask']>>((v) => typeof v === 'function').optional(),
});

/**
 * Options of {@link ChainOfThoughtNode.step} and {@link ChainOfThoughtNode.exec}.
 *
 * @example
 * ```ts
 * import type { ChainOfThoughtStepOptions } from '@tot/core/cot';
 *
 * const options: ChainOfThoughtStepOptions = { signal: AbortSignal.timeout(30_000) };
 * ```
 */
export interface ChainOfThoughtStepOptions {
  signal?: AbortSignal;
  /** The model as the host's run sees it (see `RoleCallOptions.runModel`). Default: the node's model as is. */
  runModel?: (model: LanguageModel) => LanguageModel;
  /**
   * Asks a person, for an `exec` of a subclass (see the Runs guide, "Asking a person"): answered by
   * the run's `onAsk`, or the run ends `waiting` and a resume given the answer goes on. The
   * question's id is `thought/<thoughtNumber>#<key>`. Set by the node's own run.
   */
  ask?: <A extends StandardSchemaV1 | undefined = undefined>(request: AskRequest<NonNullable<A>> & { schema?: A }) => Promise<AskAnswer<A>>;
}

const checkEvent = eventShapeCheck(chainOfThoughtEventShapes);

/** The thoughts of a chain-of-thought run folded from its events. */
function thoughtsOf(events: readonly { type: string }[]): Thought[] {
  const thoughts: Thought[] = [];
  for (const [position, e] of events.entries()) {
    checkEvent(e, position, 'The chain-of-thought log');
    if (e.type !== 'thought.completed') continue;
    const t = e as Extract<ChainOfThoughtEvent, { type: 'thought.completed' }>;
    thoughts.push({ thoughtNumber: t.thoughtNumber, currentThinking: t.currentThinking, planning: copyPlan(t.planning), nextThoughtNeeded: t.nextThoughtNeeded });
  }
  return thoughts;
}

/**
 * Folds a chain-of-thought run's events into its thoughts and conclusion (the log of
 * `node.run(problem, { store })`, or events kept in memory).
 *
 * @example
 * ```ts
 * import { readRecordedRun } from '@tot/core';
 * import { foldChainOfThoughtEvents } from '@tot/core/cot';
 *
 * const { thoughts, solution } = foldChainOfThoughtEvents((await readRecordedRun(store, 'cot-1')).events);
 * ```
 */
export function foldChainOfThoughtEvents(events: readonly { type: string }[]): { thoughts: Thought[]; solution: string | null; plan: PlanStep[] } {
  const thoughts = thoughtsOf(events);
  const last = thoughts.at(-1);
  return { thoughts, solution: last && !last.nextThoughtNeeded ? last.currentThinking.trim() : null, plan: last?.planning ?? [] };
}

function resultFromLog(log: RecordedRun): ChainOfThoughtResult {
  const finished = log.finished!;
  return {
    runId: log.runId,
    ...foldChainOfThoughtEvents(log.events),
    stopReason: finished.stopReason as ChainOfThoughtStopReason,
    ...(finished.detail ? { detail: finished.detail } : {}),
    errors: finished.errors.map((e) => ({ code: e.code as ChainOfThoughtResult['errors'][number]['code'], message: e.message, ...(e.where ? { where: e.where } : {}) })),
    stats: finished.stats as unknown as ChainOfThoughtStats,
  };
}

/**
 * The self-looping chain-of-thought node: each thought evaluates the previous one,
 * executes the next pending step of a nested plan, updates the plan, and says whether another
 * thought is needed. Replies are YAML (the original format; unquoted colons are repaired) or JSON,
 * validated with zod down to every sub-step, with a repair loop, and a hard `maxThoughts` cap.
 *
 * Use `run(problem)` on its own (a run like every runner's: events, budget, recording, resume),
 * or `step(state)` inside a host's flow. Every thought of a run is a `thought.completed` event. A
 * thought that cannot be had (its reply stays invalid after the repairs, its model fails) ends the
 * run with `stopReason: 'error'` and the error in `errors`; with `strict: true` it rejects.
 *
 * @example
 * ```ts
 * import { ChainOfThoughtNode, formatPlan } from '@tot/core/cot';
 *
 * const node = new ChainOfThoughtNode({ model, maxThoughts: 10 });
 * node.on('thought.completed', (t) => console.log(t.thoughtNumber, formatPlan(t.planning)));
 * const { solution, stopReason } = await node.run('A farmer has 17 sheep; all but 9 run away. How many are left?');
 * ```
 */
export class ChainOfThoughtNode extends RunEmitter<ChainOfThoughtEvent> {
  private readonly o: z.output<typeof optionsSchema>;

  constructor(options: ChainOfThoughtOptions) {
    super();
    this.o = parseOptions(optionsSchema, options, 'ChainOfThoughtNode');
  }

  private settings(): RunSettings<ChainOfThoughtEvent> {
    const o = this.o;
    return {
      runner: 'chain-of-thought',
      what: 'chain of thought',
      emitter: this,
      options: o,
      config: { modelId: o.model.modelId, format: o.format, maxThoughts: o.maxThoughts, maxRepairs: o.maxRepairs, prompt: describePrompt(o.prompt ?? DEFAULT_CHAIN_OF_THOUGHT_PROMPT), temperature: o.temperature },
      replayLog: foldChainOfThoughtEvents,
    };
  }

  private program(run: Run<ChainOfThoughtEvent>, problem: string): RunProgram<ChainOfThoughtResult> {
    const state = ChainOfThoughtNode.initialState(problem);
    const options: ChainOfThoughtStepOptions = { signal: run.signal, runModel: (m) => run.runModel(m) };
    let failed = false;
    return {
      main: async () => {
        while (state.solution === null && state.currentThoughtNumber < this.o.maxThoughts) {
          const prepared = this.prep(state);
          let thought: Thought;
          try {
            const where = { kind: 'thought', thoughtNumber: prepared.thoughtNumber } as const;
            thought = await run.guard(() => this.exec(prepared, { ...options, ask: (request) => run.ask(request, where) }), 'chain of thought');
          } catch (error) {
            if (run.stopping) return;
            failed = true;
            run.recordError(error, { kind: 'thought', thoughtNumber: prepared.thoughtNumber });
            return;
          }
          this.post(state, thought);
          run.emit({ type: 'thought.completed', ...thought, planning: copyPlan(thought.planning) });
        }
      },
      result: (end: RunEnd): ChainOfThoughtResult => {
        const stopReason: ChainOfThoughtStopReason = end.halted?.reason ?? (state.solution !== null ? 'completed' : failed ? 'error' : 'max_thoughts');
        let detail: StopDetail | undefined = end.halted?.detail;
        if (stopReason === 'max_thoughts') detail = { kind: 'thoughts', limit: this.o.maxThoughts };
        if (stopReason === 'error' && detail === undefined) {
          const e = end.errors.at(-1);
          detail = { kind: 'error', code: e?.code ?? 'INTERNAL', message: e?.message ?? 'a thought failed' };
        }
        return {
          runId: end.runId,
          solution: state.solution,
          thoughts: state.thoughts,
          plan: state.thoughts.at(-1)?.planning ?? [],
          stopReason,
          ...(detail ? { detail } : {}),
          errors: end.errors,
          stats: { ...end.stats, thoughts: state.thoughts.length },
        };
      },
    };
  }

  /**
   * A fresh shared state for `problem`.
   *
   * @example
   * ```ts
   * import { ChainOfThoughtNode } from '@tot/core/cot';
   *
   * ChainOfThoughtNode.initialState('2 + 2?').currentThoughtNumber; // 0
   * ```
   */
  static initialState(problem: string): ChainOfThoughtState {
    return { problem, thoughts: [], currentThoughtNumber: 0, solution: null };
  }

  /**
   * Formats the problem, the earlier thoughts and the last plan, and increments the thought number.
   *
   * @example
   * ```ts
   * const prepared = node.prep(state);
   * prepared.thoughtNumber; // 1 for the first thought
   * ```
   */
  prep(state: ChainOfThoughtState): ChainOfThoughtPrep {
    state.currentThoughtNumber += 1;
    const last = state.thoughts.at(-1);
    const lastPlan = last?.planning ?? [...DEFAULT_FIRST_PLAN];
    const history = state.thoughts.length === 0 ? '(none: this is the first thought)' : state.thoughts.map(formatThought).join('\n\n');
    return {
      problem: state.problem,
      thoughtNumber: state.currentThoughtNumber,
      isFirstThought: state.thoughts.length === 0,
      history,
      plan: last ? formatPlan(lastPlan) : `(none yet: start from this plan, refining it)\n${formatPlan(lastPlan)}`,
      lastPlan,
    };
  }

  /**
   * Asks the model for the next thought and validates it (repairing what it can).
   *
   * @example
   * ```ts
   * const thought = await node.exec(node.prep(state));
   * ```
   */
  async exec(prepared: ChainOfThoughtPrep, options: ChainOfThoughtStepOptions = {}): Promise<Thought> {
    parseOptions(stepOptionsSchema, options, 'ChainOfThoughtNode.exec');
    const prompt = renderPrompt(this.o.prompt ?? DEFAULT_CHAIN_OF_THOUGHT_PROMPT, {
      problem: prepared.problem,
      history: prepared.history,
      plan: prepared.plan,
      thoughtNumber: String(prepared.thoughtNumber),
      instructions: CHAIN_OF_THOUGHT_INSTRUCTIONS,
      format: FORMAT[this.o.format],
    });
    const model = options.runModel ? options.runModel(this.o.model) : this.o.model;
    const { value } = await generateChecked(model, {
      prompt,
      schema: thoughtSchema,
      format: this.o.format,
      maxRepairs: this.o.maxRepairs,
      useResponseFormat: true,
      temperature: this.o.temperature,
      tags: { role: 'chain-of-thought', thoughtNumber: String(prepared.thoughtNumber) },
      ...(this.o.format === 'yaml' ? { fallback: quoteUnquotedColons } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const planning = value.planning.length === 0 && prepared.isFirstThought ? [...DEFAULT_FIRST_PLAN] : value.planning;
    return { thoughtNumber: prepared.thoughtNumber, currentThinking: value.current_thinking, planning, nextThoughtNeeded: value.next_thought_needed };
  }

  /**
   * Appends the thought; returns `'end'` (with `state.solution` set) when no further thought is
   * needed, else `'continue'`.
   *
   * @example
   * ```ts
   * const action = node.post(state, thought); // 'continue' | 'end'
   * ```
   */
  post(state: ChainOfThoughtState, thought: Thought): 'continue' | 'end' {
    state.thoughts.push(thought);
    if (thought.nextThoughtNeeded) return 'continue';
    state.solution = thought.currentThinking.trim();
    return 'end';
  }

  /**
   * One thought: prep → exec → post, for a host that drives the node in its own flow. Returns
   * `'end'` also when `maxThoughts` is reached. It emits nothing (a host's flow has its own
   * events); `run` emits a `thought.completed` event per thought.
   *
   * @example
   * ```ts
   * import { ChainOfThoughtNode } from '@tot/core/cot';
   *
   * const state = ChainOfThoughtNode.initialState('What is 17 * 23?');
   * while ((await node.step(state)) === 'continue') {}
   * ```
   */
  async step(state: ChainOfThoughtState, options: ChainOfThoughtStepOptions = {}): Promise<'continue' | 'end'> {
    const o = parseOptions(stepOptionsSchema, options, 'ChainOfThoughtNode.step');
    if (state.solution !== null) return 'end';
    if (state.currentThoughtNumber >= this.o.maxThoughts) return 'end';
    const thought = await this.exec(this.prep(state), o);
    const action = this.post(state, thought);
    return action === 'continue' && state.currentThoughtNumber >= this.o.maxThoughts ? 'end' : action;
  }

  /**
   * Thinks until the conclusion or `maxThoughts`. An abort rejects with `ABORTED`; a thought that
   * fails ends the run with `error` (or rejects, with `strict`).
   *
   * @example
   * ```ts
   * const { solution, thoughts, plan, stopReason } = await node.run('Plan a 3-day trip to Kyoto on a budget.', { signal });
   * ```
   */
  run(problem: string, options: RunOptions<ChainOfThoughtEvent> = {}): Promise<ChainOfThoughtResult> {
    const p = parseOptions(problemSchema, problem, 'ChainOfThoughtNode.run', 'problem');
    const r = parseOptions(runOptionsSchema, options, 'ChainOfThoughtNode.run');
    return startRun<ChainOfThoughtEvent, ChainOfThoughtResult>(this.settings(), r, { problem: p }, (run) => this.program(run, p));
  }

  /**
   * Continues a run recorded with `run(problem, { store, runId })` that was interrupted: every
   * recorded model call is served from the log, so the thoughts so far cost nothing. The node
   * must be configured as it was (`RESUME_MISMATCH`, nothing written, otherwise); a finished run
   * is returned as it was.
   *
   * @example
   * ```ts
   * const result = await node.resume({ store, runId: 'cot-1' });
   * ```
   */
  resume(options: ResumeOptions<ChainOfThoughtEvent>): Promise<ChainOfThoughtResult> {
    const r = parseOptions(resumeOptionsSchema, options, 'ChainOfThoughtNode.resume');
    return resumeRun<ChainOfThoughtEvent, ChainOfThoughtResult>(this.settings(), r, {
      fromLog: resultFromLog,
      program: (run, log) => this.program(run, log.started.problem),
    });
  }

  /**
   * Builds a node from `options` and resumes a recorded run with it (see {@link ChainOfThoughtNode.resume}).
   *
   * @example
   * ```ts
   * import { ChainOfThoughtNode } from '@tot/core/cot';
   *
   * const result = await ChainOfThoughtNode.resume({ store, runId: 'cot-1', model });
   * ```
   */
  static resume(options: ChainOfThoughtOptions & ResumeOptions<ChainOfThoughtEvent>): Promise<ChainOfThoughtResult> {
    const { store, runId, signal, onEvent, ...nodeOptions } = options;
    return new ChainOfThoughtNode(nodeOptions).resume({ store, runId, ...(signal ? { signal } : {}), ...(onEvent ? { onEvent } : {}) });
  }
}
