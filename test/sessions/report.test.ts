import { describe, expect, it } from 'vitest';
import { estimateTokens, InMemoryEventStore } from '../../src/index.js';
import { SessionEngine, redact } from '../../src/sessions/index.js';
import { mockModel } from '../../src/testing/index.js';
import type { SessionSnapshot } from '../../src/sessions/session-model.js';
import { sessionMetrics } from '../../src/sessions/session-report.js';

const plan = { rollback: { strategy: 'git_revert' }, limits: { max_changes: 40 }, capabilities_required: ['safe_edit'], success_criteria: ['tests pass'] };

async function raced() {
  let now = 0;
  const engine = new SessionEngine({ store: new InMemoryEventStore(), writerId: 'w', now: () => (now += 10) });
  const s = await engine.startSession({ goal: 'Deploy with token=abc123 to /srv/app/config for bob@example.com', budget: { maxTokens: 5000 } });
  const root = await s.addThought({ role: 'planner', content: 'Three ways to roll it out.', tokens: 100 });
  const [a, b, c] = await s.fork({ from: root.id, branches: [{ name: 'plan_a' }, { name: 'plan_b' }, { name: 'plan_c' }] });
  await s.addThought({ role: 'planner', content: 'SECRET-PLAN-A blue/green', parentIds: [root.id], branchId: a!.id, tokens: 600 });
  await s.addThought({ role: 'planner', content: 'SECRET-PLAN-B canary', parentIds: [root.id], branchId: b!.id, tokens: 850 });
  await s.addThought({ role: 'planner', content: 'SECRET-PLAN-C big bang', parentIds: [root.id], branchId: c!.id, tokens: 650 });
  await s.setPlan(b!.id, { ...plan, rollback: { strategy: 'nope' } });
  await s.validatePlan(b!.id); // rejected first
  await s.setPlan(b!.id, plan);
  await s.validatePlan(b!.id);
  for (const x of [a!, c!]) {
    await s.transition(x.id, 'user_input');
    await s.transition(x.id, 'race_lost', { reason: 'plan_b validated first' });
  }
  await s.exportPlan(b!.id);
  await s.receiveEvidence(b!.id, { executionId: 'e1', success: false, summary: 'SECRET-STDERR 2 tests failed', testsPassed: 40, testsFailed: 2, stderr: 'FAILED tests/test_x.py::test_a\n2 failed, 40 passed' });
  await s.transition(b!.id, 'user_input', { reason: 'critic reviewed' });
  return { s, ids: [a!.id, b!.id, c!.id] };
}

describe('session reports (seed 004)', () => {
  it('draws the token audit bar of the seed', async () => {
    const { s, ids } = await raced();
    await s.addThought({ role: 'decider', content: 'pad', tokens: 4200 - s.snapshot().tokensUsed });
    const bar = s.auditBar(ids[1]);
    expect(bar).toContain('Token Budget: [████████░░] 4200/5000');
    expect(bar).toContain('Current Branch: plan_b (850 tokens)');
    expect(bar).toContain('Total Branches: 3 (2100 tokens)');
    expect(bar).toContain('Estimated: 4200 tokens (within budget)');
    expect(bar.split('\n')).toHaveLength(6);
  });

  it('measures TPST, model hops, first-pass success, waste and early stops', async () => {
    const { s } = await raced();
    const m = s.metrics();
    expect(m.tpst).toBe(2200);
    // Every thought of this session was written by hand: they cost tokens, but no model was called.
    expect(m.modelHops).toBe(0);
    expect(m.firstPassSuccess).toBe(false);
    expect(m.earlyStopCount).toBe(2);
    expect(m.wasteRatio).toBeCloseTo((600 + 650) / 2100, 12);
    expect(m.branches.map((b) => [b.name, b.tokens, b.outcome, b.earlyStopped])).toEqual([
      ['plan_a', 600, 'early_stopped', true],
      ['plan_b', 850, 'completed', false],
      ['plan_c', 650, 'early_stopped', true],
    ]);
  });

  it('measures a branch of 200,000 thoughts, too many times to spread into Math.max', () => {
    const n = 200_000;
    const thoughts = Array.from({ length: n }, (_, i) => ({ id: `t${i}`, tokens: 1, at: 1_000 + i }));
    const branch = { id: 'br0', name: 'long', from: 't0', state: 'exploring', history: [], thoughtIds: thoughts.map((t) => t.id), evidence: [] };
    const snapshot = { id: 's', state: 'active', tokensUsed: n, thoughts, branches: [branch] } as unknown as SessionSnapshot;
    expect(sessionMetrics(snapshot).branches[0]).toMatchObject({ tokens: n, latencyMs: n - 1 });
  });

  it('counts model hops as the model calls the thoughts record, not as the thoughts that cost tokens', async () => {
    const plan = { rollback: { strategy: 'git_revert' }, limits: { max_changes: 40 }, capabilities_required: ['safe_edit'], success_criteria: ['tests pass'] };
    // The default worker: round 1 a planner call (its plan rejected), round 2 a critic call and a planner call.
    const model = mockModel([JSON.stringify({ summary: 'LRU', plan: { ...plan, rollback: { strategy: 'pray' } } }), 'Use git_revert.', JSON.stringify({ summary: 'LRU, revised', plan })]);
    const s = await new SessionEngine({ store: new InMemoryEventStore(), model }).startSession({ goal: 'g' });
    const root = await s.addThought({ role: 'planner', content: 'Cache the parsed config.' }); // by hand: 8 tokens, estimated
    await s.addThought({ role: 'tester', content: 'Measured by a script, not a model.', parentIds: [root.id], tokens: 40 });
    const [b] = await s.fork({ from: root.id, branches: [{ name: 'lru' }] });
    await s.runParallel({ branchIds: [b!.id], strategy: 'race' });
    expect(s.snapshot().thoughts.filter((t) => t.tokens > 0)).toHaveLength(5);
    expect(s.metrics().modelHops).toBe(3);
    expect(model.callCount).toBe(3);
  });

  it('counts the model calls a thought added by hand says made it, and keeps them through a restore', async () => {
    const store = new InMemoryEventStore();
    const engine = new SessionEngine({ store });
    const s = await engine.startSession({ goal: 'g' });
    await s.addThought({ role: 'planner', content: 'From three calls of my own model.', tokens: 300, modelCalls: 3 });
    await s.addThought({ role: 'critic', content: 'Written by hand.' });
    expect(s.metrics().modelHops).toBe(3);
    expect((await engine.restore(s.id)).metrics().modelHops).toBe(3);
    await s.checkpoint();
    expect((await new SessionEngine({ store }).restore(s.id)).metrics().modelHops).toBe(3);
  });

  it('lists a branch\'s evidence chain: plan, validations, export, evidence, completion', async () => {
    const { s, ids } = await raced();
    expect(s.evidenceChain(ids[1]).map((e) => `${e.step}:${e.status}`)).toEqual(['plan:execution', 'validate:fail', 'validate:pass', 'execution:exported', 'evidence:failure', 'complete:done']);
    expect(s.evidenceChain(ids[1]).find((e) => e.step === 'evidence')!.tests).toEqual({ passed: 40, failed: 2 });
  });

  it('keeps a digest within 200 tokens, even over a thousand thoughts', async () => {
    const { s } = await raced();
    for (let i = 0; i < 1000; i++) await s.addThought({ role: 'critic', content: `note ${i}: ${'x'.repeat(200)}`, tokens: 1 });
    for (const audience of ['private', 'public'] as const) expect(estimateTokens(s.digest({ audience }))).toBeLessThanOrEqual(200);
    expect(estimateTokens(s.digest({ maxTokens: 50 }))).toBeLessThanOrEqual(50);
  });

  it('shows no private content in a public digest: no thought, plan or evidence text, the goal redacted', async () => {
    const { s } = await raced();
    const pub = s.digest({ audience: 'public' });
    expect(pub).not.toMatch(/SECRET|abc123|bob@example\.com|\/srv\/app/);
    expect(pub).toContain('plan_b: completed');
    expect(s.digest({ audience: 'private' })).toContain('SECRET-STDERR');
  });

  it('redacts secrets however they are labelled', () => {
    expect(redact('AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG')).toBe('AWS_SECRET_ACCESS_KEY=[redacted]');
    expect(redact('Authorization: Bearer sk-abc123')).toBe('Authorization: Bearer [redacted]');
    expect(redact('the password is hunter2')).toBe('the password is [redacted]');
  });

  it('keeps a secret in a branch name out of the public digest', async () => {
    const s = await new SessionEngine({ store: new InMemoryEventStore() }).startSession({ goal: 'g' });
    await s.fork({ from: (await s.addThought({ role: 'planner', content: 'c' })).id, branches: [{ name: 'use password is hunter2 on prod' }] });
    expect(s.digest({ audience: 'public' })).not.toContain('hunter2');
  });

  it('redacts mail addresses, URLs, paths, long tokens and labelled secrets', () => {
    expect(redact('deploy /srv/app with token=abc123 for bob@example.com via https://x.io/a?k=1 key: sk_live_abcdefghijklmnopqrstuvwxyz')).toBe('deploy [path] with token=[redacted] for [email] via [url] key=[redacted]');
  });

  it('draws the thought DAG in Mermaid, branches as subgraphs, stopped ones dashed', async () => {
    const { s, ids } = await raced();
    const text = s.toMermaid();
    expect(text).toContain(`subgraph ${ids[1]} ["${ids[1]} plan_b · completed"]`);
    expect(text).toContain('t0 --> t2');
    expect(text).toContain(`style ${ids[0]}_head stroke-dasharray: 5 5`);
    expect(s.toJSON()).toEqual(s.snapshot());
  });
});
