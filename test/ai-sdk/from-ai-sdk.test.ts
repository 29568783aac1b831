import { createOpenAICompatible as createV3 } from '@ai-sdk/openai-compatible';
import { createOpenAICompatible as createV2 } from 'ai-sdk-openai-compatible-v1';
import { createOpenAICompatible as createV4 } from 'ai-sdk-openai-compatible-v3';
import { describe, expect, it } from 'vitest';
import { fromAiSdk, type AiSdkLanguageModel } from '../../src/ai-sdk/index.js';
import { callModel, isRetryableError, withRetry } from '../../src/index.js';
import { ask, catchTotError } from '../helpers/expect-tot-error.js';
import { settlesWithin } from '../helpers/settles-within.js';

type CallOptions = Record<string, unknown> & { abortSignal?: AbortSignal };

/** A hand-made AI SDK model: answers with `result(options)` and records every call's options. */
function fakeModel(result: (options: CallOptions) => unknown, specificationVersion: 'v2' | 'v3' | 'v4' = 'v3') {
  const calls: CallOptions[] = [];
  const model = {
    specificationVersion,
    provider: 'fake.chat',
    modelId: 'fake-1',
    supportedUrls: {},
    async doGenerate(options: CallOptions) {
      calls.push(options);
      return result(options);
    },
  };
  return { model, calls };
}

const v3Result = (text: string, extra: Record<string, unknown> = {}) => ({
  content: [{ type: 'text', text }],
  finishReason: { unified: 'stop', raw: 'stop' },
  usage: { inputTokens: { total: 9, noCache: 9, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 3, text: 3, reasoning: undefined } },
  warnings: [],
  ...extra,
});

/** An error marked as the AI SDK marks its own (Symbol.for keys, the same in every major). */
function aiSdkError(name: string, fields: Record<string, unknown> = {}): Error {
  const error = Object.assign(new Error(`${name} happened`), { name, ...fields });
  Object.defineProperty(error, Symbol.for('vercel.ai.error'), { value: true });
  if (name === 'AI_APICallError') Object.defineProperty(error, Symbol.for('vercel.ai.error.AI_APICallError'), { value: true });
  return error;
}

describe('fromAiSdk', () => {
  it('accepts the models of provider specifications v2, v3 and v4 (checked by the compiler too)', () => {
    const settings = { name: 'local', baseURL: 'http://127.0.0.1:9/v1' };
    const models: AiSdkLanguageModel[] = [createV2(settings).chatModel('a'), createV3(settings).chatModel('b'), createV4(settings).chatModel('c')];
    expect(models.map((m) => m.specificationVersion)).toEqual(['v2', 'v3', 'v4']);
    expect(models.map((m) => fromAiSdk(m).modelId)).toEqual(['a', 'b', 'c']);
  });

  it('refuses a model id string, saying to pass the provider', async () => {
    // @ts-expect-error a gateway model id is not a model object
    const error = await catchTotError(() => fromAiSdk('openai/gpt-4o'), 'INVALID_ARGUMENT');
    expect(error.message).toMatch(/fromAiSdk: model: expected an AI SDK language model object .*a model id string needs its provider/);
  });

  it('refuses a specification v1 model (ai 3 and 4), naming the versions it takes', async () => {
    const { model } = fakeModel(() => v3Result('x'));
    const error = await catchTotError(() => fromAiSdk({ ...model, specificationVersion: 'v1' } as never), 'INVALID_ARGUMENT');
    expect(error.message).toContain('specification v1 (ai 3 and 4) is not supported');
    expect(error.details?.field).toBe('model.specificationVersion');
  });

  it('refuses options of the wrong type', () => {
    const { model } = fakeModel(() => v3Result('x'));
    expect(() => fromAiSdk(model, { headers: { 'x-team': 7 } as never })).toThrow(/fromAiSdk: options\.headers\.x-team/);
  });

  it("uses the model's modelId, or the one given", () => {
    const { model } = fakeModel(() => v3Result('x'));
    expect(fromAiSdk(model).modelId).toBe('fake-1');
    expect(fromAiSdk(model, { modelId: 'fake/fake-1' }).modelId).toBe('fake/fake-1');
  });

  it('maps the messages to the prompt every version takes and sends only the settings given', async () => {
    const { model, calls } = fakeModel(() => v3Result('ok'));
    await fromAiSdk(model).generate({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello.' },
      ],
      tags: { role: 'generator' },
    });
    expect(calls[0]).toEqual({
      prompt: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] },
      ],
    });
  });

  it('passes temperature, maxOutputTokens, stop as stopSequences, seed, JSON mode, provider options and headers', async () => {
    const { model, calls } = fakeModel(() => v3Result('{}'));
    const schema = { type: 'object', properties: {} };
    await fromAiSdk(model, { providerOptions: { fake: { user: 'team-a' } }, headers: { 'x-team': 'a' } }).generate(
      ask('Hi', { temperature: 0.2, maxOutputTokens: 50, stop: ['END'], seed: 7, responseFormat: { type: 'json', schema } }),
    );
    expect(calls[0]).toMatchObject({
      temperature: 0.2,
      maxOutputTokens: 50,
      stopSequences: ['END'],
      seed: 7,
      responseFormat: { type: 'json', schema },
      providerOptions: { fake: { user: 'team-a' } },
      headers: { 'x-team': 'a' },
    });
  });

  it('joins the text parts of the content and leaves reasoning and tool calls out', async () => {
    const { model } = fakeModel(() =>
      v3Result('', {
        content: [
          { type: 'reasoning', text: 'thinking…' },
          { type: 'text', text: 'Seven' },
          { type: 'tool-call', toolCallId: 't1', toolName: 'calc', input: '{}' },
          { type: 'text', text: ' is prime.' },
        ],
      }),
    );
    expect((await fromAiSdk(model).generate(ask('A prime?'))).outputs).toEqual(['Seven is prime.']);
  });

  it("reads v4's structuredOutputText for a JSON request", async () => {
    const { model } = fakeModel(() => v3Result('draft {"a": 1} final {"a": 2}', { structuredOutputText: '{"a": 2}' }), 'v4');
    const adapter = fromAiSdk(model);
    expect((await adapter.generate(ask('JSON', { responseFormat: { type: 'json' } }))).outputs).toEqual(['{"a": 2}']);
    expect((await adapter.generate(ask('text'))).outputs).toEqual(['draft {"a": 1} final {"a": 2}']);
  });

  it('reads v3/v4 nested token counts and v2 flat ones', async () => {
    const v3 = fakeModel(() => v3Result('x'));
    expect((await fromAiSdk(v3.model).generate(ask('Hi'))).usage).toEqual({ inputTokens: 9, outputTokens: 3 });
    const v2 = fakeModel(() => ({ content: [{ type: 'text', text: 'x' }], finishReason: 'stop', usage: { inputTokens: 5, outputTokens: 2, totalTokens: 7 }, warnings: [] }), 'v2');
    expect((await fromAiSdk(v2.model).generate(ask('Hi'))).usage).toEqual({ inputTokens: 5, outputTokens: 2 });
  });

  it('leaves counts the provider did not report undefined, never 0', async () => {
    const nested = fakeModel(() => v3Result('x', { usage: { inputTokens: { total: undefined }, outputTokens: { total: 4 } } }));
    expect((await fromAiSdk(nested.model).generate(ask('Hi'))).usage).toEqual({ outputTokens: 4 });
    const flat = fakeModel(() => ({ content: [{ type: 'text', text: 'x' }], finishReason: 'stop', usage: { inputTokens: undefined, outputTokens: undefined } }), 'v2');
    expect((await fromAiSdk(flat.model).generate(ask('Hi'))).usage).toEqual({});
    const none = fakeModel(() => ({ content: [{ type: 'text', text: 'x' }] }));
    expect((await fromAiSdk(none.model).generate(ask('Hi'))).usage).toEqual({});
  });

  it.each([
    [{ unified: 'length', raw: 'length' }, 'length'],
    [{ unified: 'content-filter', raw: 'content_filter' }, 'content-filter'],
    [{ unified: 'tool-calls', raw: 'tool_calls' }, 'other'],
    [{ unified: 'interrupted', raw: undefined }, 'other'],
    [{ unified: 'error', raw: undefined }, 'error'],
    ['length', 'length'],
    ['unknown', undefined],
  ])('maps finish reason %j to %j', async (reason, expected) => {
    const { model } = fakeModel(() => v3Result('x', { finishReason: reason }));
    expect((await fromAiSdk(model).generate(ask('Hi'))).finishReason).toBe(expected);
  });

  it('fails a result of no specification version with GENERATION_FAILED, not retryable', async () => {
    const { model } = fakeModel(() => ({ text: 'a v1-style result' }));
    const error = await catchTotError(() => fromAiSdk(model).generate(ask('Hi')), 'GENERATION_FAILED');
    expect(error.message).toMatch(/doGenerate returned a result of no AI SDK specification version \(content:/);
    expect(isRetryableError(error)).toBe(false);
  });

  it('asks n times for n > 1, since the AI SDK has no n', async () => {
    let i = 0;
    const { model, calls } = fakeModel(() => v3Result(`sample ${i++}`));
    const result = await callModel(fromAiSdk(model), ask('Propose.', { n: 3 }));
    expect(result.outputs.sort()).toEqual(['sample 0', 'sample 1', 'sample 2']);
    expect(calls).toHaveLength(3);
    expect(result.usage).toEqual({ inputTokens: 27, outputTokens: 9 });
  });

  describe('errors', () => {
    it("maps an APICallError to GENERATION_FAILED with its status, provider code, request id and the SDK's retry verdict", async () => {
      const apiError = aiSdkError('AI_APICallError', {
        statusCode: 429,
        isRetryable: true,
        responseHeaders: { 'retry-after': '2', 'x-request-id': 'req_123' },
        data: { error: { message: 'slow down', type: 'requests', code: 'rate_limit_exceeded' } },
      });
      const { model } = fakeModel(() => {
        throw apiError;
      });
      const error = await catchTotError(() => fromAiSdk(model).generate(ask('Hi')), 'GENERATION_FAILED');
      expect(error.details).toEqual({ modelId: 'fake-1', status: 429, providerCode: 'rate_limit_exceeded', requestId: 'req_123', retryAfterMs: 2000, retryable: true });
      expect(error.cause).toBe(apiError);
      expect(error.message).toBe('Model "fake-1" failed: HTTP 429 rate_limit_exceeded: AI_APICallError happened');
    });

    it("follows the SDK's verdict where the status alone would say otherwise", async () => {
      // A provider may mark a 400 retryable (or a 503 not): the SDK's isRetryable decides.
      const { model } = fakeModel(() => {
        throw aiSdkError('AI_APICallError', { statusCode: 503, isRetryable: false });
      });
      const error = await catchTotError(() => fromAiSdk(model).generate(ask('Hi')), 'GENERATION_FAILED');
      expect(isRetryableError(error)).toBe(false);
    });

    it('does not retry an AI SDK error about the request (an unsupported setting), but retries one about an unreadable reply', async () => {
      let unsupported = 0;
      const a = fakeModel(() => {
        unsupported++;
        throw aiSdkError('AI_UnsupportedFunctionalityError');
      });
      await catchTotError(() => withRetry(fromAiSdk(a.model), { maxRetries: 3, initialDelayMs: 0 }).generate(ask('Hi')), 'GENERATION_FAILED');
      expect(unsupported).toBe(1);
      let unreadable = 0;
      const b = fakeModel(() => {
        if (unreadable++ === 0) throw aiSdkError('AI_JSONParseError');
        return v3Result('ok');
      });
      expect((await withRetry(fromAiSdk(b.model), { maxRetries: 3, initialDelayMs: 0 }).generate(ask('Hi'))).outputs).toEqual(['ok']);
    });

    it('judges an error from below the SDK (a custom fetch) by the default policy', async () => {
      const { model } = fakeModel(() => {
        throw Object.assign(new Error('bad gateway'), { status: 502 });
      });
      const error = await catchTotError(() => fromAiSdk(model).generate(ask('Hi')), 'GENERATION_FAILED');
      expect(error.details?.retryable).toBe(true);
    });
  });

  describe('abort', () => {
    it("passes the signal to the provider's request", async () => {
      const { model, calls } = fakeModel(() => v3Result('x'));
      const controller = new AbortController();
      await fromAiSdk(model).generate(ask('Hi'), { signal: controller.signal });
      expect(calls[0]!.abortSignal).toBe(controller.signal);
    });

    it('settles with ABORTED at once even when the provider ignores the signal', async () => {
      const { model } = fakeModel(() => new Promise(() => undefined));
      const controller = new AbortController();
      const call = fromAiSdk(model).generate(ask('Hi'), { signal: controller.signal });
      controller.abort(new Error('stop'));
      const error = await settlesWithin(catchTotError(() => call, 'ABORTED'));
      expect((error.cause as Error).message).toBe('stop');
    });

    it("turns the provider's own abort error into ABORTED", async () => {
      const controller = new AbortController();
      const { model } = fakeModel((options) => {
        controller.abort();
        throw Object.assign(new Error('This operation was aborted'), { name: 'AbortError', signal: options.abortSignal });
      });
      await catchTotError(() => fromAiSdk(model).generate(ask('Hi'), { signal: controller.signal }), 'ABORTED');
    });

    it('never calls the provider when the signal has already fired', async () => {
      const { model, calls } = fakeModel(() => v3Result('x'));
      await catchTotError(() => fromAiSdk(model).generate(ask('Hi'), { signal: AbortSignal.abort() }), 'ABORTED');
      expect(calls).toHaveLength(0);
    });
  });
});
