// On a real PostgreSQL, in one process: what pgBossQueue does with pg-boss's queues and tables,
// whatever pg-boss major is installed (the suite runs pg-boss 10; the installed-package test runs
// the newest on Node 22 and 24).
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InMemoryEventStore } from '../../src/index.js';
import { defineFlow, pgBossQueue } from '../../src/queue/index.js';
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

  it('announces a settled run with its status and result, its input left out, so that a waiting result() reads nothing more', async () => {
    const schema = unique();
    const { queue } = await openPair(schema);
    const listener = await listenSettled(schema);
    const echo = defineFlow({ name: 'echo', version: 1, input: z.object({ secret: z.string() }), run: async () => ({ answer: 24 }) });
    const worker = queue.work({ flows: [echo], concurrency: 1 });
    const runId = await queue.submit(echo, { secret: 'not in the notification' }, { key: 'k1' });
    expect(await queue.result(runId, { signal: AbortSignal.timeout(15_000) })).toEqual({ answer: 24 });
    await expect.poll(() => listener.payloads.length).toBe(1);
    const announced = JSON.parse(listener.payloads[0]!) as Record<string, unknown>;
    expect(announced).toMatchObject({ id: runId, state: 'completed', data: { flow: 'echo', version: 1, key: 'k1' }, output: { status: 'finished', result: { answer: 24 } } });
    expect(listener.payloads[0]).not.toContain('not in the notification');
    await listener.close();
    await queue.close();
    await worker;
  });

  it('announces a result too large for a notification by its run id, and result() reads it', async () => {
    const schema = unique();
    // A minute's fallback poll: only the announcement can end the wait within the test's time.
    const { queue } = await openPair(schema, { resultPollMs: 60_000 });
    const listener = await listenSettled(schema);
    const big = defineFlow({ name: 'big', version: 1, input: z.object({ size: z.number() }), run: async ({ size }) => 'x'.repeat(size) });
    const worker = queue.work({ flows: [big], concurrency: 1 });
    const runId = await queue.submit(big, { size: 10_000 });
    expect(await queue.result(runId, { signal: AbortSignal.timeout(15_000) })).toHaveLength(10_000);
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
