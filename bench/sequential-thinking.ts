/**
 * The `sequentialthinking` tool of `tot mcp` side by side with the reference server
 * (@modelcontextprotocol/server-sequential-thinking), each spawned over stdio and called through
 * the official SDK's `Client`, as an MCP client calls them. Three servers: the reference (its
 * thought log to stderr off, `DISABLE_THOUGHT_LOGGING=true`, so that it does only the work ours
 * does), `tot mcp --db memory` and `tot mcp --db <SQLite file>`. Calls alternate between them
 * (whole rounds, in a rotating order), so that a slower stretch of the machine falls on all three.
 *
 * - Sessions of 10 thoughts: `--sessions` rounds (after 20 untimed), each a line of thinking 1 to 10
 *   that names no session (a new session on ours, as a client starting over; the reference
 *   appends). Median and p99 per call (target on `--db memory`: median within 1.5× of the reference's).
 * - One sequence of `--long` thoughts (10,000): numbers 1 to 10,000 in one session, 100 calls at a
 *   time on each server in turn. Median, p99, and the median of the first and the last tenth: a
 *   call's cost must not grow with the sequence (target on `--db memory`: median within 1.5× of
 *   the reference's).
 * - Memory per thought: each server's resident set (VmRSS) before and after the long sequence,
 *   over its thoughts; and, measured exactly, the heap each keeps per thought: the reference's own
 *   class and `createMcpServer` on an in-memory store, in this process, through the SDK's in-memory
 *   transport, the heap after a full collection before and after `--long` thoughts. (The resident
 *   set moves in steps as V8 grows its heap, so over a few megabytes it says little.)
 * - Each server's CPU time per call (user and system, from /proc/<pid>/stat) in both parts: on a
 *   loaded machine the wall times carry other processes' turns, the CPU time only the server's work.
 * - In this process, before the servers are spawned: each server's side of a call in CPU time (the
 *   reference's class and `createMcpServer` on memory and on SQLite, called in turn through a
 *   transport with nothing behind it), and the floor of a call that stores its thought on SQLite:
 *   one committed single-row INSERT through better-sqlite3 (see sequential-thinking-in-process.ts).
 * - The ratios, the medians of the wall times over the reference's, printed and saved as `targets`
 *   with the in-process CPU ratios beside them. The 1.5× target is judged on `--db memory`, the
 *   reference's like: it keeps its thoughts in an array and stores nothing. `--db sqlite` is shown
 *   beside it without a target: every call commits its thought to a file, and that commit alone
 *   costs about twice the reference's whole call (the floor measured above).
 *
 * npm run bench:sequential-thinking [-- --sessions 200 --long 10000 --in-process-long 3000 --cli path/to/another/tot.js]
 *
 * `--cli` runs another build of the command in place of dist/cli/tot.js (an older version, to compare).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { z } from 'zod';
import { InMemoryEventStore } from '../src/index.js';
import { SessionEngine } from '../src/sessions/index.js';
import { createMcpServer } from '../src/mcp/index.js';
import { SqliteEventStore } from '../src/sqlite/index.js';
import { builtCli } from './built-cli.js';
import { benchDir, gc, median, report } from './harness.js';
import { serverCpuPerCall, sqliteCommitFloor } from './sequential-thinking-in-process.js';

const { values } = parseArgs({ options: { sessions: { type: 'string', default: '200' }, long: { type: 'string', default: '10000' }, 'in-process-long': { type: 'string', default: '3000' }, cli: { type: 'string' } } });
const whole = (name: 'sessions' | 'long' | 'in-process-long', min: number) => {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name}: send a whole number of at least ${min}`);
  return n;
};
const SESSIONS = whole('sessions', 1);
const LONG = whole('long', 10);
const IN_PROCESS_LONG = whole('in-process-long', 10);
const WARM_ROUNDS = 20;
/** Clock ticks per second of /proc/<pid>/stat. */
const TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
const CHUNK = 100;
const TARGET_RATIO = 1.5;

const root = resolve(benchDir, '..');
const round = (x: number) => Math.round(x * 1000) / 1000;
const loadAtStart = round(loadavg()[0]!);
const progress = (line: string) => process.stderr.write(`[bench:sequential-thinking] ${line}\n`);

interface Server {
  name: string;
  rssKB(): number;
  /** The CPU time the server process has used so far (user and system), in milliseconds. */
  cpuMs(): number;
  think(args: Record<string, unknown>): Promise<{ session_id?: string; thoughtHistoryLength: number }>;
  close(): Promise<void>;
}

async function spawnServer(name: string, args: string[], env: Record<string, string> = {}): Promise<Server> {
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd: root, stderr: 'pipe', env: { ...(process.env as Record<string, string>), ...env } });
  const logs: string[] = [];
  transport.stderr?.on('data', (chunk: Buffer) => {
    logs.push(chunk.toString('utf8'));
    if (logs.length > 50) logs.shift();
  });
  const client = new Client({ name: 'tot-bench', version: '0.0.0' });
  await client.connect(transport);
  const pid = transport.pid;
  if (pid === null) throw new Error(`${name}: the server process has no pid`);
  // Listing the tools caches their output schemas: the client then checks every result against its schema.
  if (!(await client.listTools()).tools.some((t) => t.name === 'sequentialthinking')) throw new Error(`${name} lists no sequentialthinking tool`);
  return {
    name,
    rssKB: () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN),
    cpuMs: () => {
      // Fields 14 and 15 of /proc/<pid>/stat (after the command's closing parenthesis): utime and stime, in clock ticks.
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
    },
    async think(a) {
      const result = await client.callTool({ name: 'sequentialthinking', arguments: a });
      if (result.isError) throw new Error(`${name}: sequentialthinking returned an error: ${JSON.stringify(result.content)}\n${logs.join('')}`);
      return result.structuredContent as { session_id?: string; thoughtHistoryLength: number };
    },
    close: () => client.close(),
  };
}

/** A thought of about 200 characters, distinct for every line and number. */
const thought = (line: string, n: number) => `${line}, step ${n}: the import holds one transaction per batch; a crash loses the batch, so commit every 1,000 rows and record the last committed row to resume from.`;

/** Milliseconds of one call. */
async function timed(server: Server, args: Record<string, unknown>): Promise<number> {
  const started = performance.now();
  await server.think(args);
  return performance.now() - started;
}

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { calls: samples.length, medianMs: round(median(samples)), meanMs: round(samples.reduce((s, x) => s + x, 0) / samples.length), p99Ms: round(sorted[Math.min(sorted.length - 1, Math.ceil(0.99 * sorted.length) - 1)]!) };
}

/** The heap a server keeps per thought, in bytes: `LONG` thoughts of one line through a client in this process. */
async function heapPerThought(server: McpServer): Promise<number> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'tot-bench', version: '0.0.0' });
  await client.connect(clientSide);
  const think = (n: number, session_id?: string) => client.callTool({ name: 'sequentialthinking', arguments: { thought: thought('the heap line', n), thoughtNumber: n, totalThoughts: LONG, nextThoughtNeeded: n < LONG, ...(session_id ? { session_id } : {}) } });
  // The first thought (a session, on ours) before the measure: what is measured is the thoughts.
  const session_id = ((await think(1)).structuredContent as { session_id?: string }).session_id;
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let n = 2; n <= LONG + 1; n++) await think(n, session_id);
  gc();
  const bytes = (process.memoryUsage().heapUsed - before) / LONG;
  await client.close();
  await server.close();
  return Math.round(bytes);
}

/** The reference server's own class, registered as its index.js registers it (its thought log off). */
async function referenceInProcess(packageDir: string): Promise<McpServer> {
  process.env.DISABLE_THOUGHT_LOGGING = 'true';
  const { SequentialThinkingServer } = (await import(pathToFileURL(join(packageDir, 'dist', 'lib.js')).href)) as { SequentialThinkingServer: new () => { processThought(input: unknown): { content: { type: 'text'; text: string }[]; isError?: boolean } } };
  const thinking = new SequentialThinkingServer();
  const server = new McpServer({ name: 'sequential-thinking-server', version: 'bench' });
  const flag = z.union([z.boolean(), z.string()]).transform((v) => (typeof v === 'boolean' ? v : v.toLowerCase() === 'true'));
  const count = z.coerce.number().int().min(1);
  server.registerTool(
    'sequentialthinking',
    {
      inputSchema: { thought: z.string(), nextThoughtNeeded: flag, thoughtNumber: count, totalThoughts: count, isRevision: flag.optional(), revisesThought: count.optional(), branchFromThought: count.optional(), branchId: z.string().optional(), needsMoreThoughts: flag.optional() },
      outputSchema: { thoughtNumber: z.number(), totalThoughts: z.number(), nextThoughtNeeded: z.boolean(), branches: z.array(z.string()), thoughtHistoryLength: z.number() },
    },
    async (args) => {
      const result = thinking.processThought(args);
      return result.isError ? result : { content: result.content, structuredContent: JSON.parse(result.content[0]!.text) as Record<string, unknown> };
    },
  );
  return server;
}

// The reference server is installed in bench/peers/ (bench/run.ts installs it there).
const referenceDir = dirname(createRequire(join(benchDir, 'peers', 'package.json')).resolve('@modelcontextprotocol/server-sequential-thinking/package.json'));
// Measured first, in a heap nothing else has grown yet.
const heap = { reference: await heapPerThought(await referenceInProcess(referenceDir)), totMemory: await heapPerThought(createMcpServer({ engine: new SessionEngine({ store: new InMemoryEventStore() }) })) };
progress(`heap per thought: ${JSON.stringify(heap)} bytes`);

// Server-side CPU per call in this process, the servers as `tot mcp` makes them (400 characters a thought).
const dir = mkdtempSync(join(tmpdir(), 'tot-seq-bench-'));
const inProcessEngine = (store: InMemoryEventStore | SqliteEventStore) => createMcpServer({ engine: new SessionEngine({ store, limits: { maxThoughtChars: 400 } }) });
const inProcessSqlite = new SqliteEventStore({ path: join(dir, 'in-process.db') });
const inProcess = await serverCpuPerCall(
  [
    { name: 'reference', server: await referenceInProcess(referenceDir) },
    { name: 'tot --db memory', server: inProcessEngine(new InMemoryEventStore()) },
    { name: 'tot --db sqlite', server: inProcessEngine(inProcessSqlite) },
  ],
  { sessions: Math.min(SESSIONS, 100), warm: WARM_ROUNDS, long: IN_PROCESS_LONG, chunk: CHUNK, thought },
);
await inProcessSqlite.close();
progress(`in-process server CPU per call (µs, median of rounds): ${JSON.stringify(Object.fromEntries(Object.entries(inProcess).map(([k, v]) => [k, [v.sessionsOf10.medianUs, v.longSequence.medianUs]])))}`);
const floor = await sqliteCommitFloor();
progress(`SQLite commit floor (µs of CPU): ${JSON.stringify(floor)}`);

const cli = values.cli ? resolve(values.cli) : await builtCli(root, progress);
const reference = join(referenceDir, 'dist', 'index.js');
const servers = [
  await spawnServer('reference', [reference], { DISABLE_THOUGHT_LOGGING: 'true' }),
  await spawnServer('tot --db memory', [cli, 'mcp', '--db', 'memory']),
  await spawnServer('tot --db sqlite', [cli, 'mcp', '--db', join(dir, 'seq.db')]),
];
try {
  // Sessions of 10 thoughts, one round per server at a time, the order rotating.
  const short = new Map<string, number[]>(servers.map((s) => [s.name, []]));
  const cpu = new Map<string, number>();
  for (let r = 0; r < WARM_ROUNDS + SESSIONS; r++) {
    if (r === WARM_ROUNDS) for (const s of servers) cpu.set(s.name, s.cpuMs());
    for (let k = 0; k < servers.length; k++) {
      const server = servers[(r + k) % servers.length]!;
      for (let n = 1; n <= 10; n++) {
        const ms = await timed(server, { thought: thought(`line ${r}`, n), thoughtNumber: n, totalThoughts: 10, nextThoughtNeeded: n < 10 });
        if (r >= WARM_ROUNDS) short.get(server.name)!.push(ms);
      }
    }
    if ((r + 1) % 50 === 0) progress(`sessions of 10: ${r + 1} / ${WARM_ROUNDS + SESSIONS} rounds`);
  }

  // One sequence of LONG thoughts on each, CHUNK calls at a time on each server in turn.
  const shortCpu = new Map(servers.map((s) => [s.name, s.cpuMs() - cpu.get(s.name)!]));
  const long = new Map<string, number[]>(servers.map((s) => [s.name, []]));
  const longCpuBefore = new Map(servers.map((s) => [s.name, s.cpuMs()]));
  const rssBefore = new Map(servers.map((s) => [s.name, s.rssKB()]));
  const sessions = new Map<string, string | undefined>();
  for (let from = 1; from <= LONG; from += CHUNK) {
    for (let k = 0; k < servers.length; k++) {
      const server = servers[(from / CHUNK + k) % servers.length | 0]!;
      for (let n = from; n < from + CHUNK && n <= LONG; n++) {
        const session_id = sessions.get(server.name);
        const args = { thought: thought('the long line', n), thoughtNumber: n, totalThoughts: LONG, nextThoughtNeeded: n < LONG, ...(session_id ? { session_id } : {}) };
        const started = performance.now();
        const out = await server.think(args);
        long.get(server.name)!.push(performance.now() - started);
        if (n === 1 && out.session_id) sessions.set(server.name, out.session_id);
      }
    }
    if ((from - 1 + CHUNK) % 1000 === 0) progress(`the long sequence: ${from - 1 + CHUNK} / ${LONG} thoughts`);
  }
  const rssAfter = new Map(servers.map((s) => [s.name, s.rssKB()]));
  const longCpu = new Map(servers.map((s) => [s.name, s.cpuMs() - longCpuBefore.get(s.name)!]));

  const tenth = Math.floor(LONG / 10);
  const figures = servers.map((s) => {
    const samples = long.get(s.name)!;
    return {
      server: s.name,
      sessionsOf10: { ...stats(short.get(s.name)!), serverCpuMsPerCall: round(shortCpu.get(s.name)! / (SESSIONS * 10)) },
      longSequence: { ...stats(samples), serverCpuMsPerCall: round(longCpu.get(s.name)! / LONG), firstTenthMedianMs: round(median(samples.slice(0, tenth))), lastTenthMedianMs: round(median(samples.slice(-tenth))) },
      rssGrowthKBPerThought: round((rssAfter.get(s.name)! - rssBefore.get(s.name)!) / LONG),
      rssMB: round(rssAfter.get(s.name)! / 1024),
    };
  });
  const ref = figures[0]!;
  const cpuRef = inProcess.reference!;
  const ratios = Object.fromEntries(
    figures.slice(1).map((f) => [
      f.server,
      {
        sessionsOf10Median: round(f.sessionsOf10.medianMs / ref.sessionsOf10.medianMs),
        longSequenceMedian: round(f.longSequence.medianMs / ref.longSequence.medianMs),
        sessionsOf10ServerCpu: round(f.sessionsOf10.serverCpuMsPerCall / ref.sessionsOf10.serverCpuMsPerCall),
        longSequenceServerCpu: round(f.longSequence.serverCpuMsPerCall / ref.longSequence.serverCpuMsPerCall),
        longSequenceLastTenthOverFirstTenth: round(f.longSequence.lastTenthMedianMs / f.longSequence.firstTenthMedianMs),
      },
    ]),
  );
  // The four figures the target is about, each with the same ratio in CPU time measured in process.
  const targets = figures.slice(1).flatMap((f) =>
    (['sessionsOf10', 'longSequence'] as const).map((part) => {
      const ratio = round(f[part].medianMs / ref[part].medianMs);
      const cpu = inProcess[f.server]![part];
      return {
        case: `${f.server}, ${part === 'sessionsOf10' ? 'sessions of 10' : `one sequence of ${LONG}`}`,
        medianMs: f[part].medianMs,
        referenceMedianMs: ref[part].medianMs,
        ratio,
        // Judged on the like-for-like server only (see the file's header).
        ...(f.server === 'tot --db memory' ? { target: TARGET_RATIO, met: ratio <= TARGET_RATIO } : { target: null, met: null }),
        inProcessCpuUs: cpu.medianUs,
        referenceInProcessCpuUs: cpuRef[part].medianUs,
        inProcessCpuRatio: round(cpu.medianUs / cpuRef[part].medianUs),
      };
    }),
  );
  for (const t of targets) progress(`${t.case}: median ${t.medianMs} ms / reference ${t.referenceMedianMs} ms = ${t.ratio}×${t.target === null ? ' (durable: no target)' : ` (target ≤ ${t.target}×: ${t.met ? 'met' : 'not met'})`}; in-process CPU ${t.inProcessCpuUs} / ${t.referenceInProcessCpuUs} µs = ${t.inProcessCpuRatio}×`);
  const sqliteCall = inProcess['tot --db sqlite']!.longSequence.medianUs;
  // The floor against the reference's call: its server side in process, and its whole process (stdio included).
  const refProcessUs = ref.longSequence.serverCpuMsPerCall * 1000;
  const sqliteFloor = {
    ...floor,
    referenceInProcessCpuUs: cpuRef.longSequence.medianUs,
    referenceProcessCpuUs: round(refProcessUs),
    bareOverReferenceInProcess: round(floor.bareInsertCommitUs / cpuRef.longSequence.medianUs),
    bareOverReferenceProcess: round(floor.bareInsertCommitUs / refProcessUs),
    storeTableOverReferenceProcess: round(floor.storeTableInsertCommitUs / refProcessUs),
    storeTableShareOfSqliteCallInProcess: round(floor.storeTableInsertCommitUs / sqliteCall),
  };
  progress(
    `SQLite floor: a bare commit ${floor.bareInsertCommitUs} µs of CPU (${sqliteFloor.bareOverReferenceInProcess}× the reference's call in process, ${sqliteFloor.bareOverReferenceProcess}× its whole process's CPU per call); into the store's table ${floor.storeTableInsertCommitUs} µs (${sqliteFloor.storeTableOverReferenceProcess}× the reference's process CPU per call; ${Math.round(sqliteFloor.storeTableShareOfSqliteCallInProcess * 100)}% of an SQLite call in process)`,
  );
  // Other processes' load while it ran: on a busy machine the wall-clock figures carry their turns too.
  const load = { atStart: loadAtStart, atEnd: round(loadavg()[0]!) };
  report('sequential-thinking', { loadAverage1m: load, ...(values.cli ? { cli: values.cli } : {}), sessions: SESSIONS, warmRounds: WARM_ROUNDS, longSequence: LONG, chunk: CHUNK, referenceLogging: 'off (DISABLE_THOUGHT_LOGGING=true)', servers: figures, heapBytesPerThought: { ...heap, ratio: round(heap.totMemory / heap.reference) }, ratiosToReference: ratios, targetRatio: TARGET_RATIO, targets, inProcessServerCpuUs: inProcess, sqliteFloor });
} finally {
  for (const s of servers) await s.close();
  rmSync(dir, { recursive: true, force: true });
}
