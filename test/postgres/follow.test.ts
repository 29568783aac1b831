// PostgresEventStore.follow: appends announce themselves (LISTEN/NOTIFY, one notification per
// append, on commit), a follower hears them without polling, and reads what it may have missed
// when its LISTEN connection is lost and opened again.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PostgresEventStore } from '../../src/postgres/index.js';
import type { StoredEvent } from '../../src/index.js';
import { catchTotError, delay } from '../helpers/expect-tot-error.js';
import { usePgAdmin } from '../helpers/pg-admin.js';

const url = process.env.TOT_POSTGRES_URL;
let n = 0;
const prefix = () => `f${process.pid}_${Date.now().toString(36)}_${n++}_`;
const event = (key: string) => ({ type: 't', data: { key }, idempotencyKey: key });

/** Waits, reading the table every 20 ms, until `check` holds; fails after `ms`. */
async function until(check: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  for (let waited = 0; !(await check()); waited += 20) {
    if (waited > ms) throw new Error(`still waiting for ${what}`);
    await delay(20);
  }
}

/** Collects what a follower yields, in the background, until it is aborted. */
function follower(store: PostgresEventStore, streamId: string, fromVersion = 0) {
  const controller = new AbortController();
  const seen: StoredEvent[] = [];
  const done = (async () => {
    for await (const e of store.follow(streamId, { fromVersion, signal: controller.signal })) seen.push(e);
  })().catch((error: unknown) => error);
  return { seen, stop: async () => (controller.abort(), done) };
}

describe.skipIf(!url)('PostgresEventStore.follow', () => {
  const admin = usePgAdmin(url);
  const listenerPid = admin.listenerPid;

  const freshStore = async (tablePrefix = prefix()) => {
    const store = new PostgresEventStore({ connectionString: url!, tablePrefix });
    await store.setup();
    return store;
  };

  it('yields the stream from the version asked, then each event another connection appends', async () => {
    const p = prefix();
    const reader = await freshStore(p);
    const writer = new PostgresEventStore({ connectionString: url!, tablePrefix: p });
    await writer.append('s', [event('a'), event('b')], { expectedVersion: 'no_stream' });
    const f = follower(reader, 's', 1);
    try {
      await until(() => f.seen.length === 1, 'the stored event');
      await writer.append('s', [event('c')], { expectedVersion: 1 });
      await writer.append('other', [event('x')], { expectedVersion: 'no_stream' });
      await writer.append('s', [event('d'), event('e')], { expectedVersion: 2 });
      await until(() => f.seen.length === 4, 'the appended events');
      expect(f.seen.map((e) => (e.data as { key: string }).key)).toEqual(['b', 'c', 'd', 'e']);
    } finally {
      await f.stop();
      await writer.close();
      await reader.close();
    }
  });

  it('announces an append once, on commit, with the stream id; an append refused announces nothing', async () => {
    const p = prefix();
    const store = await freshStore(p);
    const listener = new pg.Client({ connectionString: url! });
    const heard: string[] = [];
    listener.on('notification', (note) => heard.push(`${note.channel} ${note.payload}`));
    await listener.connect();
    try {
      await listener.query(`LISTEN "${p}events.public"`);
      await store.append('s', [event('a'), event('b'), event('c')], { expectedVersion: 'no_stream' });
      await catchTotError(() => store.append('s', [event('z')], { expectedVersion: 0 }), 'EXPECTED_VERSION_CONFLICT');
      await store.append('t', [event('d')], { expectedVersion: 'no_stream' });
      await until(() => heard.length >= 2, 'the notifications');
      // A round trip after the last: a late notification of the refused append would be here by now.
      await listener.query('SELECT 1');
      expect(heard).toEqual([`${p}events.public s`, `${p}events.public t`]);
    } finally {
      await listener.end();
      await store.close();
    }
  });

  it('does not hear the appends of a store with another table prefix in the same database', async () => {
    const p = prefix();
    const mine = await freshStore(p);
    const theirs = await freshStore();
    const listener = new pg.Client({ connectionString: url! });
    let heard = 0;
    listener.on('notification', () => heard++);
    await listener.connect();
    try {
      await listener.query(`LISTEN "${p}events.public"`);
      await theirs.append('s', [event('a')], { expectedVersion: 'no_stream' });
      await listener.query('SELECT 1');
      expect(heard).toBe(0);
      await mine.append('s', [event('b')], { expectedVersion: 'no_stream' });
      await until(() => heard === 1, 'the notification of its own store');
    } finally {
      await listener.end();
      await mine.close();
      await theirs.close();
    }
  });

  it('after its LISTEN connection is terminated, connects again and reads what was appended meanwhile', async () => {
    const p = prefix();
    const reader = await freshStore(p);
    const writer = new PostgresEventStore({ connectionString: url!, tablePrefix: p });
    await writer.append('s', [event('a')], { expectedVersion: 'no_stream' });
    const f = follower(reader, 's');
    try {
      await until(() => f.seen.length === 1, 'the stored event');
      await until(async () => (await listenerPid()) !== undefined, 'the listener');
      const pid = await listenerPid();
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      // Appended while nobody listens: no notification reaches the follower.
      await writer.append('s', [event('b')], { expectedVersion: 0 });
      await until(() => f.seen.length === 2, 'the event appended while the connection was down');
      await until(async () => ((await listenerPid()) ?? pid) !== pid, 'the listener to listen again');
      await writer.append('s', [event('c')], { expectedVersion: 1 });
      await until(() => f.seen.length === 3, 'an event appended after the reconnection');
      expect(f.seen.map((e) => e.version)).toEqual([0, 1, 2]);
    } finally {
      await f.stop();
      await writer.close();
      await reader.close();
    }
  });

  it('rejects with ABORTED when its signal aborts, and ends when the store closes', async () => {
    const store = await freshStore();
    const controller = new AbortController();
    const aborted = (async () => {
      for await (const _ of store.follow('s', { signal: controller.signal })) void _;
    })();
    controller.abort();
    await catchTotError(() => aborted, 'ABORTED');
    const seen: StoredEvent[] = [];
    const ended = (async () => {
      for await (const e of store.follow('s')) seen.push(e);
    })();
    await store.close();
    await ended;
    expect(seen).toEqual([]);
  });

  it('refuses to follow tables set up without the trigger that announces appends, until setup() adds it', async () => {
    const p = prefix();
    const store = await freshStore(p);
    await admin.query(`DROP TRIGGER ${p}events_notify ON ${p}events`);
    try {
      const error = await catchTotError(() => store.follow('s')[Symbol.asyncIterator]().next(), 'ILLEGAL_STATE');
      expect(error.message).toContain('call setup() again');
      await store.setup();
      await store.append('s', [event('a')], { expectedVersion: 'no_stream' });
      const first = await store.follow('s')[Symbol.asyncIterator]().next();
      expect(first.value?.version).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('refuses a bad stream id or option with INVALID_ARGUMENT', async () => {
    const store = await freshStore();
    try {
      await catchTotError(() => store.follow('')[Symbol.asyncIterator]().next(), 'INVALID_ARGUMENT');
      await catchTotError(() => store.follow('s', { fromVersion: -1 })[Symbol.asyncIterator]().next(), 'INVALID_ARGUMENT');
      await catchTotError(() => store.follow('s', { since: 1 } as never)[Symbol.asyncIterator]().next(), 'INVALID_ARGUMENT');
    } finally {
      await store.close();
    }
  });
});
