import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { RunEmitter } from '../events/run-emitter.js';
import { linkedController, raceAbort } from '../internal/abort.js';
import { fnSchema, parseOptions, signalSchema } from '../internal/validate.js';
import { languageModelSchema } from '../model/schemas.js';
import type { LanguageModel } from '../model/types.js';
import { promptTemplateSchema, renderPrompt, type PromptTemplate } from '../roles/prompt-template.js';
import { generateStructured } from '../structured/generate-structured.js';
import { copyPlan, DEFAULT_FIRST_PLAN, formatPlan, planSchema, quoteUnquotedColons, type PlanStep } from './plan.js';

/**
 * One thought of a {@link ChainOfThoughtNode} (seed 003's thought dictionary).
 *
 * @example
 * ```ts
 * import type { Thought } from '@tot/core';
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
 * The node's shared state (seed 003's `shared`), for hosts that drive it with {@link ChainOfThoughtNode.step}.
 *
 * @example
 * ```ts
 * import { ChainOfThoughtNode, type ChainOfThoughtState } from '@tot/core';
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
 * import type { ChainOfThoughtPrep } from '@tot/core';
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
 * Why a chain-of-thought run ended.
 *
 * @example
 * ```ts
 * import type { ChainOfThoughtStopReason } from '@tot/core';
 *
 * const capped = (r: ChainOfThoughtStopReason) => r === 'max_thoughts';
 * ```
 */
export type ChainOfThoughtStopReason = 'completed' | 'max_thoughts';

/**
 * What {@link ChainOfThoughtNode.run} returns.
 *
 * @example
 * ```ts
 * import type { ChainOfThoughtResult } from '@tot/core';
 *
 * const print = (r: ChainOfThoughtResult) => console.log(r.solution ?? '(no conclusion)', r.stopReason);
 * ```
 */
export interface ChainOfThoughtResult {
  /** The conclusion, or `null` when the run hit `maxThoughts` first. */
  solution: string | null;
  thoughts: Thought[];
  /** The last plan. */
  plan: PlanStep[];
  stopReason: ChainOfThoughtStopReason;
}

/**
 * Options of {@link ChainOfThoughtNode}.
 *
 * @example
 * ```ts
 * import type { ChainOfThoughtOptions } from '@tot/core';
 *
 * const options: ChainOfThoughtOptions = { model, maxThoughts: 12, format: 'yaml' };
 * ```
 */
export interface ChainOfThoughtOptions {
  model: LanguageModel;
  /** `yaml` (default, the seed's format) or `json`. */
  format?: 'yaml' | 'json';
  /** Hard cap on thoughts per run (the seed's reference has none and can loop forever). Default 20. */
  maxThoughts?: number;
  /** Repairs per thought. Default 2. */
  maxRepairs?: number;
  /** Overrides the prompt. Variables: `problem`, `history`, `plan`, `thoughtNumber`, `instructions`, `format`. */
  prompt?: PromptTemplate;
  /** Default 0.3. */
  temperature?: number;
  /** Clock for event timestamps. Default `Date.now`. */
  now?: () => number;
}

const optionsSchema = z.object({
  model: languageModelSchema,
  format: z.enum(['yaml', 'json']).default('yaml'),
  maxThoughts: z.number().int().positive().max(1_000).default(20),
  maxRepairs: z.number().int().min(0).max(10).default(2),
  prompt: promptTemplateSchema.optional(),
  temperature: z.number().min(0).default(0.3),
  now: fnSchema<() => number>().optional(),
});

const thoughtSchema = z.object({
  current_thinking: z.union([z.string(), z.number()]).transform(String).pipe(z.string().min(1)),
  planning: planSchema,
  next_thought_needed: z.boolean(),
});

/**
 * The instructions of seed 003, in the prompt of every thought.
 *
 * @example
 * ```ts
 * import { CHAIN_OF_THOUGHT_INSTRUCTIONS } from '@tot/core';
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
 * import { DEFAULT_CHAIN_OF_THOUGHT_PROMPT } from '@tot/core';
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
const runOptionsSchema = z.object({ signal: signalSchema, runId: z.string().min(1).optional() });

/**
 * Seed 003's self-looping chain-of-thought node: each thought evaluates the previous one,
 * executes the next pending step of a nested plan, updates the plan, and says whether another
 * thought is needed. Replies are YAML (the seed's format; unquoted colons are repaired) or JSON,
 * validated with zod down to every sub-step, with a repair loop, and a hard `maxThoughts` cap.
 *
 * Use `run(problem)` on its own, or `step(state)` inside a host's flow. Every thought is a
 * `thought.completed` event.
 *
 * @example
 * ```ts
 * import { ChainOfThoughtNode, formatPlan } from '@tot/core';
 *
 * const node = new ChainOfThoughtNode({ model, maxThoughts: 10 });
 * node.on('thought.completed', (t) => console.log(t.thoughtNumber, formatPlan(t.planning)));
 * const { solution, stopReason } = await node.run('A farmer has 17 sheep; all but 9 run away. How many are left?');
 * ```
 */
export class ChainOfThoughtNode extends RunEmitter {
  private readonly o: z.output<typeof optionsSchema>;
  private runs = 0;

  constructor(options: ChainOfThoughtOptions) {
    const o = parseOptions(optionsSchema, options, 'ChainOfThoughtNode');
    super(o.now ? { now: o.now } : {});
    this.o = o;
  }

  /**
   * A fresh shared state for `problem`.
   *
   * @example
   * ```ts
   * import { ChainOfThoughtNode } from '@tot/core';
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
  async exec(prepared: ChainOfThoughtPrep, options: { signal?: AbortSignal } = {}): Promise<Thought> {
    const prompt = renderPrompt(this.o.prompt ?? DEFAULT_CHAIN_OF_THOUGHT_PROMPT, {
      problem: prepared.problem,
      history: prepared.history,
      plan: prepared.plan,
      thoughtNumber: String(prepared.thoughtNumber),
      instructions: CHAIN_OF_THOUGHT_INSTRUCTIONS,
      format: FORMAT[this.o.format],
    });
    const { value } = await generateStructured(this.o.model, {
      prompt,
      schema: thoughtSchema,
      format: this.o.format,
      maxRepairs: this.o.maxRepairs,
      temperature: this.o.temperature,
      tags: { role: 'chain-of-thought' },
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
   * One thought: prep → exec → post. Returns `'end'` also when `maxThoughts` is reached.
   *
   * @example
   * ```ts
   * import { ChainOfThoughtNode } from '@tot/core';
   *
   * const state = ChainOfThoughtNode.initialState('What is 17 * 23?');
   * while ((await node.step(state)) === 'continue') {}
   * ```
   */
  async step(state: ChainOfThoughtState, options: { signal?: AbortSignal; runId?: string } = {}): Promise<'continue' | 'end'> {
    if (state.solution !== null) return 'end';
    if (state.currentThoughtNumber >= this.o.maxThoughts) return 'end';
    const thought = await this.exec(this.prep(state), options);
    const action = this.post(state, thought);
    this.emitEvent({ type: 'thought.completed', runId: options.runId ?? 'chain-of-thought', ...thought, planning: copyPlan(thought.planning) });
    return action === 'continue' && state.currentThoughtNumber >= this.o.maxThoughts ? 'end' : action;
  }

  /**
   * Thinks until the conclusion or `maxThoughts`. An abort rejects with `ABORTED`.
   *
   * @example
   * ```ts
   * const { solution, thoughts, plan, stopReason } = await node.run('Plan a 3-day trip to Kyoto on a budget.', { signal });
   * ```
   */
  async run(problem: string, options: { signal?: AbortSignal; runId?: string } = {}): Promise<ChainOfThoughtResult> {
    const p = parseOptions(problemSchema, problem, 'ChainOfThoughtNode.run', 'problem');
    const r = parseOptions(runOptionsSchema, options, 'ChainOfThoughtNode.run');
    this.runs += 1;
    const runId = r.runId ?? `cot-${this.runs}`;
    const { controller, release } = linkedController([r.signal]);
    const state = ChainOfThoughtNode.initialState(p);
    this.emitEvent({ type: 'run.started', runId, problem: p, config: { maxThoughts: this.o.maxThoughts, format: this.o.format } });
    try {
      while ((await raceAbort(this.step(state, { signal: controller.signal, runId }), controller.signal, 'chain of thought')) === 'continue');
    } catch (error) {
      this.emitEvent({ type: 'run.finished', runId, stopReason: TotError.hasCode(error, 'ABORTED') ? 'aborted' : 'error', ...(TotError.isInstance(error) ? { error: error.toProtocolError() } : {}) });
      throw error;
    } finally {
      release();
    }
    const stopReason: ChainOfThoughtStopReason = state.solution === null ? 'max_thoughts' : 'completed';
    this.emitEvent({ type: 'run.finished', runId, stopReason, stats: { thoughts: state.thoughts.length } });
    return { solution: state.solution, thoughts: state.thoughts, plan: state.thoughts.at(-1)?.planning ?? [], stopReason };
  }
}
