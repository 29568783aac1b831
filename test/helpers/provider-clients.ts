import { createOpenAICompatible as createV3 } from '@ai-sdk/openai-compatible';
import { createOpenAICompatible as createV2 } from 'ai-sdk-openai-compatible-v1';
import { createOpenAICompatible as createV4 } from 'ai-sdk-openai-compatible-v3';
import OpenAI from 'openai';
import OpenAI7 from 'openai-v7';
import type { Embedder, LanguageModel, RetryOptions } from '../../src/index.js';
import { fromAiSdk, fromAiSdkEmbedding, type AiSdkEmbeddingModel, type AiSdkLanguageModel } from '../../src/ai-sdk/index.js';
import { openAIEmbedder, openAIModel, type OpenAIModelOptions } from '../../src/openai/index.js';

/** Settings a test may vary: JSON with a schema on the wire, the number of texts per embedding request. */
export interface ClientSettings {
  structuredOutputs?: boolean;
  embeddingBatchSize?: number;
  embeddingRetry?: RetryOptions;
  openai?: Partial<OpenAIModelOptions>;
}

/** One real client package driven through its adapter. */
export interface ProviderClient {
  name: string;
  /** Whether one request carries `n` (the openai client), or the library asks `n` times (the AI SDK has no `n`). */
  nativeN: boolean;
  model(baseURL: string, settings?: ClientSettings): LanguageModel;
  embedder(baseURL: string, settings?: ClientSettings): Embedder;
}

const API_KEY = 'test-key';

function openAIClient(name: string, Client: typeof OpenAI | typeof OpenAI7): ProviderClient {
  // The two majors' classes differ in private members only; the adapters take either by shape.
  const client = (baseURL: string) => new (Client as typeof OpenAI)({ baseURL, apiKey: API_KEY });
  return {
    name,
    nativeN: true,
    model: (baseURL, s = {}) => openAIModel({ client: client(baseURL), model: 'test-model', ...(s.structuredOutputs ? { structuredOutputs: true } : {}), ...s.openai }),
    embedder: (baseURL, s = {}) =>
      openAIEmbedder({ client: client(baseURL), model: 'test-embedder', ...(s.embeddingBatchSize ? { batchSize: s.embeddingBatchSize } : {}), ...(s.embeddingRetry ? { retry: s.embeddingRetry } : {}) }),
  };
}

type Create = typeof createV2 | typeof createV3 | typeof createV4;

function aiSdkClient(name: string, create: Create): ProviderClient {
  const provider = (baseURL: string, s: ClientSettings) =>
    (create as typeof createV3)({ name: 'local', baseURL, apiKey: API_KEY, ...(s.structuredOutputs ? { supportsStructuredOutputs: true } : {}) });
  return {
    name,
    nativeN: false,
    model: (baseURL, s = {}) => fromAiSdk(provider(baseURL, s).chatModel('test-model') as AiSdkLanguageModel),
    embedder: (baseURL, s = {}) => {
      const p = provider(baseURL, s) as { embeddingModel?: (id: string) => AiSdkEmbeddingModel; textEmbeddingModel: (id: string) => AiSdkEmbeddingModel };
      const model = (p.embeddingModel ?? p.textEmbeddingModel).call(p, 'test-embedder');
      // The provider's limit (2048) is a getter: a model with a smaller one inherits everything else.
      const limited = (size: number) => Object.create(model, { maxEmbeddingsPerCall: { value: size } }) as AiSdkEmbeddingModel;
      return fromAiSdkEmbedding(s.embeddingBatchSize ? limited(s.embeddingBatchSize) : model, s.embeddingRetry ? { retry: s.embeddingRetry } : {});
    },
  };
}

/** Every client the adapters are tested with: both `openai` majors and the AI SDK's three provider specifications. */
export const PROVIDER_CLIENTS: ProviderClient[] = [
  openAIClient('openai 6 client (openAIModel)', OpenAI),
  openAIClient('openai 7 client (openAIModel)', OpenAI7),
  aiSdkClient('AI SDK v2 provider, @ai-sdk/openai-compatible 1 (fromAiSdk)', createV2),
  aiSdkClient('AI SDK v3 provider, @ai-sdk/openai-compatible 2 (fromAiSdk)', createV3),
  aiSdkClient('AI SDK v4 provider, @ai-sdk/openai-compatible 3 (fromAiSdk)', createV4),
];
