import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Budget, callModel, TotError, withBudget, withRetry } from '../../src/index.js';
import { mockModel, withLatency } from '../../src/testing/index.js';
import { ask, catchTotError, delay } from '../helpers/expect-tot-error.js';

describe('withBudget', () => {
  it('refuses a call over the limit before it reaches the provider', async () => {
    const budget = new Budget({ maxCalls: 2 });
    const model = mockModel('x');
    const limited = withBudget(model, { budget });
    await callModel(limited, ask('a'));
    await callModel(limited, ask('b'));
    await catchTotError(() => callModel(limited, ask('c')), 'BUDGET_EXCEEDED');
    expect(model.callCount).toBe(2);
  });

  it('charges each of two nested budgets once per call', async () => {
    const daily = new Budget({ maxCalls: 100 });
    const tenant = new Budget({ maxCalls: 10 });
    const model = mockModel('x');
    await callModel(withBudget(withRetry(withBudget(model, { budget: daily })), { budget: tenant }), ask('a'));
    expect(model.callCount).toBe(1);
    expect(daily.snapshot().used.calls).toBe(1);
    expect(tenant.snapshot().used.calls).toBe(1);
  });

  it('returns a model that already admits through the same budget as it is, so that it is charged once', async () => {
    const budget = new Budget({ maxCalls: 100 });
    const inner = withBudget(mockModel('x'), { budget });
    const outer = withBudget(withRetry(inner), { budget });
    await callModel(outer, ask('a'));
    expect(budget.snapshot().used.calls).toBe(1);
    expect(withBudget(inner, { budget })).toBe(inner);
  });

  it('never lets a concurrent batch exceed the call limit', async () => {
    const budget = new Budget({ maxCalls: 5 });
    const model = withLatency(mockModel('x'), 5);
    const limited = withBudget(model, { budget });
    const results = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => callModel(limited, ask(`q${i}`))));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
    expect(budget.snapshot().used.calls).toBe(5);
  });

  it('caps output tokens so that a token limit holds even for a batch of concurrent calls', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 50, max: 2_000 }), fc.integer({ min: 1, max: 30 }), fc.integer({ min: 1, max: 300 }), async (limit, batch, outTokens) => {
        const budget = new Budget({ maxTotalTokens: limit });
        // The provider honours maxOutputTokens and reports what it used.
        const model = mockModel((request) => ({
          outputs: ['y'],
          usage: { inputTokens: 5, outputTokens: Math.min(outTokens, request.maxOutputTokens ?? Number.POSITIVE_INFINITY) },
        }));
        const limited = withBudget(model, { budget, estimateInputTokens: () => 5, outputTokensPerCall: 40 });
        await Promise.allSettled(Array.from({ length: batch }, (_, i) => callModel(limited, ask(`q${i}`))));
        expect(budget.snapshot().used.totalTokens).toBeLessThanOrEqual(limit);
      }),
      { numRuns: 60 },
    );
  });

  it('gives a request without maxOutputTokens the per-call cap when tokens are limited', async () => {
    const model = mockModel('x');
    await callModel(withBudget(model, { budget: new Budget({ maxOutputTokens: 10_000 }), outputTokensPerCall: 256 }), ask('a'));
    expect(model.lastCall?.request.maxOutputTokens).toBe(256);
    const unlimited = mockModel('x');
    await callModel(withBudget(unlimited, { budget: new Budget({ maxCalls: 9 }) }), ask('a'));
    expect(unlimited.lastCall?.request.maxOutputTokens).toBeUndefined();
  });

  it('settles with the usage the provider reports', async () => {
    const budget = new Budget({ maxTotalTokens: 10_000 });
    await callModel(withBudget(mockModel('x', { usage: { inputTokens: 12, outputTokens: 3 } }), { budget }), ask('a'));
    expect(budget.snapshot().used).toMatchObject({ calls: 1, inputTokens: 12, outputTokens: 3, totalTokens: 15 });
    expect(budget.snapshot().reserved.totalTokens).toBe(0);
  });

  it('counts a failed call against the budget', async () => {
    const budget = new Budget({ maxCalls: 3 });
    await catchTotError(() => callModel(withBudget(mockModel(new Error('500')), { budget }), ask('a')), 'GENERATION_FAILED');
    expect(budget.snapshot().used.calls).toBe(1);
  });

  it('admits every retry attempt when placed inside withRetry', async () => {
    const budget = new Budget({ maxCalls: 2 });
    const model = mockModel([Object.assign(new Error('503'), { status: 503 }), Object.assign(new Error('503'), { status: 503 }), 'ok']);
    const error = await catchTotError(() => callModel(withRetry(withBudget(model, { budget }), { maxRetries: 5, initialDelayMs: 0 }), ask('a')), 'BUDGET_EXCEEDED');
    expect(error.recoverable).toBe(false);
    expect(model.callCount).toBe(2);
  });

  it('cancels calls in flight when the deadline passes', async () => {
    const budget = new Budget({ deadlineMs: 30 });
    const slow = withLatency(mockModel('late'), 10_000);
    const started = Date.now();
    const error = await catchTotError(() => callModel(withBudget(slow, { budget }), ask('a')), 'BUDGET_EXCEEDED');
    expect(error.details?.limit).toBe('deadline');
    expect(Date.now() - started).toBeLessThan(5_000);
    budget.dispose();
  });

  it('reports a caller abort as ABORTED and still frees the hold', async () => {
    const budget = new Budget({ maxCalls: 5 });
    const controller = new AbortController();
    const pending = callModel(withBudget(withLatency(mockModel('x'), 1000), { budget }), ask('a'), { signal: controller.signal });
    await delay(5);
    controller.abort();
    const error = await catchTotError(() => pending, 'ABORTED');
    expect(TotError.isInstance(error)).toBe(true);
    await delay(5);
    expect(budget.snapshot().reserved.calls).toBe(0);
  });

  it('requires a Budget instance', async () => {
    const error = await catchTotError(() => withBudget(mockModel('x'), { budget: { maxCalls: 1 } as never }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('options.budget');
  });
});
