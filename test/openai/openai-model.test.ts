import OpenAI, { APIConnectionError, InternalServerError } from 'openai';
import { describe, expect, it } from 'vitest';
import { callModel, isRetryableError, withRetry } from '../../src/index.js';
import { openAIModel } from '../../src/openai/index.js';
import { ask, catchTotError } from '../helpers/expect-tot-error.js';
import { chatCompletion } from '../helpers/openai-wire-server.js';
import { settlesWithin } from '../helpers/settles-within.js';

type Body = Record<string, unknown> & { n?: number };
type RequestOptions = { signal?: AbortSignal; maxRetries?: number; headers?: Record<string, string> };

/** A client with the shape of `openai`'s that answers with `reply(body)` and records every call. */
function fakeClient(reply: (body: Body, options: RequestOptions) => unknown) {
  const calls: { body: Body; options: RequestOptions }[] = [];
  const client = {
    chat: {
      completions: {
        async create(body: Body, options: RequestOptions) {
          calls.push({ body, options });
          return reply(body, options);
        },
      },
    },
  };
  return { client, calls };
}

describe('openAIModel', () => {
  it('takes a real openai client (checked by the compiler too)', () => {
    const model = openAIModel({ client: new OpenAI({ apiKey: 'k', baseURL: 'http://127.0.0.1:9/v1' }), model: 'gpt-4o-mini' });
    expect(model.modelId).toBe('gpt-4o-mini');
    expect(model.capabilities).toEqual({ multipleOutputs: true });
  });

  it('refuses something that is not a client, and a missing model name', async () => {
    const noClient = await catchTotError(() => openAIModel({ client: {} as never, model: 'm' }), 'INVALID_ARGUMENT');
    expect(noClient.message).toBe('openAIModel: options.client: expected an openai client (new OpenAI({ baseURL, apiKey }))');
    const { client } = fakeClient(() => chatCompletion(['x']));
    await catchTotError(() => openAIModel({ client, model: '' }), 'INVALID_ARGUMENT');
  });

  it("turns off the client's own retries for its calls, unless told otherwise", async () => {
    const { client, calls } = fakeClient(() => chatCompletion(['x']));
    await openAIModel({ client, model: 'm' }).generate(ask('Hi'));
    await openAIModel({ client, model: 'm', clientMaxRetries: 2 }).generate(ask('Hi'));
    expect(calls.map((c) => c.options.maxRetries)).toEqual([0, 2]);
  });

  it('sends only the fields the request sets, more params underneath, and the request winning', async () => {
    const { client, calls } = fakeClient(() => chatCompletion(['x']));
    await openAIModel({ client, model: 'm', params: { top_p: 0.9, temperature: 1 } }).generate(ask('Hi', { temperature: 0.2 }));
    expect(calls[0]!.body).toEqual({ top_p: 0.9, temperature: 0.2, model: 'm', messages: [{ role: 'user', content: 'Hi' }] });
  });

  it('refuses stream, n, model and messages among the extra params', async () => {
    const { client } = fakeClient(() => chatCompletion(['x']));
    const stream = await catchTotError(() => openAIModel({ client, model: 'm', params: { stream: true } }), 'INVALID_ARGUMENT');
    expect(stream.message).toBe('openAIModel: options.params.stream: streaming is not supported: the adapter reads whole responses');
    for (const field of ['n', 'model', 'messages']) {
      const error = await catchTotError(() => openAIModel({ client, model: 'm', params: { [field]: 1 } }), 'INVALID_ARGUMENT');
      expect(error.details?.field).toBe(`options.params.${field}`);
    }
  });

  it('checks a request given to its own generate, and sends nothing for a bad one', async () => {
    const { client, calls } = fakeClient(() => chatCompletion(['x']));
    const model = openAIModel({ client, model: 'm' });
    expect((await catchTotError(() => model.generate(ask('Hi', { n: 0 })), 'INVALID_ARGUMENT')).details?.field).toBe('request.n');
    await catchTotError(() => model.generate({ messages: 'Hi' } as never), 'INVALID_ARGUMENT');
    expect(calls).toHaveLength(0);
  });

  it("asks OpenAI to guarantee the schema with structuredOutputs: 'strict'", async () => {
    const { client, calls } = fakeClient(() => chatCompletion(['{}']));
    const schema = { type: 'object', properties: {}, additionalProperties: false };
    await openAIModel({ client, model: 'm', structuredOutputs: 'strict' }).generate(ask('JSON', { responseFormat: { type: 'json', schema } }));
    expect(calls[0]!.body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'response', schema, strict: true } });
  });

  it("writes the output token limit to max_completion_tokens for OpenAI's reasoning models", async () => {
    const { client, calls } = fakeClient(() => chatCompletion(['x']));
    await openAIModel({ client, model: 'o3-mini', maxTokensField: 'max_completion_tokens' }).generate(ask('Hi', { maxOutputTokens: 100 }));
    expect(calls[0]!.body).toMatchObject({ max_completion_tokens: 100 });
    expect(calls[0]!.body).not.toHaveProperty('max_tokens');
  });

  it('sends JSON mode without a schema as json_object even when structured outputs are on', async () => {
    const { client, calls } = fakeClient(() => chatCompletion(['{}']));
    await openAIModel({ client, model: 'm', structuredOutputs: true }).generate(ask('JSON please', { responseFormat: { type: 'json' } }));
    expect(calls[0]!.body.response_format).toEqual({ type: 'json_object' });
  });

  it('sends the HTTP headers given with every request', async () => {
    const { client, calls } = fakeClient(() => chatCompletion(['x']));
    await openAIModel({ client, model: 'm', headers: { 'x-team': 'a' } }).generate(ask('Hi'));
    expect(calls[0]!.options.headers).toEqual({ 'x-team': 'a' });
  });

  it('orders choices by their index', async () => {
    const { client } = fakeClient(() => {
      const body = chatCompletion(['first', 'second']) as { choices: { index: number }[] };
      return { ...body, choices: [...body.choices].reverse() };
    });
    expect((await openAIModel({ client, model: 'm' }).generate(ask('Hi', { n: 2 }))).outputs).toEqual(['first', 'second']);
  });

  it("reports the first choice's reason that is not 'stop', and a refusal as content-filter", async () => {
    const mixed = fakeClient(() => chatCompletion(['a', 'b', 'c'], { finishReason: ['stop', 'length', 'stop'] }));
    expect((await openAIModel({ client: mixed.client, model: 'm' }).generate(ask('Hi', { n: 3 }))).finishReason).toBe('length');
    const refusal = fakeClient(() => ({ choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: 'I cannot help with that.' }, finish_reason: 'stop' }] }));
    const result = await openAIModel({ client: refusal.client, model: 'm' }).generate(ask('Hi'));
    expect(result).toMatchObject({ outputs: [''], finishReason: 'content-filter' });
  });

  it("maps tool calls to finish reason 'other'", async () => {
    const { client } = fakeClient(() => chatCompletion([''], { finishReason: 'tool_calls' }));
    expect((await openAIModel({ client, model: 'm' }).generate(ask('Hi'))).finishReason).toBe('other');
  });

  it('fails when a server ignores n, saying to set multipleOutputs: false', async () => {
    const { client } = fakeClient(() => chatCompletion(['only one']));
    const error = await catchTotError(() => openAIModel({ client, model: 'm' }).generate(ask('Hi', { n: 3 })), 'GENERATION_FAILED');
    expect(error.message).toBe('Model "m" was asked for 3 choice(s) and returned 1: the server ignores n; pass multipleOutputs: false so that the library asks 3 times.');
    expect(isRetryableError(error)).toBe(false);
  });

  it('retries a reply without choices: another attempt may mend it', async () => {
    let attempts = 0;
    const { client } = fakeClient(() => (attempts++ === 0 ? { ...(chatCompletion([]) as object), choices: [] } : chatCompletion(['ok'])));
    const error = await catchTotError(() => openAIModel({ client, model: 'm' }).generate(ask('Hi')), 'GENERATION_FAILED');
    expect(error.details?.retryable).toBe(true);
    expect((await withRetry(openAIModel({ client, model: 'm' }), { initialDelayMs: 0 }).generate(ask('Hi'))).outputs).toEqual(['ok']);
  });

  it('asks n times, without n on the wire, with multipleOutputs: false', async () => {
    const { client, calls } = fakeClient(() => chatCompletion(['x']));
    const model = openAIModel({ client, model: 'm', multipleOutputs: false });
    expect(model.capabilities).toEqual({ multipleOutputs: false });
    expect((await callModel(model, ask('Hi', { n: 3 }))).outputs).toHaveLength(3);
    expect(calls.map((c) => c.body.n)).toEqual([undefined, undefined, undefined]);
  });

  it('fails a response that is not a chat completion with GENERATION_FAILED', async () => {
    const { client } = fakeClient(() => ({ object: 'list', data: [] }));
    const error = await catchTotError(() => openAIModel({ client, model: 'm' }).generate(ask('Hi')), 'GENERATION_FAILED');
    expect(error.message).toMatch(/^Model "m" returned a response that is not a chat completion/);
  });

  describe('errors', () => {
    it("follows the server's x-should-retry over the status", async () => {
      let attempts = 0;
      const { client } = fakeClient(() => {
        attempts++;
        throw new InternalServerError(500, { message: 'do not retry me' }, 'do not retry me', new Headers({ 'x-should-retry': 'false' }));
      });
      const error = await catchTotError(() => withRetry(openAIModel({ client, model: 'm' }), { initialDelayMs: 0 }).generate(ask('Hi')), 'GENERATION_FAILED');
      expect(attempts).toBe(1);
      expect(error.details).toMatchObject({ status: 500, retryable: false });
    });

    it('retries a connection failure (an APIError without a status)', async () => {
      let attempts = 0;
      const { client } = fakeClient(() => {
        if (attempts++ === 0) throw new APIConnectionError({ message: 'Connection error.' });
        return chatCompletion(['ok']);
      });
      expect((await withRetry(openAIModel({ client, model: 'm' }), { initialDelayMs: 0 }).generate(ask('Hi'))).outputs).toEqual(['ok']);
      expect(attempts).toBe(2);
    });

    it('keeps the request id the server sent', async () => {
      const { client } = fakeClient(() => {
        throw new InternalServerError(502, { message: 'bad gateway', type: 'server_error' }, 'bad gateway', new Headers({ 'x-request-id': 'req_9' }));
      });
      const error = await catchTotError(() => openAIModel({ client, model: 'm' }).generate(ask('Hi')), 'GENERATION_FAILED');
      expect(error.details).toMatchObject({ status: 502, requestId: 'req_9', providerCode: 'server_error' });
      expect(error.message).toBe('Model "m" failed: HTTP 502 server_error: bad gateway');
    });
  });

  it('settles with ABORTED at once even when the client ignores the signal', async () => {
    const { client, calls } = fakeClient(() => new Promise(() => undefined));
    const controller = new AbortController();
    const call = openAIModel({ client, model: 'm' }).generate(ask('Hi'), { signal: controller.signal });
    controller.abort();
    await settlesWithin(catchTotError(() => call, 'ABORTED'));
    expect(calls[0]!.options.signal).toBe(controller.signal);
  });
});
