// On a real PostgreSQL, in one process: what pgBossQueue does with pg-boss's queues and tables,
// whatever pg-boss major is installed (the suite runs pg-boss 10; the installed-package test runs
// the newest on Node 22 and 24).
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InMemoryEventStore } from '../../src/index.js';
import { defineFlow, pgBossQueue } from '../../src/queue/index.js';
import { PgBossAdapter } from '../../src/queue/pg-boss-adapter.js';
import { newAnnounceKey, seal } from '../../src/queue/sealed-announcement.js';
import { url, usePgQueues } from './fixtures/pg-queues.js';

const { unique, open: openPair } = usePgQueues('b');
const open = async () => (await openPair(unique())).queue;

/** Listens to the channel a queue of `schema` announces settled runs on, collecting the payloads. */
async function listenSettled(schema: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const payloads: string[] = [];
  client.on('notification', (n) => payloads.push(n.payload ?? ''));
  await client.query(`LISTEN tot_settled_${schema}`);
  return { payloads, close: () => client.end() };
}

/** Waits until a queue's notification connection listens on `schema`'s settled channel (its last statement a LISTEN of it). */
async function untilListening(client: pg.Client, schema: string): Promise<void> {
  const listening = async () => (await client.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'tot-queue-listener' AND query LIKE $1`, [`%LISTEN tot_settled_${schema}%`])).rows[0].n as number;
  await expect.poll(listening).toBeGreaterThanOrEqual(1);
}

const adder = (name: string) => defineFlow({ name, version: 1, input: z.object({ a: z.number() }), run: async ({ a }) => a + 1 });

describe.skipIf(!url)('pgBossQueue on PostgreSQL', () => {
  it('starts a worker of six flows on a fresh schema and finishes a run of each (pg-boss creates their queues one at a time)', async () => {
    const queue = await open();
    const flows = ['f1', 'f2', 'f3', 'f4', 'f5', 'f6'].map(adder);
    let failed: unknown;
    const worker = queue.work({ flows, concurrency: 6 }).catch((error: unknown) => (failed = error));
    const runs = await Promise.all(flows.map((flow, i) => queue.submit(flow, { a: i })));
    const results = await Promise.all(runs.map((runId) => queue.result(runId, { signal: AbortSignal.timeout(15_000) })));
    expect(failed).toBeUndefined();
    expect(results).toEqual([1, 2, 3, 4, 5, 6]);
    await queue.close();
    await worker;
  });

  it("announces a finished run's outcome sealed: a session listening on the channel reads neither its result nor its input", async () => {
    const schema = unique();
    const { queue } = await openPair(schema);
    const listener = await listenSettled(schema);
    const echo = defineFlow({ name: 'echo', version: 1, input: z.object({ secret: z.string() }), run: async () => ({ answer: 'the result in clear' }) });
    const worker = queue.work({ flows: [echo], concurrency: 1 });
    const runId = await queue.submit(echo, { secret: 'the input in clear' });
    expect(await queue.result(runId, { signal: AbortSignal.timeout(15_000) })).toEqual({ answer: 'the result in clear' });
    await expect.poll(() => listener.payloads.length).toBe(1);
    expect(listener.payloads[0]).toMatch(/^s1:[A-Za-z0-9+/=]+$/);
    expect(listener.payloads[0]).not.toContain(runId);
    await listener.close();
    await queue.close();
    await worker;
  });

  it('takes no forged or foreign announcement for a run\'s outcome: result() waits for the run itself', async () => {
    const schema = unique();
    // A minute's fallback poll: within the test's time, the worker's announcement is what ends the wait.
    const { queue } = await openPair(schema, { resultPollMs: 60_000 });
    const echo = defineFlow({ name: 'echo', version: 1, input: z.object({ n: z.number() }), run: async ({ n }) => `real ${n}` });
    const runId = await queue.submit(echo, { n: 7 });
    let settled = false;
    const waiting = queue.result(runId, { signal: AbortSignal.timeout(15_000) }).finally(() => (settled = true));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await untilListening(client, schema);
    const forged = [
      // The job as JSON, any session can send.
      JSON.stringify({ id: runId, state: 'completed', data: { flow: 'echo', version: 1 }, output: { status: 'finished', result: 'forged' }, retry_count: 0 }),
      JSON.stringify({ runId, status: 'finished', result: 'forged' }),
      // Sealed with a key that is not the schema's, and a sealed-looking payload that is not.
      seal(newAnnounceKey(), { runId, status: 'finished', result: 'forged' }),
      `s1:${Buffer.from('not sealed at all, long enough to pass for it').toString('base64')}`,
    ];
    for (const payload of forged) await client.query('SELECT pg_notify($1, $2)', [`tot_settled_${schema}`, payload]);
    await client.query(`SELECT pg_sleep(0.2)`);
    expect(settled).toBe(false);
    const worker = queue.work({ flows: [echo], concurrency: 1 });
    expect(await waiting).toBe('real 7');
    await client.end();
    await queue.close();
    await worker;
  });

  it('gives every process that opens a fresh schema at once the same announcement key, kept in the schema', async () => {
    const schema = unique();
    const config = { connectionString: url!, schema, maxConnections: 2, leaseSeconds: 30, maxAttempts: 25, onError: () => undefined };
    // Six at once: PostgreSQL's `CREATE TABLE IF NOT EXISTS` fails the loser of a race, which with
    // three at once happened in about one run in three.
    const opened = await Promise.all(Array.from({ length: 6 }, () => PgBossAdapter.open(config)));
    try {
      expect(opened.map((a) => a.announceKey.equals(opened[0]!.announceKey))).toEqual(opened.map(() => true));
      const reopened = await PgBossAdapter.open(config);
      expect(reopened.announceKey.equals(opened[0]!.announceKey)).toBe(true);
      opened.push(reopened);
    } finally {
      for (const a of opened) await a.boss.stop({ graceful: false, close: true, wait: true });
    }
  });

  it('gives every process the same announcement key when the database defaults to repeatable read', async () => {
    // A database of its own, its sessions in repeatable read unless they say otherwise.
    const database = unique();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.query(`ALTER DATABASE ${database} SET default_transaction_isolation = 'repeatable read'`);
    const at = new URL(url!);
    at.pathname = `/${database}`;
    const config = { connectionString: at.href, schema: 'pgboss', maxConnections: 2, leaseSeconds: 30, maxAttempts: 25, onError: () => undefined };
    const opened: PgBossAdapter[] = [];
    try {
      // Six at once: the ones that waited for the first failed with "could not serialize access"
      // in three runs out of six before the key was made in read committed.
      opened.push(...(await Promise.all(Array.from({ length: 6 }, () => PgBossAdapter.open(config)))));
      expect(opened.map((a) => a.announceKey.equals(opened[0]!.announceKey))).toEqual(opened.map(() => true));
    } finally {
      for (const a of opened) await a.boss.stop({ graceful: false, close: true, wait: true });
      await admin.query(`DROP DATABASE ${database} WITH (FORCE)`);
      await admin.end();
    }
  });

  it("loses no result when the worker holds another key than the waiter (the key's table dropped or changed meanwhile): the waiter queries the job", async () => {
    const schema = unique();
    // A minute's fallback poll: within the test's time, the announcement is what ends the wait.
    const waiter = await openPair(schema, { resultPollMs: 60_000 });
    await waiter.queue.list();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`UPDATE ${schema}.tot_announce_key SET key = $1`, [newAnnounceKey()]);
    await client.end();
    const echo = defineFlow({ name: 'echo', version: 1, input: z.object({ n: z.number() }), run: async ({ n }) => `real ${n}` });
    const runId = await waiter.queue.submit(echo, { n: 3 });
    const waiting = waiter.queue.result(runId, { signal: AbortSignal.timeout(15_000) });
    // Waiting before the run settles: no read of the job when the wait starts can end it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const other = await openPair(schema);
    const worker = other.queue.work({ flows: [echo], concurrency: 1 });
    expect(await waiting).toBe('real 3');
    await other.queue.close();
    await worker;
  });

  it("aborts a running run as soon as cancel() announces it, not at the worker's next look for cancelled runs", async () => {
    const schema = unique();
    // The worker's fallback look for cancelled runs comes every 10 s: the announcement is what stops the run.
    const workerSide = await openPair(schema, { cancelCheckMs: 10_000 });
    const caller = await openPair(schema);
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let aborted!: () => void;
    const stopped = new Promise<void>((resolve) => (aborted = resolve));
    const blocking = defineFlow({
      name: 'blocking',
      version: 1,
      input: z.object({}),
      run: (_input, run) =>
        new Promise((_resolve, reject) => {
          started();
          run.signal.addEventListener('abort', () => {
            aborted();
            reject(run.signal.reason);
          });
        }),
    });
    const worker = workerSide.queue.work({ flows: [blocking], concurrency: 1 });
    const runId = await caller.queue.submit(blocking, {});
    await running;
    // The worker listens for announcements (it may have taken the run before its LISTEN was done).
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await untilListening(client, schema);
    await client.end();
    expect(await caller.queue.cancel(runId)).toBe(true);
    // Well under the 10 s look.
    await expect(Promise.race([stopped.then(() => 'aborted'), new Promise((resolve) => setTimeout(resolve, 3000, 'still running'))])).resolves.toBe('aborted');
    expect((await caller.queue.status(runId)).status).toBe('cancelled');
    await workerSide.queue.close();
    await worker;
  });

  it('announces a result too large for a notification by its run id, and result() reads it', async () => {
    const schema = unique();
    // A minute's fallback poll: within the test's time, the announcement is what ends the wait.
    const { queue } = await openPair(schema, { resultPollMs: 60_000 });
    const listener = await listenSettled(schema);
    const big = defineFlow({ name: 'big', version: 1, input: z.object({ size: z.number() }), run: async ({ size }) => 'x'.repeat(size) });
    const runId = await queue.submit(big, { size: 10_000 });
    const waiting = queue.result(runId, { signal: AbortSignal.timeout(15_000) });
    // Waiting before the run settles: no read of the job when the wait starts can end it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const worker = queue.work({ flows: [big], concurrency: 1 });
    expect(await waiting).toHaveLength(10_000);
    await expect.poll(() => listener.payloads).toEqual([runId]);
    await listener.close();
    await queue.close();
    await worker;
  });
});

describe('pgBossQueue takeoverBoundMs', () => {
  it('is the lease, a third of it and the poll interval', () => {
    const queue = pgBossQueue({ connectionString: 'postgres://unused', store: new InMemoryEventStore(), leaseSeconds: 30, pollIntervalMs: 1000 });
    expect(queue.takeoverBoundMs).toBe(30_000 + 10_000 + 1000);
  });

  it('counts at least 1.5 s for the sweep of a short lease (pg-boss 11 and 12 expire at most once a second)', () => {
    const queue = pgBossQueue({ connectionString: 'postgres://unused', store: new InMemoryEventStore(), leaseSeconds: 2, pollIntervalMs: 100 });
    expect(queue.takeoverBoundMs).toBe(2000 + 1500 + 100);
  });
});
