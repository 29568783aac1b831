// What `tot mcp --http` holds and what it refuses to hold: the Origin of browser pages, bodies
// nested too deep to parse, the MCP sessions of a client that floods it with initializations, and
// the messages kept for clients that reconnect (Last-Event-ID). The built command, spawned.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { structured } from '../helpers/mcp-sampling.js';
import { startHttp, totCli, useCliTempDb, useSharedHttp } from '../helpers/tot-cli.js';
import { initialize, mcpHeaders, raw } from './raw-http.js';

const temp = useCliTempDb('tot-mcp-limits-', 'l.db');
// One server with the default limits for the tests that hold none of its sessions' share for long
// (a start costs about a second of CPU); a test that fills a share, or sets a limit, has its own.
const shared = useSharedHttp('tot-mcp-limits-shared-');

const call = async <T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown>) => structured<T>(await client.callTool({ name, arguments: args }));

describe('tot mcp --http: the Origin of a request', () => {
  it('refuses, with 403, an initialize and a request of a session whose Origin is not the server\'s own', async () => {
    const server = await shared.server();
    const evil = await raw(server.url, { headers: { ...mcpHeaders, origin: 'http://evil.example' }, body: initialize() });
    expect(evil.status).toBe(403);
    expect(JSON.parse(evil.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringContaining('Invalid Origin header: http://evil.example') } });
    expect(evil.headers['mcp-session-id']).toBeUndefined();
    // A write in a session a client holds, sent from a page of another origin.
    const client = await server.connect();
    const sid = (client.transport as StreamableHTTPClientTransport).sessionId!;
    const write = await raw(server.url, {
      headers: { ...mcpHeaders, origin: 'http://evil.example', 'mcp-session-id': sid, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'think_session_start', arguments: { goal: 'Planted by a web page' } } }),
    });
    expect(write.status).toBe(403);
    expect(write.body).not.toContain('session_id');
  });

  it('answers a request from its own loopback origins, and one without an Origin (a client that is no browser)', async () => {
    const server = await shared.server();
    const port = server.url.port;
    for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`, undefined]) {
      const r = await raw(server.url, { headers: { ...mcpHeaders, ...(origin ? { origin } : {}) }, body: initialize() });
      expect(r.status, `${origin}: ${r.body}`).toBe(200);
      expect(r.headers['mcp-session-id']).toBeTruthy();
    }
    // The same loopback name on another port is another origin.
    expect((await raw(server.url, { headers: { ...mcpHeaders, origin: `http://127.0.0.1:${Number(port) + 1}` }, body: initialize() })).status).toBe(403);
  });

  it('answers the origins given with --allowed-origin too, and no others', async () => {
    const server = await startHttp(['--db', temp.db, '--allowed-origin', 'https://app.example', '--allowed-origin', 'http://localhost:5173/']);
    for (const origin of ['https://app.example', 'http://localhost:5173']) expect((await raw(server.url, { headers: { ...mcpHeaders, origin }, body: initialize() })).status, origin).toBe(200);
    expect((await raw(server.url, { headers: { ...mcpHeaders, origin: 'http://evil.example' }, body: initialize() })).status).toBe(403);
  });

  it('will not start with an --allowed-origin that is no origin, and says what to send', async () => {
    const run = promisify(execFile)(process.execPath, [totCli(), 'mcp', '--http', '127.0.0.1:0', '--db', temp.db, '--allowed-origin', 'not a url']);
    await expect(run).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('--allowed-origin: send an origin such as http://localhost:5173, not "not a url"') });
  });
});

/** An initialize request whose JSON nests `depth` levels of objects (the message itself is the first). */
function nestedInitialize(depth: number): string {
  // The message, params, capabilities and experimental are four levels; the rest nest inside.
  let inner: Record<string, unknown> = {};
  for (let level = 5; level < depth; level++) inner = { a: inner };
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: { experimental: { deep: inner } }, clientInfo: { name: 'raw', version: '1' } } });
}

/** The nesting of a JSON value, counted on the value (not on its text). */
const depthOf = (value: unknown): number => (typeof value === 'object' && value !== null ? 1 + Math.max(0, ...Object.values(value).map(depthOf)) : 0);

describe('tot mcp --http: the nesting of a body', () => {
  it('reads a body nested 64 levels, and refuses one nested 65 with 400 and a JSON-RPC parse error', async () => {
    const server = await shared.server();
    const [at, over] = [nestedInitialize(64), nestedInitialize(65)];
    expect([depthOf(JSON.parse(at)), depthOf(JSON.parse(over))]).toEqual([64, 65]);
    const ok = await raw(server.url, { headers: mcpHeaders, body: at });
    expect(ok.status, ok.body).toBe(200);
    const refused = await raw(server.url, { headers: mcpHeaders, body: over });
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body)).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: 'request body nested deeper than 64 levels of arrays and objects' }, id: null });
  });

  it('refuses a 4 MB body of nested arrays as nested too deep, and goes on serving', async () => {
    const server = await shared.server();
    const half = 2 * 2 ** 20 - 16;
    const r = await raw(server.url, { headers: mcpHeaders, body: `${'['.repeat(half)}${']'.repeat(half)}` });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body)).toMatchObject({ error: { code: -32700, message: 'request body nested deeper than 64 levels of arrays and objects' } });
    const client = await server.connect();
    expect((await call<{ session_state: string }>(client, 'think_session_start', { goal: 'Still serving' })).session_state).toBe('active');
  });
});

/** `n` initialize requests from one address, `parallel` at a time: the status of each. */
async function flood(url: URL, n: number, options: { parallel?: number; localAddress?: string } = {}): Promise<number[]> {
  const statuses: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next += 1;
      statuses.push((await raw(url, { headers: mcpHeaders, body: initialize(), ...(options.localAddress ? { localAddress: options.localAddress } : {}) })).status);
    }
  };
  await Promise.all(Array.from({ length: options.parallel ?? 8 }, worker));
  return statuses;
}

const count = (statuses: number[]) => Object.fromEntries([...new Set(statuses)].sort().map((s) => [s, statuses.filter((x) => x === s).length]));

describe('tot mcp --http: MCP sessions', () => {
  it('keeps serving a working client while another floods the server with 1,000 initializations: the flood is refused past its share, no session in use is closed', async () => {
    const server = await startHttp(['--db', temp.db]);
    const worker = await server.connect();
    const { session_id: id } = await call<{ session_id: string }>(worker, 'think_session_start', { goal: 'Keeps working' });
    const statuses = await flood(server.url, 1000);
    const step = await call<{ thought_id: string }>(worker, 'think_plan_step', { session_id: id, content: 'Still here after the flood.' });
    expect(step.thought_id).toBe('t0');
    // 64 sessions per client address: the worker's, and 63 of the flood's.
    expect(count(statuses)).toEqual({ 200: 63, 429: 937 });
  }, 90_000);

  it('tells a client refused over its address\'s share: 429, Retry-After, and a JSON-RPC error that names the limit; the SDK client shows it', async () => {
    const server = await startHttp(['--db', temp.db, '--max-http-sessions-per-client', '2']);
    expect(await flood(server.url, 2, { parallel: 1 })).toEqual([200, 200]);
    const refused = await raw(server.url, { headers: mcpHeaders, body: initialize(7) });
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('60');
    expect(JSON.parse(refused.body)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32000, message: 'this client address holds 2 MCP sessions, the most it may, and none has been idle for 60 s: close one (an HTTP DELETE), or retry later' },
    });
    await expect(server.connect()).rejects.toThrow(/holds 2 MCP sessions, the most it may/);
  });

  it('refuses a new client with 503 when the server holds --max-http-sessions sessions in use, whichever address it comes from', async () => {
    const server = await startHttp(['--db', temp.db, '--max-http-sessions', '2']);
    expect(await flood(server.url, 2, { parallel: 1 })).toEqual([200, 200]);
    // Another loopback address (all of 127.0.0.0/8 is this machine): its own share is untouched.
    const other = await raw(server.url, { headers: mcpHeaders, body: initialize(), localAddress: '127.0.0.2' });
    expect(other.status).toBe(503);
    expect(other.headers['retry-after']).toBe('60');
    expect(JSON.parse(other.body)).toMatchObject({ error: { code: -32000, message: 'the server holds 2 MCP sessions, the most it may, and none has been idle for 60 s: retry later' } });
  });

  it('gives the place of a session its client closed (an HTTP DELETE) to a new one', async () => {
    const server = await startHttp(['--db', temp.db, '--max-http-sessions-per-client', '1']);
    const first = await raw(server.url, { headers: mcpHeaders, body: initialize() });
    expect((await raw(server.url, { headers: mcpHeaders, body: initialize() })).status).toBe(429);
    const sid = first.headers['mcp-session-id'] as string;
    const deleted = await raw(server.url, { method: 'DELETE', headers: { ...mcpHeaders, 'mcp-session-id': sid, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION } });
    expect(deleted.status).toBe(200);
    expect((await raw(server.url, { headers: mcpHeaders, body: initialize() })).status).toBe(200);
  });
});

describe('tot mcp --http: messages kept for a reconnecting client', () => {
  it('does not keep every message of a long run of large exports: a reconnect from the first export\'s events is refused, one from the last is served', async () => {
    // 20 thoughts of 50,000 characters: each JSON export's result is about 2 MB (the graph, and
    // the same as text), so the 8 MiB a session keeps hold the last few exports of eight.
    const server = await startHttp(['--db', temp.db, '--max-thought-chars', '50000']);
    const client = await server.connect();
    const { session_id: id } = await call<{ session_id: string }>(client, 'think_session_start', { goal: 'Large exports' });
    for (let i = 0; i < 20; i++) await call(client, 'think_plan_step', { session_id: id, content: `${i} ${'x'.repeat(49_990)}` });
    const tokens: string[][] = [];
    for (let i = 0; i < 8; i++) {
      const seen: string[] = [];
      await client.callTool({ name: 'think_graph_export', arguments: { session_id: id, format: 'json' } }, undefined, { onresumptiontoken: (t) => seen.push(t) });
      tokens.push(seen);
    }
    const headers = { accept: 'text/event-stream', 'mcp-session-id': (client.transport as StreamableHTTPClientTransport).sessionId!, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION };
    // The SDK's answer to a Last-Event-ID it does not know.
    const first = await raw(server.url, { method: 'GET', headers: { ...headers, 'last-event-id': tokens[0]!.at(-1)! } });
    expect(first.status).toBe(400);
    expect(first.body).toContain('Invalid event ID format');
    const last = await raw(server.url, { method: 'GET', headers: { ...headers, 'last-event-id': tokens.at(-1)!.at(-1)! } });
    expect(last.status).toBe(200);
    expect(last.headers['content-type']).toBe('text/event-stream');
  }, 60_000);
});
