// `tot mcp --http` (Streamable HTTP on 127.0.0.1, a port the system picks), driven by the SDK's
// StreamableHTTPClientTransport: the built command, a SQLite file in a temporary directory.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureCli, startHttp, stopAll } from '../helpers/tot-cli.js';
import { raceWithRejection, structured } from '../helpers/mcp-sampling.js';
import { settlesWithin } from '../helpers/settles-within.js';

type Branch = { branch_id: string; name: string; state: string; early_stop_reason?: string };

let dir: string;
let db: string;

beforeAll(async () => {
  await ensureCli();
}, 180_000);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tot-mcp-http-'));
  db = join(dir, 'h.db');
});

afterEach(async () => {
  await stopAll();
  rmSync(dir, { recursive: true, force: true });
});

const call = async <T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown>) => structured<T>(await client.callTool({ name, arguments: args }));

describe('tot mcp over Streamable HTTP', () => {
  it('logs the address it serves on stderr, with the port the system gave it, and nothing on stdout', async () => {
    const server = await startHttp(['--db', db]);
    expect(server.url.hostname).toBe('127.0.0.1');
    expect(Number(server.url.port)).toBeGreaterThan(0);
    expect(server.url.pathname).toBe('/mcp');
    const client = await server.connect();
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('think_parallel_run');
    expect(server.stderr()).toContain(`serving Streamable HTTP at ${server.url.href}, sessions in ${db}`);
    expect(server.stdout()).toBe('');
  });

  it('runs a session: start, plan step, fork, a race planned through sampling, digest', async () => {
    const server = await startHttp(['--db', db]);
    let seen!: ReturnType<typeof raceWithRejection>['seen'];
    const client = await server.connect({ sampling: true, setup: (c) => ({ seen } = raceWithRejection(c, { good: 'lru', bad: 'rewrite' })) });

    const { session_id: id } = await call<{ session_id: string }>(client, 'think_session_start', { goal: 'Cut cold start time', budget: { max_branches: '3' } });
    const step = await call<{ thought_id: string; session_state: string }>(client, 'think_plan_step', { session_id: id, content: 'Most of cold start is config parsing.' });
    expect(step).toMatchObject({ thought_id: 't0', session_state: 'active' });
    const fork = await call<{ branches: Branch[] }>(client, 'think_branch_fork', { session_id: id, from: step.thought_id, names: ['lru', 'rewrite'] });
    expect(fork.branches.map((b) => [b.branch_id, b.name, b.state])).toEqual([
      ['br0', 'lru', 'init'],
      ['br1', 'rewrite', 'init'],
    ]);

    const race = await call<{ status: string; planner: string; winner: Branch; branches: Branch[] }>(client, 'think_parallel_run', { session_id: id, branch_ids: ['br0', 'br1'], strategy: 'race', round_tokens: '300' });
    expect(race).toMatchObject({ status: 'completed', planner: 'sampling', winner: { branch_id: 'br0', name: 'lru', state: 'validated' } });
    expect(race.branches.find((b) => b.branch_id === 'br1')).toMatchObject({ state: 'early_stopped' });
    // The sampling requests came over HTTP, with round_tokens as their token cap.
    expect(seen.filter((x) => x.approach === 'rewrite')[1]?.prompt).toContain('Your last plan was rejected');
    expect(seen.every((x) => x.maxTokens === 300)).toBe(true);

    const { digest } = await call<{ digest: string }>(client, 'think_digest', { session_id: id, max_tokens: 300 });
    expect(digest).toContain('Goal: Cut cold start time');
    expect(digest).toContain('Branch br0 lru: validated');
    expect(digest).toContain('Branch br1 rewrite: early_stopped');
  });

  it('lets two clients (two MCP sessions) on one server drive the same GoT session', async () => {
    const server = await startHttp(['--db', db]);
    const a = await server.connect();
    const b = await server.connect();
    const { session_id: id } = await call<{ session_id: string }>(a, 'think_session_start', { goal: 'Shared between two clients' });

    const fromA = await call<{ thought_id: string }>(a, 'think_plan_step', { session_id: id, content: 'A: first thought.' });
    const seenByB = await call<{ thoughts: number; goal: string }>(b, 'think_session_status', { session_id: id });
    expect(seenByB).toMatchObject({ goal: 'Shared between two clients', thoughts: 1 });

    const fromB = await call<{ thought_id: string }>(b, 'think_plan_step', { session_id: id, content: 'B: builds on A.', parent_ids: [fromA.thought_id] });
    expect([fromA.thought_id, fromB.thought_id]).toEqual(['t0', 't1']);
    const seenByA = await call<{ graph: { thoughts: { id: string; content: string; parentIds: string[] }[] } }>(a, 'think_graph_export', { session_id: id, format: 'json' });
    expect(seenByA.graph.thoughts.map((t) => [t.id, t.content, t.parentIds])).toEqual([
      ['t0', 'A: first thought.', []],
      ['t1', 'B: builds on A.', ['t0']],
    ]);
  });

  it('keeps serving the other client when one client closes its MCP session', async () => {
    const server = await startHttp(['--db', db]);
    const a = await server.connect();
    const b = await server.connect();
    const { session_id: id } = await call<{ session_id: string }>(a, 'think_session_start', { goal: 'Outlives a client' });
    await a.close();
    const step = await call<{ thought_id: string }>(b, 'think_plan_step', { session_id: id, content: 'B carries on alone.' });
    expect(step.thought_id).toBe('t0');
  });

  it('stops on SIGTERM while a client holds a connection that has sent no request yet', async () => {
    const server = await startHttp(['--db', db]);
    const exited = new Promise<void>((resolve) => server.child.once('exit', () => resolve()));
    // HTTP clients open connections ahead of their requests (undici does); a client may also die
    // between connecting and sending.
    const socket = tcpConnect(Number(server.url.port), '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    try {
      server.child.kill('SIGTERM');
      // It exits in milliseconds once its transports and listener are closed; 5 s is a bound for a hang.
      await expect(settlesWithin(exited, 5_000)).resolves.toBeUndefined();
      expect(server.stderr()).toContain('stopping (SIGTERM)');
    } finally {
      socket.destroy();
    }
  });
});
