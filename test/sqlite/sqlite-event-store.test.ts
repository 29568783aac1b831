import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TotError } from '../../src/index.js';
import { SqliteEventStore } from '../../src/sqlite/index.js';
import { registerEventStoreConformance } from '../../src/testing/index.js';
import Database from 'better-sqlite3';
import { catchTotError } from '../helpers/expect-tot-error.js';
import { collect } from '../helpers/collect.js';
import { everyStoreMethod } from '../helpers/every-store-method.js';

const dir = () => mkdtempSync(join(tmpdir(), 'tot-sqlite-'));

const paths = new WeakMap<object, string>();
registerEventStoreConformance(
  { describe, it },
  {
    create() {
      const path = join(dir(), 'events.db');
      const store = new SqliteEventStore({ path });
      paths.set(store, path);
      return store;
    },
    async reopen(store) {
      const path = paths.get(store)!;
      await store.close();
      const again = new SqliteEventStore({ path });
      paths.set(again, path);
      return again;
    },
  },
  { name: 'SqliteEventStore' },
);

describe('SqliteEventStore', () => {
  it('refuses a file that is not SQLite, leaving it untouched', async () => {
    const path = join(dir(), 'notes.txt');
    writeFileSync(path, 'these are my notes, not a database\n'.repeat(200));
    const before = readFileSync(path);
    const error = await catchTotError(() => new SqliteEventStore({ path }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('not an SQLite database');
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('refuses a corrupt database file', async () => {
    const path = join(dir(), 'events.db');
    const store = new SqliteEventStore({ path });
    await store.append('s', [{ type: 't', data: 1, idempotencyKey: 'k' }], { expectedVersion: 'no_stream' });
    await store.close();
    const bytes = readFileSync(path);
    bytes.write('garbage garbage garbage', 0);
    writeFileSync(path, bytes);
    await catchTotError(() => new SqliteEventStore({ path }), 'INVALID_ARGUMENT');
  });

  /** A file of 2,000 events with ten pages in the middle overwritten: its header and schema still read fine. */
  async function overwrittenPages(): Promise<string> {
    const path = join(dir(), 'events.db');
    const store = new SqliteEventStore({ path });
    await store.append('s', Array.from({ length: 2_000 }, (_, i) => ({ type: 't', data: { i, text: 'text to fill pages' }, idempotencyKey: `k${i}` })), { expectedVersion: 'no_stream' });
    await store.close();
    const bytes = readFileSync(path);
    bytes.fill(0x5a, 4096 * 10, 4096 * 20);
    writeFileSync(path, bytes);
    return path;
  }

  for (const integrityCheck of ['quick', 'full'] as const) {
    it(`refuses a file whose pages were overwritten when it opens it (integrityCheck: '${integrityCheck}'), leaving it untouched`, async () => {
      const path = await overwrittenPages();
      const before = readFileSync(path);
      const error = await catchTotError(() => new SqliteEventStore({ path, integrityCheck }), 'INVALID_ARGUMENT');
      expect(error.message).toContain('corrupt');
      expect(error.details?.field).toBe('path');
      expect(readFileSync(path).equals(before)).toBe(true);
    });
  }

  it('answers a corruption found after opening with INVALID_ARGUMENT in every method, never an untyped error', async () => {
    const store = new SqliteEventStore({ path: await overwrittenPages(), integrityCheck: 'off' });
    const calls = everyStoreMethod(store, { key: 'new', version: 1 });
    const answers: Record<string, string> = {};
    for (const [name, call] of calls) {
      answers[name] = await call().then(
        () => 'ok',
        (error: unknown) => (TotError.isInstance(error) ? error.code : `untyped ${String(error)}`),
      );
    }
    // Which calls reach a damaged page depends on where the damage is; none may throw untyped.
    for (const answer of Object.values(answers)) expect(['ok', 'INVALID_ARGUMENT']).toContain(answer);
    expect(answers.readStream).toBe('INVALID_ARGUMENT');
    expect(answers.readAll).toBe('INVALID_ARGUMENT');
    await store.close();
  });

  it('answers every driver error with a TotError: a database its host closed', async () => {
    const database = new Database(join(dir(), 'hosted.db'));
    const store = new SqliteEventStore({ database });
    await store.append('s', [{ type: 't', data: 1, idempotencyKey: 'k' }], { expectedVersion: 'no_stream' });
    database.close();
    await catchTotError(() => store.append('s', [{ type: 't', data: 2, idempotencyKey: 'k2' }], { expectedVersion: 'any' }), 'ILLEGAL_STATE');
    await catchTotError(() => collect(store.readStream('s')), 'ILLEGAL_STATE');
    await catchTotError(() => collect(store.readAll()), 'ILLEGAL_STATE');
    await catchTotError(() => store.streamVersion('s'), 'ILLEGAL_STATE');
    await catchTotError(() => store.saveSnapshot({ streamId: 's', version: 0, state: 1 }), 'ILLEGAL_STATE');
    await catchTotError(() => store.loadSnapshot('s'), 'ILLEGAL_STATE');
    await store.close();
  });

  it('refuses an events table of a layout it does not know, changing nothing', async () => {
    const path = join(dir(), 'other.db');
    const db = new Database(path);
    db.exec('CREATE TABLE tot_events (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    db.close();
    const error = await catchTotError(() => new SqliteEventStore({ path }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('layout');
    const after = new Database(path, { readonly: true });
    expect(after.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all()).toEqual([{ name: 'tot_events' }]);
    after.close();
  });

  it('brings a file of the earlier layout (a payload digest per event) up to date, keeping how retries are judged', async () => {
    // The earlier layout, and two events as it stored them: the digest is of the payload text below.
    const path = join(dir(), 'earlier.db');
    const db = new Database(path);
    db.exec(`CREATE TABLE tot_events (
      global_position INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL UNIQUE, stream_id TEXT NOT NULL,
      version INTEGER NOT NULL CHECK (version >= 0), type TEXT NOT NULL, data TEXT NOT NULL, idempotency_key TEXT NOT NULL UNIQUE,
      payload TEXT NOT NULL, parent_ids TEXT NOT NULL, clock TEXT NOT NULL, metadata TEXT NOT NULL, recorded_at TEXT NOT NULL,
      UNIQUE (stream_id, version));
      CREATE TABLE tot_snapshots (stream_id TEXT NOT NULL, version INTEGER NOT NULL, state TEXT NOT NULL, metadata TEXT, saved_at TEXT NOT NULL, PRIMARY KEY (stream_id, version));`);
    const digest = (streamId: string, eventId: string | null, data: string) => createHash('sha256').update(`${JSON.stringify([streamId, 't', eventId, [], {}])}\n${data}\n{}`).digest('base64');
    const insert = db.prepare('INSERT INTO tot_events (event_id, stream_id, version, type, data, idempotency_key, payload, parent_ids, clock, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    insert.run('0190a000-0000-7000-8000-000000000001', 's', 0, 't', '{"n":1}', 'k1', digest('s', null, '{"n":1}'), '[]', '{}', '{}', '2026-11-21T00:00:00.000Z');
    insert.run('mine', 's', 1, 't', '{"n":2}', 'k2', digest('s', 'mine', '{"n":2}'), '[]', '{}', '{}', '2026-11-21T00:00:01.000Z');
    db.close();

    const store = new SqliteEventStore({ path });
    expect((await collect(store.readStream('s'))).map((e) => [e.eventId, e.data])).toEqual([
      ['0190a000-0000-7000-8000-000000000001', { n: 1 }],
      ['mine', { n: 2 }],
    ]);
    expect((await store.append('s', [{ type: 't', data: { n: 1 }, idempotencyKey: 'k1' }], { expectedVersion: 'any' })).deduplicated).toBe(true);
    expect((await store.append('s', [{ type: 't', data: { n: 2 }, idempotencyKey: 'k2', eventId: 'mine' }], { expectedVersion: 'any' })).deduplicated).toBe(true);
    await catchTotError(() => store.append('s', [{ type: 't', data: { n: 2 }, idempotencyKey: 'k2' }], { expectedVersion: 'any' }), 'IDEMPOTENCY_CONFLICT');
    expect((await store.append('s', [{ type: 't', data: { n: 3 }, idempotencyKey: 'k3' }], { expectedVersion: 1 })).nextExpectedVersion).toBe(2);
    await store.close();
    const after = new Database(path, { readonly: true });
    expect((after.pragma('table_info(tot_events)') as { name: string }[]).map((c) => c.name)).not.toContain('payload');
    after.close();
    // Opening it again finds nothing left to do.
    const again = new SqliteEventStore({ path });
    expect(await again.streamVersion('s')).toBe(2);
    await again.close();
  });

  // Files made before number positions with AUTOINCREMENT, files made now with the plain rowid.
  for (const made of ['with AUTOINCREMENT (files made before)', 'by the store now'] as const) {
    it(`numbers the events of a file made ${made} one after another, going on from the last after reopening`, async () => {
      const path = join(dir(), 'positions.db');
      if (made !== 'by the store now') {
        const db = new Database(path);
        db.exec(`CREATE TABLE tot_events (
          global_position INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL UNIQUE, stream_id TEXT NOT NULL,
          version INTEGER NOT NULL CHECK (version >= 0), type TEXT NOT NULL, data TEXT NOT NULL, idempotency_key TEXT NOT NULL UNIQUE,
          own_event_id INTEGER NOT NULL, parent_ids TEXT NOT NULL, clock TEXT NOT NULL, metadata TEXT NOT NULL, recorded_at TEXT NOT NULL,
          UNIQUE (stream_id, version))`);
        db.close();
      }
      const event = (k: string) => ({ type: 't', data: {}, idempotencyKey: k });
      const store = new SqliteEventStore({ path });
      await store.append('a', [event('a0'), event('a1')], { expectedVersion: 'no_stream' });
      await store.append('b', [event('b0')], { expectedVersion: 'no_stream' });
      await store.close();
      const again = new SqliteEventStore({ path });
      await again.append('a', [event('a2')], { expectedVersion: 1 });
      expect((await collect(again.readAll())).map((e) => [e.globalPosition, e.idempotencyKey])).toEqual([
        [1n, 'a0'],
        [2n, 'a1'],
        [3n, 'b0'],
        [4n, 'a2'],
      ]);
      await again.close();
    });
  }

  it('validates its options', async () => {
    const error = await catchTotError(() => new SqliteEventStore({} as never), 'INVALID_ARGUMENT');
    expect(error.message).toContain('options.path');
    await catchTotError(() => new SqliteEventStore({ path: 'x.db', synchronous: 'OFF' as never }), 'INVALID_ARGUMENT');
  });

  it('keeps only the latest snapshot of each stream: a newer one replaces the older ones', async () => {
    const path = join(dir(), 'snapshots.db');
    const store = new SqliteEventStore({ path });
    await store.saveSnapshot({ streamId: 's', version: 3, state: { n: 3 } });
    await store.saveSnapshot({ streamId: 't', version: 4, state: { n: 4 } });
    await store.saveSnapshot({ streamId: 's', version: 6, state: { n: 6 } });
    await store.close();
    const db = new Database(path);
    expect(db.prepare('SELECT stream_id, version FROM tot_snapshots ORDER BY stream_id').all()).toEqual([
      { stream_id: 's', version: 6 },
      { stream_id: 't', version: 4 },
    ]);
    db.close();
  });

  describe('streamVersion after another writer', () => {
    const event = (n: number) => [{ type: 'step', data: { n }, idempotencyKey: `s:${n}:${Math.random()}` }];

    it('sees an append another connection made to the same file since this store learnt the version', async () => {
      const path = join(dir(), 'two.db');
      const a = new SqliteEventStore({ path });
      const b = new SqliteEventStore({ path });
      await a.append('s', event(0), { expectedVersion: 'no_stream' });
      expect(await a.streamVersion('s')).toBe(0);
      await b.append('s', event(1), { expectedVersion: 0 });
      expect(await a.streamVersion('s')).toBe(1);
      await a.close();
      await b.close();
    });

    it('sees a stream another connection started, after this store found none', async () => {
      const path = join(dir(), 'two.db');
      const a = new SqliteEventStore({ path });
      const b = new SqliteEventStore({ path });
      expect(await a.streamVersion('s')).toBeNull();
      await b.append('s', event(0), { expectedVersion: 'no_stream' });
      expect(await a.streamVersion('s')).toBe(0);
      await a.close();
      await b.close();
    });

    it('sees an append another store made through the same connection it was given', async () => {
      const db = new Database(join(dir(), 'shared.db'));
      const a = new SqliteEventStore({ database: db });
      const b = new SqliteEventStore({ database: db });
      await a.append('s', event(0), { expectedVersion: 'no_stream' });
      expect(await a.streamVersion('s')).toBe(0);
      await b.append('s', event(1), { expectedVersion: 0 });
      expect(await a.streamVersion('s')).toBe(1);
      db.close();
    });

    it('stays where it was after an append the store refused', async () => {
      const store = new SqliteEventStore({ path: join(dir(), 'one.db') });
      await store.append('s', event(0), { expectedVersion: 'no_stream' });
      await catchTotError(() => store.append('s', event(1), { expectedVersion: 5 }), 'EXPECTED_VERSION_CONFLICT');
      expect(await store.streamVersion('s')).toBe(0);
      await store.close();
    });
  });
});
