import { z } from 'zod';
import { TotError } from '../../errors/index.js';
import { abortable, abortedError, throwIfAborted } from '../../internal/abort.js';
import { parseOptions, signalSchema } from '../../internal/validate.js';
import { checkedEmbeddings, type Embedder } from '../../model/embedder.js';
import { EmbeddingCache, type EmbeddingCacheStats } from './embedding-cache.js';
import { lexicalSimilarityMatrix, tokenize } from './lexical.js';

/**
 * What measured a similarity: `'embedding'`, the cosine of an {@link Embedder}'s vectors (from −1
 * to 1), or `'lexical'`, the TF-IDF cosine of the texts' words (from 0 to 1).
 *
 * @example
 * ```ts
 * import type { SimilarityBackend } from '@tot/core/deliberation';
 *
 * const backend: SimilarityBackend = 'lexical';
 * ```
 */
export type SimilarityBackend = 'embedding' | 'lexical';

/**
 * How close a set of positions are, as {@link PositionComparer.compare} measures them.
 *
 * @example
 * ```ts
 * import type { PositionComparison } from '@tot/core/deliberation';
 *
 * const converged = (c: PositionComparison) => c.mostDifferentSimilarity >= 0.85;
 * ```
 */
export interface PositionComparison {
  /** Pairwise similarities, symmetric, 1 on the diagonal. */
  similarityMatrix: number[][];
  /** Mean of the off-diagonal entries (1 for fewer than two texts). */
  meanSimilarity: number;
  /** The indexes of the least similar pair (lowest index pair first on ties); null for fewer than two texts. */
  mostDifferentPair: [number, number] | null;
  /** Their similarity (1 for fewer than two texts). */
  mostDifferentSimilarity: number;
  /** What measured: 'embedding' (cosine of the embedder's vectors) or 'lexical' (TF-IDF cosine). */
  backend: SimilarityBackend;
  /** Set when an embedder was given but failed and the lexical measure answered instead. */
  fallback?: 'lexical';
  /** Why the embedder failed (TotError code and message), with `fallback`. */
  fallbackError?: { code: string; message: string };
}

/**
 * The similarity of two texts, as {@link PositionComparer.similarity} measures it.
 *
 * @example
 * ```ts
 * import type { PositionSimilarity } from '@tot/core/deliberation';
 *
 * const close = (s: PositionSimilarity) => s.similarity >= 0.85;
 * ```
 */
export interface PositionSimilarity {
  /** From −1 to 1 for embeddings, from 0 to 1 for the lexical measure. */
  similarity: number;
  /** What measured it. */
  backend: SimilarityBackend;
  /** Set when an embedder was given but failed and the lexical measure answered instead. */
  fallback?: 'lexical';
  /** Why the embedder failed (TotError code and message), with `fallback`. */
  fallbackError?: { code: string; message: string };
}

/**
 * Options of a {@link PositionComparer}.
 *
 * @example
 * ```ts
 * import { EmbeddingCache, type PositionComparerOptions } from '@tot/core/deliberation';
 *
 * const options: PositionComparerOptions = { embedder, cache: new EmbeddingCache() };
 * ```
 */
export interface PositionComparerOptions {
  /** Measures by the cosine of its vectors; without one, or when it fails, the lexical measure answers. */
  embedder?: Embedder;
  /** Where vectors are kept between comparisons (and comparers). Default: a cache of the comparer's own. */
  cache?: EmbeddingCache;
}

/**
 * Per-call options of {@link PositionComparer.compare} and {@link PositionComparer.similarity}.
 *
 * @example
 * ```ts
 * import type { CompareOptions } from '@tot/core/deliberation';
 *
 * const options: CompareOptions = { signal: AbortSignal.timeout(5_000) };
 * ```
 */
export interface CompareOptions {
  /** Cancels the comparison: it rejects with `ABORTED` at once, even while the embedder runs. */
  signal?: AbortSignal;
}

/**
 * What a {@link PositionComparer} has done so far.
 *
 * @example
 * ```ts
 * import type { PositionComparerStats } from '@tot/core/deliberation';
 *
 * const reuse = (s: PositionComparerStats) => s.pairsReused / Math.max(1, s.pairsComputed + s.pairsReused);
 * ```
 */
export interface PositionComparerStats {
  /** Texts sent to the embedder. */
  embeddedTexts: number;
  /** Calls of the embedder's `embed` (at most one per comparison). */
  embedCalls: number;
  /** The cache's own counts: those of every comparer that shares it. */
  cache: EmbeddingCacheStats;
  /** Pairs of texts whose similarity was worked out (every lexical pair is). */
  pairsComputed: number;
  /** Pairs of texts whose embedding similarity was known from an earlier comparison. */
  pairsReused: number;
}

const embedderSchema = z.custom<Embedder>(
  (v) => typeof v === 'object' && v !== null && typeof (v as Embedder).id === 'string' && typeof (v as Embedder).embed === 'function',
  'expected an Embedder ({ id: string, embed(texts) })',
);

// The fields of PositionComparerOptions, for comparePositions to check with its own.
export const comparerOptionsShape = {
  embedder: embedderSchema.optional(),
  cache: z.instanceof(EmbeddingCache, { message: 'expected an EmbeddingCache' }).optional(),
};

const optionsSchema = z.strictObject(comparerOptionsShape);
const textsSchema = z.array(z.string());
const compareOptionsSchema = z.strictObject({ signal: signalSchema });

/**
 * Measures how close agents' positions are (the protocol's `compare_positions`), round after round,
 * without measuring anything twice: a text's vector comes from the cache when it is there, the
 * texts that are not go to the embedder in one call per comparison, and the similarity of two
 * texts already compared is reused. With no embedder, or one that fails (throws, or returns
 * vectors that do not fit), the TF-IDF cosine of the texts' words answers, and the result says
 * so. Only an abort of the caller's signal makes a comparison reject.
 *
 * @example
 * ```ts
 * import { PositionComparer, positionText } from '@tot/core/deliberation';
 *
 * const comparer = new PositionComparer({ embedder });
 * const round1 = await comparer.compare(positions.map(positionText));
 * if (round1.mostDifferentPair) console.log('furthest apart:', round1.mostDifferentPair, round1.mostDifferentSimilarity);
 * ```
 */
export class PositionComparer {
  private readonly embedder: Embedder | undefined;
  private readonly cache: EmbeddingCache;
  // text → text → cosine, both orders stored: a look-up needs no canonical order of the two texts.
  private readonly pairs = new Map<string, Map<string, number>>();
  // Tokens only, not lexical similarities: the idf is over the texts of one comparison, so the
  // same two texts may score differently in another set.
  private readonly tokens = new Map<string, string[]>();
  private readonly counts = { embeddedTexts: 0, embedCalls: 0, pairsComputed: 0, pairsReused: 0 };

  constructor(options: PositionComparerOptions = {}) {
    parseOptions(optionsSchema, options, 'PositionComparer');
    this.embedder = options.embedder;
    this.cache = options.cache ?? new EmbeddingCache();
  }

  /**
   * The pairwise similarities of `texts`, their mean, and the pair furthest apart.
   *
   * @example
   * ```ts
   * const { meanSimilarity, mostDifferentPair, backend } = await comparer.compare(['use a queue', 'use a message queue', 'poll the table']);
   * ```
   */
  async compare(texts: readonly string[], options: CompareOptions = {}): Promise<PositionComparison> {
    parseOptions(textsSchema, texts, 'PositionComparer.compare', 'texts');
    parseOptions(compareOptionsSchema, options, 'PositionComparer.compare');
    const { signal } = options;
    throwIfAborted(signal, 'comparison');
    if (this.embedder === undefined) return summarize(this.lexical(texts), 'lexical');
    try {
      const vectors = await this.vectors(this.embedder, texts, signal);
      return summarize(this.embedding(texts, vectors), 'embedding');
    } catch (error) {
      if (signal?.aborted) throw abortedError(signal, 'comparison');
      const fallbackError = { code: TotError.isInstance(error) ? error.code : 'GENERATION_FAILED', message: error instanceof Error ? error.message : String(error) };
      return { ...summarize(this.lexical(texts), 'lexical'), fallback: 'lexical', fallbackError };
    }
  }

  /**
   * The similarity of two texts (a comparison of the two).
   *
   * @example
   * ```ts
   * const { similarity } = await comparer.similarity('use a queue', 'use a message queue');
   * ```
   */
  async similarity(a: string, b: string, options: CompareOptions = {}): Promise<PositionSimilarity> {
    const { similarityMatrix, backend, fallback, fallbackError } = await this.compare([a, b], options);
    const result: PositionSimilarity = { similarity: similarityMatrix[0]![1]!, backend };
    if (fallback !== undefined) Object.assign(result, { fallback, fallbackError });
    return result;
  }

  /**
   * Texts embedded, embedder calls, the cache's counts and the pairs computed and reused so far.
   *
   * @example
   * ```ts
   * await comparer.compare(round1);
   * await comparer.compare(round1);
   * comparer.stats().embedCalls; // 1
   * ```
   */
  stats(): PositionComparerStats {
    return { ...this.counts, cache: this.cache.stats() };
  }

  /** A vector per distinct text: cached ones first, the rest from one call of the embedder. */
  private async vectors(embedder: Embedder, texts: readonly string[], signal: AbortSignal | undefined): Promise<Map<string, number[]>> {
    // Held here, not read back from the cache: a cache smaller than this comparison would drop some.
    const vectors = new Map<string, number[]>();
    const missing: string[] = [];
    for (const text of new Set(texts)) {
      const vector = this.cache.get(embedder.id, text);
      if (vector === undefined) missing.push(text);
      else vectors.set(text, vector);
    }
    if (missing.length === 0) return vectors;
    this.counts.embedCalls++;
    this.counts.embeddedTexts += missing.length;
    const reply = await abortable(signal, () => embedder.embed(missing, signal ? { signal } : {}), 'comparison');
    // New vectors must have the length of the cached ones they will be compared with.
    const dimensions = vectors.values().next().value?.length;
    const fresh = checkedEmbeddings(embedder.id, reply, missing.length, dimensions);
    missing.forEach((text, i) => {
      vectors.set(text, fresh[i]!);
      this.cache.set(embedder.id, text, fresh[i]!);
    });
    return vectors;
  }

  private embedding(texts: readonly string[], vectors: Map<string, number[]>): number[][] {
    const n = texts.length;
    const matrix = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j): number => (i === j ? 1 : 0)));
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        const a = texts[i]!;
        const b = texts[j]!;
        let similarity = this.pairs.get(a)?.get(b);
        if (similarity === undefined) {
          similarity = cosine(vectors.get(a)!, vectors.get(b)!);
          this.remember(a, b, similarity);
          this.remember(b, a, similarity);
          this.counts.pairsComputed++;
        } else {
          this.counts.pairsReused++;
        }
        matrix[i]![j] = similarity;
        matrix[j]![i] = similarity;
      }
    }
    return matrix;
  }

  private remember(a: string, b: string, similarity: number): void {
    let row = this.pairs.get(a);
    if (row === undefined) this.pairs.set(a, (row = new Map()));
    row.set(b, similarity);
  }

  private lexical(texts: readonly string[]): number[][] {
    const tokenLists = texts.map((text) => {
      let tokens = this.tokens.get(text);
      if (tokens === undefined) this.tokens.set(text, (tokens = tokenize(text)));
      return tokens;
    });
    this.counts.pairsComputed += (texts.length * (texts.length - 1)) / 2;
    return lexicalSimilarityMatrix(tokenLists);
  }
}

/** Cosine in [−1, 1]; 0 when either vector is all zeros (it points nowhere). */
function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    normA += a[i]! * a[i]!;
    normB += b[i]! * b[i]!;
  }
  if (normA === 0 || normB === 0) return 0;
  return Math.min(1, Math.max(-1, dot / Math.sqrt(normA * normB)));
}

function summarize(similarityMatrix: number[][], backend: SimilarityBackend): PositionComparison {
  const n = similarityMatrix.length;
  let sum = 0;
  let mostDifferentPair: [number, number] | null = null;
  let mostDifferentSimilarity = 1;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const similarity = similarityMatrix[i]![j]!;
      sum += similarity;
      // Strictly lower only: on a tie the pair met first, the lowest indexes, stays.
      if (mostDifferentPair === null || similarity < mostDifferentSimilarity) {
        mostDifferentPair = [i, j];
        mostDifferentSimilarity = similarity;
      }
    }
  }
  const pairs = (n * (n - 1)) / 2;
  return { similarityMatrix, meanSimilarity: pairs === 0 ? 1 : sum / pairs, mostDifferentPair, mostDifferentSimilarity, backend };
}
