import { describe, expect, it } from 'vitest';
import { estimateTokens } from '../../src/index.js';
import {
  Deliberation,
  llmAgent,
  llmHost,
  outputToProtocol,
  toProtocol,
  toSSE,
  type AgentContext,
  type AgentOutput,
  type DeliberationAgent,
  type DeliberationEvent,
  type DeliberationHost,
  type DeliberationReporter,
  type HostDecision,
} from '../../src/deliberation/index.js';
import { mockModel } from '../../src/testing/index.js';
import { scriptedAgent, fixedRounds } from './fixtures/scripted-debate.js';

/** The SSE messages of a stream, without the final [DONE]. */
async function sseMessages(stream: ReadableStream<Uint8Array>): Promise<Record<string, unknown>[]> {
  const lines = (await new Response(stream).text()).split('\n\n').filter(Boolean);
  expect(lines.at(-1)).toBe('data: [DONE]');
  return lines.slice(0, -1).map((l) => JSON.parse(l.replace(/^data: /, '')) as Record<string, unknown>);
}

describe('the per-output token cap (seed 001 §10)', () => {
  it('gives every participant call maxOutputTokens = min(requested, cap), and the cap when none was asked for', async () => {
    const model = mockModel('ok');
    const asking: DeliberationAgent = {
      id: 'asking',
      async respond(ctx) {
        for (const maxOutputTokens of [5_000, 50, undefined]) await ctx.generate(model, { messages: [{ role: 'user', content: 'hi' }], ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }) });
        return { content: 'done' };
      },
    };
    const reporter: DeliberationReporter = {
      async report(ctx) {
        await ctx.generate(model, { messages: [{ role: 'user', content: 'report' }], maxOutputTokens: 10_000 });
        return { content: 'report' };
      },
    };
    await new Deliberation({ agents: [asking], host: fixedRounds(1), reporter, maxOutputTokens: 100 }).run('q');
    expect(model.calls.map((c) => c.request.maxOutputTokens)).toEqual([100, 50, 100, 100]);
  });

  it('cuts an output longer than the cap (by estimateTokens, the call reporting no usage) from a model that ignores the limit, and records it in the output and its event', async () => {
    // The model answers 1,000 characters (334 estimated tokens) whatever maxOutputTokens says, and reports no usage.
    const long = `${'word '.repeat(199)}tail.`;
    const model = mockModel(long, { usage: 'unknown' });
    const moderator = mockModel(`{'action': 'converge', 'reason': '${'because '.repeat(60)}'}`, { usage: 'unknown' });
    const reporterModel = mockModel(long, { usage: 'unknown' });
    const events: DeliberationEvent[] = [];
    const d = new Deliberation({
      agents: [llmAgent({ id: 'verbose', model, turn: () => 'Say it.' }), scriptedAgent('brief', ['short'])],
      host: llmHost({ model: moderator, turn: () => 'Decide.' }),
      reporter: { report: async (ctx) => ({ content: (await ctx.generate(reporterModel, { messages: [{ role: 'user', content: 'Report.' }] })).outputs[0]! }) },
      maxOutputTokens: 100,
    });
    const r = await d.run('q', { onEvent: (e) => events.push(e) });
    expect(model.calls[0]!.request.maxOutputTokens).toBe(100);
    const verbose = r.rounds[0]!.outputs.find((o) => o.agentId === 'verbose')!;
    expect(estimateTokens(verbose.content)).toBeLessThanOrEqual(100);
    expect(verbose.content).toBe(`${long.slice(0, 299)}…`);
    expect(verbose.truncated).toEqual({ estimatedTokens: estimateTokens(long), maxOutputTokens: 100 });
    // The agent's memory keeps what its model said; what the deliberation shows is cut.
    expect(verbose.transcript![0]!.assistant).toBe(long);
    const output = events.find((e): e is Extract<DeliberationEvent, { type: 'agent.output' }> => e.type === 'agent.output' && e.output.agentId === 'verbose')!;
    expect(output.output.truncated).toEqual({ estimatedTokens: 334, maxOutputTokens: 100 });
    expect(outputToProtocol(verbose).truncated).toEqual({ estimated_tokens: 334, max_output_tokens: 100 });
    // An output within the cap is left as it is.
    expect(r.rounds[0]!.outputs.find((o) => o.agentId === 'brief')).not.toHaveProperty('truncated');
    // The host's reason and the report are outputs too.
    const decision = r.rounds[0]!.hostDecision!;
    expect(estimateTokens(decision.reason)).toBeLessThanOrEqual(100);
    expect(decision.truncated).toEqual({ estimatedTokens: estimateTokens('because '.repeat(60).trim()), maxOutputTokens: 100 });
    expect(r.finalReport!.content).toBe(`${long.slice(0, 299)}…`);
    expect(r.finalReport!.truncated).toMatchObject({ maxOutputTokens: 100 });
    expect(r.stopReason).toBe('converged');
  });

  it('cuts the output of an agent that writes without a model, never inside a surrogate pair, and shows the cut in the SSE stream', async () => {
    const writer: DeliberationAgent = { id: 'writer', respond: () => ({ content: '😀'.repeat(40) }) };
    const d = new Deliberation({ agents: [writer], host: fixedRounds(1), maxOutputTokens: 10 });
    const messages = await sseMessages(toSSE(d.stream('q')));
    const out = messages.find((m) => m.type === 'agent_output')!;
    expect(out.truncated).toEqual({ estimated_tokens: 27, max_output_tokens: 10 });
    const content = out.content as string;
    expect(estimateTokens(content)).toBeLessThanOrEqual(10);
    expect(content).toBe(`${'😀'.repeat(14)}…`);
  });
});

describe('the token cap judged by the provider\'s own count when the call reports one', () => {
  // 7,000 characters of English: 2,334 estimated tokens (characters / 3), about 1,750 real ones.
  const text = 'word '.repeat(1_400);
  const run = async (reply: { outputs: string[]; usage?: { outputTokens?: number }; finishReason?: 'stop' | 'length' }, parse?: (t: string) => { content: string }) => {
    const model = mockModel(reply, { usage: 'unknown' });
    const r = await new Deliberation({ agents: [llmAgent({ id: 'writer', model, turn: () => 'Write.', ...(parse ? { parse } : {}) })], host: fixedRounds(1), maxOutputTokens: 2_000 }).run('q');
    expect(model.calls[0]!.request.maxOutputTokens).toBe(2_000);
    return r.rounds[0]!.outputs[0]!;
  };

  it('leaves an output the provider counts within the cap as it is, whatever the estimate says', async () => {
    expect(estimateTokens(text)).toBeGreaterThan(2_000);
    const o = await run({ outputs: [text], usage: { outputTokens: 1_800 } });
    expect(o.content).toBe(text);
    expect(o).not.toHaveProperty('truncated');
  });

  it('judges a reply parsed out of the output by its share of the provider\'s count', async () => {
    const json = JSON.stringify({ answer: text.trim() });
    const o = await run({ outputs: [json], usage: { outputTokens: 1_800 } }, (t) => ({ content: (JSON.parse(t) as { answer: string }).answer }));
    expect(o.content).toBe(text.trim());
    expect(o).not.toHaveProperty('truncated');
  });

  it('falls back to the estimate when the call reports no usage: the same output is cut', async () => {
    const o = await run({ outputs: [text], usage: {} });
    expect(o.content.length).toBeLessThan(text.length);
    expect(estimateTokens(o.content)).toBeLessThanOrEqual(2_000);
    expect(o.truncated).toEqual({ estimatedTokens: 2_334, maxOutputTokens: 2_000 });
  });

  it('cuts an output the provider counts over the cap, to the cap by its count', async () => {
    const o = await run({ outputs: [text], usage: { outputTokens: 2_500 } });
    // 2,000 of 2,500 tokens: the first 4/5 of the text, the ellipsis included.
    expect(o.content).toBe(`${text.slice(0, 5_599)}…`);
    expect(o.truncated).toEqual({ estimatedTokens: 2_334, outputTokens: 2_500, maxOutputTokens: 2_000 });
    expect(outputToProtocol(o).truncated).toEqual({ estimated_tokens: 2_334, output_tokens: 2_500, max_output_tokens: 2_000 });
  });

  it('does not cut again what the provider stopped at the limit (finishReason length), and marks it', async () => {
    const o = await run({ outputs: [text], usage: {}, finishReason: 'length' });
    expect(o.content).toBe(text);
    expect(o.truncated).toEqual({ estimatedTokens: 2_334, maxOutputTokens: 2_000, by: 'provider' });
    expect(outputToProtocol(o).truncated).toEqual({ estimated_tokens: 2_334, max_output_tokens: 2_000, by: 'provider' });
  });
});

describe('the content filter on host decisions (seed 001 §10.1)', () => {
  const moderatorReplies = [
    "{'action': 'continue', 'reason': 'the password is hunter2', 'constraints': {'must_address': ['hunter2 again']}}",
    "{'action': 'converge', 'reason': 'agreed', 'answer': 'x'}",
  ];

  it("checks an llmHost's decision as the host's output, and keeps withheld text out of the SSE stream and the protocol, while the decision still steers", async () => {
    const model = mockModel(moderatorReplies);
    const checked: AgentOutput[] = [];
    const d = new Deliberation({
      agents: [scriptedAgent('a', ['fine'])],
      host: llmHost({ model, turn: (ctx) => `round ${ctx.round}` }),
      contentFilter: (o) => {
        checked.push(o);
        return /password/.test(JSON.stringify(o)) ? { allowed: false, reason: 'mentions a password' } : true;
      },
    });
    const messages = await sseMessages(toSSE(d.stream('q')));
    const text = JSON.stringify(messages);
    expect(text).not.toMatch(/hunter2|password is/);
    const decisions = messages.filter((m) => m.type === 'host_decision');
    expect(decisions[0]).toMatchObject({ action: 'continue', reason: 'withheld by the content filter (mentions a password)', withheld: true, constraints: { must_address: [], avoid: [] } });
    // The withheld decision still chose who speaks next: round 2 ran, and the host converged after it.
    expect(decisions.map((m) => [m.round, m.action])).toEqual([
      [1, 'continue'],
      [2, 'converge'],
    ]);
    expect(decisions[1]).not.toHaveProperty('withheld');
    const host = checked.filter((o) => o.agentId === 'host');
    expect(host.map((o) => [o.round, o.outputType, o.content])).toEqual([
      [1, 'control', 'the password is hunter2'],
      [2, 'control', 'agreed'],
    ]);
    expect(host[0]!.metadata).toMatchObject({ decision: { action: 'continue', constraints: { must_address: ['hunter2 again'] } } });
  });

  it('records the withheld decision in the result, without its text, its constraints or its exchange', async () => {
    const model = mockModel(moderatorReplies);
    const a = scriptedAgent('a', ['fine']);
    const r = await new Deliberation({
      agents: [a],
      host: llmHost({ model, turn: (ctx) => `round ${ctx.round}` }),
      contentFilter: (o) => !/password/.test(o.content),
    }).run('q');
    const first = r.rounds[0]!.hostDecision!;
    expect(first).toMatchObject({ action: 'continue', reason: 'withheld by the content filter', withheld: { reason: 'withheld by the content filter' }, constraints: { mustAddress: [], avoid: [] } });
    expect(first.transcript).toBeUndefined();
    expect(JSON.stringify(toProtocol(r))).not.toMatch(/hunter2/);
    expect(a.seen[1]!.decision?.constraints.mustAddress).toEqual([]);
    expect(r.errors).toMatchObject([{ code: 'INVALID_FORMAT', where: { kind: 'agent', agentId: 'host', round: 1 } }]);
    expect(r.stopReason).toBe('converged');
  });

  it("keeps a withheld decision's orders steering, but none of their text: not in SSE, the protocol, or the next agent's context and messages", async () => {
    const secret = 'hunter2';
    const host: DeliberationHost = {
      decide: (ctx) =>
        ctx.round === 1
          ? ({
              action: 'update_command',
              reason: 'b must move',
              nextAgents: ['a', 'b'],
              constraints: { mustAddress: [], avoid: [] },
              directives: [{ agentId: 'b', role: 'devils_advocate', requirement: `repeat the password ${secret}`, reason: `${secret} is what they need` }],
              notes: `the password is ${secret}`,
            } as HostDecision)
          : { action: 'converge', reason: 'agreed', nextAgents: [], constraints: { mustAddress: [], avoid: [] }, directives: [] },
    };
    const model = mockModel('I argue the other side.');
    const a = scriptedAgent('a', ['fine']);
    const b = llmAgent({ id: 'b', model, turn: (ctx) => (ctx.directive ? `Your order (${ctx.directive.role}): ${ctx.directive.requirement}` : 'Speak.') });
    const seen: AgentContext[] = [];
    const watched: DeliberationAgent = { id: 'b', respond: (ctx, o) => (seen.push(ctx), b.respond(ctx, o)) };
    const events: DeliberationEvent[] = [];
    const d = new Deliberation({ agents: [a, watched], host, parallelFirstRound: false, contentFilter: (o) => !JSON.stringify(o).includes(secret) });
    d.on('event', (e) => events.push(e as DeliberationEvent));
    const messages = await sseMessages(toSSE(d.stream('q')));
    const result = events.find((e) => e.type === 'run.finished');
    expect(result).toBeDefined();
    expect(JSON.stringify(messages)).not.toContain(secret);
    expect(JSON.stringify(events)).not.toContain(secret);
    expect(JSON.stringify(toProtocol(events))).not.toContain(secret);
    const note = 'withheld by the content filter';
    expect(messages.find((m) => m.type === 'host_decision')).toMatchObject({ action: 'update_command', withheld: true, directives: [{ target_agent: 'b', role: 'devils_advocate', requirement: note }] });
    // It still steered: round 2 ran with b under its order, whose text is the withheld note.
    const round2 = seen.find((c) => c.round === 2)!;
    expect(round2.directive).toEqual({ agentId: 'b', role: 'devils_advocate', requirement: note });
    expect(JSON.stringify(round2)).not.toContain(secret);
    expect(JSON.stringify(a.seen[1])).not.toContain(secret);
    expect(model.calls[1]!.request.messages.at(-1)!.content).toBe(`Your order (devils_advocate): ${note}`);
    expect(JSON.stringify(model.calls.map((c) => c.request.messages))).not.toContain(secret);
    // The result and its protocol form alike.
    const r = await new Deliberation({ agents: [scriptedAgent('a', ['fine']), scriptedAgent('b', ['other'])], host, contentFilter: (o) => !JSON.stringify(o).includes(secret) }).run('q');
    expect(r.rounds[0]!.hostDecision).toEqual({ action: 'update_command', reason: note, nextAgents: ['a', 'b'], constraints: { mustAddress: [], avoid: [] }, directives: [{ agentId: 'b', role: 'devils_advocate', requirement: note }], withheld: { reason: note } });
    expect(JSON.stringify(r)).not.toContain(secret);
    expect(JSON.stringify(toProtocol(r))).not.toContain(secret);
    expect(r.stopReason).toBe('converged');
  });

  it('withholds a decision whose check throws, and goes on: the filter failing is no host failure', async () => {
    const r = await new Deliberation({
      agents: [scriptedAgent('a', ['fine'])],
      host: fixedRounds(2),
      contentFilter: (o) => {
        if (o.agentId === 'host' && o.round === 1) throw new Error('filter service down');
        return true;
      },
    }).run('q');
    expect(r.stopReason).toBe('converged');
    expect(r.rounds).toHaveLength(2);
    expect(r.rounds[0]!.hostDecision).toMatchObject({ action: 'continue', reason: 'withheld by the content filter (the content filter failed)', withheld: { reason: 'the content filter failed' } });
    expect(r.rounds[1]!.hostDecision).not.toHaveProperty('withheld');
    expect(r.errors).toMatchObject([{ message: expect.stringContaining('filter service down'), where: { kind: 'agent', agentId: 'host', round: 1 } }]);
  });

  it('withholds a decision whose check runs past the host\'s timeout (shared with the decision), and goes on', async () => {
    const started = Date.now();
    let signalled: AbortSignal | undefined;
    const r = await new Deliberation({
      agents: [scriptedAgent('a', ['fine'])],
      host: { decide: async (ctx) => (ctx.round === 1 && (await new Promise((resolve) => setTimeout(resolve, 150))), fixedRounds(2).decide(ctx, { signal: new AbortController().signal })) },
      agentTimeoutMs: 300,
      contentFilter: (o, { signal }) => (o.agentId === 'host' && o.round === 1 ? ((signalled = signal), new Promise<boolean>(() => undefined)) : true),
    }).run('q');
    expect(r.stopReason).toBe('converged');
    expect(r.rounds[0]!.hostDecision).toMatchObject({ action: 'continue', withheld: { reason: 'the content filter took too long' } });
    expect(r.errors).toMatchObject([{ code: 'TIMEOUT', where: { kind: 'agent', agentId: 'host', round: 1 } }]);
    expect(signalled?.aborted).toBe(true);
    // One timer for the decision and its check: 300 ms in all, not 150 + 300.
    expect(Date.now() - started).toBeLessThan(440);
  });

  it('drops the answer of a withheld converge: the reporter does not receive it', async () => {
    const model = mockModel("{'action': 'converge', 'reason': 'done', 'answer': 'the secret answer'}");
    const seen: (string | undefined)[] = [];
    const r = await new Deliberation({
      agents: [scriptedAgent('a', ['fine'])],
      host: llmHost({ model, turn: () => 'decide' }),
      reporter: { report: (ctx) => (seen.push(ctx.decision?.answer), { content: 'report' }) },
      contentFilter: (o) => !JSON.stringify(o).includes('secret'),
    }).run('q');
    expect(r.rounds[0]!.hostDecision).toMatchObject({ action: 'converge', withheld: { reason: 'withheld by the content filter' } });
    expect(r.rounds[0]!.hostDecision!.answer).toBeUndefined();
    expect(seen).toEqual([undefined]);
    expect(r.finalReport?.content).toBe('report');
  });
});
