import { afterEach, describe, expect, it, vi } from 'vitest';
import { fromFunction, InMemoryEventStore, type GenerateRequest, type LanguageModel } from '../../src/index.js';
import {
  agentTools,
  Deliberation,
  llmAgent,
  llmHost,
  outputToProtocol,
  societyOfMind,
  toProtocol,
  toSSE,
  type DeliberationEvent,
  type DeliberationHost,
} from '../../src/deliberation/index.js';
import { collect } from '../helpers/collect.js';
import { dyingStore } from '../helpers/dying-store.js';
import { catchTotError } from '../helpers/expect-tot-error.js';
import { echoModel, recordingReporter, scriptedAgent, fixedRounds } from './fixtures/scripted-debate.js';


const echoAgent = (id: string, model: LanguageModel) => llmAgent({ id, model, system: `You are ${id}. Question: {{query}}`, turn: (ctx) => `turn ${ctx.round}` });

afterEach(() => {
  vi.useRealTimers();
});

describe('Deliberation: rounds', () => {
  it('runs round 1\'s agents at once: two agents of 100 ms both answer within 100 ms', async () => {
    vi.useFakeTimers();
    const slow = (id: string) => ({ id, respond: () => new Promise<{ content: string }>((resolve) => setTimeout(() => resolve({ content: id }), 100)) });
    const d = new Deliberation({ agents: [slow('a'), slow('b')], host: fixedRounds(1) });
    const outputs: string[] = [];
    d.on('agent.output', (e) => outputs.push(e.output.agentId));
    const done = d.run('q');
    await vi.advanceTimersByTimeAsync(100);
    expect(outputs).toEqual(['a', 'b']);
    expect((await done).stopReason).toBe('converged');
  });

  it('runs later rounds in the order the host names, each agent seeing the outputs given before it', async () => {
    const a = scriptedAgent('a', ['x']);
    const b = scriptedAgent('b', ['y']);
    const host: DeliberationHost = {
      decide: (ctx) => ({ action: ctx.round === 2 ? 'converge' : 'continue', reason: '', nextAgents: ctx.round === 2 ? [] : ['b', 'a'], constraints: { mustAddress: [], avoid: [] }, directives: [] }),
    };
    const r = await new Deliberation({ agents: [a, b], host }).run('q');
    expect(r.rounds[1]!.outputs.map((o) => o.agentId)).toEqual(['b', 'a']);
    expect(a.seen[1]!.current.map((o) => o.agentId)).toEqual(['b']);
    expect(r.rounds[0]!.outputs.every((o) => o.round === 1)).toBe(true);
  });

  it('keeps each agent\'s own conversation across rounds: system, its earlier exchanges, the new turn', async () => {
    const model = echoModel();
    await new Deliberation({ agents: [echoAgent('a', model), echoAgent('b', model)], host: fixedRounds(2) }).run('Q?');
    const second = model.requests.find((r) => r.tags?.agent === 'a' && r.tags.round === '2')!;
    expect(second.messages).toEqual([
      { role: 'system', content: 'You are a. Question: Q?' },
      { role: 'user', content: 'turn 1' },
      { role: 'assistant', content: 'turn 1 -> a@1' },
      { role: 'user', content: 'turn 2' },
    ]);
  });

  it('computes how a position changed since the agent\'s previous one', async () => {
    const agent = {
      id: 'a',
      respond: (ctx: { round: number }) => ({
        content: 'c',
        position: ctx.round === 1 ? { conclusion: 'Three phases', keyReasons: ['vocabulary'], assumptions: [], confidence: 0.8 } : { conclusion: 'three  PHASES', keyReasons: ['vocabulary', 'mocks'], assumptions: [], confidence: 0.85 },
      }),
    };
    const r = await new Deliberation({ agents: [agent], host: fixedRounds(2) }).run('q');
    expect(r.rounds[0]!.outputs[0]!.position!.changesFromLastRound).toBeUndefined();
    expect(r.rounds[1]!.outputs[0]!.position!.changesFromLastRound).toEqual({ conclusionChanged: false, reasonsAdded: ['mocks'], reasonsDropped: [], confidenceDelta: 0.05 });
  });

  it('rejects a host that names an agent that does not exist, recording the error', async () => {
    const host: DeliberationHost = { decide: () => ({ action: 'continue', reason: '', nextAgents: ['ghost'], constraints: { mustAddress: [], avoid: [] }, directives: [] }) };
    const r = await new Deliberation({ agents: [scriptedAgent('a', ['x'])], host }).run('q');
    expect(r.stopReason).toBe('error');
    expect(r.errors[0]).toMatchObject({ code: 'INVALID_FORMAT', where: { kind: 'agent', agentId: 'host', round: 1 } });
    expect(r.errors[0]!.message).toMatch(/"ghost"/);
  });

  it('refuses bad options with INVALID_ARGUMENT naming the field', async () => {
    const e = await catchTotError(() => new Deliberation({ agents: [scriptedAgent('a', ['x']), scriptedAgent('a', ['y'])], host: fixedRounds(1) }), 'INVALID_ARGUMENT');
    expect(e.message).toMatch(/agents.*two agents have the id "a"/);
    await catchTotError(() => new Deliberation({ agents: [scriptedAgent('a', ['x'])], host: fixedRounds(1) }).run('   '), 'INVALID_ARGUMENT');
  });
});

describe('Deliberation: failure protocol (seed 001 §7, §10)', () => {
  it('skips an agent that times out and reuses its last output, marked stale', async () => {
    const slowInRound2 = {
      id: 'slow',
      respond: (ctx: { round: number }, { signal }: { signal: AbortSignal }) =>
        ctx.round === 1 ? { content: 'first', position: { conclusion: 'first', keyReasons: [], assumptions: [], confidence: 0.5 } } : new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
    };
    const events: DeliberationEvent[] = [];
    const r = await new Deliberation({ agents: [slowInRound2, scriptedAgent('fast', ['x'])], host: fixedRounds(2), agentTimeoutMs: 30 }).run('q', { onEvent: (e) => events.push(e) });
    const stale = r.rounds[1]!.outputs.find((o) => o.agentId === 'slow')!;
    expect(stale).toMatchObject({ content: 'first', round: 2, stale: { reason: 'agent_timeout', fromRound: 1 } });
    expect(events.find((e) => e.type === 'agent.skipped')).toMatchObject({ agentId: 'slow', round: 2, reason: 'agent_timeout', error: { code: 'TIMEOUT' } });
    expect(r.errors).toMatchObject([{ code: 'TIMEOUT', where: { kind: 'agent', agentId: 'slow', round: 2 } }]);
    expect(r.stats.staleOutputs).toBe(1);
    expect(r.stopReason).toBe('converged');
  });

  it('withholds an output the content filter refuses, as a skipped turn', async () => {
    const r = await new Deliberation({
      agents: [scriptedAgent('a', ['fine', 'secret password'])],
      host: fixedRounds(2),
      contentFilter: (o) => (o.content.includes('password') ? { allowed: false, reason: 'mentions a password' } : true),
    }).run('q');
    expect(r.rounds[1]!.outputs[0]).toMatchObject({ content: 'a: fine', stale: { reason: 'content_filtered', fromRound: 1 } });
    expect(r.errors[0]!.message).toMatch(/mentions a password/);
  });

  it('gives every model call the per-output token cap', async () => {
    const model = echoModel();
    await new Deliberation({ agents: [echoAgent('a', model)], host: fixedRounds(1), maxOutputTokens: 123 }).run('q');
    expect(model.requests.map((r) => r.maxOutputTokens)).toEqual([123]);
  });

  it('rejects at the first skipped agent when strict', async () => {
    const failing = { id: 'bad', respond: () => Promise.reject(new Error('boom')) };
    const e = await catchTotError(() => new Deliberation({ agents: [failing], host: fixedRounds(1), strict: true }).run('q'), 'INTERNAL');
    expect(e.message).toMatch(/bad in round 1: boom/);
  });

  it('stops at the budget with the rounds it finished', async () => {
    const model = echoModel();
    const r = await new Deliberation({ agents: [echoAgent('a', model), echoAgent('b', model)], host: fixedRounds(5), budget: { maxCalls: 3 }, parallelFirstRound: false }).run('q');
    expect(r.stopReason).toBe('budget_exceeded');
    expect(r.rounds[0]!.hostDecision).toBeDefined();
    expect(model.requests).toHaveLength(3);
  });

  it('is interrupted by its signal: it rejects with ABORTED and the rounds so far, and makes no call after', async () => {
    const controller = new AbortController();
    let calls = 0;
    const model = fromFunction(async () => {
      calls += 1;
      if (calls === 2) controller.abort();
      return 'ok';
    });
    const e = await catchTotError(() => new Deliberation({ agents: [echoAgent('a', model), echoAgent('b', model)], host: fixedRounds(5), parallelFirstRound: false }).run('q', { signal: controller.signal }), 'ABORTED');
    expect(calls).toBe(2);
    expect((e.details?.result as { stopReason: string }).stopReason).toBe('aborted');
  });
});

describe('Deliberation: tools (seed 001 §3)', () => {
  it('answers an agent\'s tool request and asks it again, keeping both exchanges in its memory', async () => {
    const replies = ['{"tool": "calculate_date", "base_date": "2025-12-04", "offset": {"weeks": 2, "days": 3}}', 'The exam is on 2025-12-21.'];
    const model = fromFunction(async () => replies.shift()!);
    const agent = llmAgent({ id: 'planner', model, turn: () => 'When is the exam?' });
    const r = await new Deliberation({ agents: [agent], host: fixedRounds(1), tools: agentTools() }).run('q');
    const out = r.rounds[0]!.outputs[0]!;
    expect(out.content).toBe('The exam is on 2025-12-21.');
    expect(out.transcript).toHaveLength(2);
    expect(JSON.parse(out.transcript![1]!.user)).toEqual({ success: true, data: { result_date: '2025-12-21', weekday: 'Sunday' } });
  });
});

describe('Deliberation: recording and resume', () => {
  const debate = (model: LanguageModel) => new Deliberation({ agents: [echoAgent('a', model), echoAgent('b', model)], host: fixedRounds(3), reporter: recordingReporter(), parallelFirstRound: false });

  it('resumes an interrupted run from its log: finished rounds as they were, no call made twice', async () => {
    const uninterrupted = echoModel();
    const reference = await debate(uninterrupted).run('Q?');
    const store = new InMemoryEventStore();
    // The process dies after 14 events: in round 2, after its first agent spoke.
    await debate(echoModel())
      .run('Q?', { store: dyingStore(store, 14), runId: 'd1' })
      .catch(() => undefined);
    const logged = await collect(store.readStream('d1'));
    expect(logged.some((e) => e.type === 'run.finished')).toBe(false);
    const completedCalls = logged.filter((e) => e.type === 'llm.completed').length;
    expect(logged.filter((e) => e.type === 'host.decision')).toHaveLength(1);
    expect(completedCalls).toBeGreaterThan(2);
    const second = echoModel();
    const resumed = await debate(second).resume({ store, runId: 'd1' });
    expect(resumed.stopReason).toBe('converged');
    expect(second.requests).toHaveLength(reference.stats.llmCalls - completedCalls);
    const strip = (r: typeof reference) => r.rounds.map((x) => x.outputs.map((o) => [o.agentId, o.content, o.transcript]));
    expect(strip(resumed)).toEqual(strip(reference));
    // A call the log holds no result of was asked of the provider: the resumed run counts it too.
    const cutOff = logged.filter((e) => e.type === 'llm.requested').length - completedCalls - logged.filter((e) => e.type === 'llm.failed').length;
    expect(resumed.stats.llmCalls).toBe(reference.stats.llmCalls + cutOff);
    // Every agent's conversation went on where the log left it: the resumed calls are the last of the uninterrupted run's, message for message.
    expect(second.requests.map((r) => r.messages)).toEqual(uninterrupted.requests.slice(-second.requests.length).map((r) => r.messages));
  });

  it('returns a finished run as it was, and refuses a different configuration', async () => {
    const store = new InMemoryEventStore();
    const first = await debate(echoModel()).run('Q?', { store, runId: 'd2' });
    const again = await debate(echoModel()).resume({ store, runId: 'd2' });
    expect(again.rounds.map((r) => r.hostDecision?.action)).toEqual(first.rounds.map((r) => r.hostDecision?.action));
    expect(again.finalReport?.content).toBe(first.finalReport?.content);
    const other = new Deliberation({ agents: [echoAgent('a', echoModel())], host: fixedRounds(3) });
    await catchTotError(() => other.resume({ store, runId: 'd2' }), 'RESUME_MISMATCH');
  });
});

describe('Deliberation: wire form and streaming', () => {
  it('gives the seed\'s snake_case session state (seed 001 §4.1)', async () => {
    const r = await new Deliberation({ agents: [scriptedAgent('planner', ['x']), scriptedAgent('critic', ['y'])], host: fixedRounds(1), reporter: recordingReporter() }).run('plan');
    const p = toProtocol(r) as Record<string, any>;
    expect(p).toMatchObject({ session_id: r.runId, user_query: 'plan', mode: 'multi_agent', status: 'converged', stop_reason: 'converged', current_round: 1, max_rounds: 5, consensus_trend: [] });
    expect(p.agents.planner.last_output).toMatchObject({ agent_id: 'planner', round: 1, output_type: 'position', metadata: { position: { conclusion: 'x', key_reasons: [], confidence: 0.8 } } });
    expect(p.history[0].host_decision.metadata.decision).toEqual({ action: 'converge', reason: 'round 1', next_agents: [], constraints: { must_address: [], avoid: [] } });
    expect(outputToProtocol(r.finalReport!)).toMatchObject({ agent_id: 'reporter', output_type: 'report' });
  });

  it('reports a session under way as in_progress, from the events of the run so far (seed 001 §4.1)', async () => {
    const events: DeliberationEvent[] = [];
    const snapshots: Record<string, any>[] = [];
    const b = { id: 'b', respond: (ctx: { round: number }) => (ctx.round === 2 && snapshots.push(toProtocol(events)), { content: `b${ctx.round}` }) };
    const reporter = { id: 'reporter', report: () => (snapshots.push(toProtocol(events)), { content: 'report' }) };
    const d = new Deliberation({ agents: [{ id: 'a', respond: (ctx: { round: number }) => ({ content: `a${ctx.round}` }) }, b], host: fixedRounds(2), reporter, parallelFirstRound: false });
    const r = await d.run('plan', { onEvent: (e) => events.push(e) });
    const [during, reporting] = snapshots as [Record<string, any>, Record<string, any>];
    // In round 2, while b speaks: a has spoken, the host waits, the reporter has nothing to do yet.
    expect(during).toMatchObject({ session_id: r.runId, user_query: 'plan', mode: 'multi_agent', status: 'in_progress', stop_reason: null, current_round: 2, max_rounds: 5 });
    expect(Object.fromEntries(Object.entries(during.agents as Record<string, { status: string }>).map(([id, x]) => [id, x.status]))).toEqual({ a: 'completed', b: 'running', host: 'waiting', reporter: 'idle' });
    expect(during.agents.a.last_output).toMatchObject({ round: 2, content: 'a2' });
    expect(during.agents.host.last_output).toMatchObject({ round: 1, output_type: 'control', content: 'round 1' });
    expect(during.history).toHaveLength(2);
    expect(during.history[1]).toEqual({ round: 2, outputs: [expect.objectContaining({ agent_id: 'a', content: 'a2' })] });
    expect(during.history[0].host_decision.metadata.decision.action).toBe('continue');
    // While the reporter writes: the rounds are over, the session is not.
    expect(reporting).toMatchObject({ status: 'in_progress', current_round: 2 });
    expect(reporting.agents.host.status).toBe('completed');
    expect(reporting.agents.reporter).toEqual({ status: 'running', last_output: null });
    // Once the events include run.finished, they give what the result gives (times aside: the
    // events' are when they were stamped).
    const strip = ({ created_at: _c, updated_at: _u, ...rest }: Record<string, unknown>) => rest;
    expect(strip(toProtocol(events))).toEqual(strip(toProtocol(r)));
    expect(toProtocol(events).status).toBe('converged');
  });

  it('counts an agent skipped with no earlier output as done with its turn: skipped, not pending', async () => {
    const events: DeliberationEvent[] = [];
    const snapshots: Record<string, any>[] = [];
    const bad = { id: 'bad', respond: () => Promise.reject(new Error('no model')) };
    const good = { id: 'good', respond: () => (snapshots.push(toProtocol(events)), { content: 'fine' }) };
    const r = await new Deliberation({ agents: [bad, good], host: fixedRounds(1), parallelFirstRound: false }).run('plan', { onEvent: (e) => events.push(e) });
    // While the second agent speaks: the first was skipped (nothing reused), the host waits for the second only.
    const statuses = Object.fromEntries(Object.entries(snapshots[0]!.agents as Record<string, { status: string }>).map(([id, x]) => [id, x.status]));
    expect(statuses).toEqual({ bad: 'skipped', good: 'running', host: 'waiting' });
    expect(snapshots[0]!.agents.bad.last_output).toBeNull();
    // Once the round's turns are over, the host is the one at work.
    const afterRound = events.slice(0, events.findIndex((e) => e.type === 'host.decision'));
    const whileDeciding = toProtocol(afterRound) as Record<string, any>;
    expect(whileDeciding.agents.host.status).toBe('running');
    expect(whileDeciding.agents.bad.status).toBe('skipped');
    expect(whileDeciding.agents.good.status).toBe('completed');
    expect(r.stopReason).toBe('converged');
  });

  it('reports an interrupted recorded run as in_progress, from its stored log', async () => {
    const store = new InMemoryEventStore();
    const model = echoModel();
    // The process dies after 14 events: in round 2, after its first agent spoke.
    await new Deliberation({ agents: [echoAgent('a', model), echoAgent('b', model)], host: fixedRounds(3), reporter: recordingReporter(), parallelFirstRound: false })
      .run('Q?', { store: dyingStore(store, 14), runId: 'in-progress' })
      .catch(() => undefined);
    const p = toProtocol(await collect(store.readStream('in-progress'))) as Record<string, any>;
    expect(p).toMatchObject({ session_id: 'in-progress', status: 'in_progress', stop_reason: null, current_round: 2, max_rounds: 5 });
    expect(p.agents.a.status).toBe('completed');
    expect(p.agents.b.status).toBe('running');
  });

  it('streams the seed\'s SSE lines, ending in [DONE]', async () => {
    const d = new Deliberation({ agents: [scriptedAgent('planner', ['x']), scriptedAgent('critic', ['y'])], host: fixedRounds(1), reporter: recordingReporter() });
    const text = await new Response(toSSE(d.stream('plan'))).text();
    const lines = text.split('\n\n').filter(Boolean);
    expect(lines.at(-1)).toBe('data: [DONE]');
    const messages = lines.slice(0, -1).map((l) => JSON.parse(l.replace(/^data: /, '')) as Record<string, unknown>);
    expect(messages.map((m) => [m.type, m.agent ?? m.action])).toEqual([
      ['agent_output', 'planner'],
      ['agent_output', 'critic'],
      ['host_decision', 'converge'],
      ['final_report', 'reporter'],
    ]);
  });

  it('aborts the run when the stream is cancelled: no call after it', async () => {
    let calls = 0;
    const model = fromFunction(async () => {
      calls += 1;
      return 'ok';
    });
    const d = new Deliberation({ agents: [echoAgent('a', model), echoAgent('b', model)], host: fixedRounds(5), parallelFirstRound: false });
    const finished = new Promise<DeliberationEvent>((resolve) => d.on('run.finished', resolve));
    const reader = toSSE(d.stream('q')).getReader();
    await reader.read();
    await reader.cancel();
    const end = (await finished) as Extract<DeliberationEvent, { type: 'run.finished' }>;
    expect(end.stopReason).toBe('aborted');
    const after = calls;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls).toBe(after);
    expect(calls).toBeLessThan(10);
  });
});

describe('llmHost', () => {
  it('reads a Python-dict reply and keeps its own conversation across rounds', async () => {
    const replies = ["{'action': 'continue', 'reason': 'no agreement yet'}", "{'action': 'converge', 'reason': 'agreed', 'answer': 'x'}"];
    const model = fromFunction(async () => replies.shift()!);
    const host = llmHost({ model, system: 'Moderate: {{query}}', turn: (ctx) => `round ${ctx.round}` });
    const r = await new Deliberation({ agents: [scriptedAgent('a', ['x'])], host }).run('q');
    expect(r.rounds.map((x) => x.hostDecision!.action)).toEqual(['continue', 'converge']);
    expect(r.rounds[0]!.hostDecision!.nextAgents).toEqual(['a']);
    expect(r.rounds[1]!.hostDecision).toMatchObject({ answer: 'x', transcript: [{ user: 'round 2', assistant: "{'action': 'converge', 'reason': 'agreed', 'answer': 'x'}" }] });
  });
});

describe('societyOfMind', () => {
  it('has every agent read the others\' last answers and returns the majority vote', async () => {
    const answers: Record<string, string[]> = { 'agent-1': ['12', '15'], 'agent-2': ['15', '15'], 'agent-3': ['15', '12'] };
    const seen: string[] = [];
    const model = fromFunction(
      async (request: GenerateRequest) => {
        if (request.tags?.round === '2') seen.push(`${request.tags.agent}: ${request.messages.at(-1)!.content}`);
        return `The answer is ${answers[request.tags!.agent!]![Number(request.tags!.round) - 1]}.`;
      },
      { input: 'request' },
    );
    const r = await societyOfMind({ model, agents: 3, rounds: 2, answer: (t) => /answer is (\d+)/.exec(t)?.[1] }).run('What is 3 * 5?');
    expect(r.finalReport).toMatchObject({ content: '15', metadata: { votes: { '15': 2, '12': 1 } } });
    const agent1 = seen.find((s) => s.startsWith('agent-1'))!;
    expect(agent1).toContain('The answer is 15.');
    expect(agent1).not.toContain('The answer is 12.');
  });
});
