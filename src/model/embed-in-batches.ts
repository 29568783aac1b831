import { z } from 'zod';
import { abortable, throwIfAborted } from '../internal/abort.js';
import { parseOptions } from '../internal/validate.js';
import { checkedEmbeddings } from './embedder.js';
import type { RetryPolicy } from './with-retry.js';

const textsSchema = z.array(z.string());

/**
 * The texts embedded `batchSize()` at a time (all at once when the provider sets no limit), one
 * batch after another, a failed batch retried under `retry`, each batch's vectors checked: the
 * shared body of the embedder adapters.
 */
export async function embedInBatches(
  id: string,
  texts: readonly string[],
  batchSize: () => PromiseLike<number | undefined> | number | undefined,
  signal: AbortSignal | undefined,
  retry: RetryPolicy,
  embedBatch: (values: string[]) => Promise<unknown>,
): Promise<number[][]> {
  parseOptions(textsSchema, texts, `embedder "${id}"`, 'texts');
  throwIfAborted(signal, 'embedding call');
  if (texts.length === 0) return [];
  const limit = await abortable(signal, batchSize, 'embedding call');
  const size = limit !== undefined && Number.isInteger(limit) && limit > 0 ? limit : texts.length;
  const vectors: number[][] = [];
  for (let start = 0; start < texts.length; start += size) {
    const values = texts.slice(start, start + size);
    // Every batch's vectors must have the first batch's length.
    vectors.push(...checkedEmbeddings(id, await retry(id, () => embedBatch(values), { signal }), values.length, vectors[0]?.length));
  }
  return vectors;
}
