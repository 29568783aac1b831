// A fleet of real worker processes on a real PostgreSQL: a graceful stop, a cancel across
// processes, another flow version. Workers killed with SIGKILL and restarted while runs flow, their
// runs taken over: pg-boss-fleet-chaos.soak.test.ts.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { bundleFixture } from '../helpers/bundle-fixture.js';
import { catchTotError } from '../helpers/expect-tot-error.js';
import { count, events, exited, reference, unique, until, useFleets } from './fixtures/fleet.js';
import { countingModel, searchFlow } from './fixtures/search-flow.js';

const url = process.env.TOT_POSTGRES_URL;

describe.skipIf(!url)('pgBossQueue with worker processes', () => {
  const openFleet = useFleets(url);

  it(
    'a worker stopped with SIGTERM hands its runs back with their logs open, and another worker finishes them',
    async () => {
      const f = await openFleet(60);
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
      const f = await openFleet(100);
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
      const f = await openFleet(0);
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
