import { describe, expect, it, vi } from 'vitest';
import { callModel, isRetryableError, retryAfterMs, TotError, withRetry } from '../../src/index.js';
import { mockModel } from '../../src/testing/index.js';
import { ask, catchTotError, delay } from '../helpers/expect-tot-error.js';

const httpError = (status: number, headers?: Record<string, string>) =>
  Object.assign(new Error(`HTTP ${status}`), { status, ...(headers ? { responseHeaders: headers } : {}) });

/** Runs `action` with every timer firing at once, and returns the delays it asked for. */
async function recordWaits(action: () => Promise<unknown>): Promise<number[]> {
  const waits: number[] = [];
  const realSetTimeout = globalThis.setTimeout;
  const spy = vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms?: number) => {
    waits.push(ms ?? 0);
    return realSetTimeout(fn, 0);
  }) as typeof setTimeout);
  try {
    await action();
  } finally {
    spy.mockRestore();
  }
  return waits;
}

describe('withRetry', () => {
  it('retries a failing call until it succeeds', async () => {
    const model = mockModel([httpError(503), httpError(500), 'ok']);
    const result = await callModel(withRetry(model, { maxRetries: 2, initialDelayMs: 0 }), ask('x'));
    expect(result.outputs).toEqual(['ok']);
    expect(model.callCount).toBe(3);
  });

  it('gives up after maxRetries and reports every attempt', async () => {
    const model = mockModel([httpError(503), httpError(503), httpError(502), 'never reached']);
    const error = await catchTotError(() => callModel(withRetry(model, { maxRetries: 2, initialDelayMs: 0 }), ask('x')), 'GENERATION_FAILED');
    expect(model.callCount).toBe(3);
    expect(error.details?.attempts).toBe(3);
    expect(error.details?.errors).toEqual(['HTTP 503', 'HTTP 503', 'HTTP 502']);
  });

  it('does not retry a client error', async () => {
    const model = mockModel([httpError(400), 'ok']);
    await catchTotError(() => callModel(withRetry(model, { initialDelayMs: 0 }), ask('x')), 'GENERATION_FAILED');
    expect(model.callCount).toBe(1);
  });

  it('never retries an abort', async () => {
    const controller = new AbortController();
    const model = mockModel(async () => {
      controller.abort();
      throw new TotError('ABORTED', 'aborted inside');
    });
    await catchTotError(() => withRetry(model, { initialDelayMs: 0 }).generate(ask('x'), { signal: controller.signal }), 'ABORTED');
    expect(model.callCount).toBe(1);
  });

  it('stops waiting between attempts as soon as the signal aborts', async () => {
    const model = mockModel([httpError(503), 'ok']);
    const controller = new AbortController();
    const started = Date.now();
    const pending = withRetry(model, { initialDelayMs: 60_000, jitter: false }).generate(ask('x'), { signal: controller.signal });
    await delay(5);
    controller.abort();
    await catchTotError(() => pending, 'ABORTED');
    expect(model.callCount).toBe(1);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('uses exponential backoff with full jitter', async () => {
    const model = mockModel([httpError(503), httpError(503), httpError(503), 'ok']);
    const waits = await recordWaits(() => withRetry(model, { maxRetries: 3, initialDelayMs: 100, backoffFactor: 2, random: () => 0.5 }).generate(ask('x')));
    expect(waits).toEqual([50, 100, 200]);
  });

  it('caps the computed backoff at maxDelayMs', async () => {
    const model = mockModel([httpError(503), httpError(503), 'ok']);
    const waits = await recordWaits(() => withRetry(model, { initialDelayMs: 1000, backoffFactor: 10, maxDelayMs: 3000, jitter: false }).generate(ask('x')));
    expect(waits).toEqual([1000, 3000]);
  });

  it('honours a retry-after header instead of the backoff', async () => {
    const model = mockModel([httpError(429, { 'Retry-After': '2' }), 'ok']);
    const waits = await recordWaits(() => withRetry(model, { initialDelayMs: 10, jitter: false }).generate(ask('x')));
    expect(waits).toEqual([2000]);
  });

  it('throws at once when the retry-after hint is longer than maxRetryAfterMs', async () => {
    const model = mockModel([Object.assign(httpError(429), { retryAfterMs: 120_000 }), 'ok']);
    const error = await catchTotError(() => withRetry(model, { maxRetryAfterMs: 60_000 }).generate(ask('x')), 'GENERATION_FAILED');
    expect(model.callCount).toBe(1);
    expect(error.details).toMatchObject({ retryAfterMs: 120_000, maxRetryAfterMs: 60_000, attempts: 1 });
  });

  it('lets shouldRetry override the policy', async () => {
    const model = mockModel([httpError(400), 'ok']);
    const result = await withRetry(model, { initialDelayMs: 0, shouldRetry: () => true }).generate(ask('x'));
    expect(result.outputs).toEqual(['ok']);
  });

  it('keeps the code of a typed error it gives up on', async () => {
    const model = mockModel([new TotError('TIMEOUT', 'slow'), new TotError('TIMEOUT', 'slow again')]);
    const error = await catchTotError(() => withRetry(model, { maxRetries: 1, initialDelayMs: 0 }).generate(ask('x')), 'TIMEOUT');
    expect(error.details?.attempts).toBe(2);
  });

  it('validates its options', async () => {
    const error = await catchTotError(() => withRetry(mockModel('x'), { maxRetries: -1 }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('options.maxRetries');
  });
});

describe('isRetryableError', () => {
  it('retries rate limits, timeouts and server errors but not client errors or budget stops', () => {
    expect(isRetryableError(httpError(429))).toBe(true);
    expect(isRetryableError(httpError(408))).toBe(true);
    expect(isRetryableError(httpError(503))).toBe(true);
    expect(isRetryableError(httpError(401))).toBe(false);
    expect(isRetryableError(new TotError('BUDGET_EXCEEDED', 'x'))).toBe(false);
    expect(isRetryableError(new TotError('TIMEOUT', 'x'))).toBe(true);
    expect(isRetryableError(Object.assign(new Error('x'), { isRetryable: false }))).toBe(false);
    expect(isRetryableError(new TypeError('fetch failed'))).toBe(true);
  });

  it("follows a provider adapter's verdict over the error it wraps", () => {
    const wrap = (retryable: boolean, cause: unknown) => new TotError('GENERATION_FAILED', 'provider failed', { cause, details: { retryable } });
    expect(isRetryableError(wrap(false, httpError(503)))).toBe(false);
    expect(isRetryableError(wrap(true, httpError(400)))).toBe(true);
  });

  it('looks through GENERATION_FAILED to the provider error', () => {
    expect(isRetryableError(new TotError('GENERATION_FAILED', 'x', { cause: httpError(400) }))).toBe(false);
    expect(isRetryableError(new TotError('GENERATION_FAILED', 'x', { cause: httpError(503) }))).toBe(true);
  });
});

describe('retryAfterMs', () => {
  it('reads seconds, milliseconds, HTTP dates and Headers objects', () => {
    expect(retryAfterMs({ responseHeaders: { 'retry-after': '1.5' } })).toBe(1500);
    expect(retryAfterMs({ headers: { 'retry-after-ms': '250' } })).toBe(250);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs({ responseHeaders: { 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' } }, now)).toBe(3000);
    expect(retryAfterMs({ headers: new Headers({ 'Retry-After': '4' }) })).toBe(4000);
    expect(retryAfterMs({ retryAfterMs: 10 })).toBe(10);
    expect(retryAfterMs(new Error('no hint'))).toBeUndefined();
  });
});
