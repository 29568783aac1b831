// Two `tot mcp --db postgres://…` processes on one database drive one session. Each run gets its
// own schema (the URL's options set search_path), dropped afterwards. Skipped without
// TOT_POSTGRES_URL (CI and test/setup/postgres.ts set it when PostgreSQL is available).
import { spawn } from 'node:child_process';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { settlesWithin } from '../helpers/settles-within.js';
import { ensureCli, startStdio, stopAll, totCli } from '../helpers/tot-cli.js';
import { structured } from '../helpers/mcp-sampling.js';

const url = process.env.TOT_POSTGRES_URL;
if (!url) console.warn('TOT_POSTGRES_URL is not set: the MCP server PostgreSQL tests are SKIPPED');

const schema = `tot_mcp_${process.pid}_${Date.now().toString(36)}`;

/** The database URL with this run's schema as the search path. */
function inSchema(base: string, options: { password?: string } = {}): string {
  const u = new URL(base);
  if (options.password) u.password = options.password;
  const sep = u.search ? '&' : '?';
  return `${u.toString()}${sep}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
}

type Thought = { id: string; content: string; parentIds: string[]; writer: string };

const call = async <T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown>) => structured<T>(await client.callTool({ name, arguments: args }));

describe.skipIf(!url)('tot mcp on PostgreSQL', () => {
  beforeAll(async () => {
    await ensureCli();
    const db = new pg.Client({ connectionString: url! });
    await db.connect();
    await db.query(`CREATE SCHEMA ${schema}`);
    await db.end();
  }, 180_000);

  afterEach(async () => {
    await stopAll();
  });

  afterAll(async () => {
    const db = new pg.Client({ connectionString: url! });
    await db.connect();
    await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await db.end();
  });

  it('loses no thought when two server processes add 20 plan steps each to one session at once', async () => {
    const a = await startStdio(['--db', inSchema(url!)]);
    const b = await startStdio(['--db', inSchema(url!)]);
    expect(a.pid).not.toBe(b.pid);
    const { session_id: id } = await call<{ session_id: string }>(a.client, 'think_session_start', { goal: 'Shared by two servers' });
    const root = await call<{ thought_id: string }>(a.client, 'think_plan_step', { session_id: id, content: 'The root both servers build on.' });
    expect(root.thought_id).toBe('t0');

    const steps = (who: string, client: Client) => Array.from({ length: 20 }, (_, i) => call<{ thought_id: string }>(client, 'think_plan_step', { session_id: id, content: `${who} step ${i + 1}`, parent_ids: ['t0'] }));
    const added = await Promise.all([...steps('A', a.client), ...steps('B', b.client)]);
    const ids = added.map((r) => r.thought_id);
    expect(new Set(ids).size).toBe(40);

    const expected = ['The root both servers build on.', ...['A', 'B'].flatMap((who) => Array.from({ length: 20 }, (_, i) => `${who} step ${i + 1}`))].sort();
    for (const client of [a.client, b.client]) {
      const status = await call<{ thoughts: number }>(client, 'think_session_status', { session_id: id });
      expect(status.thoughts).toBe(41);
      const { graph } = await call<{ graph: { thoughts: Thought[] } }>(client, 'think_graph_export', { session_id: id, format: 'json' });
      expect(graph.thoughts.map((t) => t.content).sort()).toEqual(expected);
      expect(graph.thoughts.map((t) => t.id)).toEqual(Array.from({ length: 41 }, (_, i) => `t${i}`));
      // Both processes wrote: two writers in the thoughts.
      expect(new Set(graph.thoughts.map((t) => t.writer)).size).toBe(2);
    }
    // The store itself holds them all: a restore reads them back.
    const restored = await call<{ thoughts: number }>(b.client, 'think_session_restore', { session_id: id });
    expect(restored.thoughts).toBe(41);
  });

  it('lets a second server continue a session the first one started, numbering on', async () => {
    const a = await startStdio(['--db', inSchema(url!)]);
    const { session_id: id } = await call<{ session_id: string }>(a.client, 'think_session_start', { goal: 'Handed over' });
    await call(a.client, 'think_plan_step', { session_id: id, content: 'Written by A.' });
    const b = await startStdio(['--db', inSchema(url!)]);
    const next = await call<{ thought_id: string }>(b.client, 'think_plan_step', { session_id: id, content: 'Written by B.', parent_ids: ['t0'] });
    expect(next.thought_id).toBe('t1');
    // A sees B's thought on its next read.
    expect((await call<{ thoughts: number }>(a.client, 'think_session_status', { session_id: id })).thoughts).toBe(2);
  });

  it('does not write the database password to its log', async () => {
    // The test cluster trusts local connections, so any password connects.
    const server = await startStdio(['--db', inSchema(url!, { password: 'not-for-the-log-7c1' })]);
    await call(server.client, 'think_session_start', { goal: 'Quiet logs' });
    expect(server.stderr()).toContain('serving on stdio');
    expect(server.stderr()).not.toContain('not-for-the-log-7c1');
  });

  it('stops, closing its store, when its client closes stdin', async () => {
    // A raw client: the SDK's own sends SIGTERM two seconds after closing stdin, which would hide this.
    const child = spawn(process.execPath, [totCli(), 'mcp', '--db', inSchema(url!)], { stdio: ['pipe', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
    try {
      const reply = new Promise<string>((resolve) => child.stdout.once('data', (c: Buffer) => resolve(c.toString('utf8'))));
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`);
      expect(JSON.parse(await reply)).toMatchObject({ id: 1, result: { serverInfo: { name: 'tot' } } });
      child.stdin.end();
      // It exits in milliseconds when it notices; 5 s is a bound for a hang, not a wait.
      await expect(settlesWithin(exited, 5_000)).resolves.toBe(0);
      expect(err).toContain('stopping (stdin closed)');
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    }
  });
});
