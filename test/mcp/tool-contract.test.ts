// What the tool list promises, checked in process: every tool's annotations against the table of
// tool-hints.ts, and the table's reasons against what the tools do (each tool called twice with the
// same arguments on a fresh session: what it wrote to the store, whether the second call wrote
// more, whether it asked a model); and the input schemas a client reads (properties, types,
// required fields) for the tools whose fields matter most.
import { afterEach, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { invalidPlan, planReply, structured, validPlan } from '../helpers/mcp-sampling.js';
import { closeInProcess, connectInProcess, type InProcess } from './in-process.js';
import { TOOL_HINTS } from './tool-hints.js';

afterEach(closeInProcess);

const docPlan = { target_path: 'docs/importer.md', naming_convention: 'kebab-case', structure_template: 'overview, usage, reference', validation_rules: ['examples compile'] };

/** The server's model: plans for the branch worker (rw's over the limit), and the critic's turn. */
const model = () =>
  scriptedModel({
    rules: [
      { name: 'critic', when: /^You are the critic/, reply: 'Too many changes.' },
      { name: 'rw', when: /^Approach: rw$/m, reply: planReply('rw', invalidPlan('rw')) },
      { name: 'plan', when: /^Approach: /m, reply: planReply('other', validPlan('other')) },
    ],
  });

/**
 * A session with a thought t0 and five branches: br0 exec (a valid execution plan, validated), br1
 * doc (a doc plan, validated), br2 free and br4 other (a thought each, no plan), br3 rw (a plan
 * over the limit, rejected).
 */
async function fixture(s: InProcess): Promise<string> {
  const { session_id } = await s.ok<{ session_id: string }>('think_session_start', { goal: 'Make the importer resumable', budget: { max_branches: 8 } });
  await s.ok('think_plan_step', { session_id, content: 'root' });
  await s.ok('think_branch_fork', { session_id, from: 't0', names: ['exec', 'doc', 'free', 'rw', 'other'] });
  await s.ok('think_plan_step', { session_id, branch_id: 'br0', content: 'exec plan', plan: validPlan('exec') });
  await s.ok('think_plan_step', { session_id, branch_id: 'br1', content: 'doc plan', plan: docPlan, plan_kind: 'doc' });
  await s.ok('think_plan_step', { session_id, branch_id: 'br2', content: 'free thought' });
  await s.ok('think_plan_step', { session_id, branch_id: 'br3', content: 'rw plan', plan: invalidPlan('rw') });
  await s.ok('think_plan_step', { session_id, branch_id: 'br4', content: 'other thought' });
  for (const branch_id of ['br0', 'br1', 'br3']) await s.ok('think_validate_plan', { session_id, branch_id });
  return session_id;
}

/** Each tool's arguments on the fixture's session, and what must happen first. */
const CALLS: Record<string, { prep?: (s: InProcess, id: string) => Promise<unknown>; args: (id: string) => Record<string, unknown> }> = {
  think_session_start: { args: () => ({ goal: 'Another goal' }) },
  think_session_status: { args: (id) => ({ session_id: id }) },
  think_session_control: { args: (id) => ({ session_id: id, action: 'pause' }) },
  think_checkpoint: { args: (id) => ({ session_id: id }) },
  think_session_restore: { args: (id) => ({ session_id: id }) },
  think_plan_step: { args: (id) => ({ session_id: id, content: 'Once more.', parent_ids: ['t0'] }) },
  think_branch_fork: { args: (id) => ({ session_id: id, from: 't0', names: ['again'] }) },
  think_branch_merge: { args: (id) => ({ session_id: id, branch_ids: ['br2', 'br4'], content: 'Both.' }) },
  think_branch_transition: { args: (id) => ({ session_id: id, branch_id: 'br2', trigger: 'user_input' }) },
  think_parallel_run: { args: (id) => ({ session_id: id, branch_ids: ['br3'], strategy: 'best', max_rounds: 1, planner: 'server' }) },
  think_validate_plan: { args: (id) => ({ session_id: id, branch_id: 'br3' }) },
  think_export_plan: { args: (id) => ({ session_id: id, branch_id: 'br0' }) },
  think_export_doc_plan: { args: (id) => ({ session_id: id, branch_id: 'br1' }) },
  think_answer: { args: (id) => ({ session_id: id, question_id: 'branch/br0#approve', answer: { approved: true } }) },
  think_receive_evidence: {
    prep: (s, id) => s.ok('think_export_plan', { session_id: id, branch_id: 'br0' }),
    args: (id) => ({ session_id: id, branch_id: 'br0', execution_result: { execution_id: 'run-1', success: false, summary: 'tests failed', stderr: 'AssertionError: expected 1 to be 2', exit_code: 1 } }),
  },
  think_receive_doc_validation: {
    prep: (s, id) => s.ok('think_export_doc_plan', { session_id: id, branch_id: 'br1' }),
    args: (id) => ({ session_id: id, branch_id: 'br1', validation_result: { validation_id: 'v-1', compliance_score: 0.99, placement_correct: true, summary: 'ok' } }),
  },
  think_digest: { args: (id) => ({ session_id: id, max_tokens: 300 }) },
  think_graph_export: { args: (id) => ({ session_id: id, format: 'json' }) },
  sequentialthinking: { args: () => ({ thought: 'Where do we start?', nextThoughtNeeded: true, thoughtNumber: 1, totalThoughts: 3 }) },
};

const events = async (s: InProcess, id: string) => {
  const out: StoredEvent[] = [];
  for await (const e of s.store.readStream(id)) out.push(e);
  return out;
};

describe('tool annotations', () => {
  it('lists every tool with the annotations of the table, and a title', async () => {
    const { tools } = await connectInProcess();
    expect(tools.map((t) => t.name).sort()).toEqual(Object.keys(TOOL_HINTS).sort());
    for (const t of tools) {
      expect({ name: t.name, ...t.annotations }, TOOL_HINTS[t.name]!.why).toEqual({ name: t.name, title: t.title, ...TOOL_HINTS[t.name]!.hints });
      expect(t.title, t.name).toMatch(/\w/);
    }
  });

  // The table's reasons, tool by tool: the first call writes (or not), the second writes more (or
  // not), nothing stored is ever changed or removed, and only the open-world tool asks a model.
  for (const [name, { hints, why }] of Object.entries(TOOL_HINTS)) {
    it(`${name}: ${why}`, async () => {
      const m = model();
      const s = await connectInProcess({ model: m });
      const id = await fixture(s);
      await CALLS[name]!.prep?.(s, id);
      const { args } = CALLS[name]!;
      const calls = m.callCount;
      const before = await events(s, id);
      const checkpointBefore = (await s.store.loadSnapshot(id))?.version;

      const first = structured<Record<string, unknown>>(await s.call(name, args(id)));
      const afterFirst = await events(s, id);
      // Nothing stored is changed or removed: the stream before is the start of the stream after.
      expect(afterFirst.slice(0, before.length)).toEqual(before);
      const wroteSession = afterFirst.length > before.length || (await s.store.loadSnapshot(id))?.version !== checkpointBefore;
      const newSession = typeof first.session_id === 'string' && first.session_id !== id;
      if (newSession) expect((await events(s, first.session_id as string)).length).toBeGreaterThan(0);
      expect(wroteSession || newSession, `${name} wrote to the store`).toBe(!hints.readOnlyHint);

      const second = structured<Record<string, unknown>>(await s.call(name, args(id)));
      const afterSecond = await events(s, id);
      expect(afterSecond.slice(0, afterFirst.length)).toEqual(afterFirst);
      const repeatWrote = afterSecond.length > afterFirst.length || (typeof second.session_id === 'string' && second.session_id !== first.session_id);
      expect(repeatWrote, `${name}'s second call wrote more`).toBe(!hints.idempotentHint);
      if (hints.idempotentHint) expect(second).toEqual(first);

      expect(m.callCount > calls, `${name} asked the server's model`).toBe(hints.openWorldHint);
    });
  }
});

describe('input schemas, as listed to clients', () => {
  type Schema = { type?: string; properties?: Record<string, Schema>; required?: string[]; items?: Schema; enum?: string[]; default?: unknown; minimum?: number; maximum?: number; minLength?: number; maxLength?: number; minItems?: number; maxItems?: number };
  const listed = async () => new Map((await connectInProcess()).tools.map((t) => [t.name, t.inputSchema as Schema]));

  it('think_plan_step: session_id and content required, the rest optional, tokens an integer, parent_ids a list of strings, plan an object', async () => {
    const s = (await listed()).get('think_plan_step')!;
    expect(s.type).toBe('object');
    expect(s.required).toEqual(['session_id', 'content']);
    expect(Object.keys(s.properties!).sort()).toEqual(['branch_id', 'content', 'edge', 'idempotency_key', 'parent_ids', 'plan', 'plan_kind', 'role', 'session_id', 'tokens']);
    expect(s.properties!.session_id).toMatchObject({ type: 'string', minLength: 1 });
    expect(s.properties!.content).toMatchObject({ type: 'string', minLength: 1 });
    // Sent as "12" it is taken (coerced), but advertised as what it is: an integer.
    expect(s.properties!.tokens).toMatchObject({ type: 'integer', minimum: 0, maximum: 1_000_000 });
    expect(s.properties!.parent_ids).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect(s.properties!.plan).toMatchObject({ type: 'object' });
    expect(s.properties!.role).toMatchObject({ type: 'string', enum: ['planner', 'critic', 'tester', 'decider'], default: 'planner' });
    expect(s.properties!.edge).toMatchObject({ enum: ['causes', 'refines', 'contradicts', 'supports'] });
    expect(s.properties!.plan_kind).toMatchObject({ enum: ['execution', 'doc'] });
  });

  it('think_parallel_run: session_id and branch_ids required, round_tokens and max_rounds integers with their ranges, strategy and planner enums', async () => {
    const s = (await listed()).get('think_parallel_run')!;
    expect(s.required).toEqual(['session_id', 'branch_ids']);
    expect(s.properties!.branch_ids).toMatchObject({ type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 64 });
    expect(s.properties!.round_tokens).toMatchObject({ type: 'integer', minimum: 16, maximum: 8000 });
    expect(s.properties!.max_rounds).toMatchObject({ type: 'integer', minimum: 1, maximum: 10 });
    expect(s.properties!.strategy).toMatchObject({ enum: ['race', 'best', 'vote', 'bandit'], default: 'race' });
    expect(s.properties!.planner).toMatchObject({ enum: ['auto', 'sampling', 'server', 'client'], default: 'auto' });
  });

  it('think_session_start, think_receive_evidence, think_receive_doc_validation: nested objects with their own required fields, numbers and booleans as such', async () => {
    const tools = await listed();
    const start = tools.get('think_session_start')!;
    expect(start.required).toEqual(['goal']);
    expect(start.properties!.goal).toMatchObject({ type: 'string', minLength: 1, maxLength: 4000 });
    expect(start.properties!.budget).toMatchObject({ type: 'object', properties: { max_tokens: { type: 'integer' }, max_ms: { type: 'integer' }, max_branches: { type: 'integer', minimum: 1, maximum: 1000 } } });
    expect(start.properties!.budget!.required ?? []).toEqual([]);

    const evidence = tools.get('think_receive_evidence')!;
    expect(evidence.required).toEqual(['session_id', 'branch_id', 'execution_result']);
    const result = evidence.properties!.execution_result!;
    expect(result.required).toEqual(['execution_id', 'success', 'summary']);
    expect(result.properties).toMatchObject({ success: { type: 'boolean' }, tests_passed: { type: 'integer' }, tests_failed: { type: 'integer' }, exit_code: { type: 'integer' }, stderr: { type: 'string' } });

    const doc = tools.get('think_receive_doc_validation')!;
    expect(doc.properties!.validation_result).toMatchObject({ required: ['validation_id', 'compliance_score', 'placement_correct', 'summary'], properties: { compliance_score: { type: 'number', minimum: 0, maximum: 1 }, placement_correct: { type: 'boolean' } } });
  });

  it('sequentialthinking: the reference server\'s four required fields, with their types', async () => {
    const s = (await listed()).get('sequentialthinking')!;
    expect(s.required).toEqual(['thought', 'nextThoughtNeeded', 'thoughtNumber', 'totalThoughts']);
    expect(s.properties).toMatchObject({
      thought: { type: 'string' },
      nextThoughtNeeded: { type: 'boolean' },
      thoughtNumber: { type: 'integer', minimum: 1 },
      totalThoughts: { type: 'integer', minimum: 1 },
      isRevision: { type: 'boolean' },
      revisesThought: { type: 'integer' },
      branchFromThought: { type: 'integer' },
      branchId: { type: 'string' },
      needsMoreThoughts: { type: 'boolean' },
      session_id: { type: 'string' },
    });
  });

  it('requires only fields it lists, never a field with a default, and every tool but think_session_start and sequentialthinking takes a session_id', async () => {
    for (const [name, s] of await listed()) {
      for (const field of s.required ?? []) {
        expect(s.properties, `${name} requires ${field}`).toHaveProperty(field);
        expect(s.properties![field]!.default, `${name}.${field} has a default and is required`).toBeUndefined();
      }
      if (name !== 'think_session_start' && name !== 'sequentialthinking') expect(s.required, name).toContain('session_id');
    }
  });
});
