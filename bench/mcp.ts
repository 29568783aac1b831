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
 *
 * npm run bench:mcp [-- --sessions 3000 --thoughts 100 --in-flight 8 --calls 1000 --warm 100]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { benchDir, median, report } from './harness.js';

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
const TARGETS = { sqliteMedianMs: 2, rssMB: 150, growthFraction: 0.1 };

const root = resolve(benchDir, '..');
const round = (x: number) => Math.round(x * 100) / 100;
const MB = (kB: number) => round((kB * 1024) / 1e6);
const progress = (line: string) => process.stderr.write(`[bench:mcp] ${line}\n`);

/** The newest modification time of the files under a folder. */
function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

/**
 * The built command, built first (`npx tsup`) when it is missing or older than the sources. The
 * build takes the lock directory the tests take (test/helpers/ensure-dist.ts): tsup clears dist
 * first, so two builds must never run at once.
 */
async function builtCli(): Promise<string> {
  const cli = join(root, 'dist', 'cli', 'tot.js');
  const lock = join(root, '.tmp', 'dist-build.lock');
  const stale = () => (!existsSync(cli) ? 'is missing' : statSync(cli).mtimeMs < newest(join(root, 'src')) ? 'is older than src/' : undefined);
  mkdirSync(join(root, '.tmp'), { recursive: true });
  for (let why = stale(); why; why = stale()) {
    try {
      mkdirSync(lock);
    } catch {
      // Another process is building; a lock older than five minutes was left by a killed run.
      if (Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > 300_000) rmSync(lock, { recursive: true, force: true });
      await new Promise((done) => setTimeout(done, 500));
      continue;
    }
    try {
      if (!stale()) break;
      progress(`dist/cli/tot.js ${why}: building with npx tsup`);
      execFileSync('npx', ['tsup'], { cwd: root, stdio: 'pipe' });
    } catch (error) {
      const output = (error as { stderr?: Buffer }).stderr?.toString() || (error as { stdout?: Buffer }).stdout?.toString() || String(error);
      throw new Error(`bench:mcp spawns the built command (dist/cli/tot.js), and npx tsup failed: run npm run build, then the benchmark again.\n${output.slice(-2000)}`);
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
    if (!existsSync(cli)) throw new Error('bench:mcp spawns the built command, dist/cli/tot.js, which npx tsup did not make: run npm run build, then the benchmark again.');
    break;
  }
  return cli;
}

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

const cli = await builtCli();
const dir = mkdtempSync(join(tmpdir(), 'tot-mcp-bench-'));
try {
  progress(`latency: ${CALLS} think_plan_step calls after ${WARM}, --db memory`);
  const memory = await latency(cli, 'memory');
  progress(`  median ${memory.medianMs} ms, p99 ${memory.p99Ms} ms`);
  progress(`latency: the same on SQLite`);
  const sqlite = await latency(cli, join(dir, 'latency.db'));
  progress(`  median ${sqlite.medianMs} ms, p99 ${sqlite.p99Ms} ms`);
  progress(`resident memory: ${SESSIONS} sessions × ${THOUGHTS} thoughts on SQLite, --max-open-sessions ${MAX_OPEN}, ${IN_FLIGHT} calls in flight`);
  const rss = await residentMemory(cli, join(dir, 'memory.db'));
  const maxRss = Math.max(rss.maxSampledRssMB, rss.endRssMB);
  report('mcp', {
    server: 'node dist/cli/tot.js mcp, spawned by the SDK Client + StdioClientTransport',
    latency: {
      memory,
      sqlite: { ...sqlite, target: TARGETS.sqliteMedianMs },
      note: 'Round trips over stdio including the client\'s output-schema check; the engine checkpoints the whole session every 100 events, inside the call that reaches it (checkpointCalls of them among the timed calls).',
    },
    residentMemory: {
      ...rss,
      targets: { maxRssMB: TARGETS.rssMB, growthFraction: TARGETS.growthFraction },
      // RSS saws up and down with each collection, so one sample against another says little: the
      // least-squares trend over all samples is the growth, and flat means under a tenth of the
      // first sample per 1,000 sessions.
      flat: rss.trendMBPer1000Sessions <= rss.firstRssMB * TARGETS.growthFraction,
      underTarget: maxRss <= TARGETS.rssMB,
      note: 'MB = 10^6 bytes. RSS is VmRSS of the server process after every 100 sessions; peakRssMB is its VmHWM. Flat: the least-squares trend of the samples, per 1,000 sessions, within growthFraction of the first sample (the server runs with V8\'s --optimize-for-size, which tot mcp sets).',
    },
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
