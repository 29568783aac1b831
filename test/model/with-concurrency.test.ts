import { describe, expect, it } from 'vitest';
import { callModel, withConcurrency } from '../../src/index.js';
import { mockModel } from '../../src/testing/index.js';
import { ask, catchTotError, delay } from '../helpers/expect-tot-error.js';

/** A model that takes 3 ms per call and tracks the most calls it ever had in flight. */
function countingModel() {
  let inFlight = 0;
  let most = 0;
  const model = mockModel(async () => {
    inFlight++;
    most = Math.max(most, inFlight);
    await delay(3);
    inFlight--;
    return 'x';
  });
  return { model, peak: () => most };
}

describe('withConcurrency', () => {
  it('never has more than `limit` calls in flight', async () => {
    const { model, peak } = countingModel();
    const limited = withConcurrency(model, { limit: 2 });
    await Promise.all(Array.from({ length: 10 }, () => callModel(limited, ask('x'))));
    expect(peak()).toBe(2);
    expect(model.callCount).toBe(10);
  });

  it('applies the limit to emulated n samples too', async () => {
    const { model, peak } = countingModel();
    const result = await callModel(withConcurrency(model, { limit: 3 }), ask('x', { n: 8 }));
    expect(result.outputs).toHaveLength(8);
    expect(peak()).toBe(3);
  });

  it('removes an aborted call from the queue without ever starting it', async () => {
    const model = mockModel(async () => {
      await delay(20);
      return 'x';
    });
    const limited = withConcurrency(model, { limit: 1 });
    const first = limited.generate(ask('first'));
    const controller = new AbortController();
    const queued = limited.generate(ask('second'), { signal: controller.signal });
    controller.abort();
    await catchTotError(() => queued, 'ABORTED');
    await first;
    await delay(30);
    expect(model.prompts()).toEqual(['first']);
  });

  it('rejects a limit below one', async () => {
    await catchTotError(() => withConcurrency(mockModel('x'), { limit: 0 }), 'INVALID_ARGUMENT');
  });
});
