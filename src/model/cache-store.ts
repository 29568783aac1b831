import { z } from 'zod';
import { parseOptions } from '../internal/validate.js';
import type { GenerateResult } from './types.js';

/**
 * Where {@link withCache} keeps results. Implement it over Redis, a database or a file to share a
 * cache between processes; methods may be synchronous or return promises.
 *
 * @example
 * ```ts
 * import type { CacheStore, GenerateResult } from '@tot/core';
 *
 * const map = new Map<string, GenerateResult>();
 * const store: CacheStore = { get: (key) => map.get(key), set: (key, value) => void map.set(key, value) };
 * ```
 */
export interface CacheStore {
  /** The stored result for `key`, or `undefined`. */
  get(key: string): GenerateResult | undefined | Promise<GenerateResult | undefined>;
  /** Stores `value` under `key`. */
  set(key: string, value: GenerateResult): void | Promise<void>;
}

/**
 * Options of {@link createLruCacheStore}.
 *
 * @example
 * ```ts
 * import type { LruCacheStoreOptions } from '@tot/core';
 *
 * const options: LruCacheStoreOptions = { maxEntries: 10_000 };
 * ```
 */
export interface LruCacheStoreOptions {
  /** Entries kept before the least recently used is evicted. Default 1000. */
  maxEntries?: number;
}

/**
 * The in-memory {@link CacheStore} returned by {@link createLruCacheStore}.
 *
 * @example
 * ```ts
 * import { createLruCacheStore } from '@tot/core';
 *
 * const store = createLruCacheStore({ maxEntries: 2 });
 * store.size; // 0
 * ```
 */
export interface LruCacheStore extends CacheStore {
  /** The stored result for `key` (which becomes the most recently used), or `undefined`. */
  get(key: string): GenerateResult | undefined;
  /** Stores `value`, evicting the least recently used entry beyond `maxEntries`. */
  set(key: string, value: GenerateResult): void;
  /** Entries held. */
  readonly size: number;
  /** Drops every entry. */
  clear(): void;
}

const optionsSchema = z.strictObject({ maxEntries: z.number().int().positive().default(1000) });

/**
 * A least-recently-used in-memory store: the default store of {@link withCache}.
 *
 * @example
 * ```ts
 * import { createLruCacheStore, withCache } from '@tot/core';
 *
 * const store = createLruCacheStore({ maxEntries: 5_000 });
 * const cached = withCache(model, { store });
 * ```
 */
export function createLruCacheStore(options: LruCacheStoreOptions = {}): LruCacheStore {
  const { maxEntries } = parseOptions(optionsSchema, options, 'createLruCacheStore');
  // A Map iterates in insertion order, so re-inserting on read keeps the oldest entry first.
  const entries = new Map<string, GenerateResult>();
  return {
    get(key) {
      const value = entries.get(key);
      if (value === undefined) return undefined;
      entries.delete(key);
      entries.set(key, value);
      return value;
    },
    set(key, value) {
      entries.delete(key);
      entries.set(key, value);
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
    },
    get size() {
      return entries.size;
    },
    clear() {
      entries.clear();
    },
  };
}
