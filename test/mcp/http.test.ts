// `tot mcp --http` (Streamable HTTP on 127.0.0.1, a port the system picks), driven by the SDK's
// StreamableHTTPClientTransport: the built command, a SQLite file in a temporary directory.
import { connect as tcpConnect } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { startHttp, useCliTempDb, useSharedHttp } from '../helpers/tot-cli.js';
import { answerSampling, planReply, raceWithRejection, structured, validPlan } from '../helpers/mcp-sampling.js';
import { settlesWithin } from '../helpers/settles-within.js';
import { initialize as initializeRequest, mcpHeaders, raw } from './raw-http.js';

type Branch = { branch_id: string; name: string; state: string; early_stop_reason?: string };

const temp = useCliTempDb('tot-mcp-http-', 'h.db');
// One server for the tests that only need one serving (each test starts GoT sessions of its own):
// a server's start costs about a second of CPU. A test that stops its server starts its own.
const shared = useSharedHttp('tot-mcp-http-shared-');

const call = async <T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown>) => structured<T>(await client.callTool({ name, arguments: args }));

describe('tot mcp over Streamable HTTP', () => {
  it('logs the address it serves on stderr, with the port the system gave it, and nothing on stdout', async () => {
    const server = await shared.server();
    expect(server.url.hostname).toBe('127.0.0.1');
    expect(Number(server.url.port)).toBeGreaterThan(0);
    expect(server.url.pathname).toBe('/mcp');
    const client = await server.connect();
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('think_parallel_run');
    expect(server.stderr()).toContain(`serving Streamable HTTP at ${server.url.href}, sessions in ${shared.db}`);
    expect(server.stdout()).toBe('');
  });

  it('runs a session: start, plan step, fork, a race planned through sampling, digest', async () => {
    const server = await shared.server();
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
    // The sampling requests came over HTTP, with round_tokens as their token cap; rewrite's requests
    // after its first carried what validation found wrong with its plan (to the branch worker's
    // critic, or in the revision's prompt).
    expect(seen.filter((x) => x.approach === 'rewrite').slice(1).some((x) => x.prompt.includes('max_changes may not exceed 1000'))).toBe(true);
    expect(seen.every((x) => x.maxTokens <= 300)).toBe(true);
    expect(['lru', 'rewrite'].map((a) => seen.find((x) => x.approach === a)?.maxTokens)).toEqual([300, 300]);

    const { digest } = await call<{ digest: string }>(client, 'think_digest', { session_id: id, max_tokens: 300 });
    expect(digest).toContain('Goal: Cut cold start time');
    expect(digest).toContain('Branch br0 lru: validated');
    expect(digest).toContain('Branch br1 rewrite: early_stopped');
  });

  it('lets two clients (two MCP sessions) on one server drive the same GoT session', async () => {
    const server = await shared.server();
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
    const server = await shared.server();
    const a = await server.connect();
    const b = await server.connect();
    const { session_id: id } = await call<{ session_id: string }>(a, 'think_session_start', { goal: 'Outlives a client' });
    await a.close();
    const step = await call<{ thought_id: string }>(b, 'think_plan_step', { session_id: id, content: 'B carries on alone.' });
    expect(step.thought_id).toBe('t0');
  });

  it('stops on SIGTERM while a client holds a connection that has sent no request yet', async () => {
    const server = await startHttp(['--db', temp.db]);
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

describe('tot mcp over Streamable HTTP: the whole session of the stdio test', () => {
  it('starts, plans, forks, races two branches through sampling, validates, exports, takes evidence and digests', async () => {
    const server = await shared.server();
    const client = await server.connect({ sampling: true, setup: (c) => void raceWithRejection(c, { good: 'good', bad: 'bad' }) });
    const { session_id: id, session_state } = await call<{ session_id: string; session_state: string }>(client, 'think_session_start', { goal: 'Speed up config loading', success_criteria: ['p95 under 5 ms'], budget: { max_tokens: 50_000, max_branches: 4 } });
    expect(session_state).toBe('active');
    const t0 = await call<{ thought_id: string }>(client, 'think_plan_step', { session_id: id, content: 'Config is parsed on every request.' });
    const t1 = await call<{ thought_id: string }>(client, 'think_plan_step', { session_id: id, content: 'Parse once per process and cache it.', parent_ids: [t0.thought_id], edge: 'causes' });
    const t2 = await call<{ thought_id: string }>(client, 'think_plan_step', { session_id: id, role: 'critic', content: 'The cache must be invalidated on reload.', parent_ids: [t1.thought_id], edge: 'refines' });
    expect([t0, t1, t2].map((t) => t.thought_id)).toEqual(['t0', 't1', 't2']);
    const fork = await call<{ branches: Branch[] }>(client, 'think_branch_fork', { session_id: id, from: 't2', names: ['good', 'bad'] });
    expect(fork.branches.map((b) => b.branch_id)).toEqual(['br0', 'br1']);

    const race = await call<{ status: string; planner: string; winner: Branch; branches: Branch[] }>(client, 'think_parallel_run', { session_id: id, branch_ids: ['br0', 'br1'], strategy: 'race' });
    expect(race).toMatchObject({ status: 'completed', planner: 'sampling', winner: { branch_id: 'br0', name: 'good', state: 'validated' } });
    expect(race.branches.find((b) => b.branch_id === 'br1')).toMatchObject({ state: 'early_stopped', early_stop_reason: 'br0 validated first' });

    expect(await call(client, 'think_validate_plan', { session_id: id, branch_id: 'br0' })).toMatchObject({ ok: true, issues: [], branch: { branch_id: 'br0', state: 'validated' } });
    const rejected = await call<{ ok: boolean; issues: string[] }>(client, 'think_validate_plan', { session_id: id, branch_id: 'br1' });
    expect(rejected.ok).toBe(false);
    expect(rejected.issues.join('; ')).toContain('max_changes may not exceed 1000');

    const plan = await call(client, 'think_export_plan', { session_id: id, branch_id: 'br0' });
    expect(plan).toMatchObject({ ...validPlan('good'), _got_metadata: { session_id: id, branch_id: 'br0', alternatives_explored: 2 } });

    const evidence = await call(client, 'think_receive_evidence', {
      session_id: id,
      branch_id: 'br0',
      execution_result: { execution_id: 'run-1', success: 'true', summary: 'applied; tests pass', tests_passed: '12', tests_failed: 0, exit_code: 0 },
    });
    expect(evidence).toMatchObject({ evidence_id: 'br0/execution/run-1', critic_needed: false, next_step: 'complete' });

    const { digest } = await call<{ digest: string }>(client, 'think_digest', { session_id: id, max_tokens: 400 });
    expect(digest).toContain('Goal: Speed up config loading');
    expect(digest).toContain('Branch br0 good: evidence_received');
    expect(digest).toContain('Branch br1 bad: early_stopped');
    expect(digest).toContain('Evidence br0/execution/run-1: success');
  });
});

/**
 * A fetch for the client transport that records every event stream (SSE) it opens, with the
 * events the client read, and lets the test drop a stream's connection mid-way, as a network
 * would: the client reads an error, and the server sees its client go.
 */
function droppingFetch() {
  type Stream = { method: string; lastEventId: string | null; status: number; messages: Record<string, unknown>[]; ids: string[]; drop(): void };
  const streams: Stream[] = [];
  const fetchFn: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const method = init?.method ?? 'GET';
    const lastEventId = new Headers(init?.headers).get('last-event-id');
    if (!response.body || !response.headers.get('content-type')?.includes('text/event-stream')) return response;
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let text = '';
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let dropped = false;
    const stream: Stream = {
      method,
      lastEventId,
      status: response.status,
      messages: [],
      ids: [],
      drop() {
        dropped = true;
        controller.error(new TypeError('the connection dropped'));
        void reader.cancel().catch(() => undefined);
      },
    };
    streams.push(stream);
    const body = new ReadableStream<Uint8Array>({
      start: (c) => void (controller = c),
      // One chunk at a time, when the client reads: what it has not read when the connection drops is lost to it.
      async pull(c) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
        if (dropped) return;
        if (done) return c.close();
        text += decoder.decode(value, { stream: true });
        for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
          const event = text.slice(0, end);
          text = text.slice(end + 2);
          const id = /^id: ?(.*)$/m.exec(event)?.[1];
          const data = /^data: ?(.*)$/m.exec(event)?.[1];
          if (id) stream.ids.push(id);
          if (data) stream.messages.push(JSON.parse(data) as Record<string, unknown>);
        }
        c.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return { fetchFn, streams };
}

describe('tot mcp over Streamable HTTP: resumability', () => {
  it('delivers what a client missed while its connection was down: the SDK client reconnects with Last-Event-ID and gets the rest of the call', async () => {
    const server = await shared.server();
    const net = droppingFetch();
    let dropped = false;
    let seen!: ReturnType<typeof answerSampling>;
    const client = await server.connect({
      sampling: true,
      transport: { fetch: net.fetchFn, reconnectionOptions: { initialReconnectionDelay: 100, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 2, maxRetries: 8 } },
      setup: (c) =>
        (seen = answerSampling(c, (approach) => {
          // The first sampling request of the run: the connection of the call's stream drops before it is answered.
          if (!dropped) {
            dropped = true;
            net.streams.find((x) => x.method === 'POST' && x.messages.some((m) => m.method === 'sampling/createMessage'))!.drop();
          }
          return planReply(approach, validPlan(approach));
        })),
    });
    const { session_id: id } = await call<{ session_id: string }>(client, 'think_session_start', { goal: 'Survive a dropped connection' });
    await call(client, 'think_plan_step', { session_id: id, content: 'root' });
    await call(client, 'think_branch_fork', { session_id: id, from: 't0', names: ['a', 'b'] });

    const tokens: string[] = [];
    const result = structured<{ status: string; planner: string; branches: Branch[] }>(
      await client.callTool({ name: 'think_parallel_run', arguments: { session_id: id, branch_ids: ['br0', 'br1'], strategy: 'best', max_rounds: 1 } }, undefined, { onresumptiontoken: (t) => tokens.push(t) }),
    );
    // The call completed, its result delivered after the drop.
    expect(result).toMatchObject({ status: 'completed', planner: 'sampling' });
    expect(result.branches.map((b) => [b.branch_id, b.state])).toEqual([
      ['br0', 'validated'],
      ['br1', 'validated'],
    ]);
    expect(seen.map((x) => x.approach).sort()).toEqual(['a', 'b']);

    // The call's stream (a POST) was dropped; the client resumed it with a GET carrying the id of
    // the last event it had read, and the server replayed what came after: the result, at least.
    const post = net.streams.find((x) => x.method === 'POST' && x.messages.some((m) => m.method === 'sampling/createMessage'))!;
    expect(post.messages.some((m) => 'result' in m)).toBe(false);
    const resumed = net.streams.filter((x) => x.method === 'GET' && x.lastEventId !== null && x.status === 200);
    expect(resumed.length).toBeGreaterThanOrEqual(1);
    const resume = resumed.at(-1)!;
    expect(post.ids).toContain(resumed[0]!.lastEventId);
    // The ids are the event store's: the resumption tokens the client was given are the POST stream's ids.
    expect(tokens.slice(0, post.ids.length)).toEqual(post.ids);
    const replayed = resumed.flatMap((x) => x.messages);
    expect(replayed.find((m) => 'result' in m)).toMatchObject({ result: { structuredContent: { status: 'completed' } } });
    // Both sampling requests were answered: none is cancelled afterwards.
    expect([...post.messages, ...replayed].filter((m) => m.method === 'notifications/cancelled')).toEqual([]);
    // Nothing the client had read was sent again: every replayed id comes after the one it resumed from.
    expect(resume.ids.every((i) => i > resumed[0]!.lastEventId!)).toBe(true);

    // The MCP session goes on over the same transport.
    const status = await call<{ branches: Branch[] }>(client, 'think_session_status', { session_id: id });
    expect(status.branches.map((b) => b.state)).toEqual(['validated', 'validated']);
  });
});

/**
 * Sends a request's head and the start of its body on a raw connection, and never the rest: what
 * the server answers before the body is complete (a server that reads the body first answers
 * nothing), and whether it closed the connection. Settles at the answer (or, with `untilClosed`, at
 * the connection's end), or after `ms`.
 */
function headOnly(url: URL, head: Record<string, string>, bodyStart: string, options: { untilClosed?: boolean; ms?: number } = {}): Promise<{ status: number | undefined; text: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = tcpConnect(Number(url.port), url.hostname);
    let text = '';
    let closed = false;
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
      resolve({ status: status === undefined ? undefined : Number(status), text, closed });
    };
    const timer = setTimeout(done, options.ms ?? 3_000);
    socket.on('connect', () => socket.write(`POST ${url.pathname} HTTP/1.1\r\n${Object.entries(head).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n${bodyStart}`));
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const [headers, body] = text.split('\r\n\r\n', 2) as [string, string | undefined];
      const length = Number(/content-length: (\d+)/i.exec(headers)?.[1] ?? Number.NaN);
      if (!options.untilClosed && body !== undefined && Buffer.byteLength(body) >= length) done();
    });
    socket.on('end', () => ((closed = true), done()));
    socket.on('error', () => done());
  });
}

const initialize = initializeRequest();

describe('tot mcp over Streamable HTTP: what it refuses', () => {
  it('refuses a request whose Host is not its own loopback address (DNS rebinding), and answers its own', async () => {
    const server = await shared.server();
    const port = server.url.port;
    const evil = await raw(server.url, { host: `attacker.example:${port}`, headers: mcpHeaders, body: initialize });
    expect(evil.status).toBe(403);
    expect(evil.body).toContain('Invalid Host header: attacker.example');
    // The loopback names with the server's port are its own.
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      const ok = await raw(server.url, { host, headers: mcpHeaders, body: initialize });
      expect(ok.status, `${host}: ${ok.body}`).toBe(200);
      expect(ok.headers['mcp-session-id']).toBeTruthy();
    }
    // A session the client holds is refused under a foreign Host too.
    const client = await server.connect();
    const { session_id: id } = await call<{ session_id: string }>(client, 'think_session_start', { goal: 'Not for web pages' });
    const own = await raw(server.url, { host: `127.0.0.1:${port}`, headers: mcpHeaders, body: initialize });
    const sid = own.headers['mcp-session-id'] as string;
    const rebound = await raw(server.url, { host: `attacker.example:${port}`, headers: { ...mcpHeaders, 'mcp-session-id': sid, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'think_session_status', arguments: { session_id: id } } }) });
    expect(rebound.status).toBe(403);
    expect(rebound.body).not.toContain(id);
  });

  it('checks the Host before it reads the body: a foreign Host gets its 403 with the body unsent, and the connection is closed (the body neither parsed nor drained)', async () => {
    const server = await shared.server();
    const port = server.url.port;
    const head = { host: `attacker.example:${port}`, ...mcpHeaders, 'content-length': String(4 * 2 ** 20) };
    const evil = await headOnly(server.url, head, '{"jsonrpc": "2.0", ', { untilClosed: true });
    expect(evil.status, evil.text).toBe(403);
    expect(evil.text).toContain('Invalid Host header: attacker.example');
    expect(evil.closed).toBe(true);
    // Without a body at all, just the same.
    const bare = await headOnly(server.url, { host: `attacker.example:${port}`, ...mcpHeaders, 'content-length': '100' }, '');
    expect(bare.status).toBe(403);
    // Its own Host with the same head gets no answer until the body is complete.
    const own = await headOnly(server.url, { ...head, host: `127.0.0.1:${port}`, 'content-length': '100' }, '{"jsonrpc": "2.0", ', { ms: 300 });
    expect(own.status).toBeUndefined();
  });

  it('refuses a declared Content-Length over 4 MiB with 413 before it reads the body, and goes on serving', async () => {
    const server = await shared.server();
    const port = server.url.port;
    const head = { host: `127.0.0.1:${port}`, ...mcpHeaders };
    const over = await headOnly(server.url, { ...head, 'content-length': String(4 * 2 ** 20 + 1) }, '{"jsonrpc": "2.0", ');
    expect(over.status, over.text).toBe(413);
    expect(JSON.parse(over.text.split('\r\n\r\n')[1]!)).toMatchObject({ jsonrpc: '2.0', error: { code: -32700, message: 'request body over 4 MiB' } });
    // A body the server would not even drop is answered and cut off.
    const huge = await headOnly(server.url, { ...head, 'content-length': String(2 ** 30) }, '', { untilClosed: true });
    expect([huge.status, huge.closed]).toEqual([413, true]);
    // Exactly at the limit is read.
    const at = await headOnly(server.url, { ...head, 'content-length': String(4 * 2 ** 20) }, '{', { ms: 300 });
    expect(at.status).toBeUndefined();
    const client = await server.connect();
    expect((await call<{ session_state: string }>(client, 'think_session_start', { goal: 'Still serving' })).session_state).toBe('active');
  });

  it('refuses a body over 4 MiB with 413, and goes on serving', async () => {
    const server = await shared.server();
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'x'.repeat(5 * 2 ** 20), version: '1' } } });
    const r = await raw(server.url, { headers: mcpHeaders, body: big });
    expect(r.status).toBe(413);
    expect(JSON.parse(r.body)).toMatchObject({ jsonrpc: '2.0', error: { message: 'request body over 4 MiB' } });
    // Just under the limit is read (and refused for what it is: no initialize request).
    const under = await raw(server.url, { headers: mcpHeaders, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/x', params: { pad: 'y'.repeat(4 * 2 ** 20 - 200) } }) });
    expect(under.status).toBe(400);
    expect(under.body).toContain('send an initialize request first');
    const client = await server.connect();
    expect((await call<{ session_state: string }>(client, 'think_session_start', { goal: 'Still serving' })).session_state).toBe('active');
    expect(server.child.exitCode).toBeNull();
  });

  it('answers a path other than /mcp with 404, a request with an unknown MCP session with 404, and one without a session that is no initialize with 400', async () => {
    const server = await shared.server();
    const other = await raw(new URL('/other', server.url), { method: 'GET' });
    expect(other.status).toBe(404);
    expect(other.body).toContain('the MCP endpoint is /mcp');
    const unknown = await raw(server.url, { headers: { ...mcpHeaders, 'mcp-session-id': 'no-such-session' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toContain('unknown MCP session: initialize a new one');
    const noSession = await raw(server.url, { headers: mcpHeaders, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    expect(noSession.status).toBe(400);
    const notJson = await raw(server.url, { headers: mcpHeaders, body: '{"jsonrpc": ' });
    expect(notJson.status).toBe(400);
    expect(JSON.parse(notJson.body)).toMatchObject({ error: { code: -32700 } });
  });
});
