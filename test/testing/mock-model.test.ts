import { describe, expect, it } from 'vitest';
import { callModel } from '../../src/index.js';
import { mockModel } from '../../src/testing/index.js';
import { ask, catchTotError, delay } from '../helpers/expect-tot-error.js';
import { settlesWithin } from '../helpers/settles-within.js';

describe('mockModel', () => {
  it('answers every call with a fixed value', async () => {
    const model = mockModel('always');
    expect((await callModel(model, ask('a'))).outputs).toEqual(['always']);
    expect((await callModel(model, ask('b'))).outputs).toEqual(['always']);
  });

  it('consumes an array in order and fails clearly when it runs out', async () => {
    const model = mockModel(['one', 'two']);
    expect((await callModel(model, ask('a'))).outputs).toEqual(['one']);
    expect((await callModel(model, ask('b'))).outputs).toEqual(['two']);
    const error = await catchTotError(() => callModel(model, ask('c')), 'GENERATION_FAILED');
    expect(error.message).toContain('no reply left for call #3');
    expect(error.recoverable).toBe(false);
  });

  it('can repeat the last reply instead', async () => {
    const model = mockModel(['one', 'last'], { whenExhausted: 'repeat-last' });
    await callModel(model, ask('a'));
    await callModel(model, ask('b'));
    expect((await callModel(model, ask('c'))).outputs).toEqual(['last']);
  });

  it('computes replies with a function of the request', async () => {
    const model = mockModel((request, { callIndex }) => `${callIndex}:${request.messages[0]!.content}`);
    expect((await callModel(model, ask('x'))).outputs).toEqual(['0:x']);
  });

  it('throws an Error reply', async () => {
    const error = await catchTotError(() => callModel(mockModel(new Error('rate limited')), ask('x')), 'GENERATION_FAILED');
    expect(error.message).toContain('rate limited');
  });

  it('records every call with its request, result and error', async () => {
    const model = mockModel(['ok', new Error('bad')]);
    await callModel(model, ask('first', { temperature: 0 }), { signal: new AbortController().signal });
    await callModel(model, ask('second')).catch(() => undefined);
    expect(model.callCount).toBe(2);
    expect(model.calls[0]).toMatchObject({ index: 0, request: { temperature: 0 }, hadSignal: true, result: { outputs: ['ok'] } });
    expect(model.calls[1]!.error).toBeInstanceOf(Error);
    expect(model.prompts()).toEqual(['first', 'second']);
    expect(model.lastCall?.index).toBe(1);
  });

  it('estimates usage by default and takes fixed or unknown usage', async () => {
    expect((await callModel(mockModel('abcdefgh'), ask('abcd'))).usage).toEqual({ inputTokens: 1, outputTokens: 2 });
    expect((await callModel(mockModel('x', { usage: 'unknown' }), ask('a'))).usage).toEqual({});
    expect((await callModel(mockModel('x', { usage: { inputTokens: 7, outputTokens: 1 } }), ask('a'))).usage).toEqual({ inputTokens: 7, outputTokens: 1 });
  });

  it('refuses a call whose signal is already aborted and records it', async () => {
    const model = mockModel('x');
    await catchTotError(() => model.generate(ask('a'), { signal: AbortSignal.abort() }), 'ABORTED');
    expect(model.calls[0]?.error).toBeDefined();
  });

  it('ends a call with ABORTED when its signal fires, even if the reply function ignores it', async () => {
    const model = mockModel(() => new Promise<string>(() => undefined));
    const controller = new AbortController();
    const pending = model.generate(ask('a'), { signal: controller.signal });
    await delay(1);
    controller.abort();
    const error = await catchTotError(() => settlesWithin(pending), 'ABORTED');
    expect(model.calls[0]?.error).toBe(error);
  });

  it('fails a call with the error its reply function throws, as with one it returns', async () => {
    const limited = Object.assign(new Error('rate limited'), { status: 429 });
    const model = mockModel(() => {
      throw limited;
    });
    await expect(model.generate(ask('a'))).rejects.toBe(limited);
    expect(model.calls[0]?.error).toBe(limited);
    expect((await catchTotError(() => callModel(model, ask('a')), 'GENERATION_FAILED')).cause).toBe(limited);
  });

  it('fails with INTERNAL naming the model when its usage function throws', async () => {
    const model = mockModel('x', {
      modelId: 'judge',
      usage: () => {
        throw new Error('no tokenizer');
      },
    });
    const error = await catchTotError(() => model.generate(ask('a')), 'INTERNAL');
    expect(error.message).toBe('mockModel "judge": the usage function threw: no tokenizer');
  });

  it('resets its calls and its cursor', async () => {
    const model = mockModel(['one', 'two']);
    await callModel(model, ask('a'));
    model.reset();
    expect(model.callCount).toBe(0);
    expect((await callModel(model, ask('a'))).outputs).toEqual(['one']);
  });

  it('rejects a reply that is neither string, Error nor result', async () => {
    await catchTotError(() => callModel(mockModel(42 as never), ask('a')), 'INVALID_ARGUMENT');
  });
});
