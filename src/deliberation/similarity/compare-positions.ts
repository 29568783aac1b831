import { z } from 'zod';
import { parseOptions, signalSchema } from '../../internal/validate.js';
import { comparerOptionsShape, PositionComparer, type CompareOptions, type PositionComparerOptions, type PositionComparison } from './position-comparer.js';

/**
 * Options of {@link comparePositions}: those of a {@link PositionComparer} and of one comparison.
 *
 * @example
 * ```ts
 * import type { ComparePositionsOptions } from '@tot/core/deliberation';
 *
 * const options: ComparePositionsOptions = { embedder, signal: AbortSignal.timeout(5_000) };
 * ```
 */
export interface ComparePositionsOptions extends PositionComparerOptions, CompareOptions {}

const optionsSchema = z.strictObject({ ...comparerOptionsShape, signal: signalSchema });
const textsSchema = z.array(z.string());

/**
 * How close a set of positions are, measured once (the protocol's `compare_positions` tool): a fresh
 * {@link PositionComparer}'s comparison. Across rounds of a deliberation, keep one comparer
 * instead, which measures only what is new.
 *
 * @example
 * ```ts
 * import { comparePositions } from '@tot/core/deliberation';
 *
 * const { meanSimilarity, mostDifferentPair } = await comparePositions(['use a queue', 'use a message queue', 'poll the table']);
 * ```
 */
export async function comparePositions(texts: readonly string[], options: ComparePositionsOptions = {}): Promise<PositionComparison> {
  parseOptions(textsSchema, texts, 'comparePositions', 'texts');
  parseOptions(optionsSchema, options, 'comparePositions');
  const { embedder, cache, signal } = options;
  return new PositionComparer({ embedder, cache }).compare(texts, { signal });
}

/**
 * The text of a position that is compared: its conclusion, then each key reason, one a line.
 *
 * @example
 * ```ts
 * import { positionText } from '@tot/core/deliberation';
 *
 * positionText({ conclusion: 'Use a queue.', key_reasons: ['Spikes are absorbed.', 'Retries are free.'] });
 * // 'Use a queue.\nSpikes are absorbed.\nRetries are free.'
 * ```
 */
export function positionText(position: { conclusion: string; key_reasons?: readonly string[] }): string {
  return [position.conclusion, ...(position.key_reasons ?? [])].join('\n');
}
