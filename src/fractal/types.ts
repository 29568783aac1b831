import type { AskAnswer, AskRequest } from '../run/question.js';
import type { ProtocolErrorObject } from '../errors/index.js';
import type { SchemaOutput, StandardSchemaV1 } from '../internal/standard-schema.js';
import type { LanguageModel } from '../model/types.js';
import type { StopDetail } from '../run/stop-detail.js';

/**
 * A frame of the recursion: `S = { goal, parent, todo, done }`, plus what the solver records.
 *
 * @example
 * ```ts
 * import type { Frame } from '@tot/core/fractal';
 *
 * const root: Frame = { id: 'f0', goal: 'Write a short essay on AI and art', parentId: null, todo: '', done: [], depth: 0, status: 'open', toolCalls: [] };
 * ```
 */
export interface Frame {
  id: string;
  goal: string;
  parentId: string | null;
  /** The plan in natural language, written by think (eval only reads it). */
  todo: string;
  /** Every child's returned result, in order (failures included). */
  done: string[];
  depth: number;
  status: 'open' | 'returned' | 'failed';
  result?: string;
  /** The limit that forced the frame to return its state (the depth limit, or the run's limits for the root). */
  forced?: StopDetail;
  /** Why the frame failed. */
  error?: ProtocolErrorObject;
  toolCalls: ToolCall[];
}

/**
 * A tool call made by think, recorded in its frame.
 *
 * @example
 * ```ts
 * import type { ToolCall } from '@tot/core/fractal';
 *
 * const call: ToolCall = { tool: 'search', input: { query: 'DALL·E' }, output: ['…'] };
 * ```
 */
export interface ToolCall {
  tool: string;
  input: unknown;
  output?: unknown;
  error?: string;
}

/**
 * Think's output: `RETURN` a result, or `TODO` a plan.
 *
 * @example
 * ```ts
 * import type { ThinkOutput } from '@tot/core/fractal';
 *
 * const plan: ThinkOutput = { type: 'TODO', description: '1. art generation 2. assisted creation 3. criticism' };
 * ```
 */
export interface ThinkOutput {
  type: 'RETURN' | 'TODO';
  description: string;
}

/**
 * Eval's output: `CALL` a sub-goal, or `RETURN` this frame's result.
 *
 * @example
 * ```ts
 * import type { EvalOutput } from '@tot/core/fractal';
 *
 * const next: EvalOutput = { type: 'CALL', description: 'Write the paragraph on generative art, with a DALL·E example' };
 * ```
 */
export interface EvalOutput {
  type: 'RETURN' | 'CALL';
  description: string;
}

/**
 * A tool think may call: a schema for its input (any Standard Schema: zod 3.24+, zod 4, valibot,
 * arktype, …) and the function.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import type { FractalTool } from '@tot/core/fractal';
 *
 * const wordCount: FractalTool = {
 *   description: 'Counts the words of a text',
 *   input: z.object({ text: z.string() }),
 *   run: async ({ text }) => text.split(/\s+/).filter(Boolean).length,
 * };
 * ```
 */
export interface FractalTool<S extends StandardSchemaV1 = StandardSchemaV1> {
  description?: string;
  input: S;
  /** Runs the tool on validated input (the schema's output); its result (or error) is recorded in the frame. */
  run(input: SchemaOutput<S>, options: { signal?: AbortSignal }): unknown;
}

/**
 * What think and eval functions receive.
 *
 * @example
 * ```ts
 * import type { FrameContext } from '@tot/core/fractal';
 *
 * const goals = (c: FrameContext) => [...c.ancestors.map((a) => a.goal), c.frame.goal];
 * ```
 */
export interface FrameContext {
  /** A snapshot of the frame (its `done` as it is at this call). */
  frame: Frame;
  /** The frame's ancestors, root first. */
  ancestors: Frame[];
  /** Calls a tool (think only): validated, run and recorded in the frame. */
  callTool(name: string, input: unknown): Promise<unknown>;
  signal?: AbortSignal;
  /**
   * The model as the run sees it: a function think or eval that calls a model should call it
   * through this, so that the call is admitted by the run's budget, logged, recorded and resumable.
   */
  runModel?: (model: LanguageModel) => LanguageModel;
  /**
   * Asks a person (see the Runs guide, "Asking a person"): answered by the run's `onAsk`, or the
   * run ends `waiting` and a resume given the answer calls the operator again, which then gets it.
   * The question's id is `frame/<frameId>/<think|eval>#<key>`. Absent outside a run.
   */
  ask?: <A extends StandardSchemaV1 | undefined = undefined>(request: AskRequest<NonNullable<A>> & { schema?: A }) => Promise<AskAnswer<A>>;
}

/**
 * A think function (replaces the LLM-backed default).
 *
 * @example
 * ```ts
 * import type { ThinkFunction } from '@tot/core/fractal';
 *
 * const think: ThinkFunction = async ({ frame }) =>
 *   frame.depth >= 1 ? { type: 'RETURN', description: `done: ${frame.goal}` } : { type: 'TODO', description: 'a, then b' };
 * ```
 */
export type ThinkFunction = (context: FrameContext) => Promise<ThinkOutput> | ThinkOutput;

/**
 * An eval function (replaces the LLM-backed default).
 *
 * @example
 * ```ts
 * import type { EvalFunction } from '@tot/core/fractal';
 *
 * const evaluate: EvalFunction = async ({ frame }) =>
 *   frame.done.length < 2 ? { type: 'CALL', description: `part ${frame.done.length + 1}` } : { type: 'RETURN', description: frame.done.join(' ') };
 * ```
 */
export type EvalFunction = (context: FrameContext) => Promise<EvalOutput> | EvalOutput;
