import { describe, expect, it } from 'vitest';
import {
  critic,
  CRITIC_SYSTEM,
  Deliberation,
  llmHost,
  planner,
  PLANNER_SYSTEM,
  reporter,
  REPORTER_SYSTEM,
  toSSE,
  type DeliberationEvent,
} from '../../src/deliberation/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { scriptedAgent, fixedRounds } from './fixtures/scripted-debate.js';

/** What every repair turn starts with (llmAgent's, llmHost's and the reporter's). */
const REPAIR = 'Your reply could not be used:';

const position = { conclusion: 'Three phases over 12 weeks', key_reasons: ['vocabulary first', 'weekly mock exams'], assumptions: ['2 hours a day'], confidence: 0.8 };
const PLAN = JSON.stringify({ content: 'Three phases over twelve weeks.', position, plan: { title: 'IELTS in 12 weeks', phases: [{ phase_name: 'Foundations', duration: '4 weeks', tasks: [{ title: 'Vocabulary', estimated_hours: 40 }] }] } });
const CRITIQUE = JSON.stringify({
  content: 'Too little writing practice.',
  position: { ...position, conclusion: 'Feasible with more writing', confidence: 0.7 },
  critique: { risks: [{ risk: 'writing lags', severity: 'high' }], suggestions: [{ issue: 'writing practice', solution: 'two timed essays a week', priority: 'high' }] },
});
const REPORT = JSON.stringify({ content: '# IELTS in 12 weeks\n\nThe plan.', final_plan: { title: 'IELTS in 12 weeks' }, summary: { key_agreements: ['three phases'] } });

/** The last user message of a call. */
const lastUser = (messages: readonly { role: string; content: string }[]) => messages.at(-1)!.content;

const failures = (events: DeliberationEvent[]) => events.filter((e): e is Extract<DeliberationEvent, { type: 'agent.skipped' }> => e.type === 'agent.skipped');

describe('planner: validation and repair', () => {
  it('asks again when the reply has no position summary, and takes the repaired reply', async () => {
    const positionless = JSON.stringify({ content: 'Three phases.', plan: JSON.parse(PLAN).plan });
    const model = scriptedModel({
      rules: [
        { name: 'repair', when: REPAIR, reply: PLAN },
        { name: 'first', when: 'Write your plan.', reply: positionless },
      ],
    });
    const r = await new Deliberation({ agents: [planner({ model })], host: fixedRounds(1) }).run('Plan three months of IELTS preparation');
    expect(model.calls.map((c) => c.rule)).toEqual(['first', 'repair']);
    const repair = model.calls[1]!.request.messages;
    // The repair is a turn of the same conversation: the refused reply, then what was wrong with it.
    expect(repair.slice(0, 3)).toEqual([
      { role: 'system', content: PLANNER_SYSTEM },
      { role: 'user', content: 'Request: Plan three months of IELTS preparation\n\nWrite your plan.' },
      { role: 'assistant', content: positionless },
    ]);
    expect(lastUser(repair)).toMatch(/^Your reply could not be used: .*position/s);
    expect(lastUser(repair)).toMatch(/Reply again, in the required format only\.$/);
    const out = r.rounds[0]!.outputs[0]!;
    expect(out).toMatchObject({ agentId: 'planner', outputType: 'plan', content: 'Three phases over twelve weeks.', position: { conclusion: 'Three phases over 12 weeks', keyReasons: ['vocabulary first', 'weekly mock exams'], confidence: 0.8 } });
    expect(out.metadata.plan).toMatchObject({ title: 'IELTS in 12 weeks' });
    // Both exchanges are the agent's memory.
    expect(out.transcript?.map((e) => e.assistant)).toEqual([positionless, PLAN]);
    expect(r.errors).toEqual([]);
  });

  it('skips the planner for the round when the repair fails too, with INVALID_FORMAT (no earlier output to reuse)', async () => {
    const model = scriptedModel({ rules: [{ name: 'prose', when: 'Write your plan.', reply: 'Sure! Study hard for three months.' }] });
    const events: DeliberationEvent[] = [];
    const r = await new Deliberation({ agents: [planner({ model }), scriptedAgent('other', ['x'])], host: fixedRounds(1) }).run('q', { onEvent: (e) => events.push(e) });
    // One reply and one repair (maxRepairs 1), then no more calls.
    expect(model.callCount).toBe(2);
    expect(lastUser(model.calls[1]!.request.messages)).toMatch(/^Your reply could not be used/);
    expect(r.rounds[0]!.outputs.map((o) => o.agentId)).toEqual(['other']);
    expect(failures(events)).toMatchObject([{ agentId: 'planner', round: 1, reason: 'agent_failed', error: { code: 'INVALID_FORMAT' } }]);
    expect(failures(events)[0]!.reused).toBeUndefined();
    expect(r.errors).toMatchObject([{ code: 'INVALID_FORMAT', where: { kind: 'agent', agentId: 'planner', round: 1 } }]);
    expect(r.stats.staleOutputs).toBe(1);
  });

  it('makes no repair with maxRepairs 0', async () => {
    const model = scriptedModel({ rules: [{ when: 'Write your plan.', reply: 'not json' }] });
    const r = await new Deliberation({ agents: [planner({ model, maxRepairs: 0 })], host: fixedRounds(1) }).run('q');
    expect(model.callCount).toBe(1);
    expect(r.errors).toMatchObject([{ code: 'INVALID_FORMAT' }]);
  });
});

describe('critic: validation and repair', () => {
  it('asks again when the reply is malformed JSON, and takes the repaired reply', async () => {
    const model = scriptedModel({
      rules: [
        { name: 'repair', when: REPAIR, reply: CRITIQUE },
        { name: 'first', when: 'Name the risks', reply: '{"content": "Too little writing", "position": {"conclusion": ' },
      ],
    });
    const r = await new Deliberation({ agents: [critic({ model })], host: fixedRounds(1) }).run('q');
    expect(model.calls.map((c) => c.rule)).toEqual(['first', 'repair']);
    expect(model.calls[1]!.request.messages[0]).toEqual({ role: 'system', content: CRITIC_SYSTEM });
    expect(r.rounds[0]!.outputs[0]).toMatchObject({ agentId: 'critic', outputType: 'critique', position: { conclusion: 'Feasible with more writing' }, metadata: { critique: { suggestions: [{ issue: 'writing practice' }] } } });
    expect(r.errors).toEqual([]);
  });

  it('when a later round\'s reply and its repair both lack a position, reuses its last output marked stale', async () => {
    const positionless = JSON.stringify({ content: 'Still too little writing.', critique: { risks: [], suggestions: [] } });
    const model = scriptedModel({
      rules: [
        { name: 'round 2', when: (req) => req.tags?.round === '2', reply: positionless },
        { name: 'round 1', when: 'Name the risks', reply: CRITIQUE },
      ],
    });
    const events: DeliberationEvent[] = [];
    const r = await new Deliberation({ agents: [critic({ model }), scriptedAgent('planner', ['P'])], host: fixedRounds(2) }).run('q', { onEvent: (e) => events.push(e) });
    expect(model.calls.map((c) => c.rule)).toEqual(['round 1', 'round 2', 'round 2']);
    expect(lastUser(model.calls[2]!.request.messages)).toMatch(/^Your reply could not be used: .*position/s);
    const stale = r.rounds[1]!.outputs.find((o) => o.agentId === 'critic')!;
    expect(stale).toMatchObject({ round: 2, content: 'Too little writing practice.', stale: { reason: 'agent_failed', fromRound: 1 } });
    expect(failures(events)).toMatchObject([{ agentId: 'critic', round: 2, reason: 'agent_failed', error: { code: 'INVALID_FORMAT' }, reused: { stale: { fromRound: 1 } } }]);
    expect(r.stopReason).toBe('converged');
  });
});

describe('reporter: validation and repair', () => {
  it('asks again when the report is not the required JSON, and takes the repaired report', async () => {
    const model = scriptedModel({
      rules: [
        { name: 'repair', when: REPAIR, reply: REPORT },
        { name: 'first', when: 'Write the agreed final plan.', reply: '# IELTS in 12 weeks\n\nThe plan, in Markdown only.' },
      ],
    });
    const r = await new Deliberation({ agents: [scriptedAgent('planner', ['P'])], host: fixedRounds(1), reporter: reporter({ model }) }).run('q');
    expect(model.calls.map((c) => c.rule)).toEqual(['first', 'repair']);
    const repair = model.calls[1]!.request.messages;
    expect(repair.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(repair[0]!.content).toBe(REPORTER_SYSTEM);
    expect(repair[2]!.content).toBe('# IELTS in 12 weeks\n\nThe plan, in Markdown only.');
    expect(lastUser(repair)).toMatch(/^Your reply could not be used/);
    expect(r.finalReport).toMatchObject({ agentId: 'reporter', outputType: 'report', content: '# IELTS in 12 weeks\n\nThe plan.', metadata: { final_plan: { title: 'IELTS in 12 weeks' }, divergent: false } });
    expect(r.errors).toEqual([]);
  });

  it('gives no report when the repair fails too: the error is recorded, the rounds stand, and the SSE stream says so', async () => {
    const model = () => scriptedModel({ rules: [{ name: 'summary-less', when: 'Write the agreed final plan.', reply: JSON.stringify({ content: '# Plan', final_plan: { title: 'Plan' } }) }] });
    const failing = model();
    const r = await new Deliberation({ agents: [scriptedAgent('planner', ['P'])], host: fixedRounds(1), reporter: reporter({ model: failing }) }).run('q');
    expect(failing.callCount).toBe(2);
    expect(r.finalReport).toBeUndefined();
    expect(r.stopReason).toBe('converged');
    expect(r.errors).toMatchObject([{ code: 'INVALID_FORMAT', where: { kind: 'agent', agentId: 'reporter', round: 1 } }]);
    expect(r.errors[0]!.message).toMatch(/summary/);

    const d = new Deliberation({ agents: [scriptedAgent('planner', ['P'])], host: fixedRounds(1), reporter: reporter({ model: model() }) });
    const lines = (await new Response(toSSE(d.stream('q'))).text()).split('\n\n').filter(Boolean);
    expect(lines.at(-1)).toBe('data: [DONE]');
    const last = JSON.parse(lines.at(-2)!.replace(/^data: /, '')) as Record<string, unknown>;
    expect(last).toMatchObject({ type: 'error', stop_reason: 'converged' });
    expect(last.message).toMatch(/^no final report: /);
  });
});

describe('llmHost: validation and repair', () => {
  it('asks again when the reply names no known action, and takes the repaired decision', async () => {
    const model = scriptedModel({
      rules: [
        { name: 'repair', when: REPAIR, reply: "{'action': 'converge', 'reason': 'they agree'}" },
        { name: 'first', when: 'round 1', reply: "{'action': 'agree', 'reason': 'they agree'}" },
      ],
    });
    const r = await new Deliberation({ agents: [scriptedAgent('a', ['x'])], host: llmHost({ model, system: 'Moderate.', turn: (ctx) => `round ${ctx.round}` }) }).run('q');
    expect(model.calls.map((c) => c.rule)).toEqual(['first', 'repair']);
    expect(lastUser(model.calls[1]!.request.messages)).toMatch(/^Your reply could not be used: .*"action" must be one of/s);
    const decision = r.rounds[0]!.hostDecision!;
    expect(decision).toMatchObject({ action: 'converge', reason: 'they agree', nextAgents: [] });
    // The moderator's memory holds both exchanges.
    expect(decision.transcript?.map((e) => e.user)).toEqual(['round 1', expect.stringMatching(/^Your reply could not be used/)]);
    expect(r.stopReason).toBe('converged');
  });

  it('ends the deliberation with stopReason "error" when the repair fails too: no rule says who speaks next', async () => {
    const model = scriptedModel({ rules: [{ name: 'prose', when: 'round 1', reply: 'I think they mostly agree.' }] });
    const r = await new Deliberation({ agents: [scriptedAgent('a', ['x'])], host: llmHost({ model, turn: (ctx) => `round ${ctx.round}` }), reporter: { report: () => ({ content: 'never' }) } }).run('q');
    expect(model.callCount).toBe(2);
    expect(r.stopReason).toBe('error');
    expect(r.rounds).toHaveLength(1);
    expect(r.rounds[0]!.hostDecision).toBeUndefined();
    expect(r.finalReport).toBeUndefined();
    expect(r.errors).toMatchObject([{ code: 'INVALID_FORMAT', where: { kind: 'agent', agentId: 'host', round: 1 } }]);
  });
});
