import { TotError } from '../../errors/index.js';
import { fnSchema, parseOptions } from '../../internal/validate.js';
import type { Operation } from '../operation.js';
import type { GraphThought } from '../thought.js';

const schema = fnSchema<(thoughts: readonly GraphThought<unknown>[]) => readonly GraphThought<unknown>[]>();

/**
 * The paper's Selector: a function of the input thoughts that returns the ones to go on with
 * (any subset, in any order). Returning a thought that was not in the input fails the operation.
 *
 * @example
 * ```ts
 * import { select } from '@tot/core/graph';
 *
 * const left = select<{ part: string }>((ts) => ts.filter((t) => t.state.part === 'List 1'));
 * ```
 */
export function select<S>(fn: (thoughts: readonly GraphThought<S>[]) => readonly GraphThought<S>[]): Operation<S> {
  const choose = parseOptions(schema, fn, 'select', 'fn') as unknown as typeof fn;
  return {
    kind: 'select',
    describe: () => ({ fn: 'function' }),
    async execute(input, ctx) {
      const chosen = await ctx.guard(() => choose(input), 'select function');
      if (!Array.isArray(chosen)) throw new TotError('INVALID_FORMAT', `select: the function must return an array of the input thoughts, got ${typeof chosen}.`);
      const given = new Set(input);
      return chosen.map((t: GraphThought<S>) => {
        if (!given.has(t)) throw new TotError('INVALID_FORMAT', `select: the function returned ${typeof t === 'object' && t !== null && 'id' in t ? `thought ${String(t.id)}` : JSON.stringify(t)}, which is not one of its input thoughts.`);
        return ctx.derive(t);
      });
    },
  };
}
