import { describe, expect, it } from 'vitest';
import { fromFunction, withRetry, withTimeout } from '../../src/index.js';
import { mockModel, withLatency } from '../../src/testing/index.js';
import { ask, catchTotError } from '../helpers/expect-tot-error.js';

describe('withTimeout', () => {
  it('fails a slow call with a recoverable TIMEOUT and aborts the inner call', async () => {
    let innerSignal: AbortSignal | undefined;
    const slow = fromFunction((_p, { signal }) => {
      innerSignal = signal;
      return new Promise<string>(() => undefined);
    });
    const error = await catchTotError(() => withTimeout(slow, { ms: 20 }).generate(ask('x')), 'TIMEOUT');
    expect(error.recoverable).toBe(true);
    expect(innerSignal?.aborted).toBe(true);
  });

  it('lets a fast call through untouched', async () => {
    const result = await withTimeout(mockModel('fast'), { ms: 1000 }).generate(ask('x'));
    expect(result.outputs).toEqual(['fast']);
  });

  it('reports a caller abort as ABORTED, not TIMEOUT', async () => {
    const controller = new AbortController();
    const pending = withTimeout(withLatency(mockModel('x'), 10_000), { ms: 5_000 }).generate(ask('x'), { signal: controller.signal });
    controller.abort();
    await catchTotError(() => pending, 'ABORTED');
  });

  it('composes with withRetry so that a timed-out attempt is retried', async () => {
    let calls = 0;
    const flaky = fromFunction(() => (++calls === 1 ? new Promise<string>(() => undefined) : Promise.resolve('second try')));
    const result = await withRetry(withTimeout(flaky, { ms: 10 }), { initialDelayMs: 0 }).generate(ask('x'));
    expect(result.outputs).toEqual(['second try']);
    expect(calls).toBe(2);
  });

  it('rejects a non-positive timeout', async () => {
    const error = await catchTotError(() => withTimeout(mockModel('x'), { ms: 0 }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('options.ms');
  });
});
