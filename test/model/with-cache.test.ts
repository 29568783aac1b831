import { describe, expect, it } from 'vitest';
import { callModel, createLruCacheStore, requestKey, withCache, type GenerateResult, type LanguageModel } from '../../src/index.js';
import { mockModel } from '../../src/testing/index.js';
import { ask, catchTotError, delay } from '../helpers/expect-tot-error.js';
import { settlesWithin } from '../helpers/settles-within.js';

describe('withCache', () => {
  it('serves a repeated request from the store and marks it as a hit', async () => {
    const model = mockModel(['first', 'second']);
    const cached = withCache(model);
    const a = await callModel(cached, ask('same'));
    const b = await callModel(cached, ask('same'));
    expect(a.outputs).toEqual(['first']);
    expect(a.cacheHit).toBeUndefined();
    expect(b).toMatchObject({ outputs: ['first'], cacheHit: true });
    expect(model.callCount).toBe(1);
  });

  it('keys on every field that changes the answer but not on tags', async () => {
    const model = mockModel((request) => `t=${request.temperature}`);
    const cached = withCache(model);
    await callModel(cached, ask('q', { temperature: 0, tags: { role: 'a' } }));
    await callModel(cached, ask('q', { temperature: 0, tags: { role: 'b' } }));
    await callModel(cached, ask('q', { temperature: 1 }));
    expect(model.callCount).toBe(2);
  });

  it('keeps the emulated samples of one n-request distinct', async () => {
    const model = mockModel((_r, { callIndex }) => `sample-${callIndex}`);
    const result = await callModel(withCache(model), ask('q', { n: 3 }));
    expect(new Set(result.outputs).size).toBe(3);
  });

  it('shares one call between identical requests in flight', async () => {
    const model = mockModel(async () => {
      await delay(10);
      return 'shared';
    });
    const cached = withCache(model);
    const results = await Promise.all([callModel(cached, ask('q')), callModel(cached, ask('q')), callModel(cached, ask('q'))]);
    expect(results.map((r) => r.outputs[0])).toEqual(['shared', 'shared', 'shared']);
    expect(model.callCount).toBe(1);
  });

  it('lets a follower make the call itself when the leader is aborted', async () => {
    const model = mockModel(async (_r, { signal }) => {
      await delay(10);
      if (signal?.aborted) throw new Error('aborted');
      return 'answer';
    });
    const cached = withCache(model);
    const controller = new AbortController();
    const leader = cached.generate(ask('q'), { signal: controller.signal });
    const follower = cached.generate(ask('q'));
    controller.abort();
    await leader.catch(() => undefined);
    expect((await follower).outputs).toEqual(['answer']);
  });

  it('never caches a failure', async () => {
    const model = mockModel([new Error('boom'), 'ok']);
    const cached = withCache(model);
    await catchTotError(() => callModel(cached, ask('q')), 'GENERATION_FAILED');
    expect((await callModel(cached, ask('q'))).outputs).toEqual(['ok']);
  });

  it('never caches a malformed result', async () => {
    const model = mockModel([{ outputs: ['bad'], usage: { inputTokens: Number.NaN } }, 'ok']);
    const cached = withCache(model);
    await catchTotError(() => callModel(cached, ask('q')), 'GENERATION_FAILED');
    expect((await callModel(cached, ask('q'))).outputs).toEqual(['ok']);
  });

  it('never wedges a key: after a leader aborts a call its provider ignores, identical requests still get answers', async () => {
    // The provider ignores the signal of the first call, which never settles, and answers the others.
    let calls = 0;
    const model: LanguageModel = {
      modelId: 'm',
      generate: () => (calls++ === 0 ? new Promise<never>(() => undefined) : Promise.resolve({ outputs: ['answer'], usage: {} })),
    };
    const cached = withCache(model);
    const controller = new AbortController();
    const leader = cached.generate(ask('q'), { signal: controller.signal });
    const follower = cached.generate(ask('q'));
    await delay(1);
    controller.abort();
    await catchTotError(() => settlesWithin(leader), 'ABORTED');
    expect((await settlesWithin(follower)).outputs).toEqual(['answer']);
    expect((await settlesWithin(cached.generate(ask('q')))).outputs).toEqual(['answer']);
    expect(calls).toBe(2);
  });

  it('uses a pluggable asynchronous store', async () => {
    const map = new Map<string, GenerateResult>();
    const store = {
      get: async (key: string) => map.get(key),
      set: async (key: string, value: GenerateResult) => void map.set(key, value),
    };
    const model = mockModel('stored');
    await callModel(withCache(model, { store }), ask('q'));
    expect([...map.keys()]).toEqual([requestKey('mock', ask('q'))]);
    // A second process with the same model id and the same store gets the stored answer.
    const fresh = mockModel('other');
    expect((await callModel(withCache(fresh, { store }), ask('q'))).outputs).toEqual(['stored']);
    expect(fresh.callCount).toBe(0);
  });

  it('bypasses the cache when shouldCache says no', async () => {
    const model = mockModel(['a', 'b']);
    const cached = withCache(model, { shouldCache: (r) => (r.temperature ?? 0) === 0 });
    await callModel(cached, ask('q', { temperature: 0.9 }));
    expect((await callModel(cached, ask('q', { temperature: 0.9 }))).outputs).toEqual(['b']);
  });

  it('rejects a store without get/set', async () => {
    await catchTotError(() => withCache(mockModel('x'), { store: {} as never }), 'INVALID_ARGUMENT');
  });
});

describe('createLruCacheStore', () => {
  const result = (s: string): GenerateResult => ({ outputs: [s], usage: {} });

  it('evicts the least recently used entry', () => {
    const store = createLruCacheStore({ maxEntries: 2 });
    store.set('a', result('a'));
    store.set('b', result('b'));
    store.get('a');
    store.set('c', result('c'));
    expect(store.get('b')).toBeUndefined();
    expect(store.get('a')?.outputs).toEqual(['a']);
    expect(store.get('c')?.outputs).toEqual(['c']);
    expect(store.size).toBe(2);
  });
});

describe('requestKey', () => {
  it('is independent of key order and of tags, and defaults n to 1', () => {
    const a = requestKey('m', { messages: [{ role: 'user', content: 'x' }], temperature: 0, n: 1 });
    const b = requestKey('m', { temperature: 0, messages: [{ content: 'x', role: 'user' }], tags: { role: 'eval' } });
    expect(a).toBe(b);
    expect(requestKey('other', { messages: [{ role: 'user', content: 'x' }] })).not.toBe(requestKey('m', { messages: [{ role: 'user', content: 'x' }] }));
  });
});
