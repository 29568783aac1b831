import { describe, expect, it } from 'vitest';
import {
  Budget,
  budgetMiddleware,
  cacheMiddleware,
  callModel,
  composeModel,
  fromFunction,
  retryMiddleware,
  timeoutMiddleware,
  UsageMeter,
  usageMiddleware,
  type LanguageModel,
} from '../../src/index.js';
import { mockModel } from '../../src/testing/index.js';
import { ask, catchTotError } from '../helpers/expect-tot-error.js';

const unavailable = () => Object.assign(new Error('503 unavailable'), { status: 503 });

describe('composeModel', () => {
  it('puts timeout inside retry whatever the order listed, so a timed-out attempt is retried', async () => {
    let calls = 0;
    const flaky = fromFunction(() => (++calls === 1 ? new Promise<string>(() => undefined) : Promise.resolve('second try')));
    const model = composeModel(flaky, [timeoutMiddleware({ ms: 10 }), retryMiddleware({ initialDelayMs: 0 })]);
    expect((await callModel(model, ask('x'))).outputs).toEqual(['second try']);
    expect(calls).toBe(2);
  });

  it('puts usage outside the cache, so cache hits are counted', async () => {
    const meter = new UsageMeter();
    const model = composeModel(mockModel('x'), [cacheMiddleware(), usageMiddleware({ meter })]);
    await callModel(model, ask('same'));
    await callModel(model, ask('same'));
    expect(meter.snapshot()).toMatchObject({ calls: 2, cacheHits: 1 });
  });

  it('puts the budget innermost, so that every retried attempt is admitted', async () => {
    const provider = mockModel([unavailable(), unavailable(), 'ok']);
    const budget = new Budget({ maxCalls: 2 });
    const model = composeModel(provider, [budgetMiddleware({ budget }), retryMiddleware({ maxRetries: 5, initialDelayMs: 0 })]);
    await catchTotError(() => callModel(model, ask('x')), 'BUDGET_EXCEEDED');
    expect(provider.callCount).toBe(2);
  });

  it('puts custom middleware outermost, in the order listed', async () => {
    const seen: string[] = [];
    const tag = (name: string) => (inner: LanguageModel): LanguageModel => ({ modelId: inner.modelId, generate: (request, options) => (seen.push(name), inner.generate(request, options)) });
    const model = composeModel(mockModel('x'), [retryMiddleware(), tag('first'), { wrap: tag('second') }]);
    await callModel(model, ask('x'));
    expect(seen).toEqual(['first', 'second']);
  });

  it('refuses a kind listed twice, and anything that is not middleware, naming it', async () => {
    const twice = await catchTotError(() => composeModel(mockModel('x'), [retryMiddleware(), retryMiddleware()]), 'INVALID_ARGUMENT');
    expect(twice.message).toBe('composeModel: middleware[1]: a second retry middleware');
    const bad = await catchTotError(() => composeModel(mockModel('x'), [42 as never]), 'INVALID_ARGUMENT');
    expect(bad.details?.field).toBe('middleware[0]');
    await catchTotError(() => composeModel(mockModel('x'), [(() => ({})) as never]), 'INVALID_ARGUMENT');
  });
});
