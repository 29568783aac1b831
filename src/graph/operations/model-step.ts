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
 * import type { SamplingOptions } from '@tot/core';
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
