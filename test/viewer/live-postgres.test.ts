// The live viewer on PostgreSQL: the page of a run still going hears of new events through the
// store's LISTEN/NOTIFY, not by asking. Each follower here polls once a minute: an update within
// the test's few seconds came through a notification.
import { describe, expect, it } from 'vitest';
import { PostgresEventStore } from '../../src/postgres/index.js';
import { serveRunViewer } from '../../src/viewer/index.js';
import { delay } from '../helpers/expect-tot-error.js';
import { usePgAdmin } from '../helpers/pg-admin.js';

const url = process.env.TOT_POSTGRES_URL;
let n = 0;
const prefix = () => `lv${process.pid}_${Date.now().toString(36)}_${n++}_`;
const started = { type: 'run.started', data: { type: 'run.started', runId: 'r1', seq: 0, at: 1, runner: 'chain-of-thought', problem: 'What is 2 + 2?', config: {} }, idempotencyKey: 'k0' };
const finished = { type: 'run.finished', data: { type: 'run.finished', runId: 'r1', seq: 1, at: 2, stopReason: 'completed', stats: {}, errors: [] }, idempotencyKey: 'k1' };
const MINUTE = 60_000;

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  for (let waited = 0; !(await check()); waited += 20) {
    if (waited > ms) throw new Error(`still waiting for ${what}`);
    await delay(20);
  }
}

describe.skipIf(!url)('serveRunViewer on PostgreSQL', () => {
  const admin = usePgAdmin(url);
  const listenerPid = admin.listenerPid;

  /** A run with its run.started recorded, a store that reads it, and one (another pool) that writes. */
  const recorded = async () => {
    const p = prefix();
    const writer = new PostgresEventStore({ connectionString: url!, tablePrefix: p });
    await writer.setup();
    await writer.append('r1', [started], { expectedVersion: 'no_stream' });
    const reader = new PostgresEventStore({ connectionString: url!, tablePrefix: p });
    return { p, writer, reader, close: async () => Promise.all([writer.close(), reader.close()]) };
  };

  it('tells a follower of events another connection records, without waiting for a poll', async () => {
    const run = await recorded();
    const viewer = await serveRunViewer({ store: run.reader, pollMs: MINUTE, refreshMs: 0 });
    try {
      const follower = fetch(`${viewer.urlOf('r1')}/events?after=1`).then((r) => r.text());
      await until(async () => (await listenerPid()) !== undefined, 'the listener');
      await run.writer.append('r1', [finished], { expectedVersion: 0 });
      expect(await follower).toContain('data: {"events":2,"finished":true}');
    } finally {
      await viewer.close();
      await run.close();
    }
  });

  it('after its LISTEN connection is terminated, connects again and tells the follower of what was recorded meanwhile', async () => {
    const run = await recorded();
    const viewer = await serveRunViewer({ store: run.reader, pollMs: MINUTE, refreshMs: 0 });
    try {
      const follower = fetch(`${viewer.urlOf('r1')}/events?after=1`).then((r) => r.text());
      await until(async () => (await listenerPid()) !== undefined, 'the listener');
      await admin.query('SELECT pg_terminate_backend($1)', [await listenerPid()]);
      await run.writer.append('r1', [finished], { expectedVersion: 0 });
      expect(await follower).toContain('data: {"events":2,"finished":true}');
    } finally {
      await viewer.close();
      await run.close();
    }
  });

  it('polls a store whose tables do not announce appends (set up by an earlier release)', async () => {
    const run = await recorded();
    await admin.query(`DROP TRIGGER ${run.p}events_notify ON ${run.p}events`);
    const viewer = await serveRunViewer({ store: run.reader, pollMs: 20, refreshMs: 0 });
    try {
      const follower = fetch(`${viewer.urlOf('r1')}/events?after=1`).then((r) => r.text());
      await run.writer.append('r1', [finished], { expectedVersion: 0 });
      expect(await follower).toContain('data: {"events":2,"finished":true}');
    } finally {
      await viewer.close();
      await run.close();
    }
  });
});
