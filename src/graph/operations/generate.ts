import { parseOptions } from '../../internal/validate.js';
import type { Operation, Prompt } from '../operation.js';
import type { GraphThought } from '../thought.js';
import { describeSampling, perInputThought, respondingSchema, type SamplingOptions } from './model-step.js';

/**
 * Options of {@link generate}.
 *
 * @example
 * ```ts
 * import type { GenerateOptions } from '@tot/core/graph';
 *
 * const options: GenerateOptions<{ text: string }> = {
 *   prompt: (s) => `Continue: ${s.text}`,
 *   parse: (text) => ({ text }),
 *   responses: 3,
 * };
 * ```
 */
export interface GenerateOptions<S> extends SamplingOptions {
  /** The prompt for one input thought. */
  prompt: (state: S, thought: GraphThought<S>) => Prompt;
  /**
   * One response as zero or more states (an array is a list of states, so states themselves are
   * not arrays). Throwing, or returning nothing, drops the thought: a recorded error.
   */
  parse: (text: string, state: S) => S | S[] | null | undefined;
  /** Responses per input thought, asked as one call with `n`. Default 1. */
  responses?: number;
}


/**
 * The paper's Generate: for each input thought, one model call with `n: responses`; each response
 * parsed into new thoughts whose parent is that input thought.
 *
 * @example
 * ```ts
 * import { generate, OperationGraph } from '@tot/core/graph';
 *
 * const g = new OperationGraph<{ list: number[] }>();
 * g.add(generate({ prompt: (s) => `Sort ${JSON.stringify(s.list)}. Answer with the list only.`, parse: (t) => ({ list: JSON.parse(t) }), responses: 5 }));
 * ```
 */
export function generate<S>(options: GenerateOptions<S>): Operation<S> {
  const o = parseOptions(respondingSchema, options, 'generate');
  const prompt = o.prompt as GenerateOptions<S>['prompt'];
  const parse = o.parse as GenerateOptions<S>['parse'];
  return {
    kind: 'generate',
    usesModel: true,
    describe: () => ({ responses: o.responses, ...describeSampling(o) }),
    execute: (input, ctx) => perInputThought(input, ctx, o, prompt, parse, true),
  };
}
