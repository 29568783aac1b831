// The MCP server in process (createMcpServer over an in-memory store, the SDK's linked in-memory
// transports, the SDK's Client): bad input and state errors are isError results that say what to
// send instead, and the server answers the next call; numeric and boolean strings are accepted;
// think_parallel_run without a model hands the branches to the client; sequentialthinking.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InMemoryEventStore } from '../../src/index.js';
import { SessionEngine } from '../../src/sessions/index.js';
import { createMcpServer } from '../../src/mcp/index.js';
import { invalidPlan, structured, text, validPlan } from '../helpers/mcp-sampling.js';

type Thought = { id: string; role: string; content: string; parentIds: string[]; edge?: string; branchId?: string };
type Graph = { thoughts: Thought[]; branches: { id: string; name: string; from: string; state: string; thoughtIds: string[]; issues?: string[] }[]; budget: { maxTokens?: number } };

const open: { client: Client; server: McpServer }[] = [];

/** A server on its own engine and in-memory store, and a client connected to it. */
async function connect(): Promise<Client> {
  const server = createMcpServer({ engine: new SessionEngine({ store: new InMemoryEventStore() }) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'bad-input-test', version: '1.0.0' });
  await client.connect(clientSide);
  open.push({ client, server });
  return client;
}

let client: Client;
let session: string;

const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const ok = async <T = Record<string, unknown>>(name: string, args: Record<string, unknown>) => structured<T>(await call(name, args));

/** The result is an error whose text says each of `says`. */
function expectError(result: CallToolResult, ...says: (string | RegExp)[]) {
  expect(result.isError, JSON.stringify(result)).toBe(true);
  for (const s of says) expect(text(result)).toMatch(s);
}

/** The server answers the next call, and the session is as it was. */
async function stillAnswers(thoughts: number) {
  const status = await ok<{ session_state: string; thoughts: number }>('think_session_status', { session_id: session });
  expect(status).toMatchObject({ session_state: 'active', thoughts });
}

beforeEach(async () => {
  client = await connect();
  session = (await ok<{ session_id: string }>('think_session_start', { goal: 'Make the importer resumable' })).session_id;
});

afterEach(async () => {
  for (const { client: c, server } of open.splice(0)) {
    await c.close();
    await server.close();
  }
});

describe('bad input: isError results that say what to send, and the server answers the next call', () => {
  it('refuses a number for a thought\'s content, naming the field and what to send', async () => {
    const r = await call('think_plan_step', { session_id: session, content: 5 });
    expectError(r, 'content', 'send the thought as text');
    await stillAnswers(0);
  });

  it('refuses a strategy it does not have, listing the ones it has', async () => {
    await ok('think_plan_step', { session_id: session, content: 'root' });
    await ok('think_branch_fork', { session_id: session, from: 't0', names: ['a'] });
    const r = await call('think_parallel_run', { session_id: session, branch_ids: ['br0'], strategy: 'fastest' });
    expectError(r, 'strategy: send race, best, vote or bandit');
    await stillAnswers(1);
  });

  it('refuses a non-boolean for execution_result.success, naming the nested field', async () => {
    const r = await call('think_receive_evidence', { session_id: session, branch_id: 'br0', execution_result: { execution_id: 'x', success: 'maybe', summary: 's' } });
    expectError(r, 'execution_result.success: send true or false');
    await stillAnswers(0);
  });

  it('answers an unknown session by saying to start one', async () => {
    const r = await call('think_plan_step', { session_id: 'sess_does-not-exist', content: 'lost' });
    expectError(r, 'sess_does-not-exist', /start a session/);
    await stillAnswers(0);
  });

  it('refuses an illegal branch transition (validate_pass on an init branch), naming the triggers the state accepts', async () => {
    await ok('think_plan_step', { session_id: session, content: 'root' });
    await ok('think_branch_fork', { session_id: session, from: 't0', names: ['a'] });
    const r = await call('think_branch_transition', { session_id: session, branch_id: 'br0', trigger: 'validate_pass' });
    expectError(r, 'ILLEGAL_STATE', 'in state init cannot take validate_pass', 'it accepts user_input');
    await stillAnswers(1);
    const status = await ok<{ branches: { state: string }[] }>('think_session_status', { session_id: session });
    expect(status.branches.map((b) => b.state)).toEqual(['init']);
  });

  it('refuses a 401-character thought, saying to split it', async () => {
    const r = await call('think_plan_step', { session_id: session, content: 'x'.repeat(401) });
    expectError(r, '401 characters, over the limit of 400', 'split it');
    await stillAnswers(0);
    // 400 is the limit, not over it.
    expect((await ok<{ thought_id: string }>('think_plan_step', { session_id: session, content: 'x'.repeat(400) })).thought_id).toBe('t0');
  });

  it('refuses a plan without a branch, saying to send branch_id', async () => {
    const r = await call('think_plan_step', { session_id: session, content: 'a plan', plan: validPlan('x') });
    expectError(r, 'send branch_id');
  });

  it('refuses a plan 5,000 levels deep as bad input naming the depth limit, and stores nothing', async () => {
    await ok('think_plan_step', { session_id: session, content: 'root' });
    await ok('think_branch_fork', { session_id: session, from: 't0', names: ['a'] });
    let plan: Record<string, unknown> = { steps: ['done'] };
    for (let i = 2; i < 5000; i++) plan = { next: plan };
    const r = await call('think_plan_step', { session_id: session, branch_id: 'br0', content: 'A deep plan.', plan });
    expectError(r, /^INVALID_ARGUMENT: /, 'the plan nests deeper than 511 levels', 'Fix the argument it names');
    await stillAnswers(1);
  });
});

describe('strings for numbers and booleans', () => {
  it('accepts "5000" for budget.max_tokens', async () => {
    const { session_id } = await ok<{ session_id: string }>('think_session_start', { goal: 'Budgeted', budget: { max_tokens: '5000', max_branches: '2' } });
    const { graph } = await ok<{ graph: Graph }>('think_graph_export', { session_id, format: 'json' });
    expect(graph.budget).toMatchObject({ maxTokens: 5000, maxBranches: 2 });
  });

  it('accepts "true" for sequentialthinking\'s nextThoughtNeeded and "3" for its thoughtNumber', async () => {
    // An explicit session: the implicit one is per process (see the two-servers test below).
    const r = await ok<{ thoughtNumber: number; totalThoughts: number; nextThoughtNeeded: boolean }>('sequentialthinking', { thought: 'Third step.', nextThoughtNeeded: 'true', thoughtNumber: '3', totalThoughts: '5', session_id: session });
    expect(r).toMatchObject({ thoughtNumber: 3, totalThoughts: 5, nextThoughtNeeded: true });
  });
});

describe('think_parallel_run with no model and no sampling', () => {
  it('returns needs_plans naming the branches without a plan, and changes nothing', async () => {
    await ok('think_plan_step', { session_id: session, content: 'Two ways to resume.' });
    await ok('think_branch_fork', { session_id: session, from: 't0', names: ['checkpoints', 'replay'] });
    const r = await ok<{ status: string; planner: string; branches: { branch_id: string; has_plan: boolean; state: string }[]; next: string }>('think_parallel_run', { session_id: session, branch_ids: ['br0', 'br1'] });
    expect(r).toMatchObject({ status: 'needs_plans', planner: 'client' });
    expect(r.branches).toEqual([
      { branch_id: 'br0', name: 'checkpoints', state: 'init', has_plan: false },
      { branch_id: 'br1', name: 'replay', state: 'init', has_plan: false },
    ]);
    expect(r.next).toContain('br0, br1');
    expect(r.next).toContain('think_plan_step');
    await stillAnswers(1);
    const status = await ok<{ branches: { state: string }[] }>('think_session_status', { session_id: session });
    expect(status.branches.map((b) => b.state)).toEqual(['init', 'init']);
  });

  it('scores the plans the client wrote with think_plan_step on a second call, and picks the valid one', async () => {
    await ok('think_plan_step', { session_id: session, content: 'Two ways to resume.' });
    await ok('think_branch_fork', { session_id: session, from: 't0', names: ['checkpoints', 'replay'] });
    expect((await ok<{ status: string }>('think_parallel_run', { session_id: session, branch_ids: ['br0', 'br1'], strategy: 'best' })).status).toBe('needs_plans');

    const planned = await ok<{ branch: { branch_id: string; state: string } }>('think_plan_step', { session_id: session, branch_id: 'br0', content: 'Checkpoint every 1,000 rows.', plan: validPlan('checkpoints') });
    expect(planned.branch).toMatchObject({ branch_id: 'br0', state: 'init' });
    // A plan may come as a JSON string too.
    await ok('think_plan_step', { session_id: session, branch_id: 'br1', content: 'Replay the whole log.', plan: JSON.stringify(invalidPlan('replay')) });

    const r = await ok<{ status: string; planner: string; winner: { branch_id: string; state: string }; branches: { branch_id: string; state: string }[] }>('think_parallel_run', { session_id: session, branch_ids: ['br0', 'br1'], strategy: 'best' });
    expect(r).toMatchObject({ status: 'completed', planner: 'client', winner: { branch_id: 'br0', state: 'validated' } });
    expect(r.branches.map((b) => [b.branch_id, b.state])).toEqual([
      ['br0', 'validated'],
      ['br1', 'rejected'],
    ]);
    const { graph } = await ok<{ graph: Graph }>('think_graph_export', { session_id: session, format: 'json' });
    expect(graph.branches[1]!.issues?.join('; ')).toContain('max_changes may not exceed 1000');
  });

  it('refuses planner "sampling" when the client offers no sampling, saying what to send', async () => {
    await ok('think_plan_step', { session_id: session, content: 'root' });
    await ok('think_branch_fork', { session_id: session, from: 't0', names: ['a'] });
    const r = await call('think_parallel_run', { session_id: session, branch_ids: ['br0'], planner: 'sampling' });
    expectError(r, 'this client offers no sampling', 'send planner "auto" or "client"');
    await stillAnswers(1);
  });
});

describe('sequentialthinking', () => {
  const graphOf = async (id: string) => (await ok<{ graph: Graph }>('think_graph_export', { session_id: id, format: 'json' })).graph;
  const think = (args: Record<string, unknown>) => ok<{ session_id: string; thoughtNumber: number; branches: string[]; thoughtHistoryLength: number }>('sequentialthinking', args);

  // Calls that name no session go to the session of their MCP session (the connection); the other
  // tests here name theirs, so that this one and the next see the implicit session first.
  it('continues one session across calls that name none, as the reference server\'s clients call it', async () => {
    const first = await think({ thought: 'Rows are imported in one transaction.', nextThoughtNeeded: true, thoughtNumber: 1, totalThoughts: 3 });
    const second = await think({ thought: 'A crash loses the whole batch.', nextThoughtNeeded: true, thoughtNumber: 2, totalThoughts: 3 });
    const third = await think({ thought: 'Commit every 1,000 rows.', nextThoughtNeeded: false, thoughtNumber: 3, totalThoughts: 3 });
    expect(second.session_id).toBe(first.session_id);
    expect(third.session_id).toBe(first.session_id);
    expect(third.thoughtHistoryLength).toBe(3);
    const graph = await graphOf(first.session_id);
    expect(graph.thoughts.map((t) => [t.id, t.content, t.parentIds])).toEqual([
      ['t0', 'Rows are imported in one transaction.', []],
      ['t1', 'A crash loses the whole batch.', ['t0']],
      ['t2', 'Commit every 1,000 rows.', ['t1']],
    ]);
  });

  it('keeps the sequential thinking of two servers in one process apart: each starts its session in its own store', async () => {
    const one = await think({ thought: 'Server one, first thought.', nextThoughtNeeded: true, thoughtNumber: 1, totalThoughts: 2 });
    // A second server, on its own engine and store, in the same process.
    const other = await connect();
    const r = (await other.callTool({ name: 'sequentialthinking', arguments: { thought: 'Server two, first thought.', nextThoughtNeeded: true, thoughtNumber: 1, totalThoughts: 2 } })) as CallToolResult;
    expect(r.isError, text(r)).toBeFalsy();
    const two = r.structuredContent as { session_id: string; thoughtHistoryLength: number };
    expect(two.session_id).not.toBe(one.session_id);
    expect(two.thoughtHistoryLength).toBe(1);
  });

  it('records a revision as a critic\'s thought that refines the thought it revises', async () => {
    await think({ thought: 'Use a temp table.', nextThoughtNeeded: true, thoughtNumber: 1, totalThoughts: 3, session_id: session });
    await think({ thought: 'Then swap it in.', nextThoughtNeeded: true, thoughtNumber: 2, totalThoughts: 3, session_id: session });
    await think({ thought: 'No: a temp table dies with the connection.', nextThoughtNeeded: true, thoughtNumber: 3, totalThoughts: 3, isRevision: true, revisesThought: 1, session_id: session });
    const graph = await graphOf(session);
    expect(graph.thoughts[2]).toMatchObject({ id: 't2', role: 'critic', content: 'No: a temp table dies with the connection.', parentIds: ['t0'], edge: 'refines' });
  });

  it('makes a branch (branchFromThought and branchId) a real branch, listed in branches', async () => {
    await think({ thought: 'Import by rows.', nextThoughtNeeded: true, thoughtNumber: 1, totalThoughts: 3, session_id: session });
    await think({ thought: 'Batch them.', nextThoughtNeeded: true, thoughtNumber: 2, totalThoughts: 3, session_id: session });
    const r = await think({ thought: 'Or stream them instead.', nextThoughtNeeded: true, thoughtNumber: 3, totalThoughts: 4, branchFromThought: 2, branchId: 'streaming', session_id: session });
    expect(r.branches).toEqual(['streaming']);
    const graph = await graphOf(session);
    expect(graph.branches.map((b) => [b.name, b.from])).toEqual([['streaming', 't1']]);
    expect(graph.thoughts[2]).toMatchObject({ content: 'Or stream them instead.', parentIds: ['t1'], branchId: graph.branches[0]!.id });
    // The branch goes on under its id.
    const next = await think({ thought: 'Streams need backpressure.', nextThoughtNeeded: false, thoughtNumber: 4, totalThoughts: 4, branchId: 'streaming', session_id: session });
    expect(next.branches).toEqual(['streaming']);
    expect((await graphOf(session)).branches[0]!.thoughtIds).toEqual(['t2', 't3']);
  });

  it('stores a 1,000-character thought whole, as parts under the limit that refine each other', async () => {
    const words = Array.from({ length: 111 }, (_, i) => `w${String(i).padStart(7, '0')}`);
    const thought = `${words.join(' ')} z`;
    expect(thought.length).toBe(1000);
    const r = await think({ thought, nextThoughtNeeded: false, thoughtNumber: 1, totalThoughts: 1, session_id: session });
    expect(r.thoughtHistoryLength).toBe(1);
    const { thoughts } = await graphOf(session);
    expect(thoughts.length).toBe(3);
    expect(thoughts.every((t) => t.content.length <= 400)).toBe(true);
    expect(thoughts.map((t) => t.content).join('')).toBe(thought);
    expect(thoughts.map((t) => [t.id, t.parentIds, t.edge])).toEqual([
      ['t0', [], undefined],
      ['t1', ['t0'], 'refines'],
      ['t2', ['t1'], 'refines'],
    ]);
  });
});
