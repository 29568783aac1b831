import { parseOptions } from '../../internal/validate.js';
import type { Operation, Prompt } from '../operation.js';
import type { GraphThought } from '../thought.js';
import { describeSampling, perInputThought, respondingSchema, type SamplingOptions } from './model-step.js';

/**
 * Options of {@link improve}.
 *
 * @example
 * ```ts
 * import type { ImproveOptions } from '@tot/core/graph';
 *
 * const options: ImproveOptions<{ list: number[] }> = {
 *   prompt: (s) => `Fix this sort: ${JSON.stringify(s.list)}`,
 *   parse: (text, s) => ({ ...s, list: JSON.parse(text) }),
 * };
 * ```
 */
export interface ImproveOptions<S> extends SamplingOptions {
  /** The prompt that asks for a better version of one thought. */
  prompt: (state: S, thought: GraphThought<S>) => Prompt;
  /** One response as the improved state; throwing or returning nothing drops it (a recorded error). */
  parse: (text: string, state: S) => S | null | undefined;
  /** Improved versions per input thought, asked as one call with `n`. Default 1. */
  responses?: number;
}


/**
 * The paper's Improve: for each input thought, one call (with `n: responses`) for improved
 * versions of it, each a new thought whose parent is the input thought.
 *
 * @example
 * ```ts
 * import { improve } from '@tot/core/graph';
 *
 * const fix = improve<{ list: number[] }>({
 *   prompt: (s) => `This sort has mistakes, fix it: ${JSON.stringify(s.list)}`,
 *   parse: (text, s) => ({ ...s, list: JSON.parse(text) }),
 *   responses: 10,
 * });
 * ```
 */
export function improve<S>(options: ImproveOptions<S>): Operation<S> {
  const o = parseOptions(respondingSchema, options, 'improve');
  const prompt = o.prompt as ImproveOptions<S>['prompt'];
  const parse = o.parse as ImproveOptions<S>['parse'];
  return {
    kind: 'improve',
    usesModel: true,
    describe: () => ({ responses: o.responses, ...describeSampling(o) }),
    execute: (input, ctx) => perInputThought(input, ctx, o, prompt, parse, false),
  };
}
