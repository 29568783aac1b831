import { z } from 'zod';
import { callProvider } from '../internal/provider-error.js';
import { parseOptions } from '../internal/validate.js';
import { embedInBatches } from '../model/embed-in-batches.js';
import type { EmbedOptions, Embedder } from '../model/embedder.js';
import { optionsSchema as retryOptionsSchema, retryPolicy, type RetryOptions } from '../model/with-retry.js';
import { aiSdkError } from './ai-sdk-error.js';
import { checkedAiSdkResult } from './ai-sdk-result.js';
import { aiSdkModelSchema, callSettings, callSettingsShape } from './model-schema.js';
import type { AiSdkEmbeddingModel, AiSdkProviderOptions } from './types.js';

/**
 * Options of {@link fromAiSdkEmbedding}.
 *
 * @example
 * ```ts
 * import type { FromAiSdkEmbeddingOptions } from '@tot/core/ai-sdk';
 *
 * const options: FromAiSdkEmbeddingOptions = { id: 'openai/text-embedding-3-small@256', providerOptions: { openai: { dimensions: 256 } } };
 * ```
 */
export interface FromAiSdkEmbeddingOptions {
  /** The embedder's id in caches. Default: the model's `modelId`. Give another when settings change the vectors (dimensions). */
  id?: string;
  /** Provider settings sent with every call (the AI SDK's `providerOptions`). */
  providerOptions?: AiSdkProviderOptions;
  /** HTTP headers sent with every call. */
  headers?: Record<string, string>;
  /**
   * Retries of a failed batch, under the policy of `withRetry` (rate limits and server errors,
   * `Retry-After` honoured, never an abort). Default `{ maxRetries: 2 }`; `{ maxRetries: 0 }` for none.
   */
  retry?: RetryOptions;
}

const optionsSchema = z.strictObject({
  id: z.string().min(1).optional(),
  retry: retryOptionsSchema.optional(),
  ...callSettingsShape,
});

/**
 * Turns an AI SDK embedding model (specification v2, v3 or v4) into an {@link Embedder}. Texts
 * are sent in batches of the model's `maxEmbeddingsPerCall`, one batch after another; vectors
 * come back in the order of the texts, checked (one finite vector per text, one length).
 *
 * Errors are `GENERATION_FAILED` with `details.status` and `details.retryable`, as for
 * {@link fromAiSdk}. A failed batch is retried under `retry` (the `ai` package's `embedMany`
 * retries are not in the path: this adapter calls `doEmbed`).
 *
 * @example
 * ```ts
 * import { fromAiSdkEmbedding } from '@tot/core/ai-sdk';
 * import { openai } from '@ai-sdk/openai';
 *
 * const embedder = fromAiSdkEmbedding(openai.embedding('text-embedding-3-small'));
 * const [a, b] = await embedder.embed(['sunny day', 'clear sky']);
 * ```
 */
export function fromAiSdkEmbedding(model: AiSdkEmbeddingModel, options: FromAiSdkEmbeddingOptions = {}): Embedder {
  parseOptions(aiSdkModelSchema('doEmbed'), model, 'fromAiSdkEmbedding', 'model');
  const o = parseOptions(optionsSchema, options, 'fromAiSdkEmbedding');
  const id = o.id ?? model.modelId;
  const retry = retryPolicy(options.retry ?? {}, 'fromAiSdkEmbedding', 'options.retry');
  const fixed = callSettings(o);
  return {
    id,
    embed(texts: readonly string[], embedOptions: EmbedOptions = {}): Promise<number[][]> {
      const { signal } = embedOptions;
      return embedInBatches(id, texts, () => model.maxEmbeddingsPerCall, signal, retry, async (values) => {
        const callOptions = { values, ...(signal === undefined ? {} : { abortSignal: signal }), ...fixed };
        const raw = await callProvider(signal, 'embedding call', () => model.doEmbed(callOptions as never), (error) => aiSdkError(error, id));
        return checkedAiSdkResult('doEmbed', raw, id).embeddings;
      });
    },
  };
}
