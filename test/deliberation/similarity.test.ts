import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { comparePositions, EmbeddingCache, lexicalSimilarityMatrix, PositionComparer, positionText, tokenize } from '../../src/deliberation/similarity/index.js';
import { TotError, type Embedder } from '../../src/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';
import { settlesWithin } from '../helpers/settles-within.js';

/** An embedder answering from a fixed table, recording the texts of each call. */
function tableEmbedder(table: Record<string, number[]>, id = 'table') {
  const calls: string[][] = [];
  const embedder: Embedder = {
    id,
    async embed(texts) {
      calls.push([...texts]);
      return texts.map((t) => table[t]!);
    },
  };
  return { embedder, calls };
}

// cos(A, B) = 0.8, cos(A, C) = 0, cos(B, C) = 0.6.
const ABC = { A: [1, 0], B: [0.8, 0.6], C: [0, 1], D: [0.6, 0.8] };

const failing = (error: unknown): Embedder => ({
  id: 'failing',
  embed: () => Promise.reject(error),
});

describe('tokenize', () => {
  it('lower-cases words and drops English function words', () => {
    expect(tokenize('The cache is too SMALL')).toEqual(['cache', 'too', 'small']);
  });

  it('keeps negations, which tell a position from its opposite', () => {
    expect(tokenize('we should not ship')).toEqual(['should', 'not', 'ship']);
  });

  it('splits Chinese, Japanese and Korean runs into character bigrams', () => {
    expect(tokenize('缓存太小')).toEqual(['缓存', '存太', '太小']);
    expect(tokenize('AI模型')).toEqual(['ai', '模型']);
  });

  it('keeps a lone CJK character as one term', () => {
    expect(tokenize('好')).toEqual(['好']);
  });
});

describe('lexicalSimilarityMatrix', () => {
  it('gives 1 for identical texts', () => {
    const text = tokenize('use a message queue for retries');
    expect(lexicalSimilarityMatrix([text, text])[0]![1]).toBe(1);
  });

  it('gives 1 for texts with the same terms, thanks to the smoothed idf', () => {
    expect(lexicalSimilarityMatrix([['queue', 'retry'], ['retry', 'queue']])[0]![1]).toBeCloseTo(1, 12);
  });

  it('gives 0 for texts without a shared term', () => {
    expect(lexicalSimilarityMatrix([tokenize('cats purr'), tokenize('dogs bark')])[0]![1]).toBe(0);
  });

  it('weighs terms by tf × (ln((1 + N) / (1 + df)) + 1)', () => {
    // N = 2: "rare" is in one text (idf ln(3/2) + 1), "queue" in both (idf 1).
    const rare = Math.log(3 / 2) + 1;
    expect(lexicalSimilarityMatrix([['rare', 'queue'], ['queue']])[0]![1]).toBeCloseTo(1 / Math.sqrt(rare ** 2 + 1), 12);
  });

  it('gives a text without terms 0 with the others and 1 with itself', () => {
    expect(lexicalSimilarityMatrix([[], ['queue']])).toEqual([
      [1, 0],
      [0, 1],
    ]);
  });

  it('is symmetric, 1 on the diagonal and within [0, 1] (property)', () => {
    const doc = fc.array(fc.constantFrom('queue', 'cache', 'retry', 'lock', 'poll'), { maxLength: 6 });
    fc.assert(
      fc.property(fc.array(doc, { maxLength: 6 }), (docs) => {
        const m = lexicalSimilarityMatrix(docs);
        docs.forEach((_, i) => {
          expect(m[i]![i]).toBe(1);
          docs.forEach((_, j) => {
            expect(m[i]![j]).toBe(m[j]![i]);
            expect(m[i]![j]).toBeGreaterThanOrEqual(0);
            expect(m[i]![j]).toBeLessThanOrEqual(1);
          });
        });
      }),
    );
  });

  it('finds two Chinese sentences sharing words similar, and an unrelated one not', () => {
    const [a, b, c] = ['我们应该使用消息队列', '消息队列可以解决问题', '今天天气很好'].map(tokenize);
    const m = lexicalSimilarityMatrix([a!, b!, c!]);
    expect(m[0]![1]).toBeGreaterThan(0.2);
    expect(m[0]![2]).toBe(0);
    expect(m[1]![2]).toBe(0);
  });
});

describe('PositionComparer', () => {
  it('measures by the cosine of the embedder vectors, with the mean and the pair furthest apart', async () => {
    const { embedder } = tableEmbedder(ABC);
    const result = await new PositionComparer({ embedder }).compare(['A', 'B', 'C']);
    expect(result.backend).toBe('embedding');
    expect(result.similarityMatrix.map((row) => row.map((x) => Number(x.toFixed(12))))).toEqual([
      [1, 0.8, 0],
      [0.8, 1, 0.6],
      [0, 0.6, 1],
    ]);
    expect(result.meanSimilarity).toBeCloseTo((0.8 + 0 + 0.6) / 3, 12);
    expect(result.mostDifferentPair).toEqual([0, 2]);
    expect(result.mostDifferentSimilarity).toBeCloseTo(0, 12);
    expect('fallback' in result).toBe(false);
  });

  it('names the lowest-index pair when several are furthest apart', async () => {
    const { embedder } = tableEmbedder({ X: [1, 0], Y: [0, 1], Z: [0, 1] });
    const result = await new PositionComparer({ embedder }).compare(['Y', 'X', 'Z']);
    expect(result.mostDifferentPair).toEqual([0, 1]);
  });

  it('answers 1 and no pair for fewer than two texts', async () => {
    const result = await new PositionComparer().compare(['alone']);
    expect(result).toMatchObject({ similarityMatrix: [[1]], meanSimilarity: 1, mostDifferentPair: null, mostDifferentSimilarity: 1 });
  });

  it('gives a zero vector a similarity of 0', async () => {
    const { embedder } = tableEmbedder({ A: [1, 0], O: [0, 0] });
    expect((await new PositionComparer({ embedder }).similarity('A', 'O')).similarity).toBe(0);
  });

  it('measures lexically without an embedder, and says no fallback happened', async () => {
    const result = await new PositionComparer().compare(['cats purr', 'cats purr', 'dogs bark']);
    expect(result.backend).toBe('lexical');
    expect(result.similarityMatrix[0]).toEqual([1, 1, 0]);
    expect('fallback' in result).toBe(false);
  });

  it('sends each distinct text to the embedder once, in one call', async () => {
    const { embedder, calls } = tableEmbedder(ABC);
    await new PositionComparer({ embedder }).compare(['A', 'B', 'A', 'C']);
    expect(calls).toEqual([['A', 'B', 'C']]);
  });

  it('makes no embedder call and reuses every pair when the same texts come again', async () => {
    const { embedder, calls } = tableEmbedder(ABC);
    const comparer = new PositionComparer({ embedder });
    const first = await comparer.compare(['A', 'B', 'C']);
    const second = await comparer.compare(['A', 'B', 'C']);
    expect(second.similarityMatrix).toEqual(first.similarityMatrix);
    expect(calls).toHaveLength(1);
    expect(comparer.stats()).toMatchObject({ embedCalls: 1, embeddedTexts: 3, pairsComputed: 3, pairsReused: 3 });
  });

  it('embeds only the new text of a later round, and computes only its pairs', async () => {
    const { embedder, calls } = tableEmbedder(ABC);
    const comparer = new PositionComparer({ embedder });
    await comparer.compare(['A', 'B', 'C']);
    const round2 = await comparer.compare(['A', 'B', 'D']);
    expect(calls).toEqual([['A', 'B', 'C'], ['D']]);
    expect(comparer.stats()).toMatchObject({ embedCalls: 2, embeddedTexts: 4, pairsComputed: 5, pairsReused: 1 });
    expect(round2.similarityMatrix[0]![2]).toBeCloseTo(0.6, 12);
  });

  it('reads vectors from a cache it shares with another comparer', async () => {
    const cache = new EmbeddingCache();
    const { embedder, calls } = tableEmbedder(ABC);
    await new PositionComparer({ embedder, cache }).compare(['A', 'B']);
    await new PositionComparer({ embedder, cache }).compare(['B', 'A']);
    expect(calls).toEqual([['A', 'B']]);
    expect(cache.stats()).toEqual({ hits: 2, misses: 2, hitRate: 0.5 });
  });

  it('compares more texts than its cache holds', async () => {
    const { embedder } = tableEmbedder(ABC);
    const result = await new PositionComparer({ embedder, cache: new EmbeddingCache({ maxEntries: 1 }) }).compare(['A', 'B', 'C']);
    expect(result.similarityMatrix[1]![2]).toBeCloseTo(0.6, 12);
  });

  it('falls back to the lexical measure when the embedder throws, recording why', async () => {
    const result = await new PositionComparer({ embedder: failing(new Error('rate limited')) }).compare(['cats purr', 'dogs bark']);
    expect(result).toMatchObject({ backend: 'lexical', fallback: 'lexical', fallbackError: { code: 'GENERATION_FAILED', message: 'rate limited' } });
    expect(result.similarityMatrix[0]![1]).toBe(0);
  });

  it('keeps the code of a TotError the embedder throws', async () => {
    const result = await new PositionComparer({ embedder: failing(new TotError('TIMEOUT', 'too slow')) }).compare(['a b', 'c d']);
    expect(result.fallbackError).toEqual({ code: 'TIMEOUT', message: 'too slow' });
  });

  it('falls back when the embedder returns the wrong number of vectors, and caches none of them', async () => {
    const cache = new EmbeddingCache();
    const embedder: Embedder = { id: 'short', embed: async () => [[1, 0]] };
    const result = await new PositionComparer({ embedder, cache }).compare(['A', 'B']);
    expect(result.fallback).toBe('lexical');
    expect(result.fallbackError?.code).toBe('GENERATION_FAILED');
    expect(cache.size).toBe(0);
  });

  it('falls back when new vectors do not have the length of the cached ones', async () => {
    const cache = new EmbeddingCache();
    cache.set('table', 'A', [1, 0]);
    const { embedder } = tableEmbedder({ B: [1, 0, 0] });
    const result = await new PositionComparer({ embedder, cache }).compare(['A', 'B']);
    expect(result.fallback).toBe('lexical');
  });

  it('rejects with ABORTED at once when aborted while the embedder hangs', async () => {
    const controller = new AbortController();
    const hanging: Embedder = { id: 'hanging', embed: () => new Promise<number[][]>(() => undefined) };
    const pending = new PositionComparer({ embedder: hanging }).compare(['A', 'B'], { signal: controller.signal });
    controller.abort();
    await catchTotError(() => settlesWithin(pending), 'ABORTED');
  });

  it('rejects with ABORTED, without calling the embedder, when the signal has already fired', async () => {
    const { embedder, calls } = tableEmbedder(ABC);
    await catchTotError(() => new PositionComparer({ embedder }).compare(['A', 'B'], { signal: AbortSignal.abort() }), 'ABORTED');
    expect(calls).toEqual([]);
  });

  it('passes the signal on to the embedder', async () => {
    let received: AbortSignal | undefined;
    const embedder: Embedder = {
      id: 'spy',
      async embed(texts, options) {
        received = options?.signal;
        return texts.map(() => [1]);
      },
    };
    const signal = new AbortController().signal;
    await new PositionComparer({ embedder }).compare(['A', 'B'], { signal });
    expect(received).toBe(signal);
  });

  it('measures the similarity of two texts', async () => {
    const { embedder } = tableEmbedder(ABC);
    const result = await new PositionComparer({ embedder }).similarity('A', 'B');
    expect(result.backend).toBe('embedding');
    expect(result.similarity).toBeCloseTo(0.8, 12);
  });
});

describe('EmbeddingCache', () => {
  it('drops the least recently used vector once full', () => {
    const cache = new EmbeddingCache({ maxEntries: 2 });
    cache.set('e', 'a', [1]);
    cache.set('e', 'b', [2]);
    cache.get('e', 'a');
    cache.set('e', 'c', [3]);
    expect([cache.has('e', 'a'), cache.has('e', 'b'), cache.has('e', 'c')]).toEqual([true, false, true]);
    expect(cache.size).toBe(2);
  });

  it('counts hits and misses of get', () => {
    const cache = new EmbeddingCache();
    expect(cache.stats()).toEqual({ hits: 0, misses: 0, hitRate: 0 });
    cache.set('e', 'a', [1]);
    cache.get('e', 'a');
    cache.get('e', 'a');
    cache.get('e', 'a');
    cache.get('e', 'b');
    expect(cache.stats()).toEqual({ hits: 3, misses: 1, hitRate: 0.75 });
  });

  it('never mixes the vectors of two embedder ids, whatever their characters', () => {
    const cache = new EmbeddingCache();
    cache.set('a:b', 'c', [1]);
    expect(cache.get('a', 'b:c')).toBeUndefined();
    expect(cache.get('other', 'c')).toBeUndefined();
    expect(cache.get('a:b', 'c')).toEqual([1]);
  });

  it('empties on clear', () => {
    const cache = new EmbeddingCache();
    cache.set('e', 'a', [1]);
    cache.clear();
    expect(cache.size).toBe(0);
  });
});

describe('comparePositions', () => {
  it('compares once with a fresh comparer', async () => {
    const { embedder } = tableEmbedder(ABC);
    const result = await comparePositions(['A', 'C'], { embedder });
    expect(result.mostDifferentPair).toEqual([0, 1]);
    expect(result.mostDifferentSimilarity).toBeCloseTo(0, 12);
  });

  it('compares a position by its conclusion and key reasons, one a line', () => {
    expect(positionText({ conclusion: 'Use a queue.', key_reasons: ['Spikes are absorbed.', 'Retries are free.'] })).toBe('Use a queue.\nSpikes are absorbed.\nRetries are free.');
    expect(positionText({ conclusion: 'Use a queue.' })).toBe('Use a queue.');
  });
});

describe('invalid options', () => {
  it.each([
    ['a cache of 0 entries', () => new EmbeddingCache({ maxEntries: 0 })],
    ['a cache of 1.5 entries', () => new EmbeddingCache({ maxEntries: 1.5 })],
    ['a comparer with something else than a cache', () => new PositionComparer({ cache: {} as EmbeddingCache })],
    ['an embedder without a string id', () => comparePositions(['a'], { embedder: { id: 1, embed: async () => [] } as unknown as Embedder })],
    ['texts that are not strings', () => comparePositions([1] as unknown as string[])],
    ['a signal that is not an AbortSignal', () => comparePositions([], { signal: 'stop' as unknown as AbortSignal })],
  ])('rejects %s with INVALID_ARGUMENT', async (_name, action) => {
    await catchTotError(action, 'INVALID_ARGUMENT');
  });
});
