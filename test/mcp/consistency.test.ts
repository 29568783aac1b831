// What a client can rely on when calls are refused, retried, raced, or made by two servers on one
// store: a refused call writes nothing, a validated plan is the exported plan, a second server sees
// the first's writes, and sequential thinking keeps one session per line of thought.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { InMemoryEventStore, type EventStore } from '../../src/index.js';
import { SessionEngine } from '../../src/sessions/index.js';
import { createMcpServer } from '../../src/mcp/index.js';
import { invalidPlan, structured, text, validPlan } from '../helpers/mcp-sampling.js';

const open: { client: Client; server: McpServer }[] = [];

/** A server on its own engine over `store`, and a client connected to it. */
async function connect(store: EventStore): Promise<(name: string, args: Record<string, unknown>) => Promise<CallToolResult>> {
  const server = createMcpServer({ engine: new SessionEngine({ store }) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'consistency-test', version: '1.0.0' });
  await client.connect(clientSide);
  open.push({ client, server });
  return (name, args) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
}

afterEach(async () => {
  for (const { client, server } of open.splice(0)) {
    await client.close();
    await server.close();
  }
});

async function sessionWithBranch(call: Awaited<ReturnType<typeof connect>>) {
  const { session_id } = structured<{ session_id: string }>(await call('think_session_start', { goal: 'Cache the parsed config' }));
  const { thought_id } = structured<{ thought_id: string }>(await call('think_plan_step', { session_id, content: 'Parse once per process.' }));
  await call('think_branch_fork', { session_id, from: thought_id, names: ['memo'] });
  return session_id;
}

describe('the MCP server, refused and repeated calls', () => {
  it('writes no thought when think_plan_step is refused for its plan', async () => {
    const call = await connect(new InMemoryEventStore());
    const session_id = await sessionWithBranch(call);
    const refused = await call('think_plan_step', { session_id, content: 'A plan without its branch.', plan: validPlan('memo') });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/send branch_id too/);
    expect(structured<{ thoughts: number }>(await call('think_session_status', { session_id })).thoughts).toBe(1);
  });

  it('writes neither the thought nor the plan when the plan nests deeper than the stores take, and a retry stores one of each', async () => {
    const call = await connect(new InMemoryEventStore());
    const session_id = await sessionWithBranch(call);
    let deep: Record<string, unknown> = validPlan('memo');
    for (let i = 0; i < 600; i++) deep = { next: deep };
    const refused = await call('think_plan_step', { session_id, branch_id: 'br0', content: 'The plan.', plan: deep, idempotency_key: 'plan-1' });
    expect(refused.isError).toBe(true);
    expect(structured<{ thoughts: number }>(await call('think_session_status', { session_id })).thoughts).toBe(1);
    const retried = await call('think_plan_step', { session_id, branch_id: 'br0', content: 'The plan.', plan: validPlan('memo'), idempotency_key: 'plan-1' });
    expect(structured<{ thought_id: string; branch: { branch_id: string } }>(retried)).toMatchObject({ thought_id: 't1', branch: { branch_id: 'br0' } });
    const { graph } = structured<{ graph: { thoughts: unknown[]; branches: { plan?: unknown }[] } }>(await call('think_graph_export', { session_id, format: 'json' }));
    expect(graph.thoughts).toHaveLength(2);
    expect(graph.branches[0]!.plan).toEqual(validPlan('memo'));
  });

  it('writes neither the thought nor the plan when the plan is over the store\'s 1 MiB', async () => {
    const call = await connect(new InMemoryEventStore());
    const session_id = await sessionWithBranch(call);
    const refused = await call('think_plan_step', { session_id, branch_id: 'br0', content: 'The plan.', plan: { ...validPlan('memo'), notes: 'x'.repeat(1_100_000) } });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^INVALID_ARGUMENT: .*over the limit of 1048576 bytes/);
    expect(structured<{ thoughts: number }>(await call('think_session_status', { session_id })).thoughts).toBe(1);
  });

  it('writes no thought when another server validates the branch between the tool\'s check and its write', async () => {
    const store = new InMemoryEventStore();
    // B's first write waits for `meanwhile`: what A does after B has checked the branch.
    let meanwhile: (() => Promise<unknown>) | undefined;
    const gated = Object.assign(Object.create(store) as EventStore, {
      append: async (...args: Parameters<EventStore['append']>) => {
        const first = meanwhile;
        meanwhile = undefined;
        await first?.();
        return store.append(...args);
      },
    });
    const a = await connect(store);
    const b = await connect(gated);
    const session_id = await sessionWithBranch(a);
    meanwhile = async () => {
      await a('think_plan_step', { session_id, branch_id: 'br0', content: 'The plan.', plan: validPlan('memo') });
      await a('think_validate_plan', { session_id, branch_id: 'br0' });
    };
    const refused = await b('think_plan_step', { session_id, branch_id: 'br0', content: 'Another plan.', plan: invalidPlan('memo') });
    expect(meanwhile).toBeUndefined();
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^ILLEGAL_STATE: .*br0 is validated: its plan can no longer change/);
    expect(structured<{ thoughts: number }>(await b('think_session_status', { session_id })).thoughts).toBe(2);
  });

  it('keeps a validated plan: a new plan for the branch is refused, and the export is the plan that passed', async () => {
    const call = await connect(new InMemoryEventStore());
    const session_id = await sessionWithBranch(call);
    await call('think_plan_step', { session_id, branch_id: 'br0', content: 'The plan.', plan: validPlan('memo') });
    expect(structured<{ ok: boolean }>(await call('think_validate_plan', { session_id, branch_id: 'br0' })).ok).toBe(true);
    const changed = await call('think_plan_step', { session_id, branch_id: 'br0', content: 'A riskier plan.', plan: invalidPlan('memo') });
    expect(changed.isError).toBe(true);
    expect(text(changed)).toMatch(/br0 is validated: its plan can no longer change/);
    const exported = structured<{ limits: { max_changes: number } }>(await call('think_export_plan', { session_id, branch_id: 'br0' }));
    expect(exported.limits.max_changes).toBe(validPlan('memo').limits.max_changes);
  });

  it('refuses to run a branch already past validation again', async () => {
    const call = await connect(new InMemoryEventStore());
    const session_id = await sessionWithBranch(call);
    await call('think_plan_step', { session_id, branch_id: 'br0', content: 'The plan.', plan: validPlan('memo') });
    await call('think_validate_plan', { session_id, branch_id: 'br0' });
    const again = await call('think_parallel_run', { session_id, branch_ids: ['br0'] });
    expect(again.isError).toBe(true);
    expect(text(again)).toMatch(/br0 is validated: a branch past validation is not run again/);
  });

  it('answers a repeated pause as done', async () => {
    const call = await connect(new InMemoryEventStore());
    const session_id = await sessionWithBranch(call);
    await call('think_session_control', { session_id, action: 'pause' });
    const again = await call('think_session_control', { session_id, action: 'pause' });
    expect(again.isError).toBeFalsy();
    expect(structured<{ session_state: string }>(again).session_state).toBe('paused');
  });
});

describe('the MCP server, two servers on one store', () => {
  it('lets a second server build on what the first wrote after it loaded the session', async () => {
    const store = new InMemoryEventStore();
    const a = await connect(store);
    const b = await connect(store);
    const session_id = await sessionWithBranch(a);
    // B holds the session now…
    await b('think_session_status', { session_id });
    // …then A adds a thought and a branch.
    const { thought_id } = structured<{ thought_id: string }>(await a('think_plan_step', { session_id, content: 'Invalidate on SIGHUP.' }));
    await a('think_branch_fork', { session_id, from: thought_id, names: ['lru'] });
    const child = await b('think_plan_step', { session_id, content: 'And on a file change.', parent_ids: [thought_id] });
    expect(child.isError, text(child)).toBeFalsy();
    const merged = await b('think_branch_merge', { session_id, branch_ids: ['br0', 'br1'], content: 'Both caches, one policy.' });
    expect(merged.isError, text(merged)).toBeFalsy();
  });
});

describe('sequentialthinking', () => {
  it('starts a new session when a client starts again at thought 1 without naming its session', async () => {
    const call = await connect(new InMemoryEventStore());
    const first = structured<{ session_id: string }>(await call('sequentialthinking', { thought: 'Problem one.', nextThoughtNeeded: false, thoughtNumber: 1, totalThoughts: 1 }));
    const second = await call('sequentialthinking', { thought: 'Problem two.', nextThoughtNeeded: false, thoughtNumber: 1, totalThoughts: 1 });
    expect(second.isError, text(second)).toBeFalsy();
    expect(structured<{ session_id: string; thoughtHistoryLength: number }>(second)).toMatchObject({ thoughtHistoryLength: 1 });
    expect(structured<{ session_id: string }>(second).session_id).not.toBe(first.session_id);
  });

  it('opens one session for first calls made at once', async () => {
    const call = await connect(new InMemoryEventStore());
    const results = await Promise.all([1, 2, 3].map((n) => call('sequentialthinking', { thought: `Step ${n}.`, nextThoughtNeeded: n < 3, thoughtNumber: n, totalThoughts: 3 })));
    const ids = new Set(results.map((r) => structured<{ session_id: string }>(r).session_id));
    expect(ids.size).toBe(1);
    expect(structured<{ thoughtHistoryLength: number }>(results[2]!).thoughtHistoryLength).toBe(3);
  });
});
