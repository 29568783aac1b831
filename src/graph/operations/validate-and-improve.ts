import { z } from 'zod';
import { TotError } from '../../errors/index.js';
import { fnSchema, parseOptions } from '../../internal/validate.js';
import type { Operation, OperationContext, Prompt } from '../operation.js';
import type { GraphThought } from '../thought.js';
import { describeSampling, parseFn, promptFn, sampleStates, samplingShape, type SamplingOptions } from './model-step.js';

/**
 * Options of {@link validateAndImprove}.
 *
 * @example
 * ```ts
 * import type { ValidateAndImproveOptions } from '@tot/core/graph';
 *
 * const options: ValidateAndImproveOptions<{ counts: Record<string, number> }> = {
 *   validate: (s) => Object.values(s.counts).every((n) => n >= 0),
 *   prompt: (s) => `Fix these counts: ${JSON.stringify(s.counts)}`,
 *   parse: (text) => ({ counts: JSON.parse(text) }),
 *   tries: 3,
 * };
 * ```
 */
export interface ValidateAndImproveOptions<S> extends SamplingOptions {
  /** Whether a state is valid (it may be async, and gets the run's signal). */
  validate: (state: S, options: { signal: AbortSignal }) => boolean | Promise<boolean>;
  /** The prompt that asks to fix an invalid state: the version to fix, and the input thought it comes from. */
  prompt: (state: S, thought: GraphThought<S>) => Prompt;
  /** One response as the fixed state (`state` is the version it fixes); throwing or nothing uses up the try (a recorded error). */
  parse: (text: string, state: S) => S | null | undefined;
  /** Improvement calls per input thought at most. Default 3. */
  tries?: number;
}

const schema = z.strictObject({ validate: fnSchema(), prompt: promptFn(), parse: parseFn(), tries: z.number().int().min(0).max(100).default(3), ...samplingShape });

/**
 * The paper's ValidateAndImprove: each input thought is validated; while it is invalid and tries
 * remain, the model improves it (one call) and the result is validated again. Every version is a
 * thought (each the parent of the next, each marked `valid`); the last version of each input
 * thought is the operation's output. An improvement that fails (call or parse) is a recorded error
 * and uses up its try; a `validate` that throws drops the thought.
 *
 * @example
 * ```ts
 * import { validateAndImprove } from '@tot/core/graph';
 *
 * const fixed = validateAndImprove<{ list: number[] }>({
 *   validate: (s) => s.list.every((x, i) => i === 0 || s.list[i - 1]! <= x),
 *   prompt: (s) => `Sort this correctly: ${JSON.stringify(s.list)}`,
 *   parse: (text) => ({ list: JSON.parse(text) }),
 *   tries: 3,
 * });
 * ```
 */
export function validateAndImprove<S>(options: ValidateAndImproveOptions<S>): Operation<S> {
  const o = parseOptions(schema, options, 'validateAndImprove');
  const validate = o.validate as ValidateAndImproveOptions<S>['validate'];
  const prompt = o.prompt as ValidateAndImproveOptions<S>['prompt'];
  const parse = o.parse as ValidateAndImproveOptions<S>['parse'];

  const check = async (ctx: OperationContext<S>, state: S): Promise<boolean> => {
    const v = await ctx.guard(() => validate(state, { signal: ctx.signal }), 'validate function');
    if (typeof v !== 'boolean') throw new TotError('INVALID_FORMAT', `validateAndImprove: validate must return a boolean, got ${JSON.stringify(v) ?? typeof v}.`);
    return v;
  };

  /** The versions of one input thought: its states and verdicts, first the input's own. */
  const chain = async (ctx: OperationContext<S>, t: GraphThought<S>): Promise<{ state: S; valid: boolean }[] | undefined> => {
    let valid: boolean;
    try {
      valid = await check(ctx, t.state);
    } catch (error) {
      ctx.drop(error, [t]);
      return undefined;
    }
    const versions = [{ state: t.state, valid }];
    for (let tryNo = 0; !valid && tryNo < o.tries; tryNo++) {
      const last = versions.at(-1)!.state;
      // The parent of a failed try is the input thought: the version it came from is not a thought yet.
      const [next] = await sampleStates<S>(ctx, [t], () => prompt(last, t), 1, o, (text) => parse(text, last), false);
      if (next === undefined) continue;
      try {
        valid = await check(ctx, next);
      } catch (error) {
        ctx.drop(error, [t]);
        break;
      }
      versions.push({ state: next, valid });
    }
    return versions;
  };

  return {
    kind: 'validateAndImprove',
    usesModel: true,
    describe: () => ({ tries: o.tries, ...describeSampling(o) }),
    async execute(input, ctx) {
      const chains = await Promise.all(input.map((t) => chain(ctx, t)));
      const out: GraphThought<S>[] = [];
      chains.forEach((versions, i) => {
        if (!versions) return;
        const from = input[i]!;
        let last = ctx.derive(from, { valid: versions[0]!.valid });
        for (const v of versions.slice(1)) last = ctx.thought(v.state, [last], { valid: v.valid });
        out.push(last);
      });
      return out;
    },
  };
}
