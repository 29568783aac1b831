import { z } from 'zod';
import { TotError } from '../../errors/index.js';
import { parseOptions } from '../../internal/validate.js';
import type { Operation } from '../operation.js';

/**
 * Options of {@link keepBest}.
 *
 * @example
 * ```ts
 * import type { KeepBestOptions } from '@tot/core/graph';
 *
 * const fewestErrors: KeepBestOptions = { n: 1, higherIsBetter: false };
 * ```
 */
export interface KeepBestOptions {
  /** How many to keep. Default 1. */
  n?: number;
  /** Default true. */
  higherIsBetter?: boolean;
}

const schema = z.strictObject({ n: z.number().int().min(1).default(1), higherIsBetter: z.boolean().default(true) });

/**
 * The paper's KeepBestN: the `n` best-scored input thoughts. The sort is stable: of equal scores,
 * the thought that came first in the input is kept first. An input thought without a score fails
 * the operation (`ILLEGAL_STATE`: put a `score` before it).
 *
 * @example
 * ```ts
 * import { keepBest } from '@tot/core/graph';
 *
 * const best = keepBest({ n: 1, higherIsBetter: false });
 * ```
 */
export function keepBest<S>(options: KeepBestOptions = {}): Operation<S> {
  const o = parseOptions(schema, options, 'keepBest');
  return {
    kind: 'keepBest',
    describe: () => ({ n: o.n, higherIsBetter: o.higherIsBetter }),
    async execute(input, ctx) {
      const unscored = input.find((t) => t.score === undefined);
      if (unscored) throw new TotError('ILLEGAL_STATE', `keepBest: thought ${unscored.id} has no score; put a score operation before keepBest.`);
      // Compared, not subtracted (Infinity - Infinity is NaN); Array.prototype.sort is stable: equal scores keep their input order.
      const better = o.higherIsBetter ? (a: number, b: number) => a > b : (a: number, b: number) => a < b;
      const ranked = [...input].sort((a, b) => (better(a.score!, b.score!) ? -1 : better(b.score!, a.score!) ? 1 : 0));
      return ranked.slice(0, o.n).map((t) => ctx.derive(t));
    },
  };
}
