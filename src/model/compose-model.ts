import { TotError } from '../errors/index.js';
import { parseOptions } from '../internal/validate.js';
import { languageModelSchema } from './schemas.js';
import type { LanguageModel } from './types.js';
import { withBudget, optionsSchema as budgetOptionsSchema, type BudgetModelOptions } from './with-budget.js';
import { withCache, optionsSchema as cacheOptionsSchema, type CacheOptions } from './with-cache.js';
import { withConcurrency, optionsSchema as concurrencyOptionsSchema, type ConcurrencyOptions } from './with-concurrency.js';
import { withRetry, optionsSchema as retryOptionsSchema, type RetryOptions } from './with-retry.js';
import { withTimeout, optionsSchema as timeoutOptionsSchema, type TimeoutOptions } from './with-timeout.js';
import { withUsage, optionsSchema as usageOptionsSchema, type UsageOptions } from './with-usage.js';

/**
 * The built-in middleware, outermost first: the order {@link composeModel} puts them in.
 *
 * - `usage` outermost: it counts every call, cache hits included.
 * - `cache` outside the limits: a hit takes no slot and spends no budget.
 * - `concurrency` outside `retry`: a call keeps its slot while it is retried.
 * - `retry` outside `timeout`: each attempt has its own time limit, and a timed-out attempt is retried.
 * - `budget` innermost: every real attempt is admitted, and a refused one never reaches the provider.
 *
 * @example
 * ```ts
 * import { MIDDLEWARE_ORDER } from '@tot/core';
 *
 * MIDDLEWARE_ORDER.indexOf('retry') < MIDDLEWARE_ORDER.indexOf('timeout'); // true
 * ```
 */
export const MIDDLEWARE_ORDER = ['usage', 'cache', 'concurrency', 'retry', 'timeout', 'budget'] as const;

/**
 * The kind of a built-in middleware.
 *
 * @example
 * ```ts
 * import type { MiddlewareKind } from '@tot/core';
 *
 * const kind: MiddlewareKind = 'retry';
 * ```
 */
export type MiddlewareKind = (typeof MIDDLEWARE_ORDER)[number];

/**
 * A layer around a model, for {@link composeModel}. The built-in ones carry a `kind`, by which
 * they are put in order; a custom layer (any `{ wrap }`, or a plain `(model) => model` function)
 * has none.
 *
 * @example
 * ```ts
 * import type { ModelMiddleware } from '@tot/core';
 *
 * const logging: ModelMiddleware = {
 *   wrap: (model) => ({
 *     modelId: model.modelId,
 *     generate: (request, options) => {
 *       console.log(request.tags);
 *       return model.generate(request, options);
 *     },
 *   }),
 * };
 * ```
 */
export interface ModelMiddleware {
  /** A built-in's place in {@link MIDDLEWARE_ORDER}; without it, the middleware wraps in the order listed, outside the built-ins. */
  readonly kind?: MiddlewareKind;
  /** Returns `model` wrapped. */
  wrap(model: LanguageModel): LanguageModel;
}

const builtIn = (kind: MiddlewareKind, wrap: (model: LanguageModel) => LanguageModel): ModelMiddleware => ({ kind, wrap });

/**
 * {@link withUsage} as middleware.
 *
 * @example
 * ```ts
 * import { UsageMeter, usageMiddleware } from '@tot/core';
 *
 * const usage = usageMiddleware({ meter: new UsageMeter() });
 * ```
 */
export function usageMiddleware(options: UsageOptions): ModelMiddleware {
  parseOptions(usageOptionsSchema, options, 'usageMiddleware');
  return builtIn('usage', (model) => withUsage(model, options));
}

/**
 * {@link withCache} as middleware.
 *
 * @example
 * ```ts
 * import { cacheMiddleware, createLruCacheStore } from '@tot/core';
 *
 * const cache = cacheMiddleware({ store: createLruCacheStore({ maxEntries: 1_000 }) });
 * ```
 */
export function cacheMiddleware(options: CacheOptions = {}): ModelMiddleware {
  parseOptions(cacheOptionsSchema, options, 'cacheMiddleware');
  return builtIn('cache', (model) => withCache(model, options));
}

/**
 * {@link withConcurrency} as middleware.
 *
 * @example
 * ```ts
 * import { concurrencyMiddleware } from '@tot/core';
 *
 * const concurrency = concurrencyMiddleware({ limit: 8 });
 * ```
 */
export function concurrencyMiddleware(options: ConcurrencyOptions): ModelMiddleware {
  parseOptions(concurrencyOptionsSchema, options, 'concurrencyMiddleware');
  return builtIn('concurrency', (model) => withConcurrency(model, options));
}

/**
 * {@link withRetry} as middleware.
 *
 * @example
 * ```ts
 * import { retryMiddleware } from '@tot/core';
 *
 * const retry = retryMiddleware({ maxRetries: 3 });
 * ```
 */
export function retryMiddleware(options: RetryOptions = {}): ModelMiddleware {
  parseOptions(retryOptionsSchema, options, 'retryMiddleware');
  return builtIn('retry', (model) => withRetry(model, options));
}

/**
 * {@link withTimeout} as middleware.
 *
 * @example
 * ```ts
 * import { timeoutMiddleware } from '@tot/core';
 *
 * const timeout = timeoutMiddleware({ ms: 30_000 });
 * ```
 */
export function timeoutMiddleware(options: TimeoutOptions): ModelMiddleware {
  parseOptions(timeoutOptionsSchema, options, 'timeoutMiddleware');
  return builtIn('timeout', (model) => withTimeout(model, options));
}

/**
 * {@link withBudget} as middleware: a budget shared by every call through the model (a daily
 * spending cap across requests, say). A run's own budget goes in the runner's `budget` option.
 *
 * @example
 * ```ts
 * import { Budget, budgetMiddleware } from '@tot/core';
 *
 * const daily = budgetMiddleware({ budget: new Budget({ maxCost: 50, pricing: { inputPerMillionTokens: 2.5, outputPerMillionTokens: 10 } }) });
 * ```
 */
export function budgetMiddleware(options: BudgetModelOptions): ModelMiddleware {
  parseOptions(budgetOptionsSchema, options, 'budgetMiddleware');
  return builtIn('budget', (model) => withBudget(model, options));
}

/**
 * Wraps `model` in middleware. The built-in middleware are applied in {@link MIDDLEWARE_ORDER},
 * whatever order they are listed in, so a stack cannot be nested wrong; custom middleware go
 * outermost, in the order listed. Each kind may appear once.
 *
 * @example
 * ```ts
 * import { composeModel, concurrencyMiddleware, retryMiddleware, timeoutMiddleware, usageMiddleware, UsageMeter } from '@tot/core';
 *
 * const meter = new UsageMeter();
 * const model = composeModel(provider, [
 *   retryMiddleware({ maxRetries: 3 }),
 *   timeoutMiddleware({ ms: 30_000 }),
 *   concurrencyMiddleware({ limit: 8 }),
 *   usageMiddleware({ meter }),
 * ]);
 * // usage(concurrency(retry(timeout(provider))))
 * ```
 */
export function composeModel(model: LanguageModel, middleware: readonly (ModelMiddleware | ((model: LanguageModel) => LanguageModel))[]): LanguageModel {
  parseOptions(languageModelSchema, model, 'composeModel', 'model');
  if (!Array.isArray(middleware)) throw new TotError('INVALID_ARGUMENT', 'composeModel: middleware: expected an array', { details: { field: 'middleware' } });
  const custom: ((model: LanguageModel) => LanguageModel)[] = [];
  const byKind = new Map<MiddlewareKind, ModelMiddleware>();
  middleware.forEach((m, i) => {
    if (typeof m === 'function') return custom.push(m);
    if (typeof m !== 'object' || m === null || typeof m.wrap !== 'function') {
      throw new TotError('INVALID_ARGUMENT', `composeModel: middleware[${i}]: expected a middleware ({ wrap }) or a function`, { details: { field: `middleware[${i}]` } });
    }
    if (m.kind === undefined) return custom.push((inner) => m.wrap(inner));
    if (!MIDDLEWARE_ORDER.includes(m.kind)) throw new TotError('INVALID_ARGUMENT', `composeModel: middleware[${i}]: unknown kind "${m.kind}"`, { details: { field: `middleware[${i}].kind` } });
    if (byKind.has(m.kind)) throw new TotError('INVALID_ARGUMENT', `composeModel: middleware[${i}]: a second ${m.kind} middleware`, { details: { field: `middleware[${i}]` } });
    byKind.set(m.kind, m);
    return undefined;
  });
  let wrapped = model;
  for (const kind of [...MIDDLEWARE_ORDER].reverse()) {
    const m = byKind.get(kind);
    if (m) wrapped = checked(m.wrap(wrapped), kind);
  }
  for (const wrap of [...custom].reverse()) wrapped = checked(wrap(wrapped), 'custom');
  return wrapped;
}

function checked(model: LanguageModel, what: string): LanguageModel {
  return parseOptions(languageModelSchema, model, 'composeModel', `the ${what} middleware's model`);
}
