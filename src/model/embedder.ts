import { TotError } from '../errors/index.js';

/**
 * Per-call options of an {@link Embedder}.
 *
 * @example
 * ```ts
 * import type { EmbedOptions } from '@tot/core';
 *
 * const options: EmbedOptions = { signal: AbortSignal.timeout(10_000) };
 * ```
 */
export interface EmbedOptions {
  signal?: AbortSignal;
}

/**
 * The port through which the library turns texts into vectors (the similarity of positions in a
 * deliberation, for one). Provider adapters give you one: `openAIEmbedder` (`@tot/core/openai`),
 * `fromAiSdkEmbedding` (`@tot/core/ai-sdk`).
 *
 * @example
 * ```ts
 * import type { Embedder } from '@tot/core';
 *
 * // Bag-of-letters vectors: enough for a unit test.
 * const letters: Embedder = {
 *   id: 'letters',
 *   async embed(texts) {
 *     return texts.map((t) => Array.from({ length: 26 }, (_, i) => t.split(String.fromCharCode(97 + i)).length - 1));
 *   },
 * };
 * ```
 */
export interface Embedder {
  /** Identifies the embedding model (and its settings) in caches: vectors of different ids are never compared. */
  readonly id: string;
  /**
   * One vector per text, in the order given. Must honour `options.signal`; an empty list gives an
   * empty list.
   */
  embed(texts: readonly string[], options?: EmbedOptions): Promise<number[][]>;
}

/**
 * `vectors` when they are `count` non-empty arrays of finite numbers of one length (`dimensions`,
 * when an earlier batch set it), else `GENERATION_FAILED` naming what is wrong: a provider's reply
 * is checked before anything compares vectors with it. Shared by the embedder adapters.
 */
export function checkedEmbeddings(id: string, vectors: unknown, count: number, dimensions?: number): number[][] {
  const fail = (what: string) => {
    throw new TotError('GENERATION_FAILED', `Embedder "${id}" returned ${what}.`, { recoverable: false, details: { modelId: id, modelResult: vectors, retryable: false } });
  };
  if (!Array.isArray(vectors)) return fail('no list of vectors');
  if (vectors.length !== count) return fail(`${vectors.length} vectors for ${count} texts`);
  const length = dimensions ?? (vectors[0] as unknown[] | undefined)?.length;
  for (const [i, vector] of vectors.entries()) {
    if (!Array.isArray(vector) || vector.length === 0) return fail(`no vector for text ${i}`);
    if (vector.length !== length) return fail(`vectors of different lengths (${length} and ${vector.length})`);
    if (!vector.every((x) => typeof x === 'number' && Number.isFinite(x))) return fail(`a vector with a value that is not a finite number (text ${i})`);
  }
  return vectors as number[][];
}
