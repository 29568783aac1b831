import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InMemoryEventStore } from '../../src/index.js';
import { defineFlow, pgBossQueue, type WorkerRunEvent } from '../../src/queue/index.js';
import { until } from './fixtures/fleet.js';

const url = process.env.TOT_POSTGRES_URL;
let n = 0;
const unique = () => `ql${process.pid}_${Date.now().toString(36)}_${n++}`;

/**
 * A queue whose worker and waiters poll once a minute: a run picked up, or a result given, within
 * the tests' few seconds came through a notification.
 */
async function slowPolling() {
  const schema = unique();
  const errors: unknown[] = [];
  const queue = pgBossQueue({ connectionString: url!, store: new InMemoryEventStore(), schema, pollIntervalMs: 60_000, resultPollMs: 60_000, onError: (e) => errors.push(e) });
  await queue.list();
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  // Runs with n = 0 wait for release().
  const echo = defineFlow({ name: 'echo', version: 1, input: z.strictObject({ n: z.number() }), run: async (input) => (input.n === 0 ? released.then(() => 0) : input.n) });
  const told: string[] = [];
  const worker = queue.work({ flows: [echo], concurrency: 2, onRun: (e: WorkerRunEvent) => void told.push(`${e.runId} ${e.outcome}`) });
  return { schema, queue, echo, worker, told, errors, release };
}

describe.skipIf(!url)('the PostgreSQL queue’s notifications', () => {
  let admin: pg.Client;
  beforeAll(async () => {
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
  });

  /** The backend of the queue's listener once its last statement listened to `channel` (any of the queue's by default). */
  const listenerPid = async (schema: string, channel = '%'): Promise<number | undefined> => {
    const { rows } = await admin.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE application_name = 'tot-queue-listener' AND state = 'idle' AND query LIKE $1`, [
      `%LISTEN tot_${channel}_${schema}%`,
    ]);
    return rows[0]?.pid;
  };
  const terminate = async (pid: number | undefined) => {
    const { rows } = await admin.query<{ done: boolean }>('SELECT pg_terminate_backend($1) AS done', [pid]);
    expect(rows[0]!.done).toBe(true);
  };

  it('wakes an idle worker for a run submitted after the listener’s connection was terminated', async () => {
    const q = await slowPolling();
    try {
      await until(async () => (await listenerPid(q.schema, 'submitted')) !== undefined, 10_000, 'the listener');
      const first = await q.queue.submit(q.echo, { n: 1 });
      await until(() => q.told.includes(`${first} finished`), 10_000, 'the first run');
      const pid = await listenerPid(q.schema);
      await terminate(pid);
      await until(async () => ((await listenerPid(q.schema)) ?? pid) !== pid, 10_000, 'the listener to listen again');

      const second = await q.queue.submit(q.echo, { n: 2 });
      await until(() => q.told.includes(`${second} started`), 10_000, 'the second run to be picked up');
      expect(q.errors.length).toBeGreaterThan(0);
    } finally {
      await q.queue.close();
    }
  }, 60_000);

  it('gives a waiter the result of a run that settled while the listener was reconnecting', async () => {
    const q = await slowPolling();
    try {
      await until(async () => (await listenerPid(q.schema, 'submitted')) !== undefined, 10_000, 'the listener');
      const runId = await q.queue.submit(q.echo, { n: 0 });
      await until(() => q.told.includes(`${runId} started`), 10_000, 'the run to be picked up');
      const result = q.queue.result(runId, { signal: AbortSignal.timeout(10_000) });
      await until(async () => (await listenerPid(q.schema, 'settled')) !== undefined, 10_000, 'the waiter to listen');
      await terminate(await listenerPid(q.schema));
      // The run settles now: its notification is sent while the listener is away.
      q.release();
      expect(await result).toBe(0);
    } finally {
      await q.queue.close();
    }
  }, 60_000);

  it('listens no more once the queue is closed, even while it was reconnecting', async () => {
    const q = await slowPolling();
    await until(async () => (await listenerPid(q.schema, 'submitted')) !== undefined, 10_000, 'the listener');
    await terminate(await listenerPid(q.schema));
    await q.queue.close();
    await q.worker;
    // Longer than the listener's first retry: a listener that ignored the close would be back.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const { rows } = await admin.query(`SELECT pid FROM pg_stat_activity WHERE application_name = 'tot-queue-listener' AND query LIKE $1`, [`%_${q.schema}%`]);
    expect(rows).toEqual([]);
  }, 30_000);
});
