import { describe, expect, it } from 'vitest';
import { Budget, callModel, UsageMeter, withBudget, withCache, withUsage } from '../../src/index.js';
import { mockModel } from '../../src/testing/index.js';
import { ask, catchTotError } from '../helpers/expect-tot-error.js';

describe('withUsage', () => {
  it('sums calls and tokens, per tag too', async () => {
    const meter = new UsageMeter();
    const model = withUsage(mockModel('x', { usage: { inputTokens: 10, outputTokens: 3 } }), { meter });
    await callModel(model, ask('a', { tags: { role: 'generator' } }));
    await callModel(model, ask('b', { tags: { role: 'evaluator' } }));
    await callModel(model, ask('c', { tags: { role: 'evaluator' } }));
    const s = meter.snapshot();
    expect(s).toMatchObject({ calls: 3, inputTokens: 30, outputTokens: 9, totalTokens: 39, failedCalls: 0, callsWithUnknownUsage: 0 });
    expect(s.byTag).toEqual({
      'role=generator': { calls: 1, inputTokens: 10, outputTokens: 3 },
      'role=evaluator': { calls: 2, inputTokens: 20, outputTokens: 6 },
    });
  });

  it('counts emulated samples as separate calls without a sampleIndex tag bucket', async () => {
    const meter = new UsageMeter();
    await callModel(withUsage(mockModel('x', { usage: { inputTokens: 1, outputTokens: 1 } }), { meter }), ask('a', { n: 4 }));
    expect(meter.snapshot().calls).toBe(4);
    expect(Object.keys(meter.snapshot().byTag)).toEqual([]);
  });

  it('estimates unknown usage from the text, and counts failures without tokens', async () => {
    const meter = new UsageMeter();
    const model = withUsage(mockModel([{ outputs: ['xyz'], usage: {} }, new Error('down')]), { meter });
    await callModel(model, ask('abcdef'));
    await catchTotError(() => callModel(model, ask('b')), 'GENERATION_FAILED');
    // 'abcdef': 2 tokens + 4 of framing; 'xyz': 1 token.
    expect(meter.snapshot()).toMatchObject({ calls: 1, callsWithUnknownUsage: 1, failedCalls: 1, inputTokens: 6, outputTokens: 1, totalTokens: 7 });
  });

  it('charges a call without reported usage exactly as a Budget does', async () => {
    const meter = new UsageMeter();
    const budget = new Budget({ maxTotalTokens: 100_000 });
    const model = withUsage(withBudget(mockModel({ outputs: ['a reply of some length'], usage: {} }), { budget }), { meter });
    await callModel(model, ask('a prompt of some length'));
    expect(meter.snapshot().totalTokens).toBeGreaterThan(0);
    expect(budget.snapshot().used.totalTokens).toBe(meter.snapshot().totalTokens);
  });

  it('counts a call with malformed usage as a completed call with estimated tokens, and flags it', async () => {
    const meter = new UsageMeter();
    const model = withUsage(mockModel('xyz', { usage: { inputTokens: Number.NaN, outputTokens: -4 } }), { meter });
    await model.generate(ask('abcdef'));
    // 'abcdef': 2 tokens + 4 of framing; 'xyz': 1 token.
    expect(meter.snapshot()).toMatchObject({ calls: 1, failedCalls: 0, callsWithUnknownUsage: 1, callsWithMalformedUsage: 1, inputTokens: 6, outputTokens: 1, totalTokens: 7 });
  });

  it('never throws on a result that is not a result at all', () => {
    const meter = new UsageMeter();
    expect(() => meter.record(null as never, ask('abcdef'))).not.toThrow();
    expect(() => meter.record({ outputs: 'xyz', usage: 'many' } as never)).not.toThrow();
    expect(meter.snapshot()).toMatchObject({ calls: 2, callsWithMalformedUsage: 2, inputTokens: 6, outputTokens: 0 });
  });

  it('counts cache hits when it wraps a cache', async () => {
    const meter = new UsageMeter();
    const model = withUsage(withCache(mockModel('x')), { meter });
    await callModel(model, ask('a'));
    await callModel(model, ask('a'));
    expect(meter.snapshot()).toMatchObject({ calls: 2, cacheHits: 1 });
  });

  it('resets to zero', async () => {
    const meter = new UsageMeter();
    await callModel(withUsage(mockModel('x'), { meter }), ask('a'));
    meter.reset();
    expect(meter.snapshot().calls).toBe(0);
  });

  it('requires a UsageMeter', async () => {
    const error = await catchTotError(() => withUsage(mockModel('x'), { meter: {} as UsageMeter }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('options.meter');
  });
});
