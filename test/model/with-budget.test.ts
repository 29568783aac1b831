import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Budget, callModel, estimateRequestTokens, TotError, withBudget, withRetry, type GenerateRequest } from '../../src/index.js';
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

  describe('with a provider that reports malformed usage', () => {
    const malformed: [string, unknown][] = [
      ['NaN', Number.NaN],
      ['negative', -1_000],
      ['infinite', Number.POSITIVE_INFINITY],
      ['a string', '12'],
      ['fractional', 0.5],
    ];

    it.each(malformed)('still counts every call when input tokens are %s, so maxCalls holds', async (_name, bad) => {
      const budget = new Budget({ maxCalls: 5 });
      const model = mockModel('x', { usage: { inputTokens: bad as number, outputTokens: 1 } });
      const limited = withBudget(model, { budget });
      const outcomes: string[] = [];
      for (let i = 0; i < 20; i++) outcomes.push(await limited.generate(ask(`q${i}`)).then(() => 'ok', (e: TotError) => e.code));
      expect(model.callCount).toBe(5);
      expect(outcomes).toEqual([...Array<string>(5).fill('ok'), ...Array<string>(15).fill('BUDGET_EXCEEDED')]);
      expect(budget.snapshot().used.calls).toBe(5);
      expect(Number.isFinite(budget.snapshot().used.totalTokens)).toBe(true);
    });

    it('holds maxCalls for a concurrent batch too', async () => {
      const budget = new Budget({ maxCalls: 5 });
      const model = mockModel('x', { usage: { inputTokens: Number.NaN } });
      const limited = withBudget(withLatency(model, 5), { budget });
      await Promise.allSettled(Array.from({ length: 40 }, (_, i) => callModel(limited, ask(`q${i}`))));
      expect(model.callCount).toBe(5);
      expect(budget.snapshot().used.calls).toBe(5);
    });

    it('charges a malformed figure as unknown (the estimate) and a well-formed one as reported', async () => {
      const budget = new Budget({ maxTotalTokens: 10_000 });
      const request = ask('abcdef'); // 2 tokens + 4 of framing
      await withBudget(mockModel('x', { usage: { inputTokens: -3, outputTokens: 2 } }), { budget }).generate(request);
      expect(budget.snapshot().used).toMatchObject({ calls: 1, inputTokens: estimateRequestTokens(request), outputTokens: 2, totalTokens: 8 });
    });

    it('reaches the caller of callModel as GENERATION_FAILED, a call counted all the same', async () => {
      const budget = new Budget({ maxCalls: 5 });
      const error = await catchTotError(() => callModel(withBudget(mockModel('x', { usage: { outputTokens: Number.NaN } }), { budget }), ask('a')), 'GENERATION_FAILED');
      expect(error.message).toContain('malformed result');
      expect(budget.snapshot().used.calls).toBe(1);
    });
  });

  describe('its guarantee on token limits', () => {
    // Prompts of ~100 estimated tokens; every call is capped at 40 output tokens.
    const prompt = (i: number) => ask(`${'x'.repeat(300)} #${i}`);
    const reservedFor = (request: GenerateRequest) => estimateRequestTokens(request) + (request.maxOutputTokens ?? 0);

    it('lets usage pass a token limit only by what calls used beyond their reservation, and admits nothing after', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 100, max: 6_000 }),
          fc.integer({ min: 1, max: 40 }),
          fc.double({ min: 0.5, max: 3, noNaN: true }),
          fc.double({ min: 0, max: 2, noNaN: true }),
          async (limit, batch, inputFactor, outputFactor) => {
            const budget = new Budget({ maxTotalTokens: limit });
            let excess = 0;
            // A provider whose tokens differ from the estimate, and which may ignore maxOutputTokens.
            const model = mockModel((request) => {
              const usage = { inputTokens: Math.ceil(estimateRequestTokens(request) * inputFactor), outputTokens: Math.round(40 * outputFactor) };
              excess += Math.max(0, usage.inputTokens + usage.outputTokens - reservedFor(request));
              return { outputs: ['y'], usage };
            });
            const limited = withBudget(withLatency(model, 1), { budget, outputTokensPerCall: 40 });
            await Promise.allSettled(Array.from({ length: batch }, (_, i) => callModel(limited, prompt(i))));
            const { used } = budget.snapshot();
            expect(used.totalTokens).toBeLessThanOrEqual(limit + excess);
            expect(used.calls).toBe(model.callCount);
            if (used.totalTokens > limit) {
              await catchTotError(() => callModel(limited, prompt(-1)), 'BUDGET_EXCEEDED');
              expect(used.calls).toBe(model.callCount);
            }
          },
        ),
        { numRuns: 60 },
      );
    });

    it('is passed by a provider that reports twice the estimated input, by no more than the excess', async () => {
      const budget = new Budget({ maxTotalTokens: 5_000 });
      let excess = 0;
      const model = mockModel((request) => {
        const usage = { inputTokens: 2 * estimateRequestTokens(request), outputTokens: 10 };
        excess += Math.max(0, usage.inputTokens + usage.outputTokens - reservedFor(request));
        return { outputs: ['y'], usage };
      });
      const limited = withBudget(withLatency(model, 5), { budget, outputTokensPerCall: 40 });
      await Promise.allSettled(Array.from({ length: 60 }, (_, i) => callModel(limited, prompt(i))));
      const { used } = budget.snapshot();
      expect(used.totalTokens).toBeGreaterThan(5_000);
      expect(used.totalTokens).toBeLessThanOrEqual(5_000 + excess);
      await catchTotError(() => callModel(limited, prompt(60)), 'BUDGET_EXCEEDED');
    });

    it('is never passed when estimateInputTokens counts exactly and the provider honours maxOutputTokens', async () => {
      const budget = new Budget({ maxTotalTokens: 5_000 });
      // The provider's own tokenizer: twice the default estimate.
      const count = (request: GenerateRequest) => 2 * estimateRequestTokens(request);
      const model = mockModel((request) => ({ outputs: ['y'], usage: { inputTokens: count(request), outputTokens: request.maxOutputTokens ?? 0 } }));
      const limited = withBudget(withLatency(model, 5), { budget, outputTokensPerCall: 40, estimateInputTokens: count });
      await Promise.allSettled(Array.from({ length: 60 }, (_, i) => callModel(limited, prompt(i))));
      expect(model.callCount).toBeGreaterThan(0);
      expect(budget.snapshot().used.totalTokens).toBeLessThanOrEqual(5_000);
    });
  });

  it('requires a Budget instance', async () => {
    const error = await catchTotError(() => withBudget(mockModel('x'), { budget: { maxCalls: 1 } as never }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('options.budget');
  });
});
