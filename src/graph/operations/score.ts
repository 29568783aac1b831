import { z } from 'zod';
import { TotError } from '../../errors/index.js';
import { fnSchema, parseOptions } from '../../internal/validate.js';
import type { Operation, OperationContext, Prompt } from '../operation.js';
import { promptMessages } from '../operation.js';
import type { GraphThought } from '../thought.js';
import { describeSampling, judgeEach, parseFn, promptFn, samplingShape, type SamplingOptions } from './model-step.js';

/**
 * Options of {@link score} with a local scoring function.
 *
 * @example
 * ```ts
 * import type { LocalScoreOptions } from '@tot/core/graph';
 *
 * const options: LocalScoreOptions<{ list: number[] }> = { score: (s) => s.list.length };
 * ```
 */
export interface LocalScoreOptions<S> {
  /** The score of one state (it may be async, and gets the run's signal). */
  score: (state: S, options: { signal: AbortSignal }) => number | Promise<number>;
}

/**
 * Options of {@link score} with the model as the judge.
 *
 * @example
 * ```ts
 * import type { ModelScoreOptions } from '@tot/core/graph';
 *
 * const options: ModelScoreOptions<{ text: string }> = {
 *   prompt: (s) => `Rate 1-10: ${s.text}`,
 *   parse: (texts) => texts.map(Number).reduce((a, b) => a + b, 0) / texts.length,
 *   samples: 3,
 * };
 * ```
 */
export interface ModelScoreOptions<S> extends SamplingOptions {
  /** The prompt that asks the model to judge one thought. */
  prompt: (state: S, thought: GraphThought<S>) => Prompt;
  /** Every sample's text at once (so it can average or vote) → the score. Throwing drops the thought. */
  parse: (texts: string[], state: S) => number;
  /** Samples per thought, asked as one call with `n`. Default 1. */
  samples?: number;
}

/**
 * Options of {@link score}: a local function, or a model prompt.
 *
 * @example
 * ```ts
 * import type { ScoreOptions } from '@tot/core/graph';
 *
 * const byLength: ScoreOptions<{ text: string }> = { score: (s) => s.text.length };
 * ```
 */
export type ScoreOptions<S> = LocalScoreOptions<S> | ModelScoreOptions<S>;

const localSchema = z.strictObject({ score: fnSchema() });
// `score` belongs to the other shape (a function's score): listed so that a misspelt one is named as such.
const modelSchema = z.strictObject({ prompt: promptFn(), parse: parseFn(), samples: z.number().int().min(1).max(128).default(1), ...samplingShape, score: z.undefined().optional() });

function checkedScore(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new TotError('INVALID_FORMAT', `a score must be a finite number, got ${typeof value === 'number' ? String(value) : JSON.stringify(value) ?? typeof value}`);
  return value;
}

async function modelScore<S>(ctx: OperationContext<S>, t: GraphThought<S>, o: z.output<typeof modelSchema>): Promise<number | undefined> {
  let texts: string[];
  try {
    texts = await ctx.generate({ messages: promptMessages((o.prompt as ModelScoreOptions<S>['prompt'])(t.state, t)), n: o.samples, ...describeSampling(o) });
  } catch (error) {
    ctx.drop(error, [t]);
    return undefined;
  }
  try {
    return checkedScore((o.parse as ModelScoreOptions<S>['parse'])(texts, t.state));
  } catch (error) {
    ctx.drop(TotError.isInstance(error) ? error : new TotError('INVALID_FORMAT', `the parse function threw: ${error instanceof Error ? error.message : String(error)}`, { cause: error, details: { rawOutputs: texts } }), [t], texts.join('\n'));
    return undefined;
  }
}

/**
 * The paper's Score: every input thought again, with a score — from a local function (the paper's
 * scoring functions, such as the sorting error count) or from the model (`samples` responses per
 * thought, all of them given to `parse`). A thought whose scoring fails is dropped (a recorded
 * error).
 *
 * @example
 * ```ts
 * import { score } from '@tot/core/graph';
 *
 * const errors = score<{ list: number[] }>({ score: (s) => s.list.filter((x, i) => i > 0 && s.list[i - 1]! > x).length });
 * const judged = score<{ text: string }>({ prompt: (s) => `Rate 1-10: ${s.text}`, parse: (texts) => Number(texts[0]), samples: 1 });
 * ```
 */
export function score<S>(options: ScoreOptions<S>): Operation<S> {
  if (typeof options === 'object' && options !== null && 'score' in options) {
    const o = parseOptions(localSchema, options, 'score');
    const fn = o.score as LocalScoreOptions<S>['score'];
    return {
      kind: 'score',
      describe: () => ({ by: 'function' }),
      async execute(input, ctx) {
        const scores = await judgeEach(input, ctx, async (t) => checkedScore(await ctx.guard(() => fn(t.state, { signal: ctx.signal }), 'score function')));
        return input.flatMap((t, i) => (scores[i] === undefined ? [] : [ctx.derive(t, { score: scores[i] })]));
      },
    };
  }
  const o = parseOptions(modelSchema, options, 'score');
  return {
    kind: 'score',
    usesModel: true,
    describe: () => ({ by: 'model', samples: o.samples, ...describeSampling(o) }),
    async execute(input, ctx) {
      const scores = await Promise.all(input.map((t) => modelScore(ctx, t, o)));
      return input.flatMap((t, i) => (scores[i] === undefined ? [] : [ctx.derive(t, { score: scores[i] })]));
    },
  };
}
