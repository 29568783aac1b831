import { describe, expect, it } from 'vitest';
import { Budget, chargedUsage, estimateRequestTokens, estimateTokens, type BudgetWarning } from '../../src/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

describe('Budget', () => {
  it('admits calls until the call limit and refuses the next one', async () => {
    const budget = new Budget({ maxCalls: 2 });
    budget.reserve({ calls: 1 }).settle();
    budget.reserve({ calls: 1 }).settle();
    const error = await catchTotError(() => budget.reserve({ calls: 1 }), 'BUDGET_EXCEEDED');
    expect(error.details).toMatchObject({ limit: 'calls', committed: 2, requested: 1, max: 2 });
    expect(error.recoverable).toBe(false);
  });

  it('counts reservations in flight so that concurrent calls cannot overshoot together', async () => {
    const budget = new Budget({ maxTotalTokens: 1000 });
    const holds = [budget.reserve({ inputTokens: 300, outputTokens: 100 }), budget.reserve({ inputTokens: 300, outputTokens: 100 })];
    await catchTotError(() => budget.reserve({ inputTokens: 150, outputTokens: 100 }), 'BUDGET_EXCEEDED');
    expect(budget.snapshot().reserved.totalTokens).toBe(800);
    holds.forEach((h) => h.release());
    expect(budget.snapshot().reserved.totalTokens).toBe(0);
    expect(budget.snapshot().used.totalTokens).toBe(0);
  });

  it('settles with real usage and frees the rest of the reservation', () => {
    const budget = new Budget({ maxOutputTokens: 100 });
    budget.reserve({ outputTokens: 80 }).settle({ outputTokens: 10 });
    expect(budget.snapshot().used.outputTokens).toBe(10);
    expect(budget.canAfford({ outputTokens: 90 })).toBe(true);
    expect(budget.canAfford({ outputTokens: 91 })).toBe(false);
  });

  it('counts unknown usage as the full reservation', () => {
    const budget = new Budget({ maxInputTokens: 100 });
    budget.reserve({ calls: 1, inputTokens: 40 }).settle({ calls: 1 });
    expect(budget.snapshot().used.inputTokens).toBe(40);
  });

  it('settles or releases a reservation only once', () => {
    const budget = new Budget({ maxCalls: 5 });
    const hold = budget.reserve({ calls: 1 });
    hold.settle();
    hold.settle();
    hold.release();
    expect(budget.snapshot().used.calls).toBe(1);
    expect(budget.snapshot().reserved.calls).toBe(0);
  });

  it('computes cost from pricing and enforces maxCost', async () => {
    const budget = new Budget({ maxCost: 0.01, pricing: { inputPerMillionTokens: 1000, outputPerMillionTokens: 2000 } });
    budget.reserve({ inputTokens: 4, outputTokens: 2 }).settle();
    expect(budget.snapshot().used.cost).toBeCloseTo(0.008);
    await catchTotError(() => budget.reserve({ inputTokens: 3 }), 'BUDGET_EXCEEDED');
    expect(budget.canAfford({ inputTokens: 2 })).toBe(true);
  });

  it('requires pricing with maxCost', async () => {
    const error = await catchTotError(() => new Budget({ maxCost: 1 }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('options.pricing');
  });

  it('refuses every call once the deadline has passed', async () => {
    let now = 1_000;
    const budget = new Budget({ deadlineMs: 500, now: () => now });
    budget.reserve({ calls: 1 }).settle();
    now = 1_500;
    const error = await catchTotError(() => budget.reserve({ calls: 1 }), 'BUDGET_EXCEEDED');
    expect(error.details?.limit).toBe('deadline');
    expect(budget.snapshot().exhausted).toBe(true);
  });

  it('aborts its signal with BUDGET_EXCEEDED when the deadline passes', async () => {
    const budget = new Budget({ deadlineMs: 10 });
    const signal = budget.signal;
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
    expect((signal.reason as { code: string }).code).toBe('BUDGET_EXCEEDED');
  });

  it('emits budget.warning once per limit at 80% of it', () => {
    const budget = new Budget({ maxCalls: 10, maxTotalTokens: 1000 });
    const warnings: BudgetWarning[] = [];
    budget.on('budget.warning', (w) => warnings.push(w));
    for (let i = 0; i < 7; i++) budget.reserve({ calls: 1, inputTokens: 10 }).settle();
    expect(warnings).toEqual([]);
    budget.reserve({ calls: 1, inputTokens: 10 }).settle();
    budget.reserve({ calls: 1, inputTokens: 10 }).settle();
    expect(warnings).toEqual([{ type: 'budget.warning', limit: 'calls', used: 8, max: 10, ratio: 0.8 }]);
    budget.reserve({ calls: 0, inputTokens: 800 }).settle();
    expect(warnings.map((w) => w.limit)).toEqual(['calls', 'totalTokens']);
  });

  it('emits budget.exceeded when it refuses a call', () => {
    const budget = new Budget({ maxCalls: 0 });
    const refused: string[] = [];
    budget.on('budget.exceeded', (e) => refused.push(e.limit));
    expect(() => budget.reserve({ calls: 1 })).toThrow();
    expect(refused).toEqual(['calls']);
  });

  it('reports remaining amounts in its snapshot', () => {
    const budget = new Budget({ maxCalls: 3, maxTotalTokens: 100 });
    budget.reserve({ calls: 1, inputTokens: 20, outputTokens: 5 }).settle();
    budget.reserve({ calls: 1, inputTokens: 10 });
    expect(budget.snapshot().remaining).toEqual({ calls: 1, totalTokens: 65 });
  });

  it('tells how many output tokens one more call may reserve', () => {
    const budget = new Budget({ maxTotalTokens: 1000, maxOutputTokens: 300 });
    expect(budget.outputTokenAllowance({ inputTokens: 800 })).toBe(200);
    expect(budget.outputTokenAllowance({ inputTokens: 100 })).toBe(300);
    expect(new Budget({ maxCalls: 1 }).outputTokenAllowance()).toBeUndefined();
  });

  it.each([
    ['NaN', Number.NaN],
    ['negative', -50],
    ['infinite', Number.POSITIVE_INFINITY],
    ['a string', '12'],
  ])('counts a settled call whose usage is %s as using its reservation, and never throws', (_name, bad) => {
    const budget = new Budget({ maxCalls: 2, maxTotalTokens: 1_000 });
    const hold = budget.reserve({ calls: 1, inputTokens: 40, outputTokens: 10 });
    expect(() => hold.settle({ calls: bad as number, inputTokens: bad as number, outputTokens: 7 })).not.toThrow();
    expect(budget.snapshot().used).toMatchObject({ calls: 1, inputTokens: 40, outputTokens: 7, totalTokens: 47 });
    expect(budget.snapshot().reserved).toMatchObject({ calls: 0, totalTokens: 0 });
  });

  it('still counts a call settled with something that is not an estimate at all', () => {
    const budget = new Budget({ maxCalls: 1 });
    budget.reserve({ calls: 1, inputTokens: 5 }).settle(null as never);
    expect(budget.snapshot().used).toMatchObject({ calls: 1, inputTokens: 5 });
    expect(budget.canAfford({ calls: 1 })).toBe(false);
  });

  it('validates estimates', async () => {
    const budget = new Budget();
    const error = await catchTotError(() => budget.reserve({ calls: -1 }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('estimate.calls');
  });
});

describe('token estimates', () => {
  it('errs high: one token per three characters plus framing per message', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcd')).toBe(2);
    expect(estimateRequestTokens({ messages: [{ content: 'abc' }, { content: 'abcdef' }] })).toBe(1 + 4 + 2 + 4);
  });
});

describe('chargedUsage', () => {
  // 'hello': 2 tokens + 4 of framing; 'hi there': 3 tokens.
  const request = { messages: [{ content: 'hello' }] };

  it('charges reported usage as it is', () => {
    expect(chargedUsage(request, { outputs: ['hi there'], usage: { inputTokens: 10, outputTokens: 2 } })).toEqual({ inputTokens: 10, outputTokens: 2, estimated: false });
  });

  it.each([
    ['NaN', Number.NaN],
    ['negative', -1],
    ['infinite', Number.POSITIVE_INFINITY],
    ['fractional', 2.5],
    ['a string', '2'],
    ['null', null],
    ['beyond a safe integer', 2 ** 53],
  ])('treats a figure that is %s as unknown, estimates it and flags the usage malformed', (_name, bad) => {
    expect(chargedUsage(request, { outputs: ['hi there'], usage: { inputTokens: bad as number, outputTokens: 2 } })).toEqual({ inputTokens: 6, outputTokens: 2, estimated: true, malformed: true });
    expect(chargedUsage(request, { outputs: ['hi there'], usage: { inputTokens: 10, outputTokens: bad as number } })).toEqual({ inputTokens: 10, outputTokens: 3, estimated: true, malformed: true });
  });

  it('estimates a result without a usage object, or without outputs, and never throws', () => {
    expect(chargedUsage(request, { outputs: ['hi there'] } as never)).toEqual({ inputTokens: 6, outputTokens: 3, estimated: true, malformed: true });
    expect(chargedUsage(request, { outputs: 'hi there', usage: 'lots' } as never)).toEqual({ inputTokens: 6, outputTokens: 0, estimated: true, malformed: true });
    expect(chargedUsage(request, null as never)).toEqual({ inputTokens: 6, outputTokens: 0, estimated: true, malformed: true });
  });
});
