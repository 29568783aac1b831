/**
 * `@tot/core/ai-sdk`: any Vercel AI SDK model as the library's `LanguageModel` or `Embedder`
 * (provider specification v2, v3 and v4: `ai` 5, 6 and 7). Nothing here imports the AI SDK: you
 * pass the provider package's model.
 *
 * @packageDocumentation
 */
export { fromAiSdk, type FromAiSdkOptions } from './from-ai-sdk.js';
export { fromAiSdkEmbedding, type FromAiSdkEmbeddingOptions } from './from-ai-sdk-embedding.js';
export type { AiSdkEmbeddingModel, AiSdkJsonValue, AiSdkLanguageModel, AiSdkProviderOptions, AiSdkSpecificationVersion } from './types.js';
