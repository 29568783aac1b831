/**
 * The provider adapters driven through the real client packages (both `openai` majors, the AI
 * SDK's OpenAI-compatible provider for specifications v2, v3 and v4) against a local server that
 * speaks the OpenAI wire format. No network.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { bfs, callModel, createEvaluator, createGenerator, Explorer, generateStructured, TotError, withRetry, type RetryNotice } from '../../src/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';
import { chatCompletion, embeddingList, errorBody, lastUserMessage, startWireServer, type WireServer } from '../helpers/openai-wire-server.js';
import { PROVIDER_CLIENTS } from '../helpers/provider-clients.js';
import { settlesWithin } from '../helpers/settles-within.js';

const ask = (content: string, extra: Record<string, unknown> = {}) => ({ messages: [{ role: 'user' as const, content }], ...extra });

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

describe.each(PROVIDER_CLIENTS)('$name', (client) => {
  const model = (settings?: Parameters<typeof client.model>[1]) => client.model(server.url, settings);

  describe('a call', () => {
    it("returns the server's output, token usage and finish reason", async () => {
      server.handle(() => ({ json: chatCompletion(['Seven is prime.'], { usage: { prompt_tokens: 12, completion_tokens: 4 } }) }));
      const result = await model().generate(ask('Name a prime.'));
      expect(result.outputs).toEqual(['Seven is prime.']);
      expect(result.usage).toEqual({ inputTokens: 12, outputTokens: 4 });
      expect(result.finishReason).toBe('stop');
    });

    it('sends the messages in order with their roles, and no tags', async () => {
      await model().generate({
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: 'Hello.' },
          { role: 'user', content: 'A prime?' },
        ],
        tags: { role: 'generator' },
      });
      expect(server.requests[0]!.body.messages).toEqual([
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello.' },
        { role: 'user', content: 'A prime?' },
      ]);
      expect(JSON.stringify(server.requests[0]!.body)).not.toContain('generator');
    });

    it('puts temperature, the output token limit, stop sequences and seed on the wire', async () => {
      await model().generate(ask('Count.', { temperature: 0.3, maxOutputTokens: 64, stop: ['\n\n'], seed: 42 }));
      const body = server.requests[0]!.body;
      expect(body).toMatchObject({ model: 'test-model', temperature: 0.3, max_tokens: 64, stop: ['\n\n'], seed: 42 });
    });

    it('reports usage the server does not send as unknown, never 0', async () => {
      server.handle(() => ({ json: chatCompletion(['ok'], { usage: null }) }));
      const result = await model().generate(ask('Hi'));
      expect(result.usage.inputTokens).toBeUndefined();
      expect(result.usage.outputTokens).toBeUndefined();
    });

    it("reports finish reason 'length' when the output was cut at the token limit", async () => {
      server.handle(() => ({ json: chatCompletion(['Once upon a'], { finishReason: 'length' }) }));
      expect((await model().generate(ask('A story.', { maxOutputTokens: 3 }))).finishReason).toBe('length');
    });

    it(`returns n: 3 outputs ${client.nativeN ? 'from one request with n = 3' : 'from three requests (the library asks three times)'}`, async () => {
      server.handle((request, index) => {
        const n = typeof request.body.n === 'number' ? request.body.n : 1;
        return { json: chatCompletion(Array.from({ length: n }, (_, i) => `sample ${index}.${i}`)) };
      });
      const result = await callModel(model(), ask('Propose a step.', { n: 3 }));
      expect(result.outputs).toHaveLength(3);
      expect(new Set(result.outputs).size).toBe(3);
      if (client.nativeN) {
        expect(server.requests).toHaveLength(1);
        expect(server.requests[0]!.body.n).toBe(3);
      } else {
        expect(server.requests).toHaveLength(3);
        expect(server.requests.every((r) => r.body.n === undefined)).toBe(true);
      }
    });

    it("answers n: 3 from the adapter's own generate too", async () => {
      server.handle((request, index) => ({ json: chatCompletion(Array.from({ length: request.body.n ?? 1 }, (_, i) => `s${index}.${i}`)) }));
      expect((await model().generate(ask('Propose.', { n: 3 }))).outputs).toHaveLength(3);
    });

    it("sends JSON mode as response_format { type: 'json_object' }", async () => {
      server.handle(() => ({ json: chatCompletion(['{"ok": true}']) }));
      await model().generate(ask('Reply in JSON.', { responseFormat: { type: 'json' } }));
      expect(server.requests[0]!.body.response_format).toEqual({ type: 'json_object' });
    });

    it("sends the request's JSON schema as response_format { type: 'json_schema' } when structured outputs are on", async () => {
      server.handle(() => ({ json: chatCompletion(['{"score": 7}']) }));
      const schema = { type: 'object', properties: { score: { type: 'number' } }, required: ['score'] };
      await model({ structuredOutputs: true }).generate(ask('Rate it in JSON.', { responseFormat: { type: 'json', schema } }));
      const format = server.requests[0]!.body.response_format;
      expect(format.type).toBe('json_schema');
      expect(format.json_schema.schema).toEqual(schema);
    });
  });

  describe('errors and retries', () => {
    it('waits for Retry-After: 1 on a 429 and then succeeds, through withRetry', async () => {
      server.handle((_, index) =>
        index === 0 ? { status: 429, headers: { 'retry-after': '1' }, json: errorBody('Rate limit reached', 'requests', 'rate_limit_exceeded') } : { json: chatCompletion(['done']) },
      );
      const notices: RetryNotice[] = [];
      // No backoff of its own: only the server's hint can make the retry wait.
      const result = await withRetry(model(), { maxRetries: 2, initialDelayMs: 0 }).generate(ask('Hi'), { onRetry: (n) => notices.push(n) });
      expect(result.outputs).toEqual(['done']);
      expect(server.requests).toHaveLength(2);
      expect(notices.map((n) => n.delayMs)).toEqual([1000]);
      expect(server.requests[1]!.at - server.requests[0]!.at).toBeGreaterThanOrEqual(990);
      expect(TotError.hasCode(notices[0]!.error, 'GENERATION_FAILED') && notices[0]!.error.details?.status).toBe(429);
    });

    it('honours retry-after-ms', async () => {
      server.handle((_, index) =>
        index === 0 ? { status: 429, headers: { 'retry-after-ms': '250' }, json: errorBody('slow down', 'requests') } : { json: chatCompletion(['done']) },
      );
      const notices: RetryNotice[] = [];
      await withRetry(model(), { initialDelayMs: 0 }).generate(ask('Hi'), { onRetry: (n) => notices.push(n) });
      expect(notices.map((n) => n.delayMs)).toEqual([250]);
    });

    it('does not retry a 400, and the caller sees the status, the provider code and the request id', async () => {
      server.handle(() => ({ status: 400, headers: { 'x-request-id': 'req_abc' }, json: errorBody("Invalid value for 'temperature'", 'invalid_request_error', 'invalid_value') }));
      const error = await catchTotError(() => withRetry(model(), { maxRetries: 3, initialDelayMs: 0 }).generate(ask('Hi')), 'GENERATION_FAILED');
      expect(server.requests).toHaveLength(1);
      expect(error.details).toMatchObject({ status: 400, providerCode: 'invalid_value', requestId: 'req_abc', retryable: false });
      expect(error.recoverable).toBe(false);
      expect(error.message).toContain('HTTP 400');
    });

    it('retries a 500 and succeeds', async () => {
      server.handle((_, index) => (index === 0 ? { status: 500, json: errorBody('The server had an error', 'server_error') } : { json: chatCompletion(['recovered']) }));
      const result = await withRetry(model(), { maxRetries: 2, initialDelayMs: 0 }).generate(ask('Hi'));
      expect(result.outputs).toEqual(['recovered']);
      expect(server.requests).toHaveLength(2);
    });

    it('gives up after maxRetries with the status, the attempts and a retryable verdict', async () => {
      server.handle(() => ({ status: 503, json: errorBody('overloaded', 'server_error') }));
      const error = await catchTotError(() => withRetry(model(), { maxRetries: 2, initialDelayMs: 0 }).generate(ask('Hi')), 'GENERATION_FAILED');
      expect(server.requests).toHaveLength(3);
      expect(error.details).toMatchObject({ status: 503, retryable: true, attempts: 3 });
    });

    it('retries a 200 reply that is not JSON, and succeeds', async () => {
      server.handle((_, index) => (index === 0 ? { text: '<html>Bad gateway</html>' } : { json: chatCompletion(['recovered']) }));
      const error = await catchTotError(() => model().generate(ask('Hi')), 'GENERATION_FAILED');
      expect(error.details?.retryable).toBe(true);
      expect(error.details?.status).toBeUndefined();
      const result = await withRetry(model(), { maxRetries: 2, initialDelayMs: 0 }).generate(ask('Hi'));
      expect(result.outputs).toEqual(['recovered']);
    });

    it('refuses a bad request before sending anything', async () => {
      await catchTotError(() => model().generate(ask('Hi', { n: 0 })), 'INVALID_ARGUMENT');
      await catchTotError(() => model().generate({ messages: [] }), 'INVALID_ARGUMENT');
      expect(server.requests).toHaveLength(0);
    });

    it("makes one request per attempt: the client's own retries are not in the path", async () => {
      server.handle(() => ({ status: 429, json: errorBody('Rate limit reached', 'requests') }));
      await catchTotError(() => model().generate(ask('Hi')), 'GENERATION_FAILED');
      expect(server.requests).toHaveLength(1);
    });

    it('settles within a second of an abort mid-request, and the server sees the connection close', async () => {
      server.handle(() => ({ hang: true }));
      const controller = new AbortController();
      const closed = server.clientClosed();
      const call = model().generate(ask('Think for a long time.'), { signal: controller.signal });
      await waitFor(() => server.requests.length === 1);
      controller.abort(new Error('user left'));
      const error = await settlesWithin(catchTotError(() => call, 'ABORTED'));
      expect((error.cause as Error).message).toBe('user left');
      const request = await settlesWithin(closed);
      expect(request.closedByClient).toBe(true);
    });
  });

  describe('end to end', () => {
    it('runs an Explorer search: every model call reaches the server, and its usage the run stats', async () => {
      server.handle((request) => {
        const prompt = lastUserMessage(request);
        const depth = (prompt.match(/step/g) ?? []).length;
        return {
          json: chatCompletion(
            [prompt.startsWith('Propose') ? JSON.stringify({ candidates: [{ content: `step ${depth}a` }, { content: `step ${depth}b` }] }) : '{"score": 7, "confidence": 0.8, "reasoning": "fine"}'],
            { usage: { prompt_tokens: 20, completion_tokens: 6 } },
          ),
        };
      });
      const llm = model();
      const explorer = new Explorer({
        generator: createGenerator({ model: llm, prompt: 'Propose {{k}} next steps after: {{path}}. Reply with JSON {"candidates": [{"content": "…"}]}.' }),
        evaluator: createEvaluator({ model: llm, prompt: 'Score the last step of: {{path}}. Reply with JSON {"score": 0-10, "confidence": 0-1, "reasoning": "…"}.' }),
        strategy: bfs({ beamWidth: 2 }),
        maxDepth: 2,
        branchingFactor: 2,
        pruningThreshold: 0,
        strict: true,
      });
      const result = await explorer.run('Reach the goal in two steps.');
      expect(result.tree.size).toBe(7);
      expect([...result.tree.all()].filter((n) => n.depth > 0).every((n) => n.evaluation?.score === 7)).toBe(true);
      expect(result.errors).toEqual([]);
      // Three proposals and six evaluations, one request each.
      expect(result.stats.llmCalls).toBe(9);
      expect(server.requests).toHaveLength(9);
      expect(result.stats.inputTokens).toBe(9 * 20);
      expect(result.stats.outputTokens).toBe(9 * 6);
    });

    it('gets a typed value from generateStructured, with JSON mode on the wire', async () => {
      server.handle(() => ({ json: chatCompletion(['Here you go:\n```json\n{"score": 8, "reason": "(10 - 4) * 4 = 24"}\n```']) }));
      const { value, attempts } = await generateStructured(model(), {
        prompt: 'Rate this step from 0 to 10 and reply in JSON: 13 - 9 = 4',
        schema: z.object({ score: z.number().min(0).max(10), reason: z.string() }),
      });
      expect(value).toEqual({ score: 8, reason: '(10 - 4) * 4 = 24' });
      expect(attempts).toBe(1);
      expect(server.requests[0]!.body.response_format).toEqual({ type: 'json_object' });
    });

    it('repairs an unusable reply through the server, one request per attempt', async () => {
      server.handle((_, index) => ({ json: chatCompletion([index === 0 ? 'I think about 8?' : '{"score": 8}']) }));
      const { value, attempts } = await generateStructured(model(), { prompt: 'Rate it in JSON.', schema: z.object({ score: z.number() }) });
      expect(value).toEqual({ score: 8 });
      expect(attempts).toBe(2);
      expect(server.requests[1]!.body.messages.at(-2)).toEqual({ role: 'assistant', content: 'I think about 8?' });
    });
  });

  describe('embeddings', () => {
    const vectorOf = (text: string) => [text.length, text.charCodeAt(0)];
    const embeddingsReply = () => (request: { body: Record<string, any> }) => ({ json: embeddingList((request.body.input as string[]).map(vectorOf)) });

    it('returns one vector per text, in order', async () => {
      server.handle(embeddingsReply());
      const vectors = await client.embedder(server.url).embed(['apple', 'kiwi', 'banana']);
      expect(vectors).toEqual([vectorOf('apple'), vectorOf('kiwi'), vectorOf('banana')]);
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0]!.path).toBe('/v1/embeddings');
      expect(server.requests[0]!.body).toMatchObject({ model: 'test-embedder', input: ['apple', 'kiwi', 'banana'], encoding_format: 'float' });
    });

    it("splits texts into requests of the provider's batch size", async () => {
      server.handle(embeddingsReply());
      const vectors = await client.embedder(server.url, { embeddingBatchSize: 2 }).embed(['a', 'bb', 'ccc', 'dddd', 'eeeee']);
      expect(vectors).toEqual(['a', 'bb', 'ccc', 'dddd', 'eeeee'].map(vectorOf));
      expect(server.requests.map((r) => r.body.input)).toEqual([['a', 'bb'], ['ccc', 'dddd'], ['eeeee']]);
    });

    it('retries a rate-limited batch, waiting for Retry-After', async () => {
      server.handle((request, index) =>
        index === 0 ? { status: 429, headers: { 'retry-after-ms': '50' }, json: errorBody('Rate limit reached', 'requests') } : embeddingsReply()(request),
      );
      expect(await client.embedder(server.url).embed(['apple'])).toEqual([vectorOf('apple')]);
      expect(server.requests).toHaveLength(2);
      expect(server.requests[1]!.at - server.requests[0]!.at).toBeGreaterThanOrEqual(45);
    });

    it('makes one request for a failed batch with retry: { maxRetries: 0 }', async () => {
      server.handle(() => ({ status: 500, json: errorBody('boom', 'server_error') }));
      const error = await catchTotError(() => client.embedder(server.url, { embeddingRetry: { maxRetries: 0 } }).embed(['x']), 'GENERATION_FAILED');
      expect(error.details).toMatchObject({ status: 500, retryable: true });
      expect(server.requests).toHaveLength(1);
    });

    it('fails with the status on a provider error', async () => {
      server.handle(() => ({ status: 401, json: errorBody('Incorrect API key provided', 'invalid_request_error', 'invalid_api_key') }));
      const error = await catchTotError(() => client.embedder(server.url).embed(['x']), 'GENERATION_FAILED');
      expect(error.details).toMatchObject({ status: 401, providerCode: 'invalid_api_key', retryable: false });
    });

    it('settles within a second of an abort, closing the request', async () => {
      server.handle(() => ({ hang: true }));
      const controller = new AbortController();
      const closed = server.clientClosed();
      const call = client.embedder(server.url).embed(['x'], { signal: controller.signal });
      await waitFor(() => server.requests.length === 1);
      controller.abort();
      await settlesWithin(catchTotError(() => call, 'ABORTED'));
      expect((await settlesWithin(closed)).closedByClient).toBe(true);
    });
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}
