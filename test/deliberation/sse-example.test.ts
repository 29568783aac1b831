import { afterEach, describe, expect, it } from 'vitest';
import type { GenerateRequest, LanguageModel } from '@tot/core';
import { planningDebate } from '@tot/core/deliberation';
import { withLatency } from '@tot/core/testing';
import { ieltsModel } from '../../examples/deliberation/ielts-model.js';
import { SCENARIO_THRESHOLDS, startDeliberationServer, type DeliberationServer } from '../../examples/deliberation/server.js';

const QUERY = 'Help me plan three months of IELTS preparation';
const SEED_REQUEST = JSON.stringify({ message: QUERY, mode: 'multi_agent' });

interface SseMessage {
  type: string;
  agent?: string;
  round?: number;
  action?: string;
}

/** The `data:` payloads of an SSE body, in order (`[DONE]` as the string). */
const dataLines = (body: string): string[] =>
  body
    .split('\n\n')
    .filter((event) => event !== '')
    .map((event) => {
      expect(event.startsWith('data: '), `every event is a data line: ${JSON.stringify(event)}`).toBe(true);
      return event.slice('data: '.length);
    });

/** What the seed's §6.1 sequence is made of: type, then agent or action, then round. */
const shape = (data: string): string => {
  if (data === '[DONE]') return '[DONE]';
  const m = JSON.parse(data) as SseMessage;
  if (m.type === 'host_decision') return `host_decision ${m.action} r${m.round}`;
  if (m.type === 'final_report') return `final_report ${m.agent}`;
  return `${m.type} ${m.agent ?? ''} r${m.round ?? '?'}`;
};

let server: DeliberationServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('examples/deliberation: the SSE server', () => {
  it("streams the seed's IELTS sequence to an HTTP client, round by round, ending with [DONE]", async () => {
    server = await startDeliberationServer();
    const res = await fetch(`${server.url}/deliberate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: SEED_REQUEST });

    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(dataLines(await res.text()).map(shape)).toEqual([
      'agent_output planner r1',
      'agent_output critic r1',
      'host_decision continue r1',
      'agent_output planner r2',
      'agent_output critic r2',
      'host_decision converge r2',
      'final_report reporter',
      '[DONE]',
    ]);
    expect((await server.lastResult)?.stopReason).toBe('converged');
  });

  it('serves the same deliberation to GET /deliberate?message=…', async () => {
    server = await startDeliberationServer();
    const res = await fetch(`${server.url}/deliberate?message=${encodeURIComponent(QUERY)}&mode=multi_agent`);

    const lines = dataLines(await res.text()).map(shape);
    expect(lines.at(-2)).toBe('final_report reporter');
    expect(lines.at(-1)).toBe('[DONE]');
  });

  it('aborts the deliberation when the client disconnects after the first agent_output: no model call starts afterwards', async () => {
    const started: { agent: string; round: string; afterDisconnect: boolean }[] = [];
    // Round 1 is quick, later calls are slow: the disconnect lands while round 2 is in flight,
    // however slowly the server notices it, so there are calls left that must never start.
    const slow = withLatency(ieltsModel(), (r: GenerateRequest) => (r.tags?.round === '1' ? 50 : 2_000));
    const counting: LanguageModel = {
      modelId: slow.modelId,
      generate(request, options) {
        started.push({ agent: request.tags?.agent ?? '?', round: request.tags?.round ?? '?', afterDisconnect: server!.disconnects > 0 });
        return slow.generate(request, options);
      },
    };
    server = await startDeliberationServer({ model: counting });
    const client = new AbortController();
    const res = await fetch(`${server.url}/deliberate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: SEED_REQUEST, signal: client.signal });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let received = '';
    while (!received.includes('"type":"agent_output"')) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended before any agent_output: ${received}`);
      received += decoder.decode(value, { stream: true });
    }
    client.abort();

    const outcome = await server.lastResult!;
    expect(outcome.clientDisconnected).toBe(true);
    expect(outcome.stopReason).toBe('aborted');
    expect(started.filter((c) => c.afterDisconnect)).toEqual([]);
    // The run was cut short: calls of round 1 started, the reporter's never did.
    expect(started.some((c) => c.round === '1')).toBe(true);
    expect(started.some((c) => c.agent === 'reporter')).toBe(false);
  });

  it('answers 400 with a JSON error to a POST without a message, and starts no deliberation', async () => {
    server = await startDeliberationServer();
    const res = await fetch(`${server.url}/deliberate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ mode: 'multi_agent' }) });

    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toMatchObject({ error: 'bad_request' });
    expect(server.runs).toBe(0);
  });
});

describe('examples/deliberation: the IELTS model', () => {
  it('is worded so the lexical host continues after round 1 and converges after round 2', async () => {
    const r = await planningDebate({ model: ieltsModel(), host: { lexicalThresholds: SCENARIO_THRESHOLDS } }).run(QUERY);

    expect(r.errors).toEqual([]);
    expect(r.rounds.map((round) => round.hostDecision?.action)).toEqual(['continue', 'converge']);
    const [first, second] = r.consensusTrend;
    // The example's lexical thresholds: continue above 0.3, converge above 0.6.
    expect(first).toBeGreaterThan(0.3);
    expect(first).toBeLessThanOrEqual(0.6);
    expect(second).toBeGreaterThan(0.6);
    expect(SCENARIO_THRESHOLDS).toEqual({ converge: 0.6, continue: 0.3 });
    expect(r.rounds.every((round) => round.hostDecision?.analysis?.backend === 'lexical')).toBe(true);
  });
});
