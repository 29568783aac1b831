import { z } from 'zod';
import { TotError } from '../../errors/index.js';
import { fnSchema } from '../../internal/validate.js';
import type { OperationContext, Prompt } from '../operation.js';
import { promptMessages } from '../operation.js';
import type { GraphThought } from '../thought.js';

/**
 * Sampling settings an operation that calls the model takes besides its prompt.
 *
 * @example
 * ```ts
 * import type { SamplingOptions } from '@tot/core/graph';
 *
 * const sampling: SamplingOptions = { temperature: 1, maxOutputTokens: 400 };
 * ```
 */
export interface SamplingOptions {
  /** Default: the model's. */
  temperature?: number;
  /** Default: the model's. */
  maxOutputTokens?: number;
}

export const samplingShape = {
  temperature: z.number().min(0).max(2).optional(),
  maxOutputTokens: z.number().int().positive().optional(),
};

export const promptFn = <F extends (...args: never[]) => unknown>() => fnSchema<F>('expected a function that returns the prompt (a string or messages)');
export const parseFn = <F extends (...args: never[]) => unknown>() => fnSchema<F>('expected a function that parses a response');

/** The options schema of an operation with a prompt, a parse and `responses`. */
export const respondingSchema = z.strictObject({ prompt: promptFn(), parse: parseFn(), responses: z.number().int().min(1).max(128).default(1), ...samplingShape });

/**
 * The work of `generate` and `improve`: one call per input thought (with `n: responses`), its
 * responses parsed into thoughts whose parent is that thought, in input order.
 */
export async function perInputThought<S>(
  input: readonly GraphThought<S>[],
  ctx: OperationContext<S>,
  o: z.output<typeof respondingSchema>,
  prompt: (state: S, thought: GraphThought<S>) => Prompt,
  parse: (text: string, state: S) => unknown,
  many: boolean,
): Promise<GraphThought<S>[]> {
  const made = await Promise.all(input.map((t) => sampleStates<S>(ctx, [t], () => prompt(t.state, t), o.responses, o, (text) => parse(text, t.state), many)));
  return made.flatMap((states, i) => states.map((s) => ctx.thought(s, [input[i]!])));
}

/**
 * A local judgement of each input thought (a score, a verdict), run through the run's guard; a
 * judgement that throws drops its thought. `undefined` where it was dropped, in input order.
 */
export function judgeEach<S, V>(input: readonly GraphThought<S>[], ctx: OperationContext<S>, judge: (t: GraphThought<S>) => Promise<V>): Promise<(V | undefined)[]> {
  return Promise.all(
    input.map(async (t) => {
      try {
        return await judge(t);
      } catch (error) {
        ctx.drop(error, [t]);
        return undefined;
      }
    }),
  );
}

/** What a run records of an operation's sampling settings. */
export function describeSampling(o: SamplingOptions): Record<string, unknown> {
  return { ...(o.temperature === undefined ? {} : { temperature: o.temperature }), ...(o.maxOutputTokens === undefined ? {} : { maxOutputTokens: o.maxOutputTokens }) };
}

/** A parse's value as states: nothing (undefined, null, an empty list) is an error, an array a list of states when `many`. */
export function statesOf<S>(value: unknown, many: boolean): S[] {
  if (value === undefined || value === null) throw new TotError('INVALID_FORMAT', 'the parse function returned nothing');
  if (typeof (value as { then?: unknown }).then === 'function') throw new TotError('INVALID_FORMAT', 'the parse function returned a promise: parse functions are synchronous');
  if (many && Array.isArray(value)) {
    if (value.length === 0) throw new TotError('INVALID_FORMAT', 'the parse function returned no state');
    for (const v of value) if (v === undefined || v === null) throw new TotError('INVALID_FORMAT', 'the parse function returned a list holding nothing');
    return value as S[];
  }
  return [value as S];
}

function parseError(error: unknown, text: string): TotError {
  if (TotError.isInstance(error) && error.code === 'INVALID_FORMAT') return new TotError('INVALID_FORMAT', error.message, { cause: error, details: { rawOutputs: [text] } });
  return new TotError('INVALID_FORMAT', `the parse function threw: ${error instanceof Error ? error.message : String(error)}`, { cause: error, details: { rawOutputs: [text] } });
}

/**
 * One call with `n` responses made from `parents`, each response parsed into states. A failed
 * call drops every thought it would have made; a response whose parse throws or returns nothing
 * drops its own. Returns the states in response order (dropped ones left out).
 */
export async function sampleStates<S>(
  ctx: OperationContext<S>,
  parents: readonly GraphThought<S>[],
  prompt: () => Prompt,
  n: number,
  sampling: SamplingOptions,
  parse: (text: string) => unknown,
  many: boolean,
): Promise<S[]> {
  let outputs: string[];
  try {
    const messages = promptMessages(prompt());
    outputs = await ctx.generate({ messages, n, ...describeSampling(sampling) });
  } catch (error) {
    ctx.drop(error, parents);
    return [];
  }
  const states: S[] = [];
  for (const text of outputs) {
    let value: unknown;
    try {
      value = parse(text);
      states.push(...statesOf<S>(value, many));
    } catch (error) {
      ctx.drop(parseError(error, text), parents, text);
    }
  }
  return states;
}
