export type {
  CallOptions,
  ChatMessage,
  FinishReason,
  GenerateRequest,
  GenerateResult,
  LanguageModel,
  ModelCapabilities,
  RetryNotice,
  Usage,
} from './types.js';
export type { EmbedOptions, Embedder } from './embedder.js';
export { callModel, SAMPLE_INDEX_TAG } from './call-model.js';
export { fromFunction, messagesToPrompt, type FromFunctionOptions, type PromptFunction, type RequestFunction } from './from-function.js';
export { requestKey } from './request-key.js';
export { withRetry, isRetryableError, retryAfterMs, type RetryOptions } from './with-retry.js';
export { withTimeout, type TimeoutOptions } from './with-timeout.js';
export { withConcurrency, type ConcurrencyOptions } from './with-concurrency.js';
export { withCache, type CacheOptions } from './with-cache.js';
export { createLruCacheStore, type CacheStore, type LruCacheStore, type LruCacheStoreOptions } from './cache-store.js';
export { UsageMeter, type UsageSnapshot, type TagUsage } from './usage-meter.js';
export { withUsage, type UsageOptions } from './with-usage.js';
export { withBudget, type BudgetModelOptions } from './with-budget.js';
export { isLanguageModel } from './schemas.js';
export {
  budgetMiddleware,
  cacheMiddleware,
  composeModel,
  concurrencyMiddleware,
  MIDDLEWARE_ORDER,
  retryMiddleware,
  timeoutMiddleware,
  usageMiddleware,
  type MiddlewareKind,
  type ModelMiddleware,
} from './compose-model.js';
