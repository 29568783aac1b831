/**
 * The PostgreSQL queue of runs (`@tot/core/queue`) with real worker processes, search runs of 6
 * model calls on a model server at 20 ms per call:
 *   - runs per second with 1, 2 and 4 worker processes (targets: ×1.8 from 1 to 2, ×3 at 4), each
 *     worker driving one run at a time (the model is the bound) and then 4 (the CPU is), after 20
 *     warm-up runs per worker;
 *   - the queue's overhead per run in a worker (taking the run, looking for its log, settling the
 *     job) against calling the runner directly with the same store (target: ≤ 10 ms median), and
 *     the time from submit to result with an idle worker, polling included;
 *   - the time from a worker's SIGKILL to its runs running again on another worker (target:
 *     ≤ the documented bound + 1 s).
 *
 *   npm run bench:queue                      (TOT_POSTGRES_URL, or a throwaway cluster from .ci/postgres)
 *   npm run bench:queue -- --rounds 9        (throughput rounds, each of 1, 2 and 4 workers; default 7)
 *   npm run bench:queue -- --kills 5         (workers killed for the takeover figure, one a round; default 11)
 *   npm run bench:queue -- --only throughput (no overhead or takeover figures, no result file)
 *   npm run bench:queue -- --only overhead   (the overhead figures alone, no result file)
 *   npm run bench:queue -- --pairs 41        (direct and queued runs timed for the overhead figures; default 101)
 *   npm run bench:queue -- --concurrency 4   (only that many runs at once per worker; default 1, then 4)
 *   npm run bench:queue -- --fetch           (the workers call the model with fetch, not node:http)
 *
 * Each throughput figure is a median of rounds, the worker counts in a new order each round; the
 * load average and the CPU per run (the workers' own, and PostgreSQL's when the benchmark knows its
 * cluster: TOT_POSTGRES_DATA, or the throwaway one) stand beside each round: on 2 cores shared
 * with other work, CPU and not the queue may be the ceiling.
 *
 * The same file is the worker process (`--worker`), so that the benchmark needs no other build.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { bfs, createEvaluator, createGenerator, Explorer, fromFunction, type GenerateRequest, type GenerateResult, type LanguageModel } from '../src/index.js';
import { PostgresEventStore } from '../src/postgres/index.js';
import { defineFlow, pgBossQueue } from '../src/queue/index.js';
import { figure, median, pass, passRounds, pooled, report, type Figure } from './harness.js';

const LATENCY_MS = 20;
const self = fileURLToPath(import.meta.url);
// Node options for the worker processes only, e.g. TOT_BENCH_WORKER_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof'.
const WORKER_NODE_ARGS = (process.env.TOT_BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean);

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

function reply(request: GenerateRequest): GenerateResult {
  const h = hash(request.messages.map((m) => m.content).join('\n'));
  if (request.tags?.role === 'generator') return { outputs: [JSON.stringify({ candidates: [0, 1].map((i) => ({ content: `step ${(h >>> (i * 4)) % 97}` })) })], usage: { inputTokens: 50, outputTokens: 20 } };
  return { outputs: [JSON.stringify({ score: (h % 100) / 10, confidence: 0.9, reasoning: `h${h % 7}` })], usage: { inputTokens: 40, outputTokens: 10 } };
}

// The model over HTTP with node:http and a keep-alive agent, not `fetch`: on Node 20 undici's fetch
// spent about 2 ms of CPU per request here, a fifth of a worker's CPU per run, which would make
// the benchmark measure its own model client. With `--fetch` the workers use `fetch` instead.
const keepAlive = new Agent({ keepAlive: true, maxSockets: 64 });
const postJson = (url: string, body: string, signal: AbortSignal | undefined): Promise<string> =>
  new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', agent: keepAlive, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }, ...(signal ? { signal } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
const USE_FETCH = process.argv.includes('--fetch') || process.env.TOT_BENCH_FETCH === '1';
const httpModel = (url: string): LanguageModel =>
  fromFunction(
    async (request: GenerateRequest, options?: { signal?: AbortSignal }) => {
      if (USE_FETCH) {
        const res = await fetch(url, { method: 'POST', body: JSON.stringify(request), headers: { 'content-type': 'application/json' }, signal: options?.signal ?? null });
        return (await res.json()) as GenerateResult;
      }
      return JSON.parse(await postJson(url, JSON.stringify(request), options?.signal)) as GenerateResult;
    },
    { input: 'request', modelId: 'world' },
  );

const searchFlow = (model: LanguageModel) => {
  const explorer = new Explorer({ generator: createGenerator({ model }), evaluator: createEvaluator({ model }), strategy: bfs({ beamWidth: 1 }), maxDepth: 2, branchingFactor: 2, concurrency: 2, now: () => 0 });
  return {
    explorer,
    flow: defineFlow({
      name: 'bench-search',
      version: 1,
      input: z.object({ puzzle: z.string() }),
      run: async (input, run) => {
        const r = run.resuming ? await explorer.resume(run) : await explorer.run(`Solve ${input.puzzle}`, run);
        return { bestPath: r.bestPath.map((n) => n.content) };
      },
    }),
  };
};

// ── the worker process ─────────────────────────────────────────────────────────────────────────
if (process.argv.includes('--worker')) {
  const env = process.env as Record<string, string>;
  const log = (entry: Record<string, unknown>) => appendFileSync(env.WORKER_LOG!, `${JSON.stringify({ pid: process.pid, t: Date.now(), ...entry })}\n`);
  const store = new PostgresEventStore({ connectionString: env.PG!, tablePrefix: env.PREFIX! });
  const queue = pgBossQueue({ connectionString: env.PG!, store, schema: env.SCHEMA!, leaseSeconds: Number(env.LEASE), pollIntervalMs: 100 });
  const stop = new AbortController();
  process.once('SIGTERM', () => stop.abort());
  // The process's CPU so far with each run's start and end: the benchmark takes the difference
  // over the runs it times, after the warm-up runs (module loading, pg-boss's start and V8's
  // compiling of the hot paths are no cost of a long-running worker's runs).
  const cpuMs = () => {
    const cpu = process.cpuUsage();
    return (cpu.user + cpu.system) / 1000;
  };
  log({ ready: true, cpuMs: cpuMs() });
  await queue.work({
    flows: [searchFlow(httpModel(env.MODEL!)).flow],
    concurrency: Number(env.CONCURRENCY),
    signal: stop.signal,
    onRun: (e) => log({ runId: e.runId, outcome: e.outcome, cpuMs: cpuMs() }),
  });
  log({ stopped: true, cpuMs: cpuMs() });
  await queue.close();
  await store.close();
  process.exit(0);
}

// ── the benchmark ──────────────────────────────────────────────────────────────────────────────
const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? undefined : process.argv[i + 1];
};
/** A whole number ≥ 1 given as `name`, else `fallback`; anything else stops the benchmark before it starts a server. */
const count = (name: string, fallback: number) => {
  const given = arg(name);
  if (given === undefined) return fallback;
  if (!/^[1-9][0-9]*$/.test(given)) throw new Error(`bench:queue: ${name} must be a whole number of at least 1, not "${given}"`);
  return Number(given);
};
// Each figure's rounds, pairs and kills are shared by the passes bench/run.ts runs the list in
// (`passRounds`), and each pass's figures are of every pass's so far (`pooled`).
const ROUNDS = count('--rounds', 7);
/** Direct and queued runs timed in turn for the overhead figures. */
const OVERHEAD_PAIRS = count('--pairs', 101);
const ONLY = arg('--only');
if (ONLY !== undefined && ONLY !== 'throughput' && ONLY !== 'overhead') throw new Error(`bench:queue: --only takes throughput or overhead, not "${ONLY}"`);
// Leaving early skips report(), which keeps a pass's rounds for the next pass.
if (ONLY !== undefined && pass.of > 1) throw new Error('bench:queue: --only measures part of the benchmark and writes no result; run it in one pass');
const ONLY_THROUGHPUT = ONLY === 'throughput';
const ONLY_OVERHEAD = ONLY === 'overhead';
let url = process.env.TOT_POSTGRES_URL;
let clusterData = process.env.TOT_POSTGRES_DATA;
if (!url) {
  const out = execFileSync('bash', ['.ci/postgres', 'start'], { encoding: 'utf8' });
  url = /TOT_POSTGRES_URL=(.*)/.exec(out)![1]!;
  const cluster = /TOT_POSTGRES_DATA=(.*)/.exec(out)![1]!;
  clusterData = cluster;
  // A throwaway cluster is stopped when the benchmark exits, however it ends (a failure midway included).
  process.once('exit', () => {
    try {
      execFileSync('bash', ['.ci/postgres', 'stop', cluster], { stdio: 'ignore' });
    } catch {
      // Gone already.
    }
  });
}

/** CPU time of a process in ms, its reaped children's included, from /proc (`undefined` when gone). */
function procCpuMs(pid: number): { own: number; children: number } | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
    const tick = 10; // USER_HZ is 100 on Linux
    return { own: (Number(fields[11]) + Number(fields[12])) * tick, children: (Number(fields[13]) + Number(fields[14])) * tick };
  } catch {
    return undefined;
  }
}

/** PostgreSQL's CPU so far, in ms: the postmaster, its live backends and those that ended (reaped by it). */
function postgresCpuMs(): number | undefined {
  if (!clusterData) return undefined;
  const pidFile = join(clusterData, 'db', 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const postmaster = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  const main = procCpuMs(postmaster);
  if (!main) return undefined;
  let total = main.own + main.children;
  const children = readFileSync(`/proc/${postmaster}/task/${postmaster}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  for (const child of children) total += procCpuMs(child)?.own ?? 0;
  return total;
}
const pg = url;

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => setTimeout(() => res.end(JSON.stringify(reply(JSON.parse(Buffer.concat(chunks).toString('utf8')) as GenerateRequest))), LATENCY_MS));
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const modelUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

let n = 0;
// The submitting queue waits for results as a host would: each run's settled notification brings its
// result, with the default fallback poll (250 ms).
async function setup(lease = 5) {
  const schema = `bq${process.pid}_${n++}`;
  const store = new PostgresEventStore({ connectionString: pg, tablePrefix: `${schema}_` });
  await store.setup();
  const queue = pgBossQueue({ connectionString: pg, store, schema, leaseSeconds: lease });
  await queue.list();
  const logDir = mkdtempSync(join(tmpdir(), 'tot-bench-queue-'));
  const log = join(logDir, 'workers.jsonl');
  const env = { PG: pg, PREFIX: `${schema}_`, SCHEMA: schema, MODEL: modelUrl, WORKER_LOG: log, LEASE: String(lease) };
  const read = () =>
    existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { pid: number; t: number; runId?: string; outcome?: string; ready?: boolean; stopped?: boolean; cpuMs?: number }) : [];
  // After close(), the log's last lines (its directory is gone by then).
  let final: ReturnType<typeof read> | undefined;
  const lines = () => final ?? read();
  const workers: ChildProcess[] = [];
  const start = async (count: number, concurrency: number) => {
    const before = lines().filter((l) => l.ready).length;
    for (let i = 0; i < count; i++) workers.push(spawn(process.execPath, [...WORKER_NODE_ARGS, self, '--worker'], { env: { ...process.env, ...env, CONCURRENCY: String(concurrency), TOT_BENCH_FETCH: USE_FETCH ? '1' : '0' }, stdio: ['ignore', 'ignore', 'inherit'] }));
    while (lines().filter((l) => l.ready).length < before + count) await new Promise((r) => setTimeout(r, 20));
    // pg-boss starts after the log line: a moment for the workers to ask for runs.
    await new Promise((r) => setTimeout(r, 1500));
  };
  const close = async () => {
    for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGTERM');
    await Promise.all(workers.map((w) => (w.exitCode !== null || w.signalCode !== null ? undefined : new Promise((r) => w.once('exit', r)))));
    await queue.close();
    await store.close();
    final = read();
    rmSync(logDir, { recursive: true, force: true });
  };
  return { queue, store, lines, start, workers, close };
}

const { flow } = searchFlow(httpModel(modelUrl));

// 1. Throughput with 1, 2 and 4 worker processes, in rounds: with one run at a time per worker,
// where a worker waits on its model (the model is the bound), and with 4, where one worker
// already keeps most of the 2 cores busy (the CPU is the bound).
const RUNS = 120;
/** Runs each worker drives before the timed ones. */
const WARM_RUNS_PER_WORKER = 20;
const CONCURRENCIES = arg('--concurrency') === undefined ? [1, 4] : [count('--concurrency', 1)];
const COUNTS = [1, 2, 4];
interface Round {
  workers: number;
  runsPerSecond: number;
  loadAverage1m: number;
  /** The worker processes' user + system CPU over the timed runs, per run. */
  workerCpuMsPerRun: number;
  /** PostgreSQL's CPU from the first timed submit to the last result, per run (absent when its cluster is unknown). */
  postgresCpuMsPerRun?: number;
}
interface Throughput {
  concurrencyPerWorker: number;
  runsPerSecond: Record<string, number>;
  speedup: { twoWorkers: number; fourWorkers: number };
  /** The same medians with the range of their rounds, and each round's speed-up over the round's one worker. */
  figures: { runsPerSecond: Record<string, Figure>; speedupPerRound: { twoWorkers: Figure; fourWorkers: Figure } };
  rounds: Round[];
}
const throughput: Throughput[] = [];
for (const concurrency of ONLY_OVERHEAD ? [] : CONCURRENCIES) {
  const passRoundsMeasured: Round[] = [];
  for (const round of passRounds(ROUNDS)) {
    for (let k = 0; k < COUNTS.length; k++) {
      const workers = COUNTS[(round + k) % COUNTS.length]!;
      const s = await setup();
      await s.start(workers, concurrency);
      const warm = await Promise.all(Array.from({ length: WARM_RUNS_PER_WORKER * workers }, (_, i) => s.queue.submit(flow, { puzzle: `warm-c${concurrency}-r${round}-w${workers}-${i}` })));
      await Promise.all(warm.map((id) => s.queue.result(id)));
      const load = loadavg()[0]!;
      const pgBefore = postgresCpuMs();
      const since = Date.now();
      const t0 = performance.now();
      const ids = await Promise.all(Array.from({ length: RUNS }, (_, i) => s.queue.submit(flow, { puzzle: `c${concurrency}-r${round}-w${workers}-${i}` })));
      await Promise.all(ids.map((id) => s.queue.result(id)));
      const seconds = (performance.now() - t0) / 1000;
      const pgAfter = postgresCpuMs();
      await s.close();
      // Each worker's CPU from its last report before the timed runs to its stop.
      const lines = s.lines();
      const workerCpu = [...new Set(lines.map((l) => l.pid))].reduce((sum, pid) => {
        const own = lines.filter((l) => l.pid === pid && l.cpuMs !== undefined);
        const before = own.filter((l) => l.t < since).at(-1)?.cpuMs ?? 0;
        return sum + (own.find((l) => l.stopped)?.cpuMs ?? before) - before;
      }, 0);
      const r: Round = { workers, runsPerSecond: Math.round((RUNS / seconds) * 10) / 10, loadAverage1m: Math.round(load * 100) / 100, workerCpuMsPerRun: Math.round((workerCpu / RUNS) * 10) / 10 };
      if (pgBefore !== undefined && pgAfter !== undefined) r.postgresCpuMsPerRun = Math.round(((pgAfter - pgBefore) / RUNS) * 10) / 10;
      passRoundsMeasured.push(r);
      console.error(`bench:queue: ${concurrency} at a time per worker, round ${round + 1}, ${workers} worker(s): ${r.runsPerSecond} runs/s (load ${r.loadAverage1m}; CPU per run: workers ${r.workerCpuMsPerRun} ms, PostgreSQL ${r.postgresCpuMsPerRun ?? '?'} ms)`);
    }
  }
  const rounds = pooled(`throughput-${concurrency}`, passRoundsMeasured);
  // Each worker count's runs per second, round by round (a round measures every count).
  const of = Object.fromEntries(COUNTS.map((w) => [w, rounds.filter((r) => r.workers === w).map((r) => r.runsPerSecond)])) as Record<number, number[]>;
  const perSecond: Record<string, number> = Object.fromEntries(COUNTS.map((w) => [w, median(of[w]!)]));
  const speedup = { twoWorkers: Math.round((perSecond[2]! / perSecond[1]!) * 100) / 100, fourWorkers: Math.round((perSecond[4]! / perSecond[1]!) * 100) / 100 };
  const perRound = (w: number) => of[w]!.map((x, i) => x / of[1]![i]!);
  const figures = { runsPerSecond: Object.fromEntries(COUNTS.map((w) => [w, figure(of[w]!, 1)])), speedupPerRound: { twoWorkers: figure(perRound(2)), fourWorkers: figure(perRound(4)) } };
  throughput.push({ concurrencyPerWorker: concurrency, runsPerSecond: perSecond, speedup, figures, rounds });
  console.error(`bench:queue: ${concurrency} at a time per worker: median runs/s ${COUNTS.map((w) => `${w}: ${perSecond[w]}`).join(', ')}; ×${speedup.twoWorkers} at 2, ×${speedup.fourWorkers} at 4`);
}
if (ONLY_THROUGHPUT) {
  server.close();
  process.exit(0);
}

// 2. Overhead per run: in one process, one run at a time, a direct run and a queued run in turn
// (so that the machine's other work weighs on both alike), of the same puzzle: the two make the
// same model calls, so that their difference is the queue's and not the search's (puzzles of their
// own made pairs differ by tens of milliseconds either way).
const overhead = await (async () => {
  const s = await setup(5);
  const { explorer, flow: local } = searchFlow(httpModel(modelUrl));
  type Pair = { direct: number; drive: number; endToEnd: number; submitCall: number; pickup: number; resultAfterSettled: number };
  const passPairs: Pair[] = [];
  // Where submit → result goes, in parts that add up to it: the submit call, from its return to the
  // worker starting the run, the run in the worker (drives, until the worker's statement that
  // completes and announces the run has returned), and from there to result() returning, negative
  // when the announcement reached result() before the statement's reply reached the worker.
  // By run id: a late report can never be taken for the next run's.
  const startedAt = new Map<string, number>();
  const settledAt = new Map<string, number>();
  const onSettled = new Map<string, () => void>();
  const stop = new AbortController();
  const worker = s.queue.work({
    flows: [local],
    concurrency: 1,
    signal: stop.signal,
    onRun: (e) => {
      const now = performance.now();
      if (e.outcome === 'started') startedAt.set(e.runId, now);
      else {
        settledAt.set(e.runId, now);
        onSettled.get(e.runId)?.();
      }
    },
  });
  await new Promise((r) => setTimeout(r, 1500));
  const runDirect = async (i: number) => {
    const t = performance.now();
    await explorer.run(`Solve pair-${i}`, { store: s.store });
    return performance.now() - t;
  };
  for (const i of passRounds(OVERHEAD_PAIRS)) {
    // The direct run first in even pairs, second in odd ones: neither always follows the other.
    let direct = i % 2 === 0 ? await runDirect(i) : 0;
    const t = performance.now();
    const id = await s.queue.submit(local, { puzzle: `pair-${i}` });
    const submitted = performance.now();
    await s.queue.result(id);
    const done = performance.now();
    // The worker's report of the settle may come after result() returned: waited for before the next pair.
    if (!settledAt.has(id)) await new Promise<void>((resolve) => onSettled.set(id, resolve));
    onSettled.delete(id);
    if (i % 2 === 1) direct = await runDirect(i);
    passPairs.push({ direct, drive: settledAt.get(id)! - startedAt.get(id)!, endToEnd: done - t, submitCall: submitted - t, pickup: startedAt.get(id)! - submitted, resultAfterSettled: done - settledAt.get(id)! });
  }
  stop.abort();
  await worker;
  await s.close();
  const pairs = pooled('overheadPairs', passPairs);
  const direct = pairs.map((p) => p.direct);
  const drives = pairs.map((p) => p.drive);
  const endToEnd = pairs.map((p) => p.endToEnd);
  const perRun = direct.map((d, i) => drives[i]! - d);
  return {
    directMs: figure(direct, 1),
    inWorkerMs: figure(drives, 1),
    overheadInWorkerMs: figure(perRun, 1),
    submitToResultMs: figure(endToEnd, 1),
    submitToResultOverDirectMs: figure(direct.map((d, i) => endToEnd[i]! - d), 1),
    parts: { submitCallMs: figure(pairs.map((p) => p.submitCall), 1), submittedToStartedMs: figure(pairs.map((p) => p.pickup), 1), settledToResultMs: figure(pairs.map((p) => p.resultAfterSettled), 1) },
  };
})();
console.error(`bench:queue: overhead ${overhead.overheadInWorkerMs.median} ms per run in the worker, ${overhead.submitToResultOverDirectMs.median} ms from submit to result (medians: the submit call ${overhead.parts.submitCallMs.median} ms, its return → the worker starts the run ${overhead.parts.submittedToStartedMs.median} ms, the run in the worker ${overhead.inWorkerMs.median} ms, the worker settles → result() returns ${overhead.parts.settledToResultMs.median} ms)`);
if (ONLY_OVERHEAD) {
  server.close();
  process.exit(0);
}

// 3. SIGKILL → the runs running again elsewhere, one kill per round: a kill's figure is the time
// until the last run its worker held runs again (the runs of one kill wait for the same lease, so
// they are one measurement, not several).
const KILLS = count('--kills', 11);
const lease = 5;
async function killOnce() {
  const s = await setup(lease);
  await s.start(2, 4);
  const victim = s.workers[0]!;
  const ids = await Promise.all(Array.from({ length: 40 }, (_, i) => s.queue.submit(flow, { puzzle: `k-${i}` })));
  // Once the victim drives runs, it is killed.
  while (!s.lines().some((l) => l.pid === victim.pid && l.outcome === 'started')) await new Promise((r) => setTimeout(r, 5));
  await new Promise((r) => setTimeout(r, 100));
  const held = new Set<string>();
  for (const l of s.lines()) {
    if (l.pid !== victim.pid || !l.runId) continue;
    if (l.outcome === 'started') held.add(l.runId);
    else held.delete(l.runId);
  }
  if (held.size === 0) {
    // The victim finished what it had started before the kill: nothing to take over, so no measurement; the caller tries again.
    await s.close();
    return undefined;
  }
  const killedAt = Date.now();
  victim.kill('SIGKILL');
  await Promise.all(ids.map((id) => s.queue.result(id)));
  const again = [...held].map((runId) => (s.lines().find((l) => l.runId === runId && l.pid !== victim.pid && l.outcome === 'started' && l.t >= killedAt)?.t ?? NaN) - killedAt);
  const bound = pgBossQueue({ connectionString: pg, store: s.store, leaseSeconds: lease, pollIntervalMs: 100 }).takeoverBoundMs;
  await s.close();
  if (again.some(Number.isNaN)) throw new Error(`takeover: ${again.filter(Number.isNaN).length} of the ${again.length} runs the killed worker held never ran again elsewhere`);
  return { runsHeld: held.size, lastMs: Math.max(...again), bound };
}
const takeover = await (async () => {
  const passKills: NonNullable<Awaited<ReturnType<typeof killOnce>>>[] = [];
  const wanted = passRounds(KILLS).length;
  for (let tries = 0; passKills.length < wanted; tries++) {
    if (tries >= wanted * 3) throw new Error(`takeover: the victim held no run at its kill in ${tries - passKills.length} of ${tries} tries`);
    const kill = await killOnce();
    if (kill) passKills.push(kill);
  }
  const kills = pooled('kills', passKills);
  return { leaseSeconds: lease, kills: kills.length, runsHeld: kills.map((k) => k.runsHeld), killToRunningAgainMs: figure(kills.map((k) => k.lastMs), 0), documentedBoundMs: kills[0]!.bound };
})();
console.error(`bench:queue: takeover ${takeover.killToRunningAgainMs.median} ms (${takeover.killToRunningAgainMs.min}–${takeover.killToRunningAgainMs.max} ms over ${takeover.killToRunningAgainMs.rounds} kills; bound ${takeover.documentedBoundMs} ms)`);

server.close();

report('queue', {
  setup: { modelLatencyMs: LATENCY_MS, callsPerRun: 6, runs: RUNS, warmRunsPerWorker: WARM_RUNS_PER_WORKER, rounds: throughput[0] ? throughput[0].rounds.length / COUNTS.length : ROUNDS, modelClient: USE_FETCH ? 'fetch' : 'node:http, keep-alive' },
  throughput,
  targets: { twoWorkers: 1.8, fourWorkers: 3, overheadMs: 10, takeoverMs: takeover.documentedBoundMs + 1000 },
  overhead,
  takeover,
});
process.exit(0);
