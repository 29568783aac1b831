import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresEventStore } from '../../src/postgres/index.js';
import { registerEventStoreConformance } from '../../src/testing/index.js';
import { catchTotError, delay } from '../helpers/expect-tot-error.js';
import { settlesWithin } from '../helpers/settles-within.js';
import { collect } from '../helpers/collect.js';
import { everyStoreMethod } from '../helpers/every-store-method.js';

const url = process.env.TOT_POSTGRES_URL;
let prefixes = 0;
const prefix = () => `t${process.pid}_${Date.now().toString(36)}_${prefixes++}_`;

describe.skipIf(!url)('PostgresEventStore', () => {
  const shared = prefix();
  beforeAll(async () => {
    const store = new PostgresEventStore({ connectionString: url!, tablePrefix: shared });
    await store.setup();
    await store.close();
  });

  registerEventStoreConformance(
    { describe, it },
    {
      create: () => new PostgresEventStore({ connectionString: url!, tablePrefix: shared }),
      async reopen(store) {
        await store.close();
        return new PostgresEventStore({ connectionString: url!, tablePrefix: shared });
      },
    },
    { name: 'PostgresEventStore' },
  );

  it('sets up idempotently, even from several instances at once', async () => {
    const p = prefix();
    const stores = Array.from({ length: 5 }, () => new PostgresEventStore({ connectionString: url!, tablePrefix: p }));
    await Promise.all(stores.map((s) => s.setup()));
    await stores[0]!.setup();
    await stores[0]!.append('s', [{ type: 't', data: 1, idempotencyKey: 'k' }], { expectedVersion: 'no_stream' });
    expect(await stores[1]!.streamVersion('s')).toBe(0);
    await Promise.all(stores.map((s) => s.close()));
  });

  it('works on a pool the host owns, and leaves it open on close', async () => {
    const pool = new pg.Pool({ connectionString: url! });
    const store = new PostgresEventStore({ pool, tablePrefix: shared });
    await store.append(`pool-${Date.now()}`, [{ type: 't', data: 1, idempotencyKey: `pool-${Date.now()}` }], { expectedVersion: 'no_stream' });
    await store.close();
    expect((await pool.query('SELECT 1 AS one')).rows[0].one).toBe(1);
    await pool.end();
  });

  it('validates its options', async () => {
    const error = await catchTotError(() => new PostgresEventStore({} as never), 'INVALID_ARGUMENT');
    expect(error.message).toContain('options.pool');
    await catchTotError(() => new PostgresEventStore({ connectionString: url!, tablePrefix: 'Robert"); DROP TABLE' }), 'INVALID_ARGUMENT');
  });

  it('never lets readAll skip an event, whatever order concurrent transactions commit in', async () => {
    const writers = Array.from({ length: 8 }, () => new PostgresEventStore({ connectionString: url!, tablePrefix: shared }));
    const reader = new PostgresEventStore({ connectionString: url!, tablePrefix: shared });
    const start = (await collect(reader.readAll())).at(-1)?.globalPosition ?? 0n;
    let done = false;
    const seen: bigint[] = [];
    const poll = (async () => {
      let after = start;
      while (!done) {
        for await (const e of reader.readAll({ after })) {
          seen.push(e.globalPosition);
          after = e.globalPosition;
        }
      }
      for await (const e of reader.readAll({ after })) seen.push(e.globalPosition);
    })();
    await Promise.all(
      writers.map(async (store, w) => {
        for (let i = 0; i < 40; i++) {
          await store.append(`late-${Date.now()}-${w}-${i}`, Array.from({ length: 1 + (i % 5) }, (_, k) => ({ type: 't', data: { w, i, k }, idempotencyKey: `late-${start}-${w}-${i}-${k}` })), { expectedVersion: 'any' });
        }
      }),
    );
    done = true;
    await poll;
    const all = (await collect(reader.readAll({ after: start }))).map((e) => e.globalPosition);
    expect(seen).toEqual(all);
    await Promise.all([...writers, reader].map((s) => s.close()));
  }, 60_000);
});

describe.skipIf(!url)('PostgresEventStore: abort, driver errors and the table layout', () => {
  const own = prefix();
  let admin: pg.Pool;
  beforeAll(async () => {
    admin = new pg.Pool({ connectionString: url! });
    const store = new PostgresEventStore({ pool: admin, tablePrefix: own });
    await store.setup();
    await store.close();
  });
  afterAll(async () => {
    await admin.end();
  });

  /** Polls until `check` holds (a few seconds at most). */
  async function waitFor(check: () => Promise<boolean>, what: string): Promise<void> {
    for (let i = 0; i < 500; i++) {
      if (await check()) return;
      await delay(10);
    }
    throw new Error(`waited in vain for ${what}`);
  }
  /** Whether the server runs an append's INSERT (`waiting`: for a lock). */
  const inserting = async (waiting?: 'waiting') =>
    (
      await admin.query<{ n: number }>(
        `SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE query LIKE $1 AND state = 'active' AND pid <> pg_backend_pid() ${waiting ? "AND wait_event_type = 'Lock'" : ''}`,
        [`%INSERT INTO ${own}events%`],
      )
    ).rows[0]!.n > 0;
  /** A connection holding the events table so that INSERTs wait (SELECTs do not); `release` lets them go. */
  async function lockTable(): Promise<{ release(): Promise<void> }> {
    const blocker = new pg.Client({ connectionString: url! });
    await blocker.connect();
    await blocker.query(`BEGIN; LOCK TABLE ${own}events IN EXCLUSIVE MODE`);
    return { release: () => blocker.query('ROLLBACK').then(() => blocker.end()) };
  }

  it('gives up waiting for a pool connection when the signal aborts, and never writes the append', async () => {
    const pool = new pg.Pool({ connectionString: url!, max: 1 });
    const store = new PostgresEventStore({ pool, tablePrefix: own });
    const held = await pool.connect();
    const stream = `pool-wait-${Date.now()}`;
    const controller = new AbortController();
    const append = store.append(stream, [{ type: 't', data: 1, idempotencyKey: `${stream}:0` }], { expectedVersion: 'no_stream', signal: controller.signal });
    await delay(50);
    controller.abort();
    await catchTotError(() => settlesWithin(append), 'ABORTED');
    held.release();
    // The connection the append waited for goes back to the pool unused.
    await delay(200);
    expect(await store.streamVersion(stream)).toBeNull();
    expect((await store.append(stream, [{ type: 't', data: 2, idempotencyKey: `${stream}:1` }], { expectedVersion: 'no_stream' })).nextExpectedVersion).toBe(0);
    await store.close();
    await pool.end();
  });

  /** A connection with an uncommitted event at version 0 of `stream`: an append there waits for it, as for an append that commits late. */
  async function holdVersionZero(stream: string): Promise<{ release(): Promise<void> }> {
    const blocker = new pg.Client({ connectionString: url! });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query(
      `INSERT INTO ${own}events (event_id, stream_id, version, type, data, idempotency_key, payload, parent_ids, clock, metadata) VALUES ($1, $2, 0, 't', '0', $1, '', '[]', '{}', '{}')`,
      [`${stream}:held`, stream],
    );
    return { release: () => blocker.query('ROLLBACK').then(() => blocker.end()) };
  }
  const event = (stream: string, n: number) => [{ type: 't', data: n, idempotencyKey: `${stream}:${n}` }];

  it('lets an append to one stream commit while an append to another stream is still under way', async () => {
    const store = new PostgresEventStore({ connectionString: url!, tablePrefix: own });
    const slow = `slow-${Date.now()}`;
    const other = `other-${Date.now()}`;
    const held = await holdVersionZero(slow);
    const late = store.append(slow, event(slow, 1), { expectedVersion: 'no_stream' });
    await waitFor(() => inserting('waiting'), 'the first append to wait at its INSERT');
    try {
      expect((await settlesWithin(store.append(other, event(other, 1), { expectedVersion: 'no_stream' }), 5_000)).nextExpectedVersion).toBe(0);
    } finally {
      await held.release();
    }
    expect((await late).nextExpectedVersion).toBe(0);
    await store.close();
  });

  it('never lets readAll skip an append that commits after one that took a later position', async () => {
    const store = new PostgresEventStore({ connectionString: url!, tablePrefix: own });
    const start = (await collect(store.readAll())).at(-1)?.globalPosition ?? 0n;
    const slow = `slow-${Date.now()}`;
    const other = `other-${Date.now()}`;
    const held = await holdVersionZero(slow);
    const late = store.append(slow, event(slow, 1), { expectedVersion: 'no_stream' });
    let read: Promise<string[]>;
    try {
      await waitFor(() => inserting('waiting'), 'the first append to wait at its INSERT');
      await settlesWithin(store.append(other, event(other, 1), { expectedVersion: 'no_stream' }), 5_000);
      read = collect(store.readAll({ after: start })).then((events) => events.map((e) => e.streamId));
      read.catch(() => undefined);
      await waitFor(
        async () => (await admin.query(`SELECT 1 FROM pg_stat_activity WHERE query LIKE '%pg_advisory_xact_lock(%global_position >%' AND wait_event_type = 'Lock'`)).rows.length > 0,
        'readAll to wait for the append under way',
      );
    } finally {
      await held.release();
    }
    await late;
    // The late append holds the earlier position: a page read before it committed would have
    // moved past it.
    expect(await read).toEqual([slow, other]);
    await store.close();
  });

  it('cancels the write when the signal aborts mid-transaction: settles at once, writes nothing, frees the append lock', async () => {
    const store = new PostgresEventStore({ connectionString: url!, tablePrefix: own });
    const stream = `locked-${Date.now()}`;
    const table = await lockTable();
    try {
      // The append takes its lock, then waits for the table at its INSERT.
      const controller = new AbortController();
      const append = store.append(stream, [{ type: 't', data: 1, idempotencyKey: `${stream}:0` }], { expectedVersion: 'no_stream', signal: controller.signal });
      await waitFor(() => inserting('waiting'), 'the INSERT to wait for the table');
      controller.abort();
      await catchTotError(() => settlesWithin(append), 'ABORTED');
      // Cancelled on the server: the INSERT no longer waits, while the table is still locked.
      await waitFor(async () => !(await inserting()), 'the INSERT to be cancelled');
    } finally {
      await table.release();
    }
    expect(await store.streamVersion(stream)).toBeNull();
    // The append lock is free: the next append goes through at once.
    await settlesWithin(store.append(stream, [{ type: 't', data: 2, idempotencyKey: `${stream}:1` }], { expectedVersion: 'no_stream' }));
    await store.close();
  });

  it('cancels a 100,000-event append whose INSERT is running, writing none of it', async () => {
    const store = new PostgresEventStore({ connectionString: url!, tablePrefix: own });
    const stream = `large-${Date.now()}`;
    const controller = new AbortController();
    const events = Array.from({ length: 100_000 }, (_, i) => ({ type: 't', data: { i, text: 'a line of a long run' }, idempotencyKey: `${stream}:${i}` }));
    const append = store.append(stream, events, { expectedVersion: 'no_stream', signal: controller.signal });
    await waitFor(() => inserting(), 'the INSERT to run');
    controller.abort();
    await catchTotError(() => settlesWithin(append), 'ABORTED');
    await waitFor(async () => !(await inserting()), 'the INSERT to stop');
    expect(await store.streamVersion(stream)).toBeNull();
    await store.close();
  }, 60_000);

  it('answers a statement the server cancels on its timeout with TIMEOUT', async () => {
    const pool = new pg.Pool({ connectionString: url!, statement_timeout: 100 });
    const store = new PostgresEventStore({ pool, tablePrefix: own });
    const stream = `timeout-${Date.now()}`;
    const table = await lockTable();
    try {
      await catchTotError(() => store.append(stream, [{ type: 't', data: 1, idempotencyKey: `${stream}:0` }], { expectedVersion: 'no_stream' }), 'TIMEOUT');
    } finally {
      await table.release();
    }
    expect(await store.streamVersion(stream)).toBeNull();
    await store.close();
    await pool.end();
  });

  it('answers tables that were never set up with ILLEGAL_STATE saying so, in every method', async () => {
    const store = new PostgresEventStore({ connectionString: url!, tablePrefix: prefix() });
    const calls = everyStoreMethod(store);
    for (const [name, call] of calls) {
      const error = await catchTotError(call, 'ILLEGAL_STATE');
      expect(error.message, name).toContain('setup()');
    }
    await store.close();
  });

  it('answers a server it cannot reach with a recoverable ILLEGAL_STATE, in every method', async () => {
    const store = new PostgresEventStore({ connectionString: 'postgres://postgres@127.0.0.1:1/postgres' });
    const calls: [string, () => Promise<unknown>][] = [['setup', () => store.setup()], ...everyStoreMethod(store)];
    for (const [name, call] of calls) {
      const error = await catchTotError(call, 'ILLEGAL_STATE');
      expect(error.recoverable, name).toBe(true);
    }
    await store.close();
  });

  it('brings tables of the jsonb layout to text columns on setup, keeping their events', async () => {
    const p = prefix();
    // The earlier layout: JSON in jsonb columns, 32-bit snapshot versions.
    await admin.query(`
      CREATE TABLE ${p}events (global_position BIGSERIAL PRIMARY KEY, event_id TEXT NOT NULL, stream_id TEXT NOT NULL, version INTEGER NOT NULL CHECK (version >= 0),
        type TEXT NOT NULL, data JSONB NOT NULL, idempotency_key TEXT NOT NULL, payload TEXT NOT NULL, parent_ids JSONB NOT NULL, clock JSONB NOT NULL,
        metadata JSONB NOT NULL, recorded_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CONSTRAINT ${p}events_stream_version UNIQUE (stream_id, version), CONSTRAINT ${p}events_idempotency_key UNIQUE (idempotency_key), CONSTRAINT ${p}events_event_id UNIQUE (event_id));
      CREATE TABLE ${p}snapshots (stream_id TEXT NOT NULL, version INTEGER NOT NULL, state JSONB NOT NULL, metadata JSONB, saved_at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (stream_id, version));
      INSERT INTO ${p}events (event_id, stream_id, version, type, data, idempotency_key, payload, parent_ids, clock, metadata)
        VALUES ('e0', 's', 0, 't', '{"n": 1}', 'k0', 'digest', '[]', '{"a": 1}', '{}');
      INSERT INTO ${p}snapshots (stream_id, version, state) VALUES ('s', 0, '{"n": 1}');`);
    const store = new PostgresEventStore({ pool: admin, tablePrefix: p });
    await store.setup();
    await store.setup();
    const types = await admin.query<{ column_name: string; data_type: string }>(
      `SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ANY($1::text[]) AND column_name IN ('data', 'parent_ids', 'clock', 'metadata', 'state', 'version') ORDER BY table_name, column_name`,
      [[`${p}events`, `${p}snapshots`]],
    );
    expect(types.rows.map((r) => `${r.column_name}: ${r.data_type}`)).toEqual(['clock: text', 'data: text', 'metadata: text', 'parent_ids: text', 'version: integer', 'metadata: text', 'state: text', 'version: bigint']);
    expect((await collect(store.readStream('s'))).map((e) => [e.eventId, e.data, e.clock])).toEqual([['e0', { n: 1 }, { a: 1 }]]);
    expect(await store.loadSnapshot('s')).toEqual({ streamId: 's', version: 0, state: { n: 1 } });
    const data = { b: '\u0000', a: '\ud800' };
    await store.append('s', [{ type: 't', data, idempotencyKey: 'k1' }], { expectedVersion: 0 });
    expect(JSON.stringify((await collect(store.readStream('s', { fromVersion: 1 })))[0]!.data)).toBe(JSON.stringify(data));
    await store.close();
  });
});
