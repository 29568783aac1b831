import { parseOptions } from '../../internal/validate.js';
import type { Operation, Prompt } from '../operation.js';
import type { GraphThought } from '../thought.js';
import { describeSampling, respondingSchema, sampleStates, type SamplingOptions } from './model-step.js';

/**
 * Options of {@link aggregate}.
 *
 * @example
 * ```ts
 * import type { AggregateOptions } from '@tot/core/graph';
 *
 * const options: AggregateOptions<{ list: number[] }> = {
 *   prompt: (states) => `Merge: ${states.map((s) => JSON.stringify(s.list)).join(' and ')}`,
 *   parse: (text) => ({ list: JSON.parse(text) }),
 *   responses: 10,
 * };
 * ```
 */
export interface AggregateOptions<S> extends SamplingOptions {
  /** The prompt over every input thought, in input order. */
  prompt: (states: S[], thoughts: readonly GraphThought<S>[]) => Prompt;
  /** One response as zero or more states (an array is a list of states); throwing or nothing drops it. */
  parse: (text: string, states: S[]) => S | S[] | null | undefined;
  /** Responses, asked as one call with `n`. Default 1. */
  responses?: number;
}


/**
 * The paper's Aggregate: all input thoughts (in the order of the operation's predecessors) in one
 * prompt, one call with `n: responses`, each response parsed into new thoughts whose parents are
 * all the input thoughts. With no input thought it makes no call.
 *
 * @example
 * ```ts
 * import { aggregate } from '@tot/core/graph';
 *
 * const merge = aggregate<{ list: number[] }>({
 *   prompt: ([a, b]) => `Merge the sorted lists ${JSON.stringify(a!.list)} and ${JSON.stringify(b!.list)}.`,
 *   parse: (text) => ({ list: JSON.parse(text) }),
 *   responses: 10,
 * });
 * ```
 */
export function aggregate<S>(options: AggregateOptions<S>): Operation<S> {
  const o = parseOptions(respondingSchema, options, 'aggregate');
  const prompt = o.prompt as AggregateOptions<S>['prompt'];
  const parse = o.parse as AggregateOptions<S>['parse'];
  return {
    kind: 'aggregate',
    usesModel: true,
    describe: () => ({ responses: o.responses, ...describeSampling(o) }),
    async execute(input, ctx) {
      if (input.length === 0) return [];
      const states = input.map((t) => t.state);
      const made = await sampleStates<S>(ctx, input, () => prompt(states, input), o.responses, o, (text) => parse(text, states), true);
      return made.map((s) => ctx.thought(s, input));
    },
  };
}
