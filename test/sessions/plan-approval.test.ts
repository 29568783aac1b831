// The confirm step: a person approves a validated branch's plan before it is exported for execution.
import { describe, expect, it } from 'vitest';
import { InMemoryEventStore } from '../../src/index.js';
import { SessionEngine, type BranchWorker } from '../../src/sessions/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

const plan = { rollback: { strategy: 'git_revert' }, limits: { max_changes: 40, max_files: 2 }, capabilities_required: ['safe_edit'], success_criteria: ['npm test passes'] };

async function validated(store = new InMemoryEventStore()) {
  const engine = new SessionEngine({ store, writerId: 'w' });
  const s = await engine.startSession({ goal: 'Cache the config' });
  const t = await s.addThought({ role: 'planner', content: 'Cache the parsed config.' });
  const [b] = await s.fork({ from: t.id, branches: [{ name: 'lru' }] });
  await s.setPlan(b!.id, plan);
  await s.validatePlan(b!.id);
  return { s, id: b!.id, store };
}

describe('approving a branch\'s plan before it is exported', () => {
  it('refuses an export that requires approval before any is given, naming the question, and writes nothing', async () => {
    const { s, id } = await validated();
    const before = s.version;
    const error = await catchTotError(() => s.exportPlan(id, { requireApproval: true }), 'ILLEGAL_STATE');
    expect(error.message).toContain(`branch/${id}#approve`);
    expect(error.details).toMatchObject({ branchId: id, questionId: `branch/${id}#approve` });
    expect(s.version).toBe(before);
    expect(s.branch(id)!.state).toBe('validated');
  });

  it('exports once the plan is approved, and records the approval on the branch', async () => {
    const { s, id } = await validated();
    await s.approvePlan(id, { approved: true, reason: 'looks safe' });
    const exported = await s.exportPlan(id, { requireApproval: true });
    expect(exported).toMatchObject(plan);
    expect(s.branch(id)).toMatchObject({ state: 'executing', approval: { approved: true, reason: 'looks safe' } });
  });

  it('never exports a denied plan, whether or not the export asks for approval', async () => {
    const { s, id } = await validated();
    await s.approvePlan(id, { approved: false, reason: 'drops a table' });
    const error = await catchTotError(() => s.exportPlan(id), 'ILLEGAL_STATE');
    expect(error.message).toContain('drops a table');
    expect(s.branch(id)!.state).toBe('validated');
  });

  it('asks onAsk the approval question, with the plan as preview and the answer\'s schema, then exports', async () => {
    const { s, id } = await validated();
    const asked: unknown[] = [];
    const exported = await s.exportPlan(id, {
      onAsk: (q) => {
        asked.push(q);
        return { approved: true };
      },
    });
    expect(asked).toEqual([
      expect.objectContaining({
        id: `branch/${id}#approve`,
        key: 'approve',
        where: { kind: 'branch', branchId: id },
        preview: expect.objectContaining({ branchId: id, planKind: 'execution', plan }),
        schema: expect.objectContaining({ type: 'object', required: ['approved'] }),
      }),
    ]);
    expect(exported._got_metadata).toMatchObject({ branch_id: id });
    expect(s.branch(id)!.approval).toMatchObject({ approved: true });
  });

  it('puts the person\'s word in the evidence chain, between validation and execution', async () => {
    const { s, id } = await validated();
    await s.approvePlan(id, { approved: true });
    await s.exportPlan(id);
    expect(s.evidenceChain(id).map((e) => `${e.step}:${e.status}`)).toEqual(['plan:execution', 'validate:pass', 'confirm:approved', 'execution:exported']);
  });

  it('does not ask again once an answer is recorded', async () => {
    const { s, id } = await validated();
    await s.approvePlan(id, { approved: true });
    let asked = 0;
    await s.exportPlan(id, { onAsk: () => (asked++, { approved: false }) });
    expect(asked).toBe(0);
  });

  it('refuses a handler\'s answer that is not an approval, recording nothing', async () => {
    const { s, id } = await validated();
    const before = s.version;
    const error = await catchTotError(() => s.exportPlan(id, { onAsk: () => 'yes' }), 'INVALID_ARGUMENT');
    expect(error.message).toContain(`branch/${id}#approve`);
    expect(s.version).toBe(before);
    expect(s.branch(id)!.approval).toBeUndefined();
  });

  it('stops waiting for a handler that never answers when the export is aborted', async () => {
    const { s, id } = await validated();
    const controller = new AbortController();
    const pending = s.exportPlan(id, { onAsk: () => new Promise(() => undefined), signal: controller.signal });
    controller.abort();
    await catchTotError(() => pending, 'ABORTED');
    expect(s.branch(id)!.state).toBe('validated');
  });

  it('takes the same answer again as a retry and refuses a different one', async () => {
    const { s, id } = await validated();
    await s.approvePlan(id, { approved: true });
    const version = s.version;
    await s.approvePlan(id, { approved: true });
    expect(s.version).toBe(version);
    await catchTotError(() => s.approvePlan(id, { approved: false }), 'ILLEGAL_STATE');
  });

  it('refuses an answer that does not fit, before writing anything', async () => {
    const { s, id } = await validated();
    const before = s.version;
    await catchTotError(() => s.approvePlan(id, { approved: 'yes' } as never), 'INVALID_ARGUMENT');
    await catchTotError(() => s.approvePlan(id, { approved: true, note: 'x' } as never), 'INVALID_ARGUMENT');
    expect(s.version).toBe(before);
  });

  it('approves only a validated branch', async () => {
    const { s } = await validated();
    const t = await s.addThought({ role: 'planner', content: 'Another idea.' });
    const [other] = await s.fork({ from: t.id, branches: [{ name: 'ttl' }] });
    await catchTotError(() => s.approvePlan(other!.id, { approved: true }), 'ILLEGAL_STATE');
  });

  it('keeps the answer in the store: another engine on it sees the approval and asks nothing', async () => {
    const { s, id, store } = await validated();
    expect(s.approvalQuestion(id)?.id).toBe(`branch/${id}#approve`);
    await s.approvePlan(id, { approved: true });
    expect(s.approvalQuestion(id)).toBeUndefined();
    const again = await new SessionEngine({ store, writerId: 'other' }).restore(s.id);
    expect(again.branch(id)!.approval).toMatchObject({ approved: true });
    expect(await again.exportPlan(id, { requireApproval: true })).toMatchObject(plan);
  });

  it('sees an answer another handle on the store gave, without being refreshed first', async () => {
    const { s, id, store } = await validated();
    const other = await new SessionEngine({ store, writerId: 'other' }).restore(s.id);
    await other.approvePlan(id, { approved: true });
    let asked = 0;
    expect(await s.exportPlan(id, { onAsk: () => (asked++, { approved: true }) })).toMatchObject(plan);
    expect(asked).toBe(0);
  });

  it('takes one answer of two writers that answer differently at once', async () => {
    const { s, id, store } = await validated();
    const other = await new SessionEngine({ store, writerId: 'other' }).restore(s.id);
    const results = await Promise.allSettled([s.approvePlan(id, { approved: true }), other.approvePlan(id, { approved: false })]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason.code).toBe('ILLEGAL_STATE');
    await s.refresh();
    await other.refresh();
    expect(s.branch(id)!.approval).toEqual(other.branch(id)!.approval);
  });

  it('records the winner\'s approval given in a parallel run, so its export asks nothing more', async () => {
    const store = new InMemoryEventStore();
    const s = await new SessionEngine({ store, writerId: 'w' }).startSession({ goal: 'Cache the config' });
    const t = await s.addThought({ role: 'planner', content: 'Cache the parsed config.' });
    const [b] = await s.fork({ from: t.id, branches: [{ name: 'lru' }] });
    const planner: BranchWorker = () => ({ plan });
    const out = await s.runParallel({ branchIds: [b!.id], worker: planner, approveWinner: true, onAsk: () => ({ approved: true }) });
    expect(out.winner?.id).toBe(b!.id);
    expect(s.branch(b!.id)!.approval).toMatchObject({ approved: true });
    await s.exportPlan(b!.id, { requireApproval: true });
    expect(s.branch(b!.id)!.state).toBe('executing');
  });
});
