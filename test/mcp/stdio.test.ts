// `tot mcp` over stdio, driven by the SDK's own client: the built command (dist/cli/tot.js), a
// SQLite file in a temporary directory, a client whose model answers the server's sampling requests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStdio, useCliTempDb } from '../helpers/tot-cli.js';
import { raceWithRejection, structured, validPlan } from '../helpers/mcp-sampling.js';
import { TOOL_HINTS } from './tool-hints.js';

const DESIGN_TOOLS = [
  'think_session_start',
  'think_plan_step',
  'think_branch_fork',
  'think_branch_merge',
  'think_parallel_run',
  'think_validate_plan',
  'think_export_plan',
  'think_export_doc_plan',
  'think_receive_evidence',
  'think_receive_doc_validation',
  'think_digest',
];
const MORE_TOOLS = ['think_session_status', 'think_graph_export', 'think_checkpoint', 'think_session_restore', 'sequentialthinking'];

type Branch = { branch_id: string; name: string; state: string; reward?: number; early_stop_reason?: string };

const temp = useCliTempDb('tot-mcp-stdio-', 's.db');

const call = async <T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown>) => structured<T>(await client.callTool({ name, arguments: args }));

/** A session with a line of three thoughts and two branches forked from the last: good and bad. */
async function sessionWithBranches(client: Client) {
  const started = await call<{ session_id: string; session_state: string }>(client, 'think_session_start', { goal: 'Speed up config loading', success_criteria: ['p95 under 5 ms'], budget: { max_tokens: 50_000, max_branches: 4 } });
  const id = started.session_id;
  const t0 = await call<{ thought_id: string }>(client, 'think_plan_step', { session_id: id, content: 'Config is parsed on every request.' });
  const t1 = await call<{ thought_id: string }>(client, 'think_plan_step', { session_id: id, content: 'Parse once per process and cache it.', parent_ids: [t0.thought_id], edge: 'causes' });
  const t2 = await call<{ thought_id: string }>(client, 'think_plan_step', { session_id: id, role: 'critic', content: 'The cache must be invalidated on reload.', parent_ids: [t1.thought_id], edge: 'refines' });
  const fork = await call<{ branches: Branch[] }>(client, 'think_branch_fork', { session_id: id, from: t2.thought_id, names: ['good', 'bad'] });
  return { id, started, thoughts: [t0.thought_id, t1.thought_id, t2.thought_id], branches: fork.branches };
}

describe('tot mcp over stdio: the tool list', () => {
  // The list one server gives, asked once: each test reads it (a server's start costs about a
  // second of CPU). The server goes with the rest after the first test.
  let tools: Tool[];
  let dir = '';
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tot-mcp-tools-'));
    const { client } = await startStdio(['--db', join(dir, 't.db')]);
    tools = (await client.listTools()).tools;
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('lists the eleven think_* tools of DESIGN §3.15, and session status, graph export, checkpoint, restore and sequentialthinking', async () => {
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining([...DESIGN_TOOLS, ...MORE_TOOLS]));
  });

  it('gives every tool an object input schema, an object output schema and annotations', async () => {
    for (const t of tools) {
      expect(t.inputSchema.type, `${t.name} inputSchema`).toBe('object');
      expect(t.outputSchema?.type, `${t.name} outputSchema`).toBe('object');
      expect(t.annotations, `${t.name} annotations`).toBeDefined();
      expect(typeof t.annotations!.readOnlyHint, `${t.name} readOnlyHint`).toBe('boolean');
      expect(typeof t.annotations!.idempotentHint, `${t.name} idempotentHint`).toBe('boolean');
    }
  });

  it('annotates every tool as the table of tool-hints.ts says (its reasons are checked in tool-contract.test.ts)', async () => {
    expect(tools.map((t) => t.name).sort()).toEqual(Object.keys(TOOL_HINTS).sort());
    for (const t of tools) {
      const { title: _title, ...hints } = t.annotations!;
      expect({ name: t.name, ...hints }, TOOL_HINTS[t.name]!.why).toEqual({ name: t.name, ...TOOL_HINTS[t.name]!.hints });
    }
    // In particular: the tools that write are not read-only; only the parallel run reaches a model.
    const byName = new Map(tools.map((t) => [t.name, t.annotations!]));
    for (const name of ['think_plan_step', 'think_session_start', 'think_branch_fork', 'think_parallel_run', 'sequentialthinking']) expect(byName.get(name)?.readOnlyHint, name).toBe(false);
    expect(tools.filter((t) => t.annotations!.openWorldHint).map((t) => t.name)).toEqual(['think_parallel_run']);
    expect(byName.get('sequentialthinking')?.idempotentHint).toBe(true);
  });
});

describe('tot mcp over stdio: a whole session', () => {
  it('starts, plans, forks, races two branches through sampling, validates, exports, takes evidence and digests', async () => {
    let seen!: ReturnType<typeof raceWithRejection>['seen'];
    const { client } = await startStdio(['--db', temp.db], { sampling: true, setup: (c) => ({ seen } = raceWithRejection(c, { good: 'good', bad: 'bad' })) });
    const s = await sessionWithBranches(client);
    expect(s.started).toMatchObject({ session_state: 'active' });
    expect(s.started.session_id).toMatch(/^sess_/);
    expect(s.thoughts).toEqual(['t0', 't1', 't2']);
    expect(s.branches).toEqual([
      { branch_id: 'br0', name: 'good', state: 'init' },
      { branch_id: 'br1', name: 'bad', state: 'init' },
    ]);
    const [good, bad] = s.branches.map((b) => b.branch_id) as [string, string];

    // The race: the client's model plans both branches; bad's plan is rejected, good's validates.
    const race = await call<{ status: string; planner: string; stop_reason: string; winner: Branch; branches: (Branch & { rounds: number })[] }>(client, 'think_parallel_run', { session_id: s.id, branch_ids: [good, bad], strategy: 'race' });
    expect(race).toMatchObject({ status: 'completed', planner: 'sampling', stop_reason: 'decided', winner: { branch_id: good, name: 'good', state: 'validated' } });
    expect(race.branches.find((b) => b.branch_id === good)).toMatchObject({ state: 'validated', rounds: 1 });
    expect(race.branches.find((b) => b.branch_id === bad)).toMatchObject({ state: 'early_stopped', early_stop_reason: `${good} validated first` });
    // Bad's requests after its first carried what validation found wrong with its rejected plan (to
    // the branch worker's critic, or in the revision's prompt).
    const badAsks = seen.filter((x) => x.approach === 'bad');
    expect(badAsks.length).toBeGreaterThanOrEqual(2);
    expect(badAsks.slice(1).some((x) => x.prompt.includes('max_changes may not exceed 1000'))).toBe(true);
    expect(seen.every((x) => x.prompt.includes('Goal: Speed up config loading'))).toBe(true);

    const valid = await call<{ ok: boolean; issues: string[]; branch: Branch }>(client, 'think_validate_plan', { session_id: s.id, branch_id: good });
    expect(valid).toMatchObject({ ok: true, issues: [], branch: { branch_id: good, state: 'validated' } });
    const rejected = await call<{ ok: boolean; issues: string[]; branch: Branch }>(client, 'think_validate_plan', { session_id: s.id, branch_id: bad });
    expect(rejected.ok).toBe(false);
    expect(rejected.issues.join('; ')).toContain('max_changes may not exceed 1000');

    const plan = await call<Record<string, unknown>>(client, 'think_export_plan', { session_id: s.id, branch_id: good });
    expect(plan).toMatchObject({
      dry_run: true,
      rollback: { strategy: 'git_revert' },
      limits: { max_changes: 40, max_files: 3 },
      capabilities_required: ['safe_edit'],
      success_criteria: ['tests pass'],
      _got_metadata: { session_id: s.id, branch_id: good, alternatives_explored: 2 },
    });

    const evidence = await call<{ evidence_id: string; critic_needed: boolean; next_step: string }>(client, 'think_receive_evidence', {
      session_id: s.id,
      branch_id: good,
      execution_result: { execution_id: 'run-1', success: true, summary: 'applied; tests pass', tests_passed: 12, tests_failed: 0, exit_code: 0 },
    });
    expect(evidence).toMatchObject({ evidence_id: `${good}/execution/run-1`, critic_needed: false, next_step: 'complete' });

    const { digest } = await call<{ digest: string }>(client, 'think_digest', { session_id: s.id, max_tokens: 400 });
    expect(digest).toContain('Goal: Speed up config loading');
    expect(digest).toContain(`Branch ${good} good: evidence_received`);
    expect(digest).toContain(`Branch ${bad} bad: early_stopped`);
    expect(digest).toContain(`Evidence ${good}/execution/run-1: success`);
  });
});

describe('tot mcp over stdio: a restart', () => {
  it('continues a session after the server is killed (SIGKILL) and started again on the same file', async () => {
    const first = await startStdio(['--db', temp.db], { sampling: true, setup: (c) => void raceWithRejection(c, { good: 'good', bad: 'bad' }) });
    const s = await sessionWithBranches(first.client);
    await call(first.client, 'think_parallel_run', { session_id: s.id, branch_ids: ['br0', 'br1'], strategy: 'race' });
    const before = await call<{ thoughts: number; branches: Branch[]; session_state: string; goal: string }>(first.client, 'think_session_status', { session_id: s.id });
    expect(before.thoughts).toBeGreaterThan(3);
    await first.kill();

    const second = await startStdio(['--db', temp.db]);
    expect(second.pid).not.toBe(first.pid);
    const after = await call<{ thoughts: number; branches: Branch[]; session_state: string; goal: string }>(second.client, 'think_session_status', { session_id: s.id });
    expect(after).toMatchObject({ session_id: s.id, goal: 'Speed up config loading', session_state: before.session_state, thoughts: before.thoughts });
    expect(after.branches).toEqual(before.branches);
    expect(after.branches.map((b) => [b.branch_id, b.state])).toEqual([
      ['br0', 'validated'],
      ['br1', 'early_stopped'],
    ]);

    // The same session goes on: the next thought's id continues the numbering, and the validated branch exports.
    const next = await call<{ thought_id: string }>(second.client, 'think_plan_step', { session_id: s.id, content: 'Resumed after a crash.', parent_ids: ['t2'] });
    expect(next.thought_id).toBe(`t${before.thoughts}`);
    const plan = await call<{ _got_metadata: { branch_id: string } }>(second.client, 'think_export_plan', { session_id: s.id, branch_id: 'br0' });
    expect(plan._got_metadata.branch_id).toBe('br0');
    const status = await call<{ thoughts: number }>(second.client, 'think_session_status', { session_id: s.id });
    expect(status.thoughts).toBe(before.thoughts + 1);
  });
});

describe('tot mcp --approve-plans over stdio: the confirm step before export', () => {
  it('asks the client\'s user through elicitation; a client without it is told what is pending and answers with think_answer', async () => {
    const asked: string[] = [];
    const first = await startStdio(['--db', temp.db, '--approve-plans'], {
      sampling: true,
      elicitation: true,
      setup: (c) => {
        void raceWithRejection(c, { good: 'good', bad: 'bad' });
        c.setRequestHandler(ElicitRequestSchema, async (req) => {
          asked.push(req.params.message);
          return { action: 'accept', content: { approved: false, reason: 'wait for the freeze to end' } };
        });
      },
    });
    const s = await sessionWithBranches(first.client);
    await call(first.client, 'think_parallel_run', { session_id: s.id, branch_ids: ['br0', 'br1'], strategy: 'race' });
    // br0 validated: the user is asked, and says no.
    expect(await call(first.client, 'think_export_plan', { session_id: s.id, branch_id: 'br0' })).toMatchObject({ status: 'not_approved', reason: 'wait for the freeze to end' });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('Approve it for execution?');
    await first.kill();

    // Another branch, validated in another server process whose client takes no elicitation.
    const second = await startStdio(['--db', temp.db, '--approve-plans']);
    const fork = await call<{ branches: Branch[] }>(second.client, 'think_branch_fork', { session_id: s.id, from: 't2', names: ['later'] });
    const later = fork.branches[0]!.branch_id;
    await call(second.client, 'think_plan_step', { session_id: s.id, branch_id: later, content: 'The same, after the freeze.', plan: validPlan('later') });
    await call(second.client, 'think_validate_plan', { session_id: s.id, branch_id: later });
    const pending = await call<{ status: string; question: { id: string }; next: string }>(second.client, 'think_export_plan', { session_id: s.id, branch_id: later });
    expect(pending).toMatchObject({ status: 'approval_pending', question: { id: `branch/${later}#approve` } });
    expect(pending.next).toContain('think_answer');
    await call(second.client, 'think_answer', { session_id: s.id, question_id: pending.question.id, answer: { approved: true } });
    const plan = await call<{ _got_metadata: { branch_id: string } }>(second.client, 'think_export_plan', { session_id: s.id, branch_id: later });
    expect(plan._got_metadata.branch_id).toBe(later);
  });
});
