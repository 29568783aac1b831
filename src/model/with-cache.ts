import { z } from 'zod';
import { abortable, abortedError, raceAbort, throwIfAborted } from '../internal/abort.js';
import { fnSchema, parseOptions } from '../internal/validate.js';
import { createLruCacheStore, type CacheStore } from './cache-store.js';
import { isWellFormedResult } from './call-model.js';
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

/** The options, strict: the middleware form checks them when it is made. */
export const optionsSchema = z.strictObject({
  store: z
    .custom<CacheStore>((v) => typeof v === 'object' && v !== null && typeof (v as CacheStore).get === 'function' && typeof (v as CacheStore).set === 'function', 'expected a CacheStore ({ get, set })')
    .optional(),
  key: fnSchema<(modelId: string, request: GenerateRequest) => string>().optional(),
  shouldCache: fnSchema<(request: GenerateRequest) => boolean>().optional(),
});

/**
 * Serves repeated requests from a store. Identical requests in flight at the same time share one
 * call. Results served from the store carry `cacheHit: true`; failures, malformed results included,
 * are never cached. A call whose signal aborts ends with `ABORTED` at once, even if the model
 * ignores the signal; callers sharing it go on (one of them makes the call again), and later
 * identical requests are never held up by it.
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
  // The lookup-and-call of the first of identical requests (the leader), as the requests made while
  // it runs (its followers) share it, with the leader's signal: a follower tells a leader that gave
  // up from a call that failed.
  const inFlight = new Map<string, { call: Promise<GenerateResult>; signal: AbortSignal | undefined }>();
  const generate = (request: GenerateRequest, callOptions: CallOptions = {}): Promise<GenerateResult> => {
    const { signal } = callOptions;
    if (signal?.aborted) return Promise.reject(abortedError(signal, 'model call'));
    let key: string;
    try {
      if (o.shouldCache && !o.shouldCache(request)) return abortable(signal, () => model.generate(request, callOptions), 'model call');
      key = keyOf(model.modelId, request);
    } catch (error) {
      return Promise.reject(error);
    }
    const leader = inFlight.get(key);
    if (leader) {
      // Followers share the leader's call but keep their own abort. If the leader was aborted,
      // that is the leader's business: a follower still wanting the answer makes the call itself.
      return raceAbort(leader.call, signal, 'model call').then(
        (r) => ({ ...r, cacheHit: true }),
        (error: unknown) => {
          if (leader.signal?.aborted && !signal?.aborted) return generate(request, callOptions);
          throw error;
        },
      );
    }
    // Raced with the leader's signal, so that the shared call ends when the leader gives up even
    // if the model ignores its signal: otherwise the key would stay in flight, and every later
    // identical request wait, for ever. A late result is still stored.
    const call = abortable(
      signal,
      async (): Promise<GenerateResult> => {
        const hit = await store.get(key);
        if (hit !== undefined) return { ...hit, cacheHit: true };
        // A leader that gave up during the lookup makes no call.
        throwIfAborted(signal, 'model call');
        const result = await model.generate(request, callOptions);
        // A malformed result (one `callModel` fails) is a failure, and failures are not cached.
        if (!isWellFormedResult(result, request.n ?? 1)) return result;
        const { cacheHit: _ignored, ...stored } = result;
        await store.set(key, stored);
        return stored;
      },
      'model call',
    );
    inFlight.set(key, { call, signal });
    // Registered before any follower's handler, so that a follower retrying after the leader gave
    // up finds the key free.
    const forget = () => {
      if (inFlight.get(key)?.call === call) inFlight.delete(key);
    };
    call.then(forget, forget);
    return call;
  };
  return wrapModel(model, generate);
}
