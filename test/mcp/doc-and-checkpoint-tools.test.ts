// The tools no other test called through MCP: think_export_doc_plan, think_receive_doc_validation,
// think_checkpoint and think_session_restore (the PostgreSQL test calls restore, on a database it
// may not have). Each is called through the SDK's Client over the in-memory transport; every result
// is checked against the output schema the server advertises (in-process.ts), and the effect on the
// session and its store is checked.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SessionEngine } from '../../src/sessions/index.js';
import { validPlan } from '../helpers/mcp-sampling.js';
import { closeInProcess, connectInProcess, errorText, type InProcess } from './in-process.js';

type Branch = { branch_id: string; name: string; state: string };
type Graph = { version: number; thoughts: { id: string }[]; branches: { id: string; state: string; planKind?: string; evidence: { evidenceId: string; kind: string; success: boolean; summary: string; data: Record<string, unknown> }[] }[] };

/** A plan DocPlan accepts. */
const docPlan = (name: string) => ({
  target_path: `docs/${name}.md`,
  naming_convention: 'kebab-case',
  structure_template: { sections: ['Overview', 'Usage', 'Reference'] },
  validation_rules: ['every public function documented', 'examples compile'],
});

afterEach(closeInProcess);

const graphOf = async (s: InProcess, session_id: string) => (await s.ok<{ graph: Graph }>('think_graph_export', { session_id, format: 'json' })).graph;

/** A session with two branches (docs-a, docs-b), each with a doc plan, both validated. */
async function validatedDocBranches(s: InProcess) {
  const { session_id } = await s.ok<{ session_id: string }>('think_session_start', { goal: 'Document the importer' });
  await s.ok('think_plan_step', { session_id, content: 'The importer has no reference docs.' });
  await s.ok('think_branch_fork', { session_id, from: 't0', names: ['docs-a', 'docs-b'] });
  for (const [branch_id, name] of [
    ['br0', 'importer'],
    ['br1', 'importer-reference'],
  ] as const) {
    const planned = await s.ok<{ branch: Branch }>('think_plan_step', { session_id, branch_id, content: `Write ${name}.md.`, plan: docPlan(name), plan_kind: 'doc' });
    expect(planned.branch).toMatchObject({ branch_id, state: 'init' });
    const valid = await s.ok<{ ok: boolean; issues: string[]; branch: Branch }>('think_validate_plan', { session_id, branch_id });
    expect(valid, JSON.stringify(valid)).toMatchObject({ ok: true, issues: [], branch: { branch_id, state: 'validated' } });
  }
  return session_id;
}

describe('think_export_doc_plan', () => {
  it('exports a validated doc plan with _got_metadata, moves the branch to executing, and exports the same plan again without writing', async () => {
    const s = await connectInProcess();
    const session_id = await validatedDocBranches(s);

    const plan = await s.ok<Record<string, unknown>>('think_export_doc_plan', { session_id, branch_id: 'br0' });
    expect(plan).toMatchObject({ ...docPlan('importer'), _got_metadata: { session_id, branch_id: 'br0' } });
    const meta = plan._got_metadata as Record<string, unknown>;
    expect(typeof meta.token_cost).toBe('number');
    // An execution plan's confidence and alternatives are not a doc plan's.
    expect(meta).not.toHaveProperty('confidence');
    expect(meta).not.toHaveProperty('alternatives_explored');

    const before = await graphOf(s, session_id);
    expect(before.branches.map((b) => [b.id, b.state, b.planKind])).toEqual([
      ['br0', 'executing', 'doc'],
      ['br1', 'validated', 'doc'],
    ]);
    // Again: the same plan, and nothing written (the hint says idempotent).
    expect(await s.ok('think_export_doc_plan', { session_id, branch_id: 'br0' })).toEqual(plan);
    expect((await graphOf(s, session_id)).version).toBe(before.version);
  });

  it('refuses a branch holding an execution plan, and a branch not validated, saying why', async () => {
    const s = await connectInProcess();
    const { session_id } = await s.ok<{ session_id: string }>('think_session_start', { goal: 'Cache the parsed config' });
    await s.ok('think_plan_step', { session_id, content: 'Parse once.' });
    await s.ok('think_branch_fork', { session_id, from: 't0', names: ['memo', 'docs'] });
    await s.ok('think_plan_step', { session_id, branch_id: 'br0', content: 'The plan.', plan: validPlan('memo') });
    await s.ok('think_validate_plan', { session_id, branch_id: 'br0' });
    expect(errorText(await s.call('think_export_doc_plan', { session_id, branch_id: 'br0' }))).toMatch(/ILLEGAL_STATE: Branch br0 holds an? execution plan, not a doc plan/);

    await s.ok('think_plan_step', { session_id, branch_id: 'br1', content: 'The doc plan.', plan: docPlan('config'), plan_kind: 'doc' });
    expect(errorText(await s.call('think_export_doc_plan', { session_id, branch_id: 'br1' }))).toMatch(/Branch br1 is init: only a validated branch's plan is exported/);
    // Neither refusal moved a branch.
    expect((await graphOf(s, session_id)).branches.map((b) => b.state)).toEqual(['validated', 'init']);
  });
});

describe('think_receive_doc_validation', () => {
  it('records a compliant check (0.95 or more) and a non-compliant one as evidence; the same validation_id is recorded once', async () => {
    const s = await connectInProcess();
    const session_id = await validatedDocBranches(s);
    await s.ok('think_export_doc_plan', { session_id, branch_id: 'br0' });
    await s.ok('think_export_doc_plan', { session_id, branch_id: 'br1' });

    // Strings for the number and the boolean, as models send them.
    const good = await s.ok<{ session_id: string; evidence_id: string; compliant: boolean }>('think_receive_doc_validation', {
      session_id,
      branch_id: 'br0',
      validation_result: { validation_id: 'v-1', compliance_score: '0.97', placement_correct: 'true', summary: 'placed and complete' },
    });
    expect(good).toMatchObject({ session_id, evidence_id: 'br0/doc_validation/v-1', compliant: true, session_state: 'active' });
    const bad = await s.ok<{ evidence_id: string; compliant: boolean }>('think_receive_doc_validation', {
      session_id,
      branch_id: 'br1',
      validation_result: { validation_id: 'v-2', compliance_score: 0.9, placement_correct: false, summary: 'two sections missing' },
    });
    expect(bad).toMatchObject({ evidence_id: 'br1/doc_validation/v-2', compliant: false });

    const graph = await graphOf(s, session_id);
    expect(graph.branches.map((b) => [b.id, b.state])).toEqual([
      ['br0', 'evidence_received'],
      ['br1', 'evidence_received'],
    ]);
    expect(graph.branches[0]!.evidence).toEqual([expect.objectContaining({ evidenceId: 'br0/doc_validation/v-1', kind: 'doc_validation', success: true, summary: 'placed and complete', data: { complianceScore: 0.97, placementCorrect: true } })]);
    expect(graph.branches[1]!.evidence).toEqual([expect.objectContaining({ evidenceId: 'br1/doc_validation/v-2', success: false, data: { complianceScore: 0.9, placementCorrect: false } })]);

    // Reported again (a retry): the same evidence, nothing written.
    const again = await s.ok('think_receive_doc_validation', { session_id, branch_id: 'br0', validation_result: { validation_id: 'v-1', compliance_score: 0.97, placement_correct: true, summary: 'placed and complete' } });
    expect(again).toEqual(good);
    expect((await graphOf(s, session_id)).version).toBe(graph.version);
    const { digest } = await s.ok<{ digest: string }>('think_digest', { session_id, max_tokens: 400 });
    expect(digest).toContain('Evidence br0/doc_validation/v-1: success');
  });

  it('refuses a check for a branch whose plan was not exported, and a score over 1, saying what to send', async () => {
    const s = await connectInProcess();
    const session_id = await validatedDocBranches(s);
    expect(errorText(await s.call('think_receive_doc_validation', { session_id, branch_id: 'br0', validation_result: { validation_id: 'v-1', compliance_score: 1, placement_correct: true, summary: 'ok' } }))).toMatch(
      /Branch br0 is validated: evidence is for a branch whose plan was exported \(executing\)/,
    );
    expect(errorText(await s.call('think_receive_doc_validation', { session_id, branch_id: 'br0', validation_result: { validation_id: 'v-1', compliance_score: 1.5, placement_correct: true, summary: 'ok' } }))).toMatch(
      /validation_result.compliance_score: at most 1/,
    );
    expect((await graphOf(s, session_id)).branches[0]!.evidence).toEqual([]);
  });
});

describe('think_checkpoint', () => {
  it("saves the session's state at its current version as the store's snapshot; again, the same version", async () => {
    const s = await connectInProcess();
    const { session_id } = await s.ok<{ session_id: string }>('think_session_start', { goal: 'Checkpoint me' });
    for (const content of ['one', 'two', 'three']) await s.ok('think_plan_step', { session_id, content });
    const graph = await graphOf(s, session_id);
    // Starting a session saves no checkpoint.
    expect(await s.store.loadSnapshot(session_id)).toBeNull();

    const cp = await s.ok<{ session_id: string; version: number }>('think_checkpoint', { session_id });
    expect(cp).toEqual({ session_id, version: graph.version });
    expect(graph.version).toBe(3);
    const saved = await s.store.loadSnapshot(session_id);
    expect(saved?.version).toBe(3);
    expect(saved?.state).toEqual(graph);

    expect(await s.ok('think_checkpoint', { session_id })).toEqual(cp);
    expect((await graphOf(s, session_id)).version).toBe(3);
  });
});

describe('think_session_restore', () => {
  it('reloads the session from its latest checkpoint and the events after it, with what another writer added, and the same state as a fresh restore', async () => {
    const s = await connectInProcess();
    const { session_id } = await s.ok<{ session_id: string }>('think_session_start', { goal: 'Restore me', budget: { max_branches: 4 } });
    await s.ok('think_plan_step', { session_id, content: 'root' });
    await s.ok('think_branch_fork', { session_id, from: 't0', names: ['a', 'b'] });
    const { version: checkpoint } = await s.ok<{ version: number }>('think_checkpoint', { session_id });
    // Another writer on the same store (another process, say) adds two thoughts.
    const other = await new SessionEngine({ store: s.store }).restore(session_id);
    await other.addThought({ role: 'critic', content: 'from the other writer', parentIds: ['t0'] });
    await other.addThought({ role: 'planner', content: 'and its follow-up', branchId: 'br1', parentIds: ['t1'] });

    const readStream = vi.spyOn(s.store, 'readStream');
    const restore = vi.spyOn(s.engine, 'restore');
    const r = await s.ok<{ session_id: string; session_state: string; version: number; thoughts: number; branches: Branch[]; audit_bar: string }>('think_session_restore', { session_id });
    // The session was held by the server: it was dropped and restored all the same, reading only the events after the checkpoint.
    expect(restore).toHaveBeenCalledTimes(1);
    expect(readStream.mock.calls.map((c) => c[1])).toEqual([{ fromVersion: checkpoint + 1 }]);
    expect(r).toMatchObject({ session_id, session_state: 'active', version: checkpoint + 2, thoughts: 3 });
    expect(r.branches).toEqual([
      { branch_id: 'br0', name: 'a', state: 'init' },
      { branch_id: 'br1', name: 'b', state: 'init' },
    ]);
    expect(r.audit_bar).toBe(other.auditBar());
    expect(await graphOf(s, session_id)).toEqual((await new SessionEngine({ store: s.store }).restore(session_id)).toJSON());

    // The restored session goes on: the next thought continues the numbering.
    expect((await s.ok<{ thought_id: string }>('think_plan_step', { session_id, content: 'after the restore', parent_ids: ['t2'] })).thought_id).toBe('t3');
  });

  it('restores a session another server started on the same store, and refuses an unknown one, saying to start a session', async () => {
    const a = await connectInProcess();
    const b = await connectInProcess({ store: a.store });
    const { session_id } = await a.ok<{ session_id: string }>('think_session_start', { goal: 'Started by A' });
    await a.ok('think_plan_step', { session_id, content: 'A thinks.' });
    const r = await b.ok<{ thoughts: number; version: number }>('think_session_restore', { session_id });
    expect(r).toMatchObject({ thoughts: 1, version: 1 });
    expect(errorText(await b.call('think_session_restore', { session_id: 'sess_nowhere' }))).toMatch(/no session "sess_nowhere" in this server's store: send an id think_session_start returned, or start a session/);
  });
});
