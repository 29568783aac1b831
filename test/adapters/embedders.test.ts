import { describe, expect, it } from 'vitest';
import { fromAiSdkEmbedding } from '../../src/ai-sdk/index.js';
import type { Embedder } from '../../src/index.js';
import { openAIEmbedder } from '../../src/openai/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';
import { settlesWithin } from '../helpers/settles-within.js';

/** What a fake provider answers for a batch of texts: the vectors (or anything, for malformed replies). */
type Answer = (texts: string[]) => unknown;

/** Both embedder adapters over fake providers that answer with `answer` and record each batch. */
const ADAPTERS: { name: string; make: (answer: Answer, batchSize?: number) => { embedder: Embedder; batches: string[][] } }[] = [
  {
    name: 'openAIEmbedder',
    make(answer, batchSize) {
      const batches: string[][] = [];
      const client = {
        embeddings: {
          async create(body: { input: string[] }) {
            batches.push(body.input);
            const vectors = await answer(body.input);
            return { object: 'list', data: Array.isArray(vectors) ? vectors.map((embedding, index) => ({ index, embedding })) : vectors };
          },
        },
      };
      return { embedder: openAIEmbedder({ client, model: 'fake-embed', ...(batchSize ? { batchSize } : {}) }), batches };
    },
  },
  {
    name: 'fromAiSdkEmbedding',
    make(answer, batchSize) {
      const batches: string[][] = [];
      const model = {
        specificationVersion: 'v3' as const,
        provider: 'fake.embedding',
        modelId: 'fake-embed',
        maxEmbeddingsPerCall: batchSize === undefined ? undefined : Promise.resolve(batchSize),
        async doEmbed(options: { values: string[] }) {
          batches.push(options.values);
          return { embeddings: await answer(options.values), warnings: [] };
        },
      };
      return { embedder: fromAiSdkEmbedding(model), batches };
    },
  },
];

const lengths: Answer = (texts) => texts.map((t) => [t.length, 1]);

describe.each(ADAPTERS)('$name', ({ make }) => {
  it('is known by its model name', () => {
    expect(make(lengths).embedder.id).toBe('fake-embed');
  });

  it('returns no vectors for no texts, without a call', async () => {
    const { embedder, batches } = make(lengths);
    expect(await embedder.embed([])).toEqual([]);
    expect(batches).toEqual([]);
  });

  it('sends the texts in batches, one after another, and returns the vectors in order', async () => {
    const { embedder, batches } = make(lengths, 2);
    expect(await embedder.embed(['a', 'bb', 'ccc'])).toEqual([[1, 1], [2, 1], [3, 1]]);
    expect(batches).toEqual([['a', 'bb'], ['ccc']]);
  });

  it('refuses texts that are not strings', async () => {
    const error = await catchTotError(() => make(lengths).embedder.embed(['a', 7 as never]), 'INVALID_ARGUMENT');
    expect(error.details?.field).toBe('texts[1]');
  });

  it.each([
    ['fewer vectors than texts', (texts: string[]) => texts.slice(1).map(() => [1]), /returned 1 vectors for 2 texts/],
    ['a value that is not a number', () => [[1, Number.NaN], [1, 2]], /returned a vector with a value that is not a finite number \(text 0\)\.$/],
    ['vectors of different lengths', () => [[1, 2], [1]], /vectors of different lengths/],
    ['an empty vector', () => [[], []], /no vector for text 0/],
  ])('fails %s with GENERATION_FAILED', async (_, answer, message) => {
    const error = await catchTotError(() => make(answer).embedder.embed(['a', 'b']), 'GENERATION_FAILED');
    expect(error.message).toMatch(message);
  });

  it('fails batches whose vectors disagree in length', async () => {
    let batch = 0;
    const { embedder } = make((texts) => {
      batch++;
      return texts.map(() => (batch === 1 ? [1, 2] : [1, 2, 3]));
    }, 1);
    const error = await catchTotError(() => embedder.embed(['a', 'b']), 'GENERATION_FAILED');
    expect(error.message).toMatch(/vectors of different lengths \(2 and 3\)/);
  });

  it('settles with ABORTED at once when the provider ignores the signal', async () => {
    const { embedder } = make(() => new Promise(() => undefined));
    const controller = new AbortController();
    const call = embedder.embed(['a'], { signal: controller.signal });
    controller.abort();
    await settlesWithin(catchTotError(() => call, 'ABORTED'));
  });

  it('never calls the provider when the signal has already fired', async () => {
    const { embedder, batches } = make(lengths);
    await catchTotError(() => embedder.embed(['a'], { signal: AbortSignal.abort() }), 'ABORTED');
    expect(batches).toEqual([]);
  });
});

describe('openAIEmbedder', () => {
  it("asks for float vectors, with the dimensions given, and is known by model and dimensions", async () => {
    const bodies: unknown[] = [];
    const client = {
      embeddings: {
        async create(body: { input: string[] }) {
          bodies.push(body);
          return { data: body.input.map((_, index) => ({ index, embedding: [0.1, 0.2] })) };
        },
      },
    };
    const embedder = openAIEmbedder({ client, model: 'text-embedding-3-small', dimensions: 2 });
    await embedder.embed(['x']);
    expect(bodies).toEqual([{ model: 'text-embedding-3-small', input: ['x'], encoding_format: 'float', dimensions: 2 }]);
    expect(embedder.id).toBe('text-embedding-3-small@2');
  });
});

describe('fromAiSdkEmbedding', () => {
  const model = (calls: unknown[], maxEmbeddingsPerCall?: PromiseLike<number | undefined>) => ({
    specificationVersion: 'v4' as const,
    provider: 'fake.embedding',
    modelId: 'fake-embed',
    maxEmbeddingsPerCall,
    async doEmbed(options: { values: string[] }) {
      calls.push(options);
      return { embeddings: options.values.map(() => [1, 2]) };
    },
  });

  it('sends the provider options and headers given with every call, and takes the id given', async () => {
    const calls: unknown[] = [];
    const embedder = fromAiSdkEmbedding(model(calls), { id: 'fake-embed@2', providerOptions: { fake: { dimensions: 2 } }, headers: { 'x-team': 'a' } });
    await embedder.embed(['x']);
    expect(embedder.id).toBe('fake-embed@2');
    expect(calls).toEqual([{ values: ['x'], providerOptions: { fake: { dimensions: 2 } }, headers: { 'x-team': 'a' } }]);
  });

  it('settles with ABORTED while the batch size is still being worked out', async () => {
    const calls: unknown[] = [];
    const controller = new AbortController();
    const call = fromAiSdkEmbedding(model(calls, new Promise(() => undefined))).embed(['x'], { signal: controller.signal });
    controller.abort();
    await settlesWithin(catchTotError(() => call, 'ABORTED'));
    expect(calls).toEqual([]);
  });

  it('refuses retry options of the wrong type, naming them', async () => {
    const error = await catchTotError(() => fromAiSdkEmbedding(model([]), { retry: { maxRetries: -1 } }), 'INVALID_ARGUMENT');
    expect(error.details?.field).toBe('options.retry.maxRetries');
  });
});
