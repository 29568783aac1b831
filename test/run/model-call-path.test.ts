import { describe, expect, it } from 'vitest';
import { callModel, TotError, type GenerateResult, type LanguageModel, type RunEventBase } from '../../src/index.js';
import { onKernelRun as onRun } from '../helpers/on-run.js';

const ask = { messages: [{ role: 'user' as const, content: 'q' }] };

describe('a model call through a run', () => {
  it("rejects a provider's untyped error, through callModel, as GENERATION_FAILED with the error as its cause, logged once", async () => {
    const boom = new Error('boom');
    const model: LanguageModel = { modelId: 'm', generate: async () => Promise.reject(boom) };
    const { events, settled } = await onRun(undefined, (run) => callModel(run.runModel(model), ask));
    expect(settled.status).toBe('rejected');
    const error = (settled as PromiseRejectedResult).reason as TotError;
    expect(TotError.isInstance(error) && error.code).toBe('GENERATION_FAILED');
    expect(error.message).toBe('Model "m" failed: boom');
    expect(error.cause).toBe(boom);
    expect(events.filter((e) => e.type === 'llm.failed')).toHaveLength(1);
  });

  it('rejects a malformed result, through callModel, as GENERATION_FAILED naming the model', async () => {
    const model: LanguageModel = { modelId: 'm', generate: async () => ({ outputs: ['a', 'b'], usage: {} }) as GenerateResult };
    const { settled } = await onRun(undefined, (run) => callModel(run.runModel(model), ask));
    const error = (settled as PromiseRejectedResult).reason as TotError;
    expect(error.code).toBe('GENERATION_FAILED');
    expect(error.message).toBe('Model "m" returned 2 outputs for n=1.');
  });

  it('never starts a call that waits for a slot when its run stops: it rejects with ABORTED and nothing is logged for it', async () => {
    let asked = 0;
    const hangs: LanguageModel = {
      modelId: 'm',
      generate: (_request, options) => {
        asked += 1;
        return new Promise((_resolve, reject) => options?.signal?.addEventListener('abort', () => reject(new Error('stopped'))));
      },
    };
    const stop = new AbortController();
    const { events, settled } = await onRun(
      1,
      (run) => {
        const model = run.runModel(hangs);
        const calls = [callModel(model, ask), callModel(model, ask), callModel(model, ask)];
        setTimeout(() => stop.abort(new Error('enough')), 10);
        return Promise.allSettled(calls);
      },
      stop.signal,
    );
    expect(asked).toBe(1);
    const outcomes = (settled as PromiseFulfilledResult<PromiseSettledResult<unknown>[]>).value;
    expect(outcomes.map((o) => o.status === 'rejected' && (o.reason as TotError).code)).toEqual(['ABORTED', 'ABORTED', 'ABORTED']);
    expect(events.filter((e) => e.type === 'llm.requested')).toHaveLength(1);
  });

  it("ends a call whose caller's own signal aborts while the provider is being asked: it rejects with ABORTED and the run finishes", async () => {
    const own = new AbortController();
    const model: LanguageModel = {
      modelId: 'm',
      generate: async () => {
        own.abort(new Error('caller gave up'));
        return { outputs: ['ok'], usage: {} };
      },
    };
    const { events, settled } = await onRun(undefined, (run) => callModel(run.runModel(model), ask, { signal: own.signal }));
    expect(((settled as PromiseRejectedResult).reason as TotError).code).toBe('ABORTED');
    expect(events.map((e) => e.type)).toEqual(['run.started', 'llm.requested', 'llm.failed', 'run.finished']);
  });

  it('starts the calls that waited for a slot in the order they asked for one', async () => {
    const order: string[] = [];
    const model: LanguageModel = { modelId: 'm', generate: async (request) => (order.push(request.messages[0]!.content), { outputs: ['ok'], usage: {} }) };
    const { settled } = await onRun(1, (run) => Promise.all(['a', 'b', 'c', 'd'].map((content) => callModel(run.runModel(model), { messages: [{ role: 'user', content }] }))));
    expect(settled.status).toBe('fulfilled');
    expect(order).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe("a run's default clock", () => {
  it('is read once for the events of work queued together, and read again for work queued after', async () => {
    const model: LanguageModel = { modelId: 'm', generate: async () => ({ outputs: ['ok'], usage: {} }) };
    const real = Date.now;
    let reads = 0;
    let tick = 1_000;
    Date.now = () => (reads++, (tick += 1));
    try {
      const { events } = await onRun(undefined, async (run) => {
        const m = run.runModel(model);
        await Promise.all([callModel(m, ask), callModel(m, ask), callModel(m, ask)]);
      });
      const requested = events.filter((e) => e.type === 'llm.requested');
      // Three calls started in one stretch share a reading; the run's other events read the clock again later.
      expect(new Set(requested.map((e) => e.at)).size).toBe(1);
      expect(reads).toBeLessThan(events.length);
      expect(events.at(-1)!.at).toBeGreaterThan(requested[0]!.at);
    } finally {
      Date.now = real;
    }
  });
});
