import { describe, expect, it } from 'vitest';
import { InMemoryEventStore } from '../../src/index.js';
import { SessionEngine } from '../../src/sessions/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

const plan = { rollback: { strategy: 'git_revert' }, limits: { max_changes: 40, max_files: 2 }, capabilities_required: ['safe_edit'], success_criteria: ['npm test passes'], risk_estimate: { test_coverage: 0.9 } };
const doc = { target_path: 'docs/adr/0007-cache.md', naming_convention: 'NNNN-title.md', structure_template: 'adr', validation_rules: ['has a Status section'] };

async function withBranch() {
  const s = await new SessionEngine({ store: new InMemoryEventStore(), writerId: 'w' }).startSession({ goal: 'Cache the config' });
  const t = await s.addThought({ role: 'planner', content: 'Cache the parsed config.' });
  const [b] = await s.fork({ from: t.id, branches: [{ name: 'lru' }] });
  await s.addThought({ role: 'planner', content: 'An LRU of 64 entries.', parentIds: [t.id], branchId: b!.id, tokens: 30 });
  return { s, id: b!.id };
}

describe('validating, exporting and getting feedback on a branch\'s plan (seed 004)', () => {
  it('validates a good plan: through planning, scoring and validating to validated, scored, in one write', async () => {
    const { s, id } = await withBranch();
    await s.setPlan(id, plan);
    const before = s.version;
    const r = await s.validatePlan(id);
    expect(r.ok).toBe(true);
    expect(r.branch.state).toBe('validated');
    expect(r.branch.history.map((h) => h.to)).toEqual(['planning', 'scoring', 'validating', 'validated']);
    expect(r.branch.score).toMatchObject({ completeness: 1, cost: 30, historyPrior: 0.5 });
    expect(r.branch.reward).toBeGreaterThan(0.5);
    expect(s.version).toBe(before + 5);
  });

  it('rejects a bad plan with its issues, and validates its revision', async () => {
    const { s, id } = await withBranch();
    await s.setPlan(id, { ...plan, limits: { max_changes: 5000 } });
    const rejected = await s.validatePlan(id);
    expect(rejected.branch.state).toBe('rejected');
    expect(rejected.branch.issues).toEqual(['limits.max_changes: limits.max_changes may not exceed 1000 (it is 5000)']);
    await s.setPlan(id, plan);
    const again = await s.validatePlan(id);
    expect(again.branch.state).toBe('validated');
    expect(again.branch.history.map((h) => h.to).slice(-4)).toEqual(['planning', 'scoring', 'validating', 'validated']);
  });

  it('refuses to validate a branch without a plan', async () => {
    const { s, id } = await withBranch();
    await catchTotError(() => s.validatePlan(id), 'ILLEGAL_STATE');
  });

  it('exports only a validated branch\'s plan, with its metadata, and moves it to executing', async () => {
    const { s, id } = await withBranch();
    await s.setPlan(id, plan);
    await catchTotError(() => s.exportPlan(id), 'ILLEGAL_STATE');
    await s.validatePlan(id);
    const exported = await s.exportPlan(id);
    expect(exported).toMatchObject({ ...plan, dry_run: true });
    expect(exported._got_metadata).toMatchObject({ session_id: s.id, branch_id: id, alternatives_explored: 1, token_cost: 30 });
    expect(s.branch(id)!.state).toBe('executing');
    expect(await s.exportPlan(id)).toEqual(exported);
    await catchTotError(() => s.exportDocPlan(id), 'ILLEGAL_STATE');
  });

  it('takes a failed execution\'s evidence: classified, signed, a critic needed, once per execution', async () => {
    const { s, id } = await withBranch();
    await s.setPlan(id, plan);
    await s.validatePlan(id);
    await catchTotError(() => s.receiveEvidence(id, { executionId: 'x', success: true, summary: 'early' }), 'ILLEGAL_STATE');
    await s.exportPlan(id);
    const stderr = 'FAILED tests/test_cache.py::test_expiry - assert 3 == 4\n1 failed, 12 passed in 0.31s';
    const r = await s.receiveEvidence(id, { executionId: 'run-17', success: false, summary: 'one test failed', stderr, exitCode: 1 });
    expect(r).toMatchObject({ criticNeeded: true, nextStep: 'critic_review', failure: { category: 'test_failed' } });
    expect(r.failure!.signature).toMatch(/^[0-9a-f]{16}$/);
    expect(s.branch(id)!.state).toBe('evidence_received');
    const again = await s.receiveEvidence(id, { executionId: 'run-17', success: false, summary: 'one test failed', stderr, exitCode: 1 });
    expect(again).toEqual(r);
    expect(s.branch(id)!.evidence).toHaveLength(1);
    await s.transition(id, 'user_input', { reason: 'critic reviewed' });
    expect(s.branch(id)!.state).toBe('completed');
  });

  it('runs a doc plan through validation, export and the doc service\'s verdict', async () => {
    const { s, id } = await withBranch();
    await s.setPlan(id, doc, { kind: 'doc' });
    expect((await s.validatePlan(id)).ok).toBe(true);
    const exported = await s.exportDocPlan(id);
    expect(exported).toMatchObject({ ...doc, _got_metadata: { session_id: s.id, branch_id: id } });
    expect(await s.receiveDocValidation(id, { validationId: 'v-3', complianceScore: 0.95, placementCorrect: true, summary: 'ok' })).toMatchObject({ compliant: true });
    expect(s.branch(id)!.history.at(-1)).toMatchObject({ trigger: 'evidence_success', to: 'evidence_received' });
  });

  it('restores a session with plans, scores and evidence to the same state', async () => {
    const store = new InMemoryEventStore();
    const engine = new SessionEngine({ store, writerId: 'w' });
    const s = await engine.startSession({ goal: 'g' });
    const [b] = await s.fork({ from: (await s.addThought({ role: 'planner', content: 'c' })).id, branches: [{ name: 'a' }] });
    await s.setPlan(b!.id, plan);
    await s.validatePlan(b!.id);
    await s.exportPlan(b!.id);
    await s.receiveEvidence(b!.id, { executionId: 'e1', success: true, summary: 'all green' });
    expect((await engine.restore(s.id)).snapshot()).toEqual(s.snapshot());
  });
});
