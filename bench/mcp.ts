/**
 * MCP server (issue #15), measured the way clients use it: the built `tot` command
 * (`node dist/cli/tot.js mcp`) spawned by the official SDK's `Client` + `StdioClientTransport`.
 *
 * - Tool-call latency: 1,000 `think_plan_step` calls (after 100 untimed) on one session, with
 *   `--db memory` and with a SQLite file; median and p99 (target: median ≤ 2 ms on SQLite). Each
 *   call is the whole round trip: the client's request over stdio, the server's checks, the
 *   engine's write (and, every 100 events, its checkpoint of the whole session), the result, and
 *   the client's check of the result against the tool's output schema.
 * - Resident memory: 300,000 thoughts across 3,000 sessions (100 each) on SQLite with
 *   `--max-open-sessions 64`, 8 calls in flight (each on its own session); the server's RSS
 *   (`/proc/<pid>/status` VmRSS) after every 100 sessions, and after 100,000 thoughts across 1,000
 *   sessions (target: flat, ≤ 150 MB).
 * - Over Streamable HTTP (`tot mcp --http`, the SDK's StreamableHTTPClientTransport): the RSS after
 *   one client exports a session of about 2.5 MB as JSON 300 times, and `--settle` seconds later;
 *   the RSS after 1,000 clients initialize (8 at a time) while one more client works, with how many
 *   were admitted and refused and what the working client saw; both against the bound docs/mcp.md
 *   gives (250 MB). And a 4 MB body of nested arrays: how fast it is refused, and the slowest small
 *   request of another client meanwhile.
 *
 * npm run bench:mcp [-- --sessions 3000 --thoughts 100 --in-flight 8 --calls 1000 --warm 100
 *                       --exports 300 --clients 1000 --settle 20 --only stdio,http --cli <tot.js>]
 * (`--only http` runs the HTTP parts alone and writes bench/results/mcp-http.json.)
 */
import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { JsonDepthScanner } from '../src/mcp/http/json-depth.js';
import { builtCli } from './built-cli.js';
import { benchDir, median, report, timeRuns } from './harness.js';

const { values } = parseArgs({
  options: {
    // 3,000 sessions: the measure is after 1,000 (100,000 thoughts); the run goes on to
    // three times that so that the trend tells the warm-up (the heap and malloc's arenas reaching
    // their working size, over the first few hundred sessions) from growth.
    sessions: { type: 'string', default: '3000' },
    thoughts: { type: 'string', default: '100' },
    'in-flight': { type: 'string', default: '8' },
    calls: { type: 'string', default: '1000' },
    warm: { type: 'string', default: '100' },
    // V8 flags for the server process, to compare (e.g. "--max-semi-space-size=2").
    'node-flags': { type: 'string', default: '' },
    // The parts to run: stdio (latency and resident memory over stdio), http (the HTTP server's
    // memory under large exports and many clients, and a deeply nested body); both by default.
    only: { type: 'string', default: 'stdio,http' },
    exports: { type: 'string', default: '300' },
    clients: { type: 'string', default: '1000' },
    // Seconds the exports' server is left alone before its RSS is read again.
    settle: { type: 'string', default: '20' },
    // Another build of the command, to compare (e.g. the one before a change).
    cli: { type: 'string' },
  },
});
const nodeFlags = values['node-flags']!.split(/\s+/).filter(Boolean);
const whole = (name: string, min: number) => {
  const n = Number(values[name as keyof typeof values]);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name}: send a whole number of at least ${min}`);
  return n;
};
const SESSIONS = whole('sessions', 1);
const THOUGHTS = whole('thoughts', 1);
const IN_FLIGHT = whole('in-flight', 1);
const CALLS = whole('calls', 1);
const WARM = whole('warm', 0);
const MAX_OPEN = 64;
const TARGETS = { sqliteMedianMs: 2, rssMB: 150, growthFraction: 0.1, httpRssMB: 250 };

const root = resolve(benchDir, '..');
const round = (x: number) => Math.round(x * 100) / 100;
const MB = (kB: number) => round((kB * 1024) / 1e6);
const progress = (line: string) => process.stderr.write(`[bench:mcp] ${line}\n`);



interface Server {
  client: Client;
  pid: number;
  /** The server's resident set, in kB (VmRSS), and its peak so far (VmHWM). */
  memory(): { rssKB: number; peakKB: number };
  call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** Spawns `node dist/cli/tot.js mcp …` through the SDK's stdio client and lists its tools, as a client does. */
async function spawnServer(cli: string, args: string[]): Promise<Server> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [...nodeFlags, cli, 'mcp', ...args], cwd: root, stderr: 'pipe' });
  const logs: string[] = [];
  transport.stderr?.on('data', (chunk: Buffer) => {
    logs.push(chunk.toString('utf8'));
    if (logs.length > 50) logs.shift();
  });
  const client = new Client({ name: 'tot-bench', version: '0.0.0' });
  await client.connect(transport);
  const pid = transport.pid;
  if (pid === null) throw new Error('the server process has no pid');
  // Listing the tools caches their output schemas: the client then checks every result against its schema.
  const tools = await client.listTools();
  if (!tools.tools.some((t) => t.name === 'think_plan_step')) throw new Error('the server lists no think_plan_step tool');
  const field = (status: string, name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
  return {
    client,
    pid,
    memory() {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      return { rssKB: field(status, 'VmRSS'), peakKB: field(status, 'VmHWM') };
    },
    async call(name, args) {
      let result;
      try {
        result = await client.callTool({ name, arguments: args });
      } catch (error) {
        throw new Error(`${name} failed: ${error instanceof Error ? error.message : String(error)}\nserver log:\n${logs.join('')}`);
      }
      if (result.isError) throw new Error(`${name} returned an error: ${JSON.stringify(result.content)}`);
      return result.structuredContent as Record<string, unknown>;
    },
    close: () => client.close(),
  };
}

/** One thought of a chain: each a planner's or a critic's step under the one before. */
const step = (sessionId: string, i: number, parent: string | undefined) => ({
  session_id: sessionId,
  role: i % 2 ? 'critic' : 'planner',
  content: `step ${i}: cache the parsed config per process and drop it on SIGHUP, then check the reload path`,
  ...(parent ? { parent_ids: [parent], edge: 'causes' } : {}),
});

/** `CALLS` think_plan_step calls on one session, after `WARM` untimed ones: milliseconds per call. */
async function latency(cli: string, db: string) {
  const server = await spawnServer(cli, ['--db', db]);
  try {
    const sessionId = (await server.call('think_session_start', { goal: 'latency of think_plan_step' })).session_id as string;
    const samples: number[] = [];
    // The session's version after call i is i + 1 (its start is version 0, checkpointed at once;
    // each thought one event), and the engine checkpoints it when 100 events have passed since.
    const checkpointed: number[] = [];
    const others: number[] = [];
    let parent: string | undefined;
    for (let i = 0; i < WARM + CALLS; i++) {
      const started = performance.now();
      const out = await server.call('think_plan_step', step(sessionId, i, parent));
      const ms = performance.now() - started;
      parent = out.thought_id as string;
      if (i < WARM) continue;
      samples.push(ms);
      ((i + 1) % 100 === 0 ? checkpointed : others).push(ms);
    }
    const sorted = [...samples].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
    return {
      calls: CALLS,
      warm: WARM,
      medianMs: round(median(samples)),
      p90Ms: round(at(0.9)),
      p99Ms: round(at(0.99)),
      maxMs: round(sorted.at(-1)!),
      checkpointCalls: checkpointed.length,
      checkpointCallsMedianMs: round(median(checkpointed)),
      otherCallsMedianMs: round(median(others)),
      rssMB: MB(server.memory().rssKB),
    };
  } finally {
    await server.close();
  }
}

/** Least-squares slope of y over x. */
function slope(points: { x: number; y: number }[]): number {
  const mx = points.reduce((s, p) => s + p.x, 0) / points.length;
  const my = points.reduce((s, p) => s + p.y, 0) / points.length;
  const num = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
  const den = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

/** `SESSIONS` sessions of `THOUGHTS` thoughts on SQLite, `IN_FLIGHT` calls at once: the server's RSS after every 100 sessions. */
async function residentMemory(cli: string, db: string) {
  const server = await spawnServer(cli, ['--db', db, '--max-open-sessions', String(MAX_OPEN)]);
  try {
    const idle = server.memory();
    const every = Math.min(100, SESSIONS);
    const samples: { sessions: number; thoughts: number; rssMB: number }[] = [];
    let next = 0;
    let finished = 0;
    let thoughts = 0;
    const started = performance.now();
    // Each worker drives one session at a time, its thoughts in order: IN_FLIGHT calls in flight.
    const worker = async () => {
      while (next < SESSIONS) {
        const k = next++;
        const sessionId = (await server.call('think_session_start', { goal: `memory benchmark, session ${k}` })).session_id as string;
        let parent: string | undefined;
        for (let i = 0; i < THOUGHTS; i++) {
          parent = (await server.call('think_plan_step', step(sessionId, i, parent))).thought_id as string;
          thoughts += 1;
        }
        finished += 1;
        if (finished % every === 0 || finished === SESSIONS) {
          const rssMB = MB(server.memory().rssKB);
          samples.push({ sessions: finished, thoughts, rssMB });
          progress(`${finished.toLocaleString('en-US')} / ${SESSIONS.toLocaleString('en-US')} sessions, ${thoughts.toLocaleString('en-US')} thoughts, RSS ${rssMB} MB, ${Math.round((performance.now() - started) / 1000)} s`);
        }
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    const wallS = (performance.now() - started) / 1000;
    const end = server.memory();
    const first = samples[0]!;
    const last = samples.at(-1)!;
    // The trend past the first sample (the heap and SQLite's page cache settle in by then).
    const trend = samples.length > 2 ? slope(samples.slice(1).map((s) => ({ x: s.sessions, y: s.rssMB }))) : 0;
    return {
      sessions: SESSIONS,
      thoughtsPerSession: THOUGHTS,
      thoughts,
      calls: thoughts + SESSIONS,
      inFlight: IN_FLIGHT,
      maxOpenSessions: MAX_OPEN,
      wallS: round(wallS),
      callsPerS: Math.round((thoughts + SESSIONS) / wallS),
      idleRssMB: MB(idle.rssKB),
      firstRssMB: first.rssMB,
      firstAfterSessions: first.sessions,
      // The sample after 1,000 sessions (100,000 thoughts with the defaults), when the run got there.
      at1000Sessions: samples.find((s) => s.sessions === 1000),
      endRssMB: MB(end.rssKB),
      maxSampledRssMB: Math.max(...samples.map((s) => s.rssMB)),
      peakRssMB: MB(end.peakKB),
      growthMB: round(last.rssMB - first.rssMB),
      trendMBPer1000Sessions: round(trend * 1000),
      dbFileMB: round(statSync(db).size / 1e6),
      samples,
    };
  } finally {
    await server.close();
  }
}


const EXPORTS = whole('exports', 1);
const CLIENTS = whole('clients', 1);
const SETTLE_S = whole('settle', 0);
const PARTS = new Set(values.only!.split(','));
/** The size of the graph an export returns (its JSON, in bytes): the size the issue measured. */
const EXPORT_BYTES = 2.5e6;

interface HttpServer {
  url: URL;
  memory(): { rssKB: number; peakKB: number };
  stderr(): string;
  stop(): Promise<void>;
}

/** `node dist/cli/tot.js mcp --http 127.0.0.1:0 …args`: resolves once it logs the address it serves on. */
async function spawnHttp(cli: string, args: string[]): Promise<HttpServer> {
  const child = spawn(process.execPath, [...nodeFlags, cli, 'mcp', '--http', '127.0.0.1:0', ...args], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  let exit = '';
  void exited.then(() => (exit = `exited (${child.exitCode ?? child.signalCode})`));
  const url = await new Promise<URL>((done, fail) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      err = (err + chunk.toString('utf8')).slice(-20_000);
      const m = /serving Streamable HTTP at (http:\/\/\S+\/mcp)/.exec(err);
      if (m) done(new URL(m[1]!));
    });
    void exited.then(() => fail(new Error(`tot mcp --http exited before serving: ${err}`)));
  });
  const field = (status: string, name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
  return {
    url,
    memory() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return { rssKB: field(status, 'VmRSS'), peakKB: field(status, 'VmHWM') };
    },
    stderr: () => `${err}${exit}`,
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** An SDK client on the HTTP server (one MCP session), its results checked. */
async function httpClient(url: URL) {
  const client = new Client({ name: 'tot-bench-http', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url));
  return {
    client,
    async call(name: string, args: Record<string, unknown>) {
      // A keep-alive connection the server closes as the client reuses it (a race of their idle
      // timers, which a loaded machine makes likely) fails the request before it is sent: sent again.
      const result = await client.callTool({ name, arguments: args }).catch((error: unknown) => {
        if (!/fetch failed/.test(String(error))) throw error;
        progress(`  ${name}: ${String(error)}; sent again`);
        return client.callTool({ name, arguments: args });
      });
      if (result.isError) throw new Error(`${name} returned an error: ${JSON.stringify(result.content)}`);
      return result as { structuredContent: Record<string, unknown>; content: unknown[] };
    },
  };
}

/** A thought's text of about `n` characters, different for each `i`. */
const longThought = (i: number, n: number) => `thought ${i}: ${'the cache holds the parsed config per process and drops it on reload; '.repeat(Math.ceil(n / 70))}`.slice(0, n);

/**
 * One client builds a session whose JSON export is about 2.5 MB, then exports it `EXPORTS` times
 * (format json): the server's RSS before, after, and `SETTLE_S` seconds after.
 */
async function largeExports(cli: string, db: string) {
  const THOUGHT_CHARS = 9000;
  const server = await spawnHttp(cli, ['--db', db, '--max-thought-chars', String(THOUGHT_CHARS)]);
  try {
    return await exportsOn(server, THOUGHT_CHARS);
  } catch (error) {
    throw new Error(`bench:mcp large exports failed: ${error instanceof Error ? error.message : String(error)}\nserver log:\n${server.stderr().slice(-3000)}`);
  } finally {
    await server.stop();
  }
}

/** The exports of largeExports on a server that serves. */
async function exportsOn(server: HttpServer, thoughtChars: number) {
  const { client, call } = await httpClient(server.url);
  const idle = server.memory();
  const sessionId = (await call('think_session_start', { goal: 'memory of the HTTP server under large exports' })).structuredContent.session_id as string;
  let parent: string | undefined;
  let thoughts = 0;
  let graphBytes = 0;
  while (graphBytes < EXPORT_BYTES) {
    for (let i = 0; i < 20; i++, thoughts++) {
      parent = (await call('think_plan_step', { session_id: sessionId, content: longThought(thoughts, thoughtChars), ...(parent ? { parent_ids: [parent] } : {}) })).structuredContent.thought_id as string;
    }
    graphBytes = Buffer.byteLength(JSON.stringify((await call('think_graph_export', { session_id: sessionId, format: 'json' })).structuredContent.graph));
  }
  const built = server.memory();
  let messageBytes = 0;
  const ms: number[] = [];
  for (let i = 0; i < EXPORTS; i++) {
    const started = performance.now();
    const result = await call('think_graph_export', { session_id: sessionId, format: 'json' });
    ms.push(performance.now() - started);
    if (i === 0) messageBytes = Buffer.byteLength(JSON.stringify(result));
    if ((i + 1) % 50 === 0) progress(`  ${i + 1} / ${EXPORTS} exports, RSS ${MB(server.memory().rssKB)} MB`);
  }
  const after = server.memory();
  await new Promise((done) => setTimeout(done, SETTLE_S * 1000));
  const settled = server.memory();
  await client.close();
  return {
    thoughts,
    thoughtChars,
    graphMB: round(graphBytes / 1e6),
    resultMessageMB: round(messageBytes / 1e6),
    exports: EXPORTS,
    exportMedianMs: round(median(ms)),
    idleRssMB: MB(idle.rssKB),
    builtRssMB: MB(built.rssKB),
    afterExportsRssMB: MB(after.rssKB),
    settleS: SETTLE_S,
    settledRssMB: MB(settled.rssKB),
    peakRssMB: MB(settled.peakKB),
  };
}

/**
 * `CLIENTS` SDK clients, each initializing its own MCP session (8 at a time), while one more client
 * that connected first goes on calling a tool: how many were admitted and refused, what the
 * working client saw, and the server's RSS with every admitted client still connected.
 */
async function manyClients(cli: string, db: string) {
  const server = await spawnHttp(cli, ['--db', db]);
  const clients: Client[] = [];
  try {
    const worker = await httpClient(server.url);
    const sessionId = (await worker.call('think_session_start', { goal: 'keeps working while others connect' })).structuredContent.session_id as string;
    const idle = server.memory();
    let admitted = 0;
    const refused = new Map<string, number>();
    let next = 0;
    let flooding = true;
    const working = { calls: 0, failures: 0, lastFailure: '' };
    const work = (async () => {
      while (flooding) {
        try {
          await worker.call('think_session_status', { session_id: sessionId });
          working.calls += 1;
        } catch (error) {
          working.failures += 1;
          working.lastFailure = error instanceof Error ? error.message : String(error);
        }
        await new Promise((done) => setTimeout(done, 20));
      }
    })();
    const started = performance.now();
    const connectOne = async () => {
      while (next < CLIENTS) {
        next += 1;
        const client = new Client({ name: 'tot-bench-flood', version: '0.0.0' });
        try {
          await client.connect(new StreamableHTTPClientTransport(server.url));
          clients.push(client);
          admitted += 1;
        } catch (error) {
          // The SDK's StreamableHTTPError carries the HTTP status as its code.
          const status = String((error as { code?: unknown }).code ?? 'error');
          refused.set(status, (refused.get(status) ?? 0) + 1);
          await client.close().catch(() => undefined);
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, connectOne));
    const wallS = (performance.now() - started) / 1000;
    const after = server.memory();
    flooding = false;
    await work;
    // The working client once more, after the flood.
    let workerAfter = 'ok';
    await worker.call('think_session_status', { session_id: sessionId }).catch((error: unknown) => (workerAfter = String(error)));
    return {
      clients: CLIENTS,
      wallS: round(wallS),
      admitted,
      refused: Object.fromEntries(refused),
      workingClient: { ...working, afterFlood: workerAfter },
      idleRssMB: MB(idle.rssKB),
      afterRssMB: MB(after.rssKB),
      peakRssMB: MB(after.peakKB),
    };
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await server.stop();
  }
}

/** A raw POST to the server: its status and the milliseconds until its answer was read. */
function post(url: URL, body: Buffer | string): Promise<{ status: number; ms: number; body: string }> {
  const started = performance.now();
  return new Promise((done, fail) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => done({ status: res.statusCode ?? 0, ms: performance.now() - started, body: text.slice(0, 300) }));
    });
    req.on('error', fail);
    req.end(body);
  });
}

/**
 * A 4 MB body of nested arrays, sent 5 times, while another client sends small requests: how long
 * until each is answered, what it gets, and the slowest small request meanwhile (a server that
 * parses the deep body first stalls every client). Then the depth check alone, in this process,
 * over 4 MB it must read to the end (nested exactly to the limit).
 */
async function deepBody(cli: string, db: string) {
  const server = await spawnHttp(cli, ['--db', db]);
  try {
    const half = 2 * 2 ** 20 - 16;
    const deep = Buffer.from(`${'['.repeat(half)}${']'.repeat(half)}`);
    const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'bench', version: '1' } } });
    let sending = true;
    const small: number[] = [];
    const others = (async () => {
      while (sending) small.push((await post(server.url, initialize)).ms);
    })();
    const runs: { status: number; ms: number; body: string }[] = [];
    for (let i = 0; i < 5; i++) runs.push(await post(server.url, deep));
    sending = false;
    await others;
    const limitDeep = Buffer.from(`${'['.repeat(64)}${'0,'.repeat(2 * 2 ** 20 - 64)}0${']'.repeat(64)}`);
    const scanMs = timeRuns(5, () => new JsonDepthScanner().scan(limitDeep));
    return {
      bodyBytes: deep.length,
      depth: half,
      status: runs[0]!.status,
      answer: runs[0]!.body,
      medianMs: round(median(runs.map((r) => r.ms))),
      maxMs: round(Math.max(...runs.map((r) => r.ms))),
      smallRequestsMeanwhile: small.length,
      smallRequestMedianMs: round(median(small)),
      smallRequestMaxMs: round(Math.max(...small)),
      depthScanOf4MBMedianMs: round(median(scanMs)),
    };
  } finally {
    await server.stop();
  }
}

const cli = values.cli ? resolve(values.cli) : await builtCli(root, progress);
const dir = mkdtempSync(join(tmpdir(), 'tot-mcp-bench-'));
try {
  const figures: Record<string, unknown> = { server: 'node dist/cli/tot.js mcp, spawned by the SDK Client + StdioClientTransport (latency, residentMemory) or StreamableHTTPClientTransport (http)' };
  if (PARTS.has('stdio')) {
    progress(`latency: ${CALLS} think_plan_step calls after ${WARM}, --db memory`);
    const memory = await latency(cli, 'memory');
    progress(`  median ${memory.medianMs} ms, p99 ${memory.p99Ms} ms`);
    progress(`latency: the same on SQLite`);
    const sqlite = await latency(cli, join(dir, 'latency.db'));
    progress(`  median ${sqlite.medianMs} ms, p99 ${sqlite.p99Ms} ms`);
    progress(`resident memory: ${SESSIONS} sessions × ${THOUGHTS} thoughts on SQLite, --max-open-sessions ${MAX_OPEN}, ${IN_FLIGHT} calls in flight`);
    const rss = await residentMemory(cli, join(dir, 'memory.db'));
    const maxRss = Math.max(rss.maxSampledRssMB, rss.endRssMB);
    figures.latency = {
      memory,
      sqlite: { ...sqlite, target: TARGETS.sqliteMedianMs },
      note: 'Round trips over stdio including the client\'s output-schema check; the engine checkpoints the whole session every 100 events, inside the call that reaches it (checkpointCalls of them among the timed calls).',
    };
    figures.residentMemory = {
      ...rss,
      targets: { maxRssMB: TARGETS.rssMB, growthFraction: TARGETS.growthFraction },
      // RSS saws up and down with each collection, so one sample against another says little: the
      // least-squares trend over all samples is the growth, and flat means under a tenth of the
      // first sample per 1,000 sessions.
      flat: rss.trendMBPer1000Sessions <= rss.firstRssMB * TARGETS.growthFraction,
      underTarget: maxRss <= TARGETS.rssMB,
      note: 'MB = 10^6 bytes. RSS is VmRSS of the server process after every 100 sessions; peakRssMB is its VmHWM. Flat: the least-squares trend of the samples, per 1,000 sessions, within growthFraction of the first sample (the server runs with the V8 heap flags tot mcp sets: --semi-space-growth-factor=1, --heap-growing-percent=25).',
    };
  }
  if (PARTS.has('http')) {
    progress(`http: one client, ${EXPORTS} JSON exports of a session of about ${EXPORT_BYTES / 1e6} MB`);
    const exports = await largeExports(cli, join(dir, 'exports.db'));
    progress(`  RSS ${exports.idleRssMB} MB idle, ${exports.afterExportsRssMB} MB after the exports, ${exports.settledRssMB} MB ${SETTLE_S} s later`);
    progress(`http: ${CLIENTS} clients initializing, one more client working`);
    const flood = await manyClients(cli, join(dir, 'clients.db'));
    progress(`  ${flood.admitted} admitted, refused ${JSON.stringify(flood.refused)}, RSS ${flood.afterRssMB} MB; the working client: ${flood.workingClient.failures} failures in ${flood.workingClient.calls + flood.workingClient.failures} calls`);
    progress(`http: a 4 MB body of nested arrays`);
    const deep = await deepBody(cli, join(dir, 'deep.db'));
    progress(`  answered ${deep.status} in ${deep.medianMs} ms (median of 5)`);
    const bound = TARGETS.httpRssMB;
    figures.http = {
      largeExports: { ...exports, boundMB: bound, underBound: Math.max(exports.afterExportsRssMB, exports.settledRssMB) <= bound },
      manyClients: { ...flood, boundMB: bound, underBound: flood.afterRssMB <= bound },
      deepBody: deep,
      note: 'MB = 10^6 bytes; RSS is VmRSS of the server process (peakRssMB its VmHWM). boundMB is the figure docs/mcp.md gives for the resident memory of an HTTP server with the default limits.',
    };
  }
  report(PARTS.size === 2 ? 'mcp' : `mcp-${[...PARTS].join('-')}`, figures);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
