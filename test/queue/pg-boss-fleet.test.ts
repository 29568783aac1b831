// A fleet of real worker processes on a real PostgreSQL: workers killed with SIGKILL and
// restarted while runs flow, a graceful stop, a cancel across processes, another flow version.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresEventStore } from '../../src/postgres/index.js';
import { pgBossQueue } from '../../src/queue/index.js';
import type { StoredEvent } from '../../src/index.js';
import { bundleFixture } from '../helpers/bundle-fixture.js';
import { catchTotError } from '../helpers/expect-tot-error.js';
import { collect } from '../helpers/collect.js';
import { driveIntervals, exited, readWorkerLog, startModelServer, startWorker, until } from './fixtures/fleet.js';
import { countingModel, searchExplorer, searchFlow, summary } from './fixtures/search-flow.js';

const url = process.env.TOT_POSTGRES_URL;
let n = 0;
const unique = () => `q${process.pid}_${Date.now().toString(36)}_${n++}`;

/** What every worker of one test shares: a queue schema, a store, a model server, a log. */
async function fleet(latencyMs: number, leaseSeconds = 5) {
  const schema = unique();
  const prefix = `${schema}_`;
  const store = new PostgresEventStore({ connectionString: url!, tablePrefix: prefix });
  await store.setup();
  const server = await startModelServer(latencyMs);
  const log = join(mkdtempSync(join(tmpdir(), 'tot-queue-')), 'workers.jsonl');
  const queue = pgBossQueue({ connectionString: url!, store, schema, leaseSeconds, pollIntervalMs: 100, resultPollMs: 50 });
  // Installs pg-boss's schema before the workers race to.
  await queue.list();
  const workers = new Set<ChildProcess>();
  const env = { TOT_POSTGRES_URL: url!, MODEL_URL: server.url, QUEUE_SCHEMA: schema, STORE_PREFIX: prefix, WORKER_LOG: log, LEASE_SECONDS: String(leaseSeconds) };
  return {
    store,
    server,
    queue,
    log,
    workers,
    start(extra: Record<string, string> = {}) {
      const child = startWorker(script, { ...env, ...extra });
      workers.add(child);
      void exited(child).then(() => workers.delete(child));
      return child;
    },
    async close() {
      for (const w of workers) w.kill('SIGKILL');
      await queue.close();
      await store.close();
      await server.close();
    },
  };
}

const events = (store: PostgresEventStore, runId: string): Promise<StoredEvent[]> => collect(store.readStream(runId));
const count = (list: StoredEvent[], type: string) => list.filter((e) => e.type === type).length;
const reference = async (puzzle: string) => {
  const result = await searchExplorer(countingModel()).run(`Solve ${puzzle}`);
  return { summary: JSON.parse(JSON.stringify(summary(result))) as unknown, calls: result.stats.llmCalls };
};

let script: string;

describe.skipIf(!url)('pgBossQueue with worker processes', () => {
  beforeAll(async () => {
    script = await bundleFixture('test/queue/fixtures/worker-process.ts');
  }, 60_000);

  const open: { close(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const f of open) await f.close();
  });

  it(
    'finishes every run while a worker is killed every 2 s for 30 s: results as uninterrupted, no completed call made twice, no run driven by two workers at once, every call asked by a worker that had taken its run',
    async () => {
      const f = await fleet(20);
      open.push(f);
      for (let i = 0; i < 4; i++) f.start({ CONCURRENCY: '8' });
      const puzzles = Array.from({ length: 200 }, (_, i) => `p${i}`);
      const ids = new Map<string, string>();
      const killedAt = new Map<number, number>();
      const started = Date.now();
      // Runs arrive through the 30 s, as a service's would, while the chaos goes on.
      const submitting = (async () => {
        for (const [i, puzzle] of puzzles.entries()) {
          ids.set(puzzle, await f.queue.submit(searchFlow(countingModel()), { puzzle }, { key: puzzle }));
          const due = started + ((i + 1) * 28_000) / puzzles.length;
          await new Promise((r) => setTimeout(r, Math.max(0, due - Date.now())));
        }
      })();
      while (Date.now() - started < 30_000) {
        await new Promise((r) => setTimeout(r, 2_000));
        const live = [...f.workers];
        const victim = live[Math.floor(Math.random() * live.length)]!;
        killedAt.set(victim.pid!, Date.now());
        victim.kill('SIGKILL');
        await exited(victim);
        f.start({ CONCURRENCY: '8' });
      }
      await submitting;
      const chaosOver = Date.now();
      const results = new Map<string, unknown>();
      await Promise.all(puzzles.map(async (p) => results.set(p, await f.queue.result(ids.get(p)!, { signal: AbortSignal.timeout(60_000) }))));
      for (const w of f.workers) w.kill('SIGTERM');
      await Promise.all([...f.workers].map(exited));
      const allDone = Date.now();

      // Every run finished with the uninterrupted run's result.
      const statuses = await f.queue.list({ limit: 1000 });
      expect(statuses.filter((s) => s.status === 'finished')).toHaveLength(200);
      let resumed = 0;
      let calls = 0;
      for (const puzzle of puzzles) {
        const runId = ids.get(puzzle)!;
        const ref = await reference(puzzle);
        calls += ref.calls;
        expect(results.get(puzzle)).toEqual(ref.summary);
        const log = await events(f.store, runId);
        resumed += count(log, 'run.resumed') > 0 ? 1 : 0;
        // Each call the uninterrupted run makes completed exactly once in the log...
        expect(count(log, 'llm.completed')).toBe(ref.calls);
        // ...and the server served no call the log does not hold (a call cut off by a kill stays open in it).
        const served = f.server.served.filter((s) => s.puzzle === puzzle).length;
        expect(served).toBeGreaterThanOrEqual(ref.calls);
        expect(served).toBeLessThanOrEqual(count(log, 'llm.requested'));
      }
      expect(f.server.served.filter((s) => s.puzzle === '?')).toEqual([]);

      // No run was driven by two workers at once, and every call was asked by a worker that had taken its run.
      const intervals = driveIntervals(readWorkerLog(f.log), killedAt);
      for (const [runId, list] of intervals) {
        const sorted = [...list].sort((a, b) => a.from - b.from);
        for (let i = 1; i < sorted.length; i++) expect(sorted[i]!.from, `run ${runId} taken while another worker drove it`).toBeGreaterThanOrEqual(sorted[i - 1]!.to);
      }
      const byPuzzle = new Map([...ids].map(([p, id]) => [p, id]));
      for (const call of f.server.served) {
        const list = intervals.get(byPuzzle.get(call.puzzle)!) ?? [];
        // (When a killed worker's last request was read is up to this busy process: only the start is compared.)
        expect(list.some((iv) => iv.pid === call.pid && call.at >= iv.from), `call for ${call.puzzle} by ${call.pid} at ${call.at}: ${JSON.stringify(list)}`).toBe(true);
      }
      // The chaos did interrupt runs: some were taken over and resumed from their logs.
      expect(resumed).toBeGreaterThan(0);
      console.log(`fleet: 200 runs, ${killedAt.size} kills, ${resumed} runs resumed by another worker, ${f.server.served.length} model calls served (${calls} without crashes), chaos ${Math.round((chaosOver - started) / 1000)} s, all settled ${Math.round((allDone - started) / 1000)} s, checked ${Math.round((Date.now() - started) / 1000)} s`);
    },
    120_000,
  );

  it(
    'a worker stopped with SIGTERM hands its runs back with their logs open, and another worker finishes them',
    async () => {
      const f = await fleet(60);
      open.push(f);
      const first = f.start({ CONCURRENCY: '3' });
      const puzzles = ['t0', 't1', 't2'].map((p) => p.replace('t', 'p9'));
      const ids = await Promise.all(puzzles.map((puzzle) => f.queue.submit(searchFlow(countingModel()), { puzzle })));
      // Each run is under way: the model has served at least one call of each.
      await until(() => puzzles.every((p) => f.server.served.some((s) => s.puzzle === p)), 20_000, 'the runs to start');
      first.kill('SIGTERM');
      expect(await exited(first)).toBe(0);
      for (const id of ids) {
        expect((await f.queue.status(id)).status).toBe('queued');
        expect(count(await events(f.store, id), 'run.finished')).toBe(0);
      }
      f.start();
      for (const [i, id] of ids.entries()) {
        const ref = await reference(puzzles[i]!);
        expect(await f.queue.result(id, { signal: AbortSignal.timeout(20_000) })).toEqual(ref.summary);
        const log = await events(f.store, id);
        expect(count(log, 'run.resumed')).toBe(1);
        expect(count(log, 'llm.completed')).toBe(ref.calls);
      }
    },
    60_000,
  );

  it(
    'cancel stops a run that another process drives: the log records it aborted and the model is asked nothing more',
    async () => {
      const f = await fleet(100);
      open.push(f);
      f.start();
      const runId = await f.queue.submit(searchFlow(countingModel()), { puzzle: 'p800' });
      await until(() => f.server.served.filter((s) => s.puzzle === 'p800').length >= 2, 20_000, 'the run to start');
      const asked = Date.now();
      expect(await f.queue.cancel(runId)).toBe(true);
      await until(async () => count(await events(f.store, runId), 'run.finished') === 1, 10_000, 'the run to stop');
      const stoppedAfter = Date.now() - asked;
      const finished = (await events(f.store, runId)).at(-1)!;
      expect((finished.data as { stopReason: string }).stopReason).toBe('aborted');
      expect((await f.queue.status(runId)).status).toBe('cancelled');
      await catchTotError(() => f.queue.result(runId), 'ABORTED');
      const servedThen = f.server.served.length;
      await new Promise((r) => setTimeout(r, 300));
      expect(f.server.served.length).toBe(servedThen);
      console.log(`cancel: the run was recorded as aborted ${stoppedAfter} ms after cancel() was called`);
    },
    60_000,
  );

  it(
    'a process that waited for a result exits by itself once its queues are closed',
    async () => {
      const schema = unique();
      const child = spawn(process.execPath, [await bundleFixture('test/queue/fixtures/submit-and-exit.ts')], {
        env: { ...process.env, TOT_POSTGRES_URL: url!, QUEUE_SCHEMA: schema, STORE_PREFIX: `${schema}_` },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
      expect(await exited(child)).toBe(0);
      expect(out).toBe('search_exhausted');
    },
    60_000,
  );

  it(
    'a worker of another flow version fails the run with RESUME_MISMATCH, without retrying it',
    async () => {
      const f = await fleet(0);
      open.push(f);
      f.start({ FLOW_VERSION: '2' });
      const runId = await f.queue.submit(searchFlow(countingModel(), 1), { puzzle: 'p900' });
      const error = await catchTotError(() => f.queue.result(runId, { signal: AbortSignal.timeout(20_000) }), 'RESUME_MISMATCH');
      expect(error.message).toContain('version 1');
      const info = await f.queue.status(runId);
      expect(info.status).toBe('failed');
      expect(info.attempts).toBe(1);
      expect(f.server.served).toEqual([]);
    },
    60_000,
  );
});
