import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { bfs, createEvaluator, createGenerator, Explorer, InMemoryEventStore, solve, withRetry, type ExplorationResult, type LanguageModel, type SolveAnswered, type SolveFailed, type SolveResult } from '../../src/index.js';
import { openAIModel } from '../../src/openai/index.js';
import { collect } from '../helpers/collect.js';
import { catchTotError } from '../helpers/expect-tot-error.js';
import { chatCompletion, errorBody, startWireServer, type WireServer } from '../helpers/openai-wire-server.js';
import { PROVIDER_CLIENTS } from '../helpers/provider-clients.js';

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

/** A port nothing listens on: taken from the system, then given back. */
async function deadPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

const explorerOn = (model: LanguageModel) => new Explorer({ generator: createGenerator({ model }), evaluator: createEvaluator({ model }), strategy: bfs({ beamWidth: 2 }), maxDepth: 3 });
const openai = (baseURL: string) => openAIModel({ client: new OpenAI({ baseURL, apiKey: 'test-key' }), model: 'test-model' });

const unauthorized = () => ({ status: 401, json: errorBody('Incorrect API key provided: test-key.', 'invalid_request_error', 'invalid_api_key') });

describe('a provider error after which no call can succeed rejects the run', () => {
  for (const client of PROVIDER_CLIENTS) {
    it(`${client.name}: a 401 rejects the search with the provider's status and message, once the log holds the failure`, async () => {
      server.handle(unauthorized);
      const store = new InMemoryEventStore();
      const error = await catchTotError(() => explorerOn(client.model(server.url)).run('Use 4 9 10 13 to make 24.', { store, runId: 'r401' }), 'GENERATION_FAILED');
      expect(error.details?.status).toBe(401);
      expect(error.message).toContain('Incorrect API key provided');
      const partial = error.details?.result as unknown as ExplorationResult;
      expect(partial.stopReason).toBe('error');
      expect(partial.errors).toMatchObject([{ code: 'GENERATION_FAILED', where: { kind: 'model', callId: 'c1' } }]);
      // One request, and no other call after it.
      expect(server.requests).toHaveLength(1);
      const log = (await collect(store.readStream('r401'))).map((e) => e.data as { type: string; stopReason?: string; error?: { code: string } });
      expect(log.map((e) => e.type)).toEqual(['run.started', 'search.started', 'node.created', 'llm.requested', 'llm.failed', 'search.state', 'run.finished']);
      expect(log.at(-1)).toMatchObject({ stopReason: 'error', error: { code: 'GENERATION_FAILED' } });
    });
  }

  for (const [status, code] of [
    [403, 'permission_denied'],
    [404, 'model_not_found'],
  ] as const) {
    it(`a ${status} (${code}) rejects the run the same way`, async () => {
      server.handle(() => ({ status, json: errorBody(`${code}: test-model`, 'invalid_request_error', code) }));
      const error = await catchTotError(() => explorerOn(openai(server.url)).run('R'), 'GENERATION_FAILED');
      expect(error.details).toMatchObject({ status, providerCode: code });
      expect(server.requests).toHaveLength(1);
    });
  }

  for (const client of PROVIDER_CLIENTS) {
    it(`${client.name}: a provider that cannot be reached rejects the run once its retries are spent`, async () => {
      const url = `http://127.0.0.1:${await deadPort()}/v1`;
      const error = await catchTotError(() => explorerOn(withRetry(client.model(url), { maxRetries: 2, initialDelayMs: 0 })).run('R'), 'GENERATION_FAILED');
      expect(error.details).toMatchObject({ unreachable: 'ECONNREFUSED', attempts: 3 });
      expect((error.details?.result as unknown as ExplorationResult).stats).toMatchObject({ llmCalls: 1, retries: 2, failedCalls: 1 });
    });
  }

  it('rejects solve() against a dead port instead of resolving with an empty answer', async () => {
    const model = openai(`http://127.0.0.1:${await deadPort()}/v1`);
    const error = await catchTotError(() => solve({ problem: 'Use 4 9 10 13 to make 24.', taskType: 'math_reasoning', model }), 'GENERATION_FAILED');
    expect(error.details?.unreachable).toBe('ECONNREFUSED');
    const partial = error.details?.result as unknown as SolveResult;
    expect(partial.stopReason).toBe('error');
    expect(partial.solution).toBeUndefined();
  });
});

describe('an error that concerns one request stays in the result', () => {
  it('a 400 on the evaluator requests is collected on the nodes, and the run resolves', async () => {
    server.handle((request) =>
      String(JSON.stringify(request.body.messages)).includes('judging')
        ? { status: 400, json: errorBody('This model does not support n > 1.', 'invalid_request_error') }
        : { json: chatCompletion(['{"candidates": [{"content": "13 - 9 = 4"}]}']) },
    );
    const result = await explorerOn(openai(server.url)).run('R');
    expect(result.errors[0]).toMatchObject({ code: 'GENERATION_FAILED', where: { kind: 'node', role: 'evaluator' } });
    expect(result.errors[0]!.message).toContain('HTTP 400');
    expect(result.stopReason).toBe('search_exhausted');
  });

  it('a run whose every call fails with an error of its own request resolves with error and, from solve(), no solution', async () => {
    server.handle(() => ({ status: 400, json: errorBody('Invalid value for temperature.', 'invalid_request_error') }));
    const result = await solve({ problem: 'R', model: openai(server.url) });
    expect(result.stopReason).toBe('error');
    expect(result.detail).toMatchObject({ kind: 'error', code: 'GENERATION_FAILED', message: expect.stringContaining('HTTP 400') });
    expect(result.solution).toBeUndefined();
  });

  it('the type of a result with stopReason error has no solution to read', () => {
    expectTypeOf<SolveFailed['solution']>().toEqualTypeOf<undefined>();
    expectTypeOf<SolveAnswered['solution']['answer']>().toEqualTypeOf<string>();
  });
});
