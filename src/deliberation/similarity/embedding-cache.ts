import { z } from 'zod';
import { parseOptions } from '../../internal/validate.js';

/**
 * Options of an {@link EmbeddingCache}.
 *
 * @example
 * ```ts
 * import type { EmbeddingCacheOptions } from '@tot/core/deliberation';
 *
 * const options: EmbeddingCacheOptions = { maxEntries: 50_000 };
 * ```
 */
export interface EmbeddingCacheOptions {
  /** Vectors kept before the least recently used one is dropped: an integer ≥ 1. Default 10 000. */
  maxEntries?: number;
}

/**
 * How well an {@link EmbeddingCache} has answered so far.
 *
 * @example
 * ```ts
 * import type { EmbeddingCacheStats } from '@tot/core/deliberation';
 *
 * const report = (s: EmbeddingCacheStats) => `${(s.hitRate * 100).toFixed(0)}% of ${s.hits + s.misses} look-ups`;
 * ```
 */
export interface EmbeddingCacheStats {
  /** Look-ups (`get`) that found a vector. */
  hits: number;
  /** Look-ups (`get`) that found none. */
  misses: number;
  /** `hits / (hits + misses)`; 0 before the first look-up. */
  hitRate: number;
}

const optionsSchema = z.strictObject({ maxEntries: z.number().int().min(1).default(10_000) });

/**
 * Vectors by (embedder id, text), the least recently used dropped first once `maxEntries` is
 * reached: a text that positions repeat round after round is embedded once. Vectors of two
 * embedder ids never mix, since they are not comparable. One cache may serve several
 * `PositionComparer`s.
 *
 * @example
 * ```ts
 * import { EmbeddingCache } from '@tot/core/deliberation';
 *
 * const cache = new EmbeddingCache({ maxEntries: 1_000 });
 * cache.set('text-embedding-3-small', 'use a queue', [0.1, 0.7]);
 * cache.get('text-embedding-3-small', 'use a queue'); // [0.1, 0.7]
 * cache.get('nomic-embed-text', 'use a queue'); // undefined
 * ```
 */
export class EmbeddingCache {
  /** Vectors kept at most. */
  readonly maxEntries: number;
  private readonly entries = new Map<string, number[]>();
  private hits = 0;
  private misses = 0;

  constructor(options: EmbeddingCacheOptions = {}) {
    this.maxEntries = parseOptions(optionsSchema, options, 'EmbeddingCache').maxEntries;
  }

  /**
   * The vector of `text` under `embedderId`, if kept; counts a hit or a miss, and a hit makes the
   * entry the most recently used.
   *
   * @example
   * ```ts
   * const vector = cache.get(embedder.id, text) ?? (await embedder.embed([text]))[0];
   * ```
   */
  get(embedderId: string, text: string): number[] | undefined {
    const key = keyOf(embedderId, text);
    const vector = this.entries.get(key);
    if (vector === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    // A Map iterates in insertion order: inserting the entry again makes it the newest.
    this.entries.delete(key);
    this.entries.set(key, vector);
    return vector;
  }

  /**
   * Keeps a copy of `vector` for `text` under `embedderId`, as the most recently used entry,
   * dropping the least recently used one when the cache is full.
   *
   * @example
   * ```ts
   * const [vector] = await embedder.embed([text]);
   * cache.set(embedder.id, text, vector);
   * ```
   */
  set(embedderId: string, text: string, vector: readonly number[]): void {
    const key = keyOf(embedderId, text);
    this.entries.delete(key);
    this.entries.set(key, [...vector]);
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  /**
   * Whether a vector is kept for `text` under `embedderId`; neither counted in the stats nor
   * making the entry more recent.
   *
   * @example
   * ```ts
   * cache.has(embedder.id, 'use a queue'); // true
   * ```
   */
  has(embedderId: string, text: string): boolean {
    return this.entries.has(keyOf(embedderId, text));
  }

  /**
   * Drops every vector (the hit and miss counts stay).
   *
   * @example
   * ```ts
   * cache.clear();
   * cache.size; // 0
   * ```
   */
  clear(): void {
    this.entries.clear();
  }

  /**
   * Vectors kept.
   *
   * @example
   * ```ts
   * cache.size; // 1
   * ```
   */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Hits, misses and the hit rate of `get` since the cache was made.
   *
   * @example
   * ```ts
   * cache.stats(); // { hits: 3, misses: 1, hitRate: 0.75 }
   * ```
   */
  stats(): EmbeddingCacheStats {
    const lookups = this.hits + this.misses;
    return { hits: this.hits, misses: this.misses, hitRate: lookups === 0 ? 0 : this.hits / lookups };
  }
}

// The id's length first: ids and texts may hold any character, separators included, and with the
// length no (id, text) pair can spell another's key.
const keyOf = (embedderId: string, text: string) => `${embedderId.length}:${embedderId}:${text}`;
