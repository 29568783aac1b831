/**
 * The specification versions of the AI SDK's provider interface that the adapters read: `v2`
 * (`ai` 5), `v3` (`ai` 6) and `v4` (`ai` 7).
 *
 * @example
 * ```ts
 * import type { AiSdkSpecificationVersion } from '@tot/core/ai-sdk';
 *
 * const version: AiSdkSpecificationVersion = 'v3';
 * ```
 */
export type AiSdkSpecificationVersion = 'v2' | 'v3' | 'v4';

/**
 * An AI SDK language model (`LanguageModelV2`, `V3` or `V4`), as every provider package returns
 * it: `openai('gpt-4o-mini')`, `anthropic('claude-sonnet-4-5')`, `createOpenAICompatible({ … })('llama3')`.
 *
 * Only the identity is typed: each specification version declares its own call options and
 * result, so `doGenerate` takes `never` here (every version's model is assignable), the adapter
 * builds the options all three versions share, and it checks the result at run time.
 *
 * @example
 * ```ts
 * import type { AiSdkLanguageModel } from '@tot/core/ai-sdk';
 * import { openai } from '@ai-sdk/openai';
 *
 * const model: AiSdkLanguageModel = openai('gpt-4o-mini');
 * ```
 */
export interface AiSdkLanguageModel {
  readonly specificationVersion: AiSdkSpecificationVersion;
  /** The provider's name, e.g. `openai.chat`. */
  readonly provider: string;
  readonly modelId: string;
  /** Generates a response: the adapter calls it once per output. */
  doGenerate(options: never): PromiseLike<unknown>;
}

/**
 * An AI SDK embedding model (`EmbeddingModelV2<string>`, `V3` or `V4`):
 * `openai.embedding('text-embedding-3-small')`, `createOpenAICompatible({ … }).embeddingModel('nomic-embed-text')`.
 *
 * @example
 * ```ts
 * import type { AiSdkEmbeddingModel } from '@tot/core/ai-sdk';
 * import { openai } from '@ai-sdk/openai';
 *
 * const model: AiSdkEmbeddingModel = openai.embedding('text-embedding-3-small');
 * ```
 */
export interface AiSdkEmbeddingModel {
  readonly specificationVersion: AiSdkSpecificationVersion;
  readonly provider: string;
  readonly modelId: string;
  /** Texts one call may embed (a number, a promise of one, or `undefined` for no limit). */
  readonly maxEmbeddingsPerCall?: PromiseLike<number | undefined> | number | undefined;
  /** Embeds a batch of texts: the adapter calls it once per batch. */
  doEmbed(options: never): PromiseLike<unknown>;
}

/**
 * Settings the AI SDK passes through to a provider, keyed by provider name.
 *
 * @example
 * ```ts
 * import type { AiSdkProviderOptions } from '@tot/core/ai-sdk';
 *
 * const options: AiSdkProviderOptions = { openai: { reasoningEffort: 'low' } };
 * ```
 */
export type AiSdkProviderOptions = Record<string, Record<string, AiSdkJsonValue>>;

/**
 * A JSON value, as the AI SDK's provider options take them.
 *
 * @example
 * ```ts
 * import type { AiSdkJsonValue } from '@tot/core/ai-sdk';
 *
 * const value: AiSdkJsonValue = { effort: 'low', budget: [1, 2] };
 * ```
 */
export type AiSdkJsonValue = null | string | number | boolean | AiSdkJsonValue[] | { [key: string]: AiSdkJsonValue | undefined };
