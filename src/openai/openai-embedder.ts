import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { callProvider } from '../internal/provider-error.js';
import { parseOptions } from '../internal/validate.js';
import { embedInBatches } from '../model/embed-in-batches.js';
import type { EmbedOptions, Embedder } from '../model/embedder.js';
import { optionsSchema as retryOptionsSchema, retryPolicy, type RetryOptions } from '../model/with-retry.js';
import type { OpenAIEmbeddingsClient } from './client-types.js';
import { openAIError } from './openai-error.js';
import { inIndexOrder, parseEmbeddingsResponse } from './replies.js';

/**
 * Options of {@link openAIEmbedder}.
 *
 * @example
 * ```ts
 * import OpenAI from 'openai';
 * import type { OpenAIEmbedderOptions } from '@tot/core/openai';
 *
 * const options: OpenAIEmbedderOptions = { client: new OpenAI(), model: 'text-embedding-3-small', dimensions: 256 };
 * ```
 */
export interface OpenAIEmbedderOptions {
  /** An `openai` client (OpenAI or a compatible server through `baseURL`). */
  client: OpenAIEmbeddingsClient;
  /** The embedding model, e.g. `text-embedding-3-small` or `nomic-embed-text`. */
  model: string;
  /** Shorter vectors, for the models that can give them (OpenAI's `text-embedding-3-*`). */
  dimensions?: number;
  /** The embedder's id in caches. Default: `model`, with `@<dimensions>` when `dimensions` is set. */
  id?: string;
  /** Texts per request. Default 2048 (OpenAI's limit). */
  batchSize?: number;
  /**
   * Retries of a failed batch, under the policy of `withRetry` (rate limits and server errors,
   * `Retry-After` honoured, never an abort). Default `{ maxRetries: 2 }`; `{ maxRetries: 0 }` for none.
   */
  retry?: RetryOptions;
  /** Retries the client makes by itself, unseen by `retry`. Default 0. */
  clientMaxRetries?: number;
  /** HTTP headers sent with every request. */
  headers?: Record<string, string>;
}

const optionsSchema = z.strictObject({
  client: z.custom<OpenAIEmbeddingsClient>(
    (v) => typeof (v as { embeddings?: { create?: unknown } } | undefined)?.embeddings?.create === 'function',
    'expected an openai client (new OpenAI({ baseURL, apiKey }))',
  ),
  model: z.string().min(1),
  dimensions: z.number().int().positive().optional(),
  id: z.string().min(1).optional(),
  batchSize: z.number().int().positive().default(2048),
  clientMaxRetries: z.number().int().min(0).default(0),
  retry: retryOptionsSchema.optional(),
  headers: z.record(z.string(), z.string()).optional(),
});

/**
 * An {@link Embedder} on the official `openai` client's embeddings endpoint. Texts go in batches
 * of `batchSize`, one request after another, as float vectors (`encoding_format: 'float'`, which
 * every compatible server speaks); vectors come back in the order of the texts, checked.
 *
 * Errors are `GENERATION_FAILED` with `details.status`, `details.providerCode` and
 * `details.retryable`, as for {@link openAIModel}; the signal closes the request.
 *
 * @example
 * ```ts
 * import OpenAI from 'openai';
 * import { openAIEmbedder } from '@tot/core/openai';
 *
 * const embedder = openAIEmbedder({ client: new OpenAI(), model: 'text-embedding-3-small' });
 * const [a, b] = await embedder.embed(['sunny day', 'clear sky']);
 * ```
 */
export function openAIEmbedder(options: OpenAIEmbedderOptions): Embedder {
  const o = parseOptions(optionsSchema, options, 'openAIEmbedder');
  const { client } = options;
  const id = o.id ?? (o.dimensions === undefined ? o.model : `${o.model}@${o.dimensions}`);
  const retry = retryPolicy(options.retry ?? {}, 'openAIEmbedder', 'options.retry');
  return {
    id,
    embed(texts: readonly string[], embedOptions: EmbedOptions = {}): Promise<number[][]> {
      const { signal } = embedOptions;
      return embedInBatches(id, texts, () => o.batchSize, signal, retry, async (input) => {
        const body = { model: o.model, input, encoding_format: 'float', ...(o.dimensions === undefined ? {} : { dimensions: o.dimensions }) };
        const requestOptions = { maxRetries: o.clientMaxRetries, ...(signal === undefined ? {} : { signal }), ...(o.headers === undefined ? {} : { headers: o.headers }) };
        const raw = await callProvider(signal, 'embedding call', () => client.embeddings.create(body as never, requestOptions as never), (error) => openAIError(error, id));
        const parsed = parseEmbeddingsResponse(raw);
        if (!parsed.success) {
          throw new TotError('GENERATION_FAILED', `Embedder "${id}" returned a response that is not an embedding list: ${parsed.error.issues[0]?.message}`, {
            details: { modelId: id, modelResult: raw, issues: parsed.error.issues, retryable: true },
          });
        }
        return inIndexOrder(parsed.data.data).map((d) => d.embedding);
      });
    },
  };
}
