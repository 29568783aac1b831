import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { TotError } from '../errors/index.js';
import type { AppendOptions, AppendResult, EventStore, NewEvent, ReadAllOptions, ReadStreamOptions, Snapshot, StoredEvent } from '../events/store/types.js';
import {
  closedError,
  DEFAULT_MAX_EVENT_BYTES,
  DEFAULT_MAX_SNAPSHOT_BYTES,
  eventIdTaken,
  lazyAppendResult,
  loadedSnapshot,
  matchRetriedBatch,
  parseReadAll,
  parseReadStream,
  parseStreamId,
  prepareAppend,
  prepareSnapshot,
  storedPayload,
  versionConflict,
  versionMatches,
  type PreparedEvent,
} from '../events/store/validate-append.js';
import { TimeOrderedIds } from '../events/store/event-ids.js';
import { eventFromRow } from '../events/store/event-row.js';
import { abortedError } from '../internal/abort.js';
import { parseOptions } from '../internal/validate.js';

/**
 * Options of {@link SqliteEventStore}. Give `path` (a file, created if missing) or an open
 * better-sqlite3 `database`.
 *
 * @example
 * ```ts
 * import type { SqliteEventStoreOptions } from '@tot/core/sqlite';
 *
 * const options: SqliteEventStoreOptions = { path: './runs.db', synchronous: 'FULL' };
 * ```
 */
export interface SqliteEventStoreOptions {
  path?: string;
  database?: Database.Database;
  /**
   * SQLite's `synchronous` in WAL mode. `NORMAL` (default) survives a crash of the process: a
   * committed append is never lost or torn when the process is killed. `FULL` also survives a
   * power loss or an OS crash, at the cost of an fsync per commit.
   */
  synchronous?: 'NORMAL' | 'FULL';
  /** How long an append waits for another process's write lock. Default 5000 ms. */
  busyTimeoutMs?: number;
  /**
   * WAL pages written before SQLite copies them back into the database file. Default 16384
   * (64 MiB with 4 KiB pages): fewer, larger checkpoints make batched appends about a third
   * faster than SQLite's default of 1000, at the cost of a larger WAL file between checkpoints.
   */
  walAutocheckpointPages?: number;
  /** Largest event (JSON of data, metadata, parent ids and clock, and the type), in bytes. Default 1 MiB. */
  maxEventBytes?: number;
  /** Largest snapshot (JSON of state and metadata), in bytes. Default 64 MiB. */
  maxSnapshotBytes?: number;
  /**
   * How the file is checked when the store opens it, before anything is written: `'quick'`
   * (default) runs SQLite's `PRAGMA quick_check`, which reads every page (about 25 ms for a file of
   * 100,000 events, 30 MB, in the page cache); `'full'` runs `PRAGMA integrity_check` (nearly four
   * times as long; it also checks that indexes match their tables); `'off'` checks only the header.
   * A file that fails is refused with `INVALID_ARGUMENT`, untouched.
   */
  integrityCheck?: 'quick' | 'full' | 'off';
}

const optionsSchema = z
  .strictObject({
    path: z.string().min(1).optional(),
    database: z.custom<Database.Database>((v) => typeof v === 'object' && v !== null && typeof (v as Database.Database).prepare === 'function', 'expected a better-sqlite3 Database').optional(),
    synchronous: z.enum(['NORMAL', 'FULL']).default('NORMAL'),
    busyTimeoutMs: z.number().int().min(0).default(5_000),
    walAutocheckpointPages: z.number().int().min(0).default(16_384),
    maxEventBytes: z.number().int().positive().default(DEFAULT_MAX_EVENT_BYTES),
    maxSnapshotBytes: z.number().int().positive().default(DEFAULT_MAX_SNAPSHOT_BYTES),
    integrityCheck: z.enum(['quick', 'full', 'off']).default('quick'),
  })
  .refine((o) => (o.path === undefined) !== (o.database === undefined), { message: 'give exactly one of path or database', path: ['path'] });

// `global_position` is the rowid without AUTOINCREMENT: a new row's rowid is then one more than the
// largest, which never repeats one since the store deletes no event, and an append writes one page
// fewer (AUTOINCREMENT updates `sqlite_sequence` in every write transaction: 6 to 8 µs, about 7%,
// of a single-event append's CPU). Files made with AUTOINCREMENT keep it: the same positions, a
// little slower.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS tot_events (
  global_position INTEGER PRIMARY KEY,
  event_id TEXT NOT NULL UNIQUE,
  stream_id TEXT NOT NULL,
  version INTEGER NOT NULL CHECK (version >= 0),
  type TEXT NOT NULL,
  data TEXT NOT NULL,
  idempotency_key TEXT NOT NULL UNIQUE,
  own_event_id INTEGER NOT NULL,
  parent_ids TEXT NOT NULL,
  clock TEXT NOT NULL,
  metadata TEXT NOT NULL,
  recorded_at TEXT NOT NULL,
  UNIQUE (stream_id, version)
);
CREATE TABLE IF NOT EXISTS tot_snapshots (
  stream_id TEXT NOT NULL,
  version INTEGER NOT NULL,
  state TEXT NOT NULL,
  metadata TEXT,
  saved_at TEXT NOT NULL,
  PRIMARY KEY (stream_id, version)
);
`;

interface Row {
  global_position: number;
  event_id: string;
  stream_id: string;
  version: number;
  type: string;
  data: string;
  idempotency_key: string;
  own_event_id: number;
  parent_ids: string;
  clock: string;
  metadata: string;
  recorded_at: string;
}

const PAGE = 500;
/** The columns an append inserts, in the order of its values. */
const INSERT_COLUMNS = ['event_id', 'stream_id', 'version', 'type', 'data', 'idempotency_key', 'own_event_id', 'parent_ids', 'clock', 'metadata', 'recorded_at'] as const;

/** Row `j` of the flat values of a multi-row insert, as it now stands in the table. */
function insertedRow(values: readonly unknown[], j: number, position: number): Row {
  const row: Record<string, unknown> = { global_position: position };
  INSERT_COLUMNS.forEach((column, k) => (row[column] = values[j * INSERT_COLUMNS.length + k]));
  return row as unknown as Row;
}
/** 11 parameters a row: well under SQLite's 32,766 variables per statement. */
const ROWS_PER_INSERT = 500;
/**
 * An idempotent retry is compared on the columns themselves: `data` and `metadata` keep the JSON
 * as it was sent, and `own_event_id` says whether the caller chose the event id (then it counts).
 */
const unchanged = (row: Row, p: PreparedEvent) => storedPayload(toEvent(row), row.own_event_id === 1) === p.payload;
/** Thrown inside the write transaction when the batch's keys are already stored. */
const RETRY = Symbol('retry');

function toEvent(row: Row): StoredEvent {
  try {
    return eventFromRow(row);
  } catch (error) {
    // Only a file changed outside the store holds a row whose JSON does not parse.
    throw corruptFile('SqliteEventStore', `the event at global position ${row.global_position} is not valid JSON`, error);
  }
}

function columnsOf(db: Database.Database): Set<string> {
  return new Set((db.pragma('table_info(tot_events)') as { name: string }[]).map((c) => c.name));
}

/**
 * Brings a table of the earlier layout, which kept a SHA-256 digest of each event's payload in a
 * `payload` column, to the current one: whether the caller chose an event's id is recovered by
 * checking which of the two possible payloads the digest is of. One transaction; a second process
 * opening the file meanwhile waits, then finds the work done.
 */
function migrateDigestLayout(db: Database.Database): void {
  db.transaction(() => {
    if (!columnsOf(db).has('payload')) return;
    db.exec('ALTER TABLE tot_events ADD COLUMN own_event_id INTEGER NOT NULL DEFAULT 0');
    const digest = (payload: string) => createHash('sha256').update(payload).digest('base64');
    // Rows are read first and updated after: a connection cannot write while it iterates.
    const chosen: number[] = [];
    for (const row of db.prepare('SELECT * FROM tot_events').iterate() as IterableIterator<Row & { payload: string }>) {
      if (digest(storedPayload(toEvent(row), true)) === row.payload) chosen.push(row.global_position);
    }
    const own = db.prepare('UPDATE tot_events SET own_event_id = 1 WHERE global_position = ?');
    for (const position of chosen) own.run(position);
    db.exec('ALTER TABLE tot_events DROP COLUMN payload');
  }).immediate();
}

/**
 * The `TotError` for anything the driver throws (every method maps its errors through this, so no
 * driver error reaches the caller untyped): a file that is not a database or is corrupt is
 * `INVALID_ARGUMENT` naming `path`, wherever it shows; a lock held past `busyTimeoutMs` is
 * `TIMEOUT`; anything else (a full disk, an I/O error, a read-only file) is `ILLEGAL_STATE`.
 */
function sqliteError(error: unknown, what: string): TotError {
  if (TotError.isInstance(error)) return error;
  const code = String((error as { code?: unknown })?.code ?? '');
  const message = (error as Error)?.message ?? String(error);
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return new TotError('TIMEOUT', `${what}: the database stayed locked by another writer: ${message}`, { cause: error });
  if (code.startsWith('SQLITE_NOTADB') || code.startsWith('SQLITE_CORRUPT')) return corruptFile(what, message, error);
  if (code.startsWith('SQLITE_CANTOPEN')) return new TotError('INVALID_ARGUMENT', `${what}: the file cannot be opened: ${message}`, { cause: error, details: { field: 'path' } });
  return new TotError('ILLEGAL_STATE', `${what}: ${message}`, { cause: error, recoverable: true });
}

function corruptFile(what: string, why: string, cause?: unknown): TotError {
  return new TotError('INVALID_ARGUMENT', `${what}: the file is not an SQLite database or is corrupt (${why}); nothing was changed.`, { details: { field: 'path' }, ...(cause === undefined ? {} : { cause }) });
}

/**
 * An {@link EventStore} on SQLite (better-sqlite3, an optional peer dependency), in WAL mode.
 * Appends run in `BEGIN IMMEDIATE` transactions, so writers in several processes sharing one file
 * are serialised; versions come from the events themselves (unique `(stream_id, version)`), never
 * from a separate counter. Opening an existing file keeps working from where it was.
 *
 * @example
 * ```ts
 * import { SqliteEventStore } from '@tot/core/sqlite';
 *
 * const store = new SqliteEventStore({ path: './runs.db' });
 * await store.append('run-1', [{ type: 'run.started', data: {}, idempotencyKey: 'run-1:0' }], { expectedVersion: 'no_stream' });
 * await store.close();
 * ```
 */
export class SqliteEventStore implements EventStore {
  private readonly db: Database.Database;
  private readonly owned: boolean;
  private readonly maxEventBytes: number;
  private readonly maxSnapshotBytes: number;
  private closed = false;
  private readonly inserts = new Map<number, Database.Statement<unknown[]>>();
  /**
   * Stream versions this connection knows to be current, valid while `PRAGMA data_version` reads
   * {@link SqliteEventStore.dataVersion}: SQLite changes that number only when another connection
   * commits, so a stream version learnt from this connection's own appends and reads stays true
   * until then. Kept only when the store opened the file itself: a caller's `database` may be
   * written through by others on the same connection, which `data_version` does not see.
   */
  private readonly versions: Map<string, number | null> | undefined;
  private dataVersion = -1;
  /**
   * Runs its argument in a transaction. Made once: better-sqlite3's `db.transaction()` builds a
   * wrapper and its begin/commit statements every time, about a tenth of a single append.
   */
  private readonly inTransaction: Database.Transaction<(body: () => AppendResult) => AppendResult>;
  /** Saves a snapshot and drops the stream's older ones, in one transaction. */
  private readonly replaceSnapshot: Database.Transaction<(streamId: string, version: number, state: string, metadata: string | null) => void>;
  private readonly stmt: {
    version: Database.Statement<[string], { v: number | null }>;
    byKey: Database.Statement<[string], Row>;
    byEventId: Database.Statement<[string], { n: number }>;
    stream: Database.Statement<[string, number, number, number], Row>;
    all: Database.Statement<[number, number], Row>;
    saveSnapshot: Database.Statement;
    dropOlderSnapshots: Database.Statement<[string, number]>;
    loadSnapshot: Database.Statement<[string], { stream_id: string; version: number; state: string; metadata: string | null }>;
    dataVersion: Database.Statement<[], number>;
  };

  constructor(options: SqliteEventStoreOptions) {
    const o = parseOptions(optionsSchema, options, 'SqliteEventStore');
    this.maxEventBytes = o.maxEventBytes;
    this.maxSnapshotBytes = o.maxSnapshotBytes;
    this.owned = o.database === undefined;
    try {
      this.db = o.database ?? new Database(o.path!);
    } catch (error) {
      throw sqliteError(error, `SqliteEventStore: cannot open "${o.path}"`);
    }
    try {
      // Checking the file before any write: a file that is not a database fails here, untouched.
      this.db.pragma('schema_version');
      // Pages overwritten past the header open fine and fail later reads: found here instead.
      if (o.integrityCheck !== 'off') {
        const check = o.integrityCheck === 'quick' ? 'quick_check' : 'integrity_check';
        const problems = (this.db.pragma(`${check}(1)`) as Record<string, string>[]).map((row) => row[check]).filter((text) => text !== 'ok');
        if (problems.length > 0) throw corruptFile(`SqliteEventStore: cannot use "${o.path ?? 'the database'}"`, `${check}: ${problems.join('; ').replace(/\s*\n\s*/g, ' ')}`);
      }
      const layout = columnsOf(this.db);
      if (layout.size > 0 && !layout.has('own_event_id') && !layout.has('payload')) {
        throw new TotError('INVALID_ARGUMENT', `SqliteEventStore: the tot_events table of "${o.path ?? 'the database'}" has a layout this store does not know; nothing was changed.`, { details: { field: 'path' } });
      }
      this.db.pragma('journal_mode = WAL');
      this.db.pragma(`synchronous = ${o.synchronous}`);
      this.db.pragma(`busy_timeout = ${o.busyTimeoutMs}`);
      this.db.pragma(`wal_autocheckpoint = ${o.walAutocheckpointPages}`);
      this.db.exec(SCHEMA);
      if (layout.has('payload')) migrateDigestLayout(this.db);
      this.stmt = {
        version: this.db.prepare('SELECT MAX(version) AS v FROM tot_events WHERE stream_id = ?'),
        byKey: this.db.prepare('SELECT * FROM tot_events WHERE idempotency_key = ?'),
        byEventId: this.db.prepare('SELECT COUNT(*) AS n FROM tot_events WHERE event_id = ?'),
        stream: this.db.prepare('SELECT * FROM tot_events WHERE stream_id = ? AND version >= ? AND version <= ? ORDER BY version LIMIT ?'),
        all: this.db.prepare('SELECT * FROM tot_events WHERE global_position > ? ORDER BY global_position LIMIT ?'),
        saveSnapshot: this.db.prepare('INSERT OR REPLACE INTO tot_snapshots (stream_id, version, state, metadata, saved_at) VALUES (?, ?, ?, ?, ?)'),
        dropOlderSnapshots: this.db.prepare('DELETE FROM tot_snapshots WHERE stream_id = ? AND version < ?'),
        loadSnapshot: this.db.prepare('SELECT stream_id, version, state, metadata FROM tot_snapshots WHERE stream_id = ? ORDER BY version DESC LIMIT 1'),
        dataVersion: this.db.prepare<[], number>('PRAGMA data_version').pluck(),
      };
      this.versions = this.owned ? new Map() : undefined;
      this.inTransaction = this.db.transaction((body: () => AppendResult) => body());
      this.replaceSnapshot = this.db.transaction((streamId: string, version: number, state: string, metadata: string | null) => {
        this.stmt.dropOlderSnapshots.run(streamId, version);
        this.stmt.saveSnapshot.run(streamId, version, state, metadata, new Date().toISOString());
      });
    } catch (error) {
      if (this.owned) this.db.close();
      throw sqliteError(error, `SqliteEventStore: cannot use "${o.path ?? 'the database'}"`);
    }
  }

  /**
   * See {@link EventStore.append}.
   *
   * @example
   * ```ts
   * await store.append('run-1', [{ type: 'step', data: { n: 1 }, idempotencyKey: 'run-1:1' }], { expectedVersion: 0 });
   * ```
   */
  async append(streamId: string, events: NewEvent[], options: AppendOptions): Promise<AppendResult> {
    this.open('append');
    const a = prepareAppend(streamId, events, options, this.maxEventBytes, 'SqliteEventStore.append');
    if (a.signal?.aborted) throw abortedError(a.signal, 'append');
    // Fast path: write, relying on the unique constraints. A stored idempotency key makes the
    // insert fail; then, outside the failed transaction, the batch is answered as a retry.
    const write = (): AppendResult => {
      const actual = this.stmt.version.get(a.streamId)?.v ?? null;
      if (!versionMatches(a.expectedVersion, actual)) {
        if (a.events.some((p) => this.stmt.byKey.get(p.event.idempotencyKey) !== undefined)) throw RETRY;
        throw versionConflict(a.streamId, a.expectedVersion, actual);
      }
      const recordedAt = new Date().toISOString();
      const first = (actual ?? -1) + 1;
      const ids = new TimeOrderedIds(a.events.length);
      const chunks: { values: unknown[]; firstPosition: number }[] = [];
      // Multi-row inserts: one native call per chunk rather than per event. Rows of one statement
      // get consecutive positions, in order.
      for (let start = 0; start < a.events.length; start += ROWS_PER_INSERT) {
        const chunk = a.events.slice(start, start + ROWS_PER_INSERT);
        const values: unknown[] = [];
        chunk.forEach((p, j) => {
          const e = p.event;
          values.push(e.eventId ?? ids.at(start + j), a.streamId, first + start + j, e.type, p.dataJson, e.idempotencyKey, e.eventId === undefined ? 0 : 1, e.parentIds ? JSON.stringify(e.parentIds) : '[]', e.clock ? JSON.stringify(e.clock) : '{}', p.metadataJson, recordedAt);
        });
        const last = Number(this.insertRows(chunk.length).run(values).lastInsertRowid);
        chunks.push({ values, firstPosition: last - chunk.length + 1 });
      }
      // The events are rebuilt, if asked for, from the values inserted: never from the caller's
      // objects, which may have changed by then.
      const written = () => chunks.flatMap(({ values, firstPosition }) => Array.from({ length: values.length / INSERT_COLUMNS.length }, (_, j) => toEvent(insertedRow(values, j, firstPosition + j))));
      return lazyAppendResult(written, first + a.events.length - 1);
    };
    const retry = (): AppendResult => {
      const known = a.events.map((p) => this.stmt.byKey.get(p.event.idempotencyKey));
      if (known.every((row) => row === undefined)) {
        // No key of the batch is stored: the insert failed on an event id another event has.
        const taken = a.events.find((p) => p.event.eventId !== undefined && this.stmt.byEventId.get(p.event.eventId)!.n > 0);
        if (taken) throw eventIdTaken('SqliteEventStore.append', taken);
      }
      const stored = matchRetriedBatch(a.events, known, unchanged).map(toEvent);
      return { events: stored, nextExpectedVersion: this.stmt.version.get(stored[0]!.streamId)!.v!, deduplicated: true };
    };
    try {
      const result = this.inTransaction.immediate(write);
      // Committed: the stream is at this version until another connection writes (see `versions`).
      this.knowVersion(a.streamId, result.nextExpectedVersion);
      return result;
    } catch (error) {
      // A stored key is answered as a retry; so is a stored event id, since SQLite may report the
      // event id's constraint first when a retried batch has ids of its own.
      const keyTaken = error === RETRY || ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' && /idempotency_key|event_id/.test((error as Error).message));
      if (!keyTaken) throw sqliteError(error, 'SqliteEventStore.append');
      try {
        return this.inTransaction.immediate(retry);
      } catch (retryError) {
        throw sqliteError(retryError, 'SqliteEventStore.append');
      }
    }
  }

  /**
   * See {@link EventStore.readStream}. Reads in pages, so appends may run between pages.
   *
   * @example
   * ```ts
   * for await (const e of store.readStream('run-1')) console.log(e.version, e.type);
   * ```
   */
  async *readStream(streamId: string, options?: ReadStreamOptions): AsyncIterable<StoredEvent> {
    this.open('readStream');
    const o = parseReadStream(streamId, options, 'SqliteEventStore.readStream');
    let from = o.fromVersion;
    let left = o.limit ?? Number.POSITIVE_INFINITY;
    const to = o.toVersion ?? Number.MAX_SAFE_INTEGER;
    while (left > 0) {
      this.open('readStream');
      const rows = this.driver('readStream', () => this.stmt.stream.all(o.streamId, from, to, Math.min(PAGE, left)));
      for (const row of rows) yield toEvent(row);
      if (rows.length < Math.min(PAGE, left)) return;
      left -= rows.length;
      from = rows.at(-1)!.version + 1;
    }
  }

  /**
   * See {@link EventStore.readAll}.
   *
   * @example
   * ```ts
   * for await (const e of store.readAll({ after: 0n, limit: 100 })) console.log(e.globalPosition);
   * ```
   */
  async *readAll(options?: ReadAllOptions): AsyncIterable<StoredEvent> {
    this.open('readAll');
    const o = parseReadAll(options, 'SqliteEventStore.readAll');
    let after = o.after === undefined ? 0 : Number(o.after);
    let left = o.limit ?? Number.POSITIVE_INFINITY;
    while (left > 0) {
      this.open('readAll');
      const rows = this.driver('readAll', () => this.stmt.all.all(after, Math.min(PAGE, left)));
      for (const row of rows) yield toEvent(row);
      if (rows.length < Math.min(PAGE, left)) return;
      left -= rows.length;
      after = rows.at(-1)!.global_position;
    }
  }

  /**
   * See {@link EventStore.streamVersion}.
   *
   * @example
   * ```ts
   * await store.streamVersion('run-1'); // e.g. 41, or null
   * ```
   */
  async streamVersion(streamId: string): Promise<number | null> {
    this.open('streamVersion');
    const id = parseStreamId(streamId, 'SqliteEventStore.streamVersion');
    return this.driver('streamVersion', () => {
      // A session's refresh asks before every tool call, and another writer is rare: one pragma
      // (about 9 µs of CPU after a commit, against 15 for the indexed MAX) says whether anyone else
      // committed since this connection last learnt the stream's version.
      if (!this.versions) return this.stmt.version.get(id)?.v ?? null;
      const dataVersion = this.stmt.dataVersion.get()!;
      const known = dataVersion === this.dataVersion ? this.versions.get(id) : undefined;
      if (known !== undefined) return known;
      const version = this.stmt.version.get(id)?.v ?? null;
      this.knowVersion(id, version, dataVersion);
      return version;
    });
  }

  /**
   * Records a stream's current version, learnt by this connection. `dataVersion`, read before the
   * version was, is the `data_version` it holds for; without one, the version comes from this
   * connection's own commit, which leaves `data_version` as it was, and another connection's
   * commit before it is found by the next read (the number moved), which forgets everything.
   */
  private knowVersion(streamId: string, version: number | null, dataVersion?: number): void {
    const versions = this.versions;
    if (!versions) return;
    if (dataVersion !== undefined && dataVersion !== this.dataVersion) {
      versions.clear();
      this.dataVersion = dataVersion;
    }
    // Bounded: a server that served many sessions keeps the versions of the latest few thousand.
    if (versions.size >= 4_096 && !versions.has(streamId)) versions.clear();
    versions.set(streamId, version);
  }

  /**
   * See {@link EventStore.saveSnapshot}.
   *
   * @example
   * ```ts
   * await store.saveSnapshot({ streamId: 'run-1', version: 41, state: tree.toJSON() });
   * ```
   */
  async saveSnapshot(snapshot: Snapshot): Promise<void> {
    this.open('saveSnapshot');
    const s = prepareSnapshot(snapshot, this.maxSnapshotBytes, 'SqliteEventStore.saveSnapshot');
    // Only the latest snapshot is ever loaded: the older ones of the stream go in the same
    // transaction. Kept, a session's doubling checkpoints held as much again as the session's own
    // events (at 10,000 thoughts, 5.0 MB of snapshots beside 4.6 MB of events), and a long session's file grew by them.
    this.driver('saveSnapshot', () => this.replaceSnapshot.immediate(s.streamId, s.version, s.stateJson, s.metadataJson ?? null));
  }

  /**
   * See {@link EventStore.loadSnapshot}.
   *
   * @example
   * ```ts
   * const snapshot = await store.loadSnapshot('run-1');
   * ```
   */
  async loadSnapshot(streamId: string): Promise<Snapshot | null> {
    this.open('loadSnapshot');
    const id = parseStreamId(streamId, 'SqliteEventStore.loadSnapshot');
    return this.driver('loadSnapshot', () => {
      const row = this.stmt.loadSnapshot.get(id);
      return row ? loadedSnapshot(row.stream_id, row.version, row.state, row.metadata) : null;
    });
  }

  /**
   * Closes the database (when the store opened it). Later calls fail with `ILLEGAL_STATE`.
   *
   * @example
   * ```ts
   * await store.close();
   * ```
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.owned) this.driver('close', () => this.db.close());
  }

  /** Runs a driver call, mapping whatever it throws (a corrupt page, a full disk, bad JSON in a row) to a `TotError`. */
  private driver<T>(where: string, call: () => T): T {
    try {
      return call();
    } catch (error) {
      throw sqliteError(error, `SqliteEventStore.${where}`);
    }
  }

  private insertRows(rows: number): Database.Statement<unknown[]> {
    let statement = this.inserts.get(rows);
    if (!statement) {
      const row = `(${INSERT_COLUMNS.map(() => '?').join(', ')})`;
      statement = this.db.prepare(
        `INSERT INTO tot_events (${INSERT_COLUMNS.join(', ')}) VALUES ${Array.from({ length: rows }, () => row).join(', ')}`,
      );
      this.inserts.set(rows, statement);
    }
    return statement;
  }

  private open(where: string): void {
    if (this.closed) throw closedError(`SqliteEventStore.${where}`);
  }
}
