import type { AskAnswer, AskRequest } from '../run/question.js';
import type { StandardSchemaV1 } from '../internal/standard-schema.js';
import type { ChatMessage, GenerateRequest, LanguageModel } from '../model/types.js';
import type { GraphThought, ThoughtMarks } from './thought.js';

/**
 * The kinds of the built-in operations; a custom operation names its own.
 *
 * @example
 * ```ts
 * import type { OperationKind } from '@tot/core/graph';
 *
 * const callsModel = (k: OperationKind) => k === 'generate' || k === 'aggregate' || k === 'improve';
 * ```
 */
export type OperationKind = 'generate' | 'score' | 'keepBest' | 'aggregate' | 'improve' | 'validateAndImprove' | 'select' | 'groundTruth' | (string & {});

/**
 * What a prompt function returns: the user message, or the whole conversation.
 *
 * @example
 * ```ts
 * import type { Prompt } from '@tot/core/graph';
 *
 * const p: Prompt = [{ role: 'system', content: 'Sort lists.' }, { role: 'user', content: '[3, 1, 2]' }];
 * ```
 */
export type Prompt = string | ChatMessage[];

/**
 * What an operation works with while it runs. Thoughts it creates get their ids in creation
 * order, so an operation that works concurrently creates its thoughts once its work is done, in
 * the order of its input (the built-ins do).
 *
 * @example
 * ```ts
 * import type { Operation } from '@tot/core/graph';
 *
 * // A custom operation: keep the thoughts whose state has an even length.
 * const keepEven: Operation<{ text: string }> = {
 *   kind: 'keepEven',
 *   describe: () => ({}),
 *   execute: async (input, ctx) => input.filter((t) => t.state.text.length % 2 === 0).map((t) => ctx.derive(t)),
 * };
 * ```
 */
export interface OperationContext<S> {
  readonly operationId: string;
  /** Aborts when the run stops: pass it to everything the operation awaits. */
  readonly signal: AbortSignal;
  /** The run's model (budgeted, logged, recorded, served on resume), if the run has one. */
  readonly model: LanguageModel | undefined;
  /**
   * Asks the run's model; the request is tagged with the operation. Rejects when the run has no
   * model, or with the call's error.
   */
  generate(request: GenerateRequest): Promise<string[]>;
  /** A new thought of this operation, made from `parents`. */
  thought(state: S, parents: readonly GraphThought<S>[], marks?: ThoughtMarks): GraphThought<S>;
  /** A copy of `from` as a thought of this operation (same state and marks, `from` its parent), with `marks` added. */
  derive(from: GraphThought<S>, marks?: ThoughtMarks): GraphThought<S>;
  /**
   * Records a thought that could not be made (a parse that threw or returned nothing, a failed
   * call): listed in the result's `errors`, and with `strict` the run rejects with it. When the
   * run is stopping, the error is a consequence, not a finding: it is thrown again instead.
   */
  drop(error: unknown, parents: readonly GraphThought<S>[], response?: string): void;
  /** Runs user code so that the run never waits on it past an abort. */
  guard<T>(work: () => T | Promise<T>, what: string): Promise<T>;
  /**
   * Asks a person (see the Runs guide, "Asking a person"): answered by the run's `onAsk`, or the
   * run ends `waiting` and a resume given the answer runs the operation again, which then gets it.
   * The question's id is `operation/<kind>/<operationId>#<key>`.
   */
  ask<A extends StandardSchemaV1 | undefined = undefined>(request: AskRequest<NonNullable<A>> & { schema?: A }): Promise<AskAnswer<A>>;
}

/**
 * An operation of an {@link OperationGraph}: given its input thoughts (its predecessors' outputs
 * in the order the predecessors were listed), it returns its output thoughts, made with the
 * context. The built-ins are `generate`, `score`, `keepBest`, `aggregate`, `improve`,
 * `validateAndImprove`, `select` and `groundTruth`; any object of this shape plugs in.
 *
 * @example
 * ```ts
 * import { OperationGraph, type Operation } from '@tot/core/graph';
 *
 * const upper: Operation<{ text: string }> = {
 *   kind: 'upper',
 *   describe: () => ({}),
 *   execute: async (input, ctx) => input.map((t) => ctx.thought({ text: t.state.text.toUpperCase() }, [t])),
 * };
 * const g = new OperationGraph<{ text: string }>();
 * g.add(upper);
 * ```
 */
export interface Operation<S> {
  readonly kind: OperationKind;
  /** Whether it calls the run's model (a run without a model refuses such a graph at once). */
  readonly usesModel?: boolean;
  /** What the run records of it in `run.started` (a resume must see the same). */
  describe(): Record<string, unknown>;
  /** Does the work: given the input thoughts, returns the output, made with `ctx.thought` or `ctx.derive`. */
  execute(input: readonly GraphThought<S>[], ctx: OperationContext<S>): Promise<readonly GraphThought<S>[]>;
}

/** A prompt as messages. */
export function promptMessages(prompt: Prompt): ChatMessage[] {
  return typeof prompt === 'string' ? [{ role: 'user', content: prompt }] : prompt;
}
