import { TotError } from '../../errors/index.js';
import { fnSchema, parseOptions } from '../../internal/validate.js';
import type { Operation } from '../operation.js';
import { judgeEach } from './model-step.js';

const schema = fnSchema<(state: unknown, options: { signal: AbortSignal }) => boolean | Promise<boolean>>();

/**
 * The paper's GroundTruth: every input thought again, marked `solved` when `fn` says its state is
 * a correct answer. A check that throws drops the thought (a recorded error).
 *
 * @example
 * ```ts
 * import { groundTruth } from '@tot/core/graph';
 *
 * const sorted = groundTruth<{ list: number[]; input: number[] }>((s) => JSON.stringify(s.list) === JSON.stringify([...s.input].sort((a, b) => a - b)));
 * ```
 */
export function groundTruth<S>(fn: (state: S, options: { signal: AbortSignal }) => boolean | Promise<boolean>): Operation<S> {
  const check = parseOptions(schema, fn, 'groundTruth', 'fn') as unknown as typeof fn;
  return {
    kind: 'groundTruth',
    describe: () => ({ fn: 'function' }),
    async execute(input, ctx) {
      const verdicts = await judgeEach(input, ctx, async (t) => {
        const v = await ctx.guard(() => check(t.state, { signal: ctx.signal }), 'groundTruth function');
        if (typeof v !== 'boolean') throw new TotError('INVALID_FORMAT', `groundTruth: the function must return a boolean, got ${JSON.stringify(v) ?? typeof v}.`);
        return v;
      });
      return input.flatMap((t, i) => (verdicts[i] === undefined ? [] : [ctx.derive(t, { solved: verdicts[i] })]));
    },
  };
}
