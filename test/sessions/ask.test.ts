import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InMemoryEventStore } from '../../src/index.js';
import { SessionEngine, type AgentSession, type BranchWorker } from '../../src/sessions/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

const plan = { rollback: { strategy: 'git_revert' }, limits: { max_changes: 40, max_files: 2 }, capabilities_required: ['safe_edit'], success_criteria: ['tests pass'], risk_estimate: { test_coverage: 0.9 }, context_sufficiency: { unresolved_symbol_rate: 0.02 } };

async function session(branches: string[]): Promise<{ s: AgentSession; ids: string[] }> {
  const engine = new SessionEngine({ store: new InMemoryEventStore(), writerId: 'w' });
  const s = await engine.startSession({ goal: 'Speed up config loading', successCriteria: ['p95 under 5 ms'] });
  const t = await s.addThought({ role: 'planner', content: 'Cache the parsed config.' });
  const forked = await s.fork({ from: t.id, branches: branches.map((name) => ({ name })) });
  return { s, ids: forked.map((b) => b.id) };
}

const planner: BranchWorker = () => ({ thoughts: [{ content: 'plan' }], plan });

describe('runParallel asking a person', () => {
  it('asks to approve the winner\'s plan, with the plan in the preview; approved, the winner stands', async () => {
    const { s, ids } = await session(['only']);
    const previews: unknown[] = [];
    const out = await s.runParallel({
      branchIds: ids,
      worker: planner,
      approveWinner: true,
      onAsk: (q) => {
        previews.push({ id: q.id, preview: q.preview });
        return { approved: true };
      },
    });
    expect(previews).toEqual([{ id: `branch/${ids[0]}#approve`, preview: expect.objectContaining({ branchId: ids[0], name: 'only', planKind: 'execution', plan }) }]);
    expect(out.stopReason).toBe('decided');
    expect(out.winner?.id).toBe(ids[0]);
  });

  it('denied, ends not_approved without a winner', async () => {
    const { s, ids } = await session(['only']);
    const out = await s.runParallel({ branchIds: ids, worker: planner, approveWinner: true, onAsk: () => ({ approved: false, reason: 'too risky' }) });
    expect(out.stopReason).toBe('not_approved');
    expect(out.winner).toBeUndefined();
  });

  it('lets a branch worker ask, the question named by its branch', async () => {
    const { s, ids } = await session(['a']);
    const asking: BranchWorker = async (_branch, ctx) => {
      const coverage = await ctx.ask!({ key: 'coverage', question: 'Test coverage?', schema: z.number().min(0).max(1) });
      return { plan: { ...plan, risk_estimate: { test_coverage: coverage } } };
    };
    const asked: string[] = [];
    const out = await s.runParallel({ branchIds: ids, worker: asking, onAsk: (q) => (asked.push(q.id), 0.95) });
    expect(asked).toEqual([`branch/${ids[0]}#coverage`]);
    expect(out.winner?.id).toBe(ids[0]);
  });

  it('without onAsk refuses to let a branch worker wait: a parallel run cannot be resumed', async () => {
    const { s, ids } = await session(['only']);
    const asking: BranchWorker = async (_branch, ctx) => ({ plan: { ...plan, note: await ctx.ask!({ key: 'note', question: 'A note?' }) } });
    const error = await catchTotError(() => s.runParallel({ branchIds: ids, worker: asking, store: new InMemoryEventStore(), strict: true }), 'ILLEGAL_STATE');
    expect(error.message).toContain('onAsk');
  });

  it('without onAsk leaves the winner\'s approval waiting in the session, answered later by approvePlan', async () => {
    const { s, ids } = await session(['only']);
    const out = await s.runParallel({ branchIds: ids, worker: planner, approveWinner: true, store: new InMemoryEventStore() });
    expect(out.stopReason).toBe('waiting');
    expect(out.winner).toBeUndefined();
    expect(out.pending?.map((q) => q.id)).toEqual([`branch/${ids[0]}#approve`]);
    expect(out.detail).toEqual({ kind: 'waiting', questions: [`branch/${ids[0]}#approve`] });
    expect(s.approvalQuestion(ids[0]!)?.id).toBe(`branch/${ids[0]}#approve`);
    await catchTotError(() => s.exportPlan(ids[0]!, { requireApproval: true }), 'ILLEGAL_STATE');
    await s.approvePlan(ids[0]!, { approved: true });
    expect(await s.exportPlan(ids[0]!, { requireApproval: true })).toMatchObject(plan);
  });
});
