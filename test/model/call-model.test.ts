import { describe, expect, it } from 'vitest';
import { callModel, fromFunction, type GenerateRequest, type LanguageModel } from '../../src/index.js';
import { mockModel } from '../../src/testing/index.js';
import { ask, catchTotError, delay } from '../helpers/expect-tot-error.js';

describe('callModel', () => {
  it('emulates n > 1 with parallel single calls when the model cannot do it natively', async () => {
    let inFlight = 0;
    let peak = 0;
    const model = mockModel(async (request) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await delay(5);
      inFlight--;
      return `sample ${request.tags?.sampleIndex}`;
    });
    const result = await callModel(model, ask('go', { n: 3 }));
    expect(result.outputs).toEqual(['sample 0', 'sample 1', 'sample 2']);
    expect(model.calls.map((c) => c.request.n)).toEqual([1, 1, 1]);
    expect(peak).toBe(3);
  });

  it('sums usage over emulated samples and reports unknown when any sample is unknown', async () => {
    const known = mockModel('x', { usage: { inputTokens: 10, outputTokens: 2 } });
    expect((await callModel(known, ask('go', { n: 3 }))).usage).toEqual({ inputTokens: 30, outputTokens: 6 });
    const unknown = mockModel(['a', { outputs: ['b'], usage: {} }], { usage: { inputTokens: 1, outputTokens: 1 } });
    expect((await callModel(unknown, ask('go', { n: 2 }))).usage).toEqual({});
  });

  it('passes n through in one call when the model declares multipleOutputs', async () => {
    const model = mockModel({ outputs: ['a', 'b', 'c'] }, { multipleOutputs: true });
    const result = await callModel(model, ask('go', { n: 3 }));
    expect(result.outputs).toEqual(['a', 'b', 'c']);
    expect(model.callCount).toBe(1);
  });

  it('rejects a result whose output count differs from n', async () => {
    const model = mockModel({ outputs: ['only one'] }, { multipleOutputs: true });
    const error = await catchTotError(() => callModel(model, ask('go', { n: 2 })), 'GENERATION_FAILED');
    expect(error.message).toContain('1 outputs for n=2');
  });

  it('wraps an untyped provider error in GENERATION_FAILED keeping the cause', async () => {
    const boom = new TypeError('fetch failed');
    const model = fromFunction(async () => {
      throw boom;
    });
    const error = await catchTotError(() => callModel(model, ask('go')), 'GENERATION_FAILED');
    expect(error.cause).toBe(boom);
    expect(error.recoverable).toBe(true);
  });

  it('rejects a malformed result as GENERATION_FAILED', async () => {
    const model = { modelId: 'bad', generate: async () => ({ outputs: 'not an array' }) } as unknown as LanguageModel;
    await catchTotError(() => callModel(model, ask('go')), 'GENERATION_FAILED');
  });

  it('validates the request and names the offending field', async () => {
    const error = await catchTotError(() => callModel(mockModel('x'), { messages: [], temperature: -1 } as GenerateRequest), 'INVALID_ARGUMENT');
    expect(error.message).toContain('request.messages');
    const error2 = await catchTotError(() => callModel(mockModel('x'), ask('go', { n: 0 })), 'INVALID_ARGUMENT');
    expect(error2.message).toContain('request.n');
  });

  it('rejects something that is not a model', async () => {
    await catchTotError(() => callModel({} as LanguageModel, ask('go')), 'INVALID_ARGUMENT');
  });

  it('releases the caller with ABORTED when the signal fires, even if the model ignores it', async () => {
    const never = fromFunction(() => new Promise<string>(() => undefined));
    const controller = new AbortController();
    const pending = callModel(never, ask('go'), { signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    await catchTotError(() => pending, 'ABORTED');
  });

  it('does not call the model when the signal is already aborted', async () => {
    const model = mockModel('x');
    await catchTotError(() => callModel(model, ask('go'), { signal: AbortSignal.abort() }), 'ABORTED');
    expect(model.callCount).toBe(0);
  });

  it('cancels the sibling samples when one emulated sample fails', async () => {
    const aborted: boolean[] = [];
    const model = mockModel(async (request, { signal }) => {
      if (request.tags?.sampleIndex === '0') throw new Error('sample 0 failed');
      await new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve()));
      aborted.push(signal?.aborted === true);
      return 'late';
    });
    await catchTotError(() => callModel(model, ask('go', { n: 3 })), 'GENERATION_FAILED');
    await delay(1);
    expect(aborted).toEqual([true, true]);
  });
});
