/**
 * The part of an `openai` client (`new OpenAI({ baseURL, apiKey })`, `AzureOpenAI`, v6 or v7) that
 * {@link openAIModel} calls. Typed by shape, so the adapter imports nothing from `openai` and
 * takes the client of whichever major you installed; `create` takes `never` so that every
 * version's overloads are assignable.
 *
 * @example
 * ```ts
 * import OpenAI from 'openai';
 * import type { OpenAIChatClient } from '@tot/core/openai';
 *
 * const client: OpenAIChatClient = new OpenAI({ baseURL: 'http://localhost:11434/v1', apiKey: 'ollama' });
 * ```
 */
export interface OpenAIChatClient {
  chat: {
    completions: {
      /** Creates a chat completion: the adapter calls it once per `generate`. */
      create(body: never, options: never): PromiseLike<unknown>;
    };
  };
}

/**
 * The part of an `openai` client that {@link openAIEmbedder} calls.
 *
 * @example
 * ```ts
 * import OpenAI from 'openai';
 * import type { OpenAIEmbeddingsClient } from '@tot/core/openai';
 *
 * const client: OpenAIEmbeddingsClient = new OpenAI();
 * ```
 */
export interface OpenAIEmbeddingsClient {
  embeddings: {
    /** Embeds a batch of texts: the adapter calls it once per batch. */
    create(body: never, options: never): PromiseLike<unknown>;
  };
}
