import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { raceAbort } from '../internal/abort.js';
import { fnSchema, parseOptions } from '../internal/validate.js';
import { createLruCacheStore, type CacheStore } from './cache-store.js';
import { requestKey } from './request-key.js';
import { languageModelSchema } from './schemas.js';
import type { CallOptions, GenerateRequest, GenerateResult, LanguageModel } from './types.js';
import { wrapModel } from './wrap-model.js';

/**
 * Options of {@link withCache}.
 *
 * @example
 * ```ts
 * import { createLruCacheStore, type CacheOptions } from '@tot/core';
 *
 * const options: CacheOptions = { store: createLruCacheStore({ maxEntries: 100 }) };
 * ```
 */
export interface CacheOptions {
  /** Default: a new {@link createLruCacheStore} with 1000 entries. */
  store?: CacheStore;
  /** Default: {@link requestKey}. */
  key?: (modelId: string, request: GenerateRequest) => string;
  /** Whether a request may be served from / written to the cache. Default: always. */
  shouldCache?: (request: GenerateRequest) => boolean;
}

const optionsSchema = z.object({
  store: z
    .custom<CacheStore>((v) => typeof v === 'object' && v !== null && typeof (v as CacheStore).get === 'function' && typeof (v as CacheStore).set === 'function', 'expected a CacheStore ({ get, set })')
    .optional(),
  key: fnSchema<(modelId: string, request: GenerateRequest) => string>().optional(),
  shouldCache: fnSchema<(request: GenerateRequest) => boolean>().optional(),
});

/**
 * Serves repeated requests from a store. Identical requests in flight at the same time share one
 * call. Results served from the store carry `cacheHit: true`; failures are never cached.
 *
 * @example
 * ```ts
 * import { withCache, withUsage, UsageMeter } from '@tot/core';
 *
 * const meter = new UsageMeter();
 * const model = withUsage(withCache(provider), { meter });
 * // meter.snapshot().cacheHits counts the calls the cache answered
 * ```
 */
export function withCache(model: LanguageModel, options: CacheOptions = {}): LanguageModel {
  parseOptions(languageModelSchema, model, 'withCache', 'model');
  const o = parseOptions(optionsSchema, options, 'withCache');
  const store = o.store ?? createLruCacheStore();
  const keyOf = o.key ?? requestKey;
  const inFlight = new Map<string, Promise<GenerateResult>>();
  const generate = async (request: GenerateRequest, callOptions: CallOptions = {}): Promise<GenerateResult> => {
    if (o.shouldCache && !o.shouldCache(request)) return model.generate(request, callOptions);
    const key = keyOf(model.modelId, request);
    const hit = await store.get(key);
    if (hit !== undefined) return { ...hit, cacheHit: true };
    const pending = inFlight.get(key);
    if (pending) {
      // Followers share the leader's call but keep their own abort. If the leader was aborted,
      // that is the leader's business: a follower still wanting the answer makes the call itself.
      return raceAbort(pending, callOptions.signal, 'model call').then(
        (r) => ({ ...r, cacheHit: true }),
        (error: unknown) => {
          if (TotError.hasCode(error, 'ABORTED') && !callOptions.signal?.aborted) return generate(request, callOptions);
          throw error;
        },
      );
    }
    const call = (async () => {
      const result = await model.generate(request, callOptions);
      const { cacheHit: _ignored, ...stored } = result;
      await store.set(key, stored);
      return stored;
    })();
    inFlight.set(key, call);
    try {
      return await call;
    } finally {
      inFlight.delete(key);
    }
  };
  return wrapModel(model, generate);
}
