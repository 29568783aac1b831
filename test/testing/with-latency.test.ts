import { describe, expect, it } from 'vitest';
import { callModel } from '../../src/index.js';
import { mockModel, withLatency } from '../../src/testing/index.js';
import { ask, catchTotError } from '../helpers/expect-tot-error.js';

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

  it('rejects a negative latency', async () => {
    await catchTotError(() => withLatency(mockModel('x'), -1), 'INVALID_ARGUMENT');
  });
});
