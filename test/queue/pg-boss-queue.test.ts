// On a real PostgreSQL, in one process: what pgBossQueue does with pg-boss's queues and tables,
// whatever pg-boss major is installed (the suite runs pg-boss 10; the installed-package test runs
// the newest on Node 22 and 24).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InMemoryEventStore } from '../../src/index.js';
import { defineFlow, pgBossQueue } from '../../src/queue/index.js';
import { url, usePgQueues } from './fixtures/pg-queues.js';

const { unique, open: openPair } = usePgQueues('b');
const open = async () => (await openPair(unique())).queue;

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
