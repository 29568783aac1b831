import { describe, expect, it } from 'vitest';
import {
  Budget,
  budgetMiddleware,
  cacheMiddleware,
  composeModel,
  concurrencyMiddleware,
  fromFunction,
  retryMiddleware,
  timeoutMiddleware,
  UsageMeter,
  usageMiddleware,
  withBudget,
  withCache,
  withConcurrency,
  withRetry,
  withTimeout,
  withUsage,
  type LanguageModel,
} from '../../src/index.js';
import { ask, catchTotError } from '../helpers/expect-tot-error.js';
import { settlesWithin } from '../helpers/settles-within.js';

/** A provider that ignores its signal and never answers; `calls` counts what reached it. */
function deafModel() {
  const model = { modelId: 'deaf', calls: 0, generate: () => ((model.calls += 1), new Promise<never>(() => undefined)) };
  return model;
}

const middleware: [string, (model: LanguageModel) => LanguageModel][] = [
  ['withRetry', (m) => withRetry(m, { initialDelayMs: 0 })],
  ['withCache', (m) => withCache(m)],
  ['withUsage', (m) => withUsage(m, { meter: new UsageMeter() })],
  ['withBudget', (m) => withBudget(m, { budget: new Budget({ maxCalls: 10 }) })],
  ['withTimeout', (m) => withTimeout(m, { ms: 60_000 })],
  ['withConcurrency', (m) => withConcurrency(m, { limit: 1 })],
  ['fromFunction', (m) => fromFunction((_prompt, options) => m.generate(ask('x'), options).then((r) => r.outputs[0]!))],
  [
    'composeModel (every built-in)',
    (m) =>
      composeModel(m, [
        usageMiddleware({ meter: new UsageMeter() }),
        cacheMiddleware(),
        concurrencyMiddleware({ limit: 2 }),
        retryMiddleware({ initialDelayMs: 0 }),
        timeoutMiddleware({ ms: 60_000 }),
        budgetMiddleware({ budget: new Budget({ maxCalls: 10 }) }),
      ]),
  ],
];

describe('every middleware, called directly', () => {
  it.each(middleware)('%s settles with ABORTED when the signal fires, even if the model ignores it', async (_name, wrap) => {
    const provider = deafModel();
    const controller = new AbortController();
    const pending = wrap(provider).generate(ask('q'), { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 1));
    expect(provider.calls).toBe(1);
    controller.abort();
    await catchTotError(() => settlesWithin(pending), 'ABORTED');
  });

  it.each(middleware)('%s never reaches the model with a signal that has already fired', async (_name, wrap) => {
    const provider = deafModel();
    await catchTotError(() => settlesWithin(wrap(provider).generate(ask('q'), { signal: AbortSignal.abort() })), 'ABORTED');
    expect(provider.calls).toBe(0);
  });
});

describe('withConcurrency with a model that ignores its signal', () => {
  it('gives the slot of an aborted call back, so the calls behind it still run', async () => {
    let calls = 0;
    // The first call never settles, whatever its signal does; the others answer.
    const model: LanguageModel = {
      modelId: 'm',
      generate: () => (calls++ === 0 ? new Promise<never>(() => undefined) : Promise.resolve({ outputs: ['next'], usage: {} })),
    };
    const limited = withConcurrency(model, { limit: 1 });
    const controller = new AbortController();
    const stuck = limited.generate(ask('first'), { signal: controller.signal });
    const queued = limited.generate(ask('second'));
    await new Promise((resolve) => setTimeout(resolve, 1));
    expect(calls).toBe(1);
    controller.abort();
    await catchTotError(() => settlesWithin(stuck), 'ABORTED');
    expect((await settlesWithin(queued)).outputs).toEqual(['next']);
  });
});
