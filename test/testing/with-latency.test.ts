import { describe, expect, it } from 'vitest';
import { callModel, type LanguageModel } from '../../src/index.js';
import { mockModel, withLatency } from '../../src/testing/index.js';
import { ask, catchTotError, delay } from '../helpers/expect-tot-error.js';
import { settlesWithin } from '../helpers/settles-within.js';

describe('withLatency', () => {
  it('delays each call by a fixed latency', async () => {
    const started = performance.now();
    await callModel(withLatency(mockModel('x'), 30), ask('a'));
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
  });

  it('computes the latency per call from the request and index', async () => {
    const seen: number[] = [];
    const model = withLatency(mockModel('x'), (_request, index) => {
      seen.push(index);
      return 0;
    });
    await callModel(model, ask('a'));
    await callModel(model, ask('b'));
    expect(seen).toEqual([0, 1]);
  });

  it('ends the wait with ABORTED and never calls the model', async () => {
    const inner = mockModel('x');
    const controller = new AbortController();
    const pending = withLatency(inner, 60_000).generate(ask('a'), { signal: controller.signal });
    controller.abort();
    await catchTotError(() => pending, 'ABORTED');
    expect(inner.callCount).toBe(0);
  });

  it('ends a call with ABORTED after the wait too, even if the model ignores its signal', async () => {
    let calls = 0;
    const deaf: LanguageModel = { modelId: 'deaf', generate: () => ((calls += 1), new Promise<never>(() => undefined)) };
    const controller = new AbortController();
    const pending = withLatency(deaf, 0).generate(ask('a'), { signal: controller.signal });
    await delay(5);
    expect(calls).toBe(1);
    controller.abort();
    await catchTotError(() => settlesWithin(pending), 'ABORTED');
  });

  it('fails a call with INTERNAL when the latency function throws', async () => {
    const inner = mockModel('x');
    const model = withLatency(inner, () => {
      throw new Error('bad clock');
    });
    const error = await catchTotError(() => model.generate(ask('a')), 'INTERNAL');
    expect(error.message).toBe('withLatency: the latency function threw on call #1: bad clock');
    expect(inner.callCount).toBe(0);
  });

  it.each([Number.NaN, -5, Number.POSITIVE_INFINITY, '10'])('fails a call with INVALID_ARGUMENT when the latency function returns %s', async (bad) => {
    const inner = mockModel('x');
    const error = await catchTotError(() => withLatency(inner, () => bad as number).generate(ask('a')), 'INVALID_ARGUMENT');
    expect(error.details?.field).toBe('latency');
    expect(inner.callCount).toBe(0);
  });

  it('rejects a negative latency', async () => {
    await catchTotError(() => withLatency(mockModel('x'), -1), 'INVALID_ARGUMENT');
  });
});
