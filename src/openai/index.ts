/**
 * `@tot/core/openai`: the official `openai` client (OpenAI, Azure OpenAI, or any
 * OpenAI-compatible server through `baseURL`) as the library's `LanguageModel` and `Embedder`.
 * Nothing here imports `openai`: you pass your client.
 *
 * @packageDocumentation
 */
export { openAIModel, type OpenAIModelOptions } from './openai-model.js';
export { openAIEmbedder, type OpenAIEmbedderOptions } from './openai-embedder.js';
export type { OpenAIChatClient, OpenAIEmbeddingsClient } from './client-types.js';
