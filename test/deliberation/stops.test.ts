import { describe, expect, it } from 'vitest';
import { fromFunction, InMemoryEventStore, type LanguageModel } from '../../src/index.js';
import { Deliberation, llmAgent, similarityHost, toSSE, type DeliberationAgent, type DeliberationEvent, type DeliberationHost } from '../../src/deliberation/index.js';
import { collect } from '../helpers/collect.js';
import { dyingStore } from '../helpers/dying-store.js';
import { catchTotError } from '../helpers/expect-tot-error.js';
import { angleEmbedder, recordingReporter, scriptedAgent, similar, fixedRounds } from './fixtures/scripted-debate.js';

/** An agent that answers at once, or never (until its signal aborts) when `hangs`. */
const agent = (id: string, hangs = false): DeliberationAgent => ({
  id,
  respond: (_ctx, { signal }) => (hangs ? new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))) : { content: id }),
});

describe('Deliberation: stopping in a round whose agents speak at once', () => {
  it('rejects with ABORTED, keeping the outputs the round did give (no unhandled rejection)', async () => {
    const controller = new AbortController();
    const d = new Deliberation({ agents: [agent('a'), agent('b', true), agent('c', true)], host: fixedRounds(3) });
    d.on('agent.output', () => controller.abort());
    const e = await catchTotError(() => d.run('q', { signal: controller.signal }), 'ABORTED');
    const result = e.details?.result as unknown as { stopReason: string; rounds: { round: number; outputs: { agentId: string }[] }[] };
    expect(result.stopReason).toBe('aborted');
    expect(result.rounds).toEqual([expect.objectContaining({ round: 1, outputs: [expect.objectContaining({ agentId: 'a' })] })]);
  });

  it('stops at the budget in the middle of the round', async () => {
    const model = fromFunction(async () => 'ok');
    const agents = ['a', 'b', 'c'].map((id) => llmAgent({ id, model, turn: () => 'go' }));
    const r = await new Deliberation({ agents, host: fixedRounds(3), budget: { maxCalls: 1 } }).run('q');
    expect(r.stopReason).toBe('budget_exceeded');
    expect(r.stats.llmCalls).toBe(1);
  });

  it('aborts when its SSE stream is cancelled during round 1', async () => {
    const d = new Deliberation({ agents: [agent('a'), agent('b', true)], host: fixedRounds(3) });
    const finished = new Promise<DeliberationEvent>((resolve) => d.on('run.finished', resolve));
    const reader = toSSE(d.stream('q')).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toMatch(/"agent_output"/);
    await reader.cancel();
    expect(((await finished) as Extract<DeliberationEvent, { type: 'run.finished' }>).stopReason).toBe('aborted');
  });

  it('gives each of several next() calls made at once its own event', async () => {
    const it = new Deliberation({ agents: [agent('a'), agent('b')], host: fixedRounds(1) }).stream('q');
    const events = await Promise.all([it.next(), it.next(), it.next(), it.next()]);
    expect(events.map((e) => e.value?.type)).toEqual(['run.started', 'round.started', 'agent.output', 'agent.output']);
    await it.return!();
  });
});

describe('Deliberation: resume after a crash', () => {
  /** A model answering `<participant>#<n>`, n counting its calls. */
  const counting = () => {
    let n = 0;
    const model = fromFunction(async () => `answer #${++n}`) as LanguageModel;
    return { model, calls: () => n };
  };

  it('never calls the reporter again when the crash came after its call but before the report was logged', async () => {
    const reporter = (model: LanguageModel) => ({ id: 'reporter', report: async (ctx: Parameters<ReturnType<typeof recordingReporter>['report']>[0]) => ({ content: (await ctx.generate(model, { messages: [{ role: 'user', content: 'report' }], tags: { agent: 'reporter', round: String(ctx.round) } })).outputs[0]! }) });
    const build = (model: LanguageModel) => new Deliberation({ agents: [llmAgent({ id: 'a', model, turn: (ctx) => `turn ${ctx.round}` })], host: fixedRounds(2), reporter: reporter(model) });
    const reference = await build(counting().model).run('q');
    const store = new InMemoryEventStore();
    const full = new InMemoryEventStore();
    await build(counting().model).run('q', { store: full, runId: 'x' });
    const events = await collect(full.readStream('x'));
    // Die right after the reporter's call completed.
    const at = events.findIndex((e) => e.type === 'llm.completed' && (e.data as { callId?: string }).callId !== undefined && events.slice(0, events.indexOf(e)).some((x) => x.type === 'host.decision' && (x.data as { round: number }).round === 2));
    await build(counting().model)
      .run('q', { store: dyingStore(store, at + 1), runId: 'x' })
      .catch(() => undefined);
    const logged = (await collect(store.readStream('x'))).map((e) => e.type);
    expect(logged.at(-1)).toBe('llm.completed');
    expect(logged).not.toContain('report');
    const second = counting();
    const resumed = await build(second.model).resume({ store, runId: 'x' });
    expect(second.calls()).toBe(0);
    expect(resumed.finalReport?.content).toBe(reference.finalReport?.content);
    expect(resumed.stats.llmCalls).toBe(reference.stats.llmCalls);
  });

  it('tells rounds apart by the engine\'s own tags: a custom agent that sets none is resumed right', async () => {
    const custom = (model: LanguageModel): DeliberationAgent => ({ id: 'a', respond: async (ctx) => ({ content: (await ctx.generate(model, { messages: [{ role: 'user', content: 'same question' }] })).outputs[0]! }) });
    const build = (model: LanguageModel) => new Deliberation({ agents: [custom(model)], host: fixedRounds(3) });
    const reference = await build(counting().model).run('q');
    const store = new InMemoryEventStore();
    const full = new InMemoryEventStore();
    await build(counting().model).run('q', { store: full, runId: 'y' });
    const events = await collect(full.readStream('y'));
    const secondDecision = events.findIndex((e) => e.type === 'host.decision' && (e.data as { round: number }).round === 2);
    await build(counting().model)
      .run('q', { store: dyingStore(store, secondDecision + 1), runId: 'y' })
      .catch(() => undefined);
    const second = counting();
    const resumed = await build(second.model).resume({ store, runId: 'y' });
    expect(second.calls()).toBe(1);
    expect(resumed.rounds.map((r) => r.outputs[0]!.content)).toEqual(reference.rounds.map((r) => r.outputs[0]!.content.replace('#3', '#1')));
    expect(resumed.stats.llmCalls).toBe(reference.stats.llmCalls);
  });
});

describe('similarityHost: plateaus', () => {
  it('lets a debate stuck at low consensus go on to forced opposition, not a plateau', async () => {
    const angles = { P1: 0, P2: 1, P3: 2, C1: similar(0, 0.5), C2: similar(1, 0.5), C3: similar(2, 0.5) };
    const reporter = recordingReporter();
    const d = new Deliberation({ agents: [scriptedAgent('planner', ['P1', 'P2', 'P3']), scriptedAgent('critic', ['C1', 'C2', 'C3'])], host: similarityHost({ embedder: angleEmbedder(angles) }), reporter, maxRounds: 3 });
    const r = await d.run('plan');
    expect(r.rounds.map((x) => x.hostDecision!.action)).toEqual(['force_opposition', 'force_opposition', 'force_opposition']);
    expect(r.stopReason).toBe('max_rounds_reached');
    expect(reporter.calls[0]!.divergent).toBe(true);
  });

  it('refuses thresholds under which a decision could never be taken', async () => {
    const e = await catchTotError(() => similarityHost({ thresholds: { continue: 0.95 } }), 'INVALID_ARGUMENT');
    expect(e.message).toMatch(/continue \(0.95\) must be below converge \(0.9\)/);
  });
});

describe('Deliberation: participants', () => {
  it('refuses a host whose id is an agent\'s', async () => {
    const e = await catchTotError(() => new Deliberation({ agents: [agent('host')], host: fixedRounds(1) }), 'INVALID_ARGUMENT');
    expect(e.message).toMatch(/the host's id "host" is an agent's too/);
  });

  it('ends with an error when the host names an agent twice', async () => {
    const host: DeliberationHost = { decide: () => ({ action: 'continue', reason: '', nextAgents: ['a', 'a'], constraints: { mustAddress: [], avoid: [] }, directives: [] }) };
    const r = await new Deliberation({ agents: [agent('a')], host }).run('q');
    expect(r.stopReason).toBe('error');
    expect(r.errors[0]!.message).toMatch(/named an agent twice/);
  });
});
