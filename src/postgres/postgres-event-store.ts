import pg from 'pg';
import * as nodeCrypto from 'node:crypto';
import { z } from 'zod';
import { TotError } from '../errors/index.js';
import type { AppendOptions, AppendResult, EventStore, ExpectedVersion, NewEvent, ReadAllOptions, ReadStreamOptions, Snapshot, StoredEvent } from '../events/store/types.js';
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
  versionConflict,
  type PreparedEvent,
} from '../events/store/validate-append.js';
import { TimeOrderedIds } from '../events/store/event-ids.js';
import { eventFromRow } from '../events/store/event-row.js';
import { abortedError, raceAbort, whenAborted } from '../internal/abort.js';
import { extent } from '../internal/extent.js';
import { parseOptions, signalSchema } from '../internal/validate.js';
import { NotificationListener } from '../internal/notification-listener.js';
import { sqlLiteral } from './sql-literal.js';

/**
 * Options of {@link PostgresEventStore}. Give a `pool` (shared with the host) or a
 * `connectionString` (the store then owns its pool).
 *
 * @example
 * ```ts
 * import type { PostgresEventStoreOptions } from '@tot/core/postgres';
 *
 * const options: PostgresEventStoreOptions = { connectionString: process.env.DATABASE_URL, tablePrefix: 'reasoning_' };
 * ```
 */
export interface PostgresEventStoreOptions {
  pool?: pg.Pool;
  connectionString?: string;
  /** Prefix of the store's tables. Default `tot_`. */
  tablePrefix?: string;
  /** Largest event (JSON of data, metadata, parent ids and clock, and the type), in bytes. Default 1 MiB. */
  maxEventBytes?: number;
  /** Largest snapshot (JSON of state and metadata), in bytes. Default 64 MiB. */
  maxSnapshotBytes?: number;
}

/**
 * Options of {@link PostgresEventStore.follow}.
 *
 * @example
 * ```ts
 * import type { FollowOptions } from '@tot/core/postgres';
 *
 * const options: FollowOptions = { fromVersion: 12, signal: AbortSignal.timeout(60_000) };
 * ```
 */
export interface FollowOptions {
  /** The first version to yield. Default 0: the whole stream, then what is appended. */
  fromVersion?: number;
  /** Ends the following: the iteration rejects with `ABORTED`. Without it, it ends when the store closes. */
  signal?: AbortSignal;
}

const followSchema = z.strictObject({ fromVersion: z.number().int().min(0).optional(), signal: signalSchema }).optional();

const optionsSchema = z
  .strictObject({
    pool: z.custom<pg.Pool>((v) => typeof v === 'object' && v !== null && typeof (v as pg.Pool).connect === 'function', 'expected a pg Pool').optional(),
    connectionString: z.string().min(1).optional(),
    tablePrefix: z.string().regex(/^[a-z_][a-z0-9_]*$/, 'expected a lower-case SQL identifier prefix').default('tot_'),
    maxEventBytes: z.number().int().positive().default(DEFAULT_MAX_EVENT_BYTES),
    maxSnapshotBytes: z.number().int().positive().default(DEFAULT_MAX_SNAPSHOT_BYTES),
  })
  .refine((o) => (o.pool === undefined) !== (o.connectionString === undefined), { message: 'give exactly one of pool or connectionString', path: ['pool'] });

interface Row {
  global_position: string;
  event_id: string;
  stream_id: string;
  version: number;
  type: string;
  /** JSON text, as the other JSON columns. */
  data: string;
  idempotency_key: string;
  payload: string;
  parent_ids: string;
  clock: string;
  metadata: string;
  /** ISO 8601, as `isoTime` writes it. */
  recorded_at: string;
}

const PAGE = 500;
/**
 * Rows keep a digest of the payload an idempotent retry is compared on, not the payload itself.
 * The one-shot `crypto.hash` (Node 20.12 and later) takes half the time of a Hash object, which
 * was a tenth of the store's CPU on batched appends; earlier Node 20 releases lack it.
 */
const digest: (payload: string) => string =
  typeof nodeCrypto.hash === 'function' ? (payload) => nodeCrypto.hash('sha256', payload, 'base64') : (payload) => nodeCrypto.createHash('sha256').update(payload).digest('base64');
const ignore = () => undefined;
/**
 * A timestamp as `Date.prototype.toISOString` writes it (UTC, milliseconds), written by the
 * server: parsing a `Date` per row took a tenth of a read.
 */
const isoTime = (value: string) => `to_char(${value} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const COLUMNS = `global_position, event_id, stream_id, version, type, data, idempotency_key, payload, parent_ids, clock, metadata, ${isoTime('recorded_at')} AS recorded_at`;
/** What a read needs: the payload digest is for retries. */
const READ_COLUMNS = COLUMNS.replace(' payload,', '');

function toEvent(row: Row): StoredEvent {
  try {
    return eventFromRow(row);
  } catch (error) {
    // Only a table changed outside the store holds a row whose JSON does not parse.
    throw new TotError('ILLEGAL_STATE', `PostgresEventStore: the event at global position ${row.global_position} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Sent before each page a read asks for. Without statistics (a table never analyzed, as after a
 * bulk load) or with statistics from before a stream grew, PostgreSQL estimates a page at a few
 * rows and plans a bitmap scan from the page's first event to the end of the stream, then a sort
 * of everything it found, to keep 500 rows: every page costs the rest of the stream, and a read
 * of 100,000 events took 3.3 s instead of 0.45 s (bench/event-store.ts). With these off, the
 * index range scan, which stops after the page's rows and needs no sort, is the plan left,
 * whatever the statistics (test/postgres/read-plan.test.ts).
 */
const INDEX_RANGE_SCAN = 'SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off; SET LOCAL enable_sort = off; ';

/** The largest value of the `version` column (a 32-bit integer): no stream reaches it. */
const MAX_VERSION = 2_147_483_647;
/** The largest global position (a 64-bit integer). */
const MAX_POSITION = 2n ** 63n - 1n;

/** Error codes of Node's network layer: the server cannot be reached or went away. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** The condition on the stream's last version `last.v` (null: no stream) an append expects. */
function expectedCondition(expected: ExpectedVersion): string {
  if (expected === 'any') return 'TRUE';
  if (expected === 'no_stream') return 'last.v IS NULL';
  if (expected === 'stream_exists') return 'last.v IS NOT NULL';
  // A whole number ≥ 0: prepareAppend checked it.
  return `last.v = ${expected}`;
}

/** A 63-bit key for the append lock, derived from the table name. */
function lockKey(table: string): string {
  let h = 1469598103934665603n;
  for (const ch of table) h = BigInt.asUintN(63, (h ^ BigInt(ch.charCodeAt(0))) * 1099511628211n);
  return h.toString();
}

/**
 * The setting by which this store's appends tell the table's trigger that they announce
 * themselves once committed. A NOTIFY in a transaction holds PostgreSQL's one notification lock
 * of the whole database from its commit until its WAL flush ends: every append that notified
 * took its turn on that lock, one flush at a time, across every process. Sent after the commit,
 * in a transaction of its own that writes nothing, a NOTIFY waits for no flush. The trigger still
 * announces the appends of writers that do not say so (earlier releases, other programs).
 */
const ANNOUNCED_AFTER_COMMIT = 'tot.announced_after_commit';

/** The channel a table's appends are announced on, whether its trigger is there, and the table as `schema.name`. */
interface TableChannel {
  name: string;
  announced: boolean;
  table: string;
}

/** A signed 32-bit hash of `text` (FNV-1a): one half of a two-key advisory lock. */
function lockKey32(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h | 0;
}

/**
 * The `TotError` for anything the driver or the server throws; every method maps its errors
 * through this, so none reaches the caller untyped. By SQLSTATE class: a value the server refuses
 * (22) is `INVALID_ARGUMENT`; a cancelled statement or a lock not granted in time, or a pool
 * that hands out no connection in time, is `TIMEOUT`; missing tables, refused credentials or
 * privileges are `ILLEGAL_STATE`; a server that is unreachable, restarting, out of resources or
 * that aborted the transaction (a lost connection, a deadlock) is `ILLEGAL_STATE`, recoverable.
 */
function databaseError(error: unknown, what: string): TotError {
  if (TotError.isInstance(error)) return error;
  const code = String((error as { code?: unknown })?.code ?? '');
  const message = (error as Error)?.message ?? String(error);
  if (code === '57014' || code === '55P03' || /timeout exceeded when trying to connect/.test(message)) return new TotError('TIMEOUT', `${what}: ${message}`, { cause: error });
  if (code.startsWith('22')) return new TotError('INVALID_ARGUMENT', `${what}: the server refused a value: ${message}`, { cause: error });
  if (code === '42P01') return new TotError('ILLEGAL_STATE', `${what}: the store's tables do not exist; call setup() first (${message})`, { cause: error });
  if (code.startsWith('28') || code === '42501') return new TotError('ILLEGAL_STATE', `${what}: the server refused access: ${message}`, { cause: error });
  const unavailable = code.startsWith('08') || code.startsWith('57P') || code.startsWith('53') || code.startsWith('40') || NETWORK_CODES.has(code) || /Connection terminated|connection timeout|Client has encountered a connection error/i.test(message);
  return new TotError('ILLEGAL_STATE', `${what}: ${unavailable ? 'the database is unavailable: ' : ''}${message}`, { cause: error, recoverable: true });
}

/** Where an append's transaction stands, shared with its abort handler. */
interface WriteState {
  /** The signal fired before COMMIT was sent: nothing is committed. */
  aborted: boolean;
  /** COMMIT was sent: an abort no longer stops the append. */
  committing: boolean;
  /** The connection is being released: an abort must not touch it. */
  done: boolean;
  /** The cancel of the running statement, when the signal fired. */
  cancelled?: Promise<void>;
}

/**
 * An {@link EventStore} on PostgreSQL (`pg`, an optional peer dependency): the store that lets
 * several service instances share runs.
 *
 * Versions come from the events (unique `(stream_id, version)`): a conflicting write fails on the
 * constraint and becomes `EXPECTED_VERSION_CONFLICT`; a concurrent duplicate idempotency key fails
 * on its unique constraint and becomes "return the stored events". Appends to one stream take
 * turns (a transaction-scoped advisory lock of the stream); appends to different streams commit
 * side by side, each waiting for its own WAL flush only. Each page of `readAll` first waits for
 * the appends under way (they hold the table's append lock shared, the page takes it exclusive),
 * so it can never skip an event of a transaction that commits late. Call `setup()` once (it is
 * idempotent) before use.
 *
 * @example
 * ```ts
 * import { PostgresEventStore } from '@tot/core/postgres';
 *
 * const store = new PostgresEventStore({ connectionString: process.env.DATABASE_URL! });
 * await store.setup();
 * await store.append('run-1', [{ type: 'run.started', data: {}, idempotencyKey: 'run-1:0' }], { expectedVersion: 'no_stream' });
 * ```
 */
export class PostgresEventStore implements EventStore {
  private readonly pool: pg.Pool;
  private readonly owned: boolean;
  private readonly events: string;
  private readonly snapshots: string;
  private readonly lock: string;
  /** The first key of each stream's lock, derived from the table name (the second is the stream's). */
  private readonly streamLock: number;
  private readonly maxEventBytes: number;
  private readonly maxSnapshotBytes: number;
  private closed = false;
  /** The LISTEN connection of the followers, opened by the first. */
  private listener: NotificationListener | undefined;
  /** The channel appends are announced on, and whether the table's trigger announces them too; looked up once. */
  private channel: Promise<TableChannel> | undefined;
  /** Ends the followers waiting for a notification when the store closes. */
  private readonly closing = new AbortController();

  constructor(options: PostgresEventStoreOptions) {
    const o = parseOptions(optionsSchema, options, 'PostgresEventStore');
    this.owned = o.pool === undefined;
    this.pool = o.pool ?? new pg.Pool({ connectionString: o.connectionString! });
    // An idle client that loses its server must not crash the host process.
    if (this.owned) this.pool.on('error', () => undefined);
    this.events = `${o.tablePrefix}events`;
    this.snapshots = `${o.tablePrefix}snapshots`;
    this.lock = lockKey(this.events);
    this.streamLock = lockKey32(this.events);
    this.maxEventBytes = o.maxEventBytes;
    this.maxSnapshotBytes = o.maxSnapshotBytes;
  }

  /**
   * Creates (or completes) the store's tables; safe to run from several instances at once.
   *
   * @example
   * ```ts
   * await store.setup();
   * ```
   */
  async setup(): Promise<void> {
    this.open('setup');
    const client = await this.checkout(undefined, 'setup');
    client.on('error', ignore);
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [this.lock]);
      await client.query(`
        CREATE TABLE IF NOT EXISTS ${this.events} (
          global_position BIGSERIAL PRIMARY KEY,
          event_id TEXT NOT NULL,
          stream_id TEXT NOT NULL,
          version INTEGER NOT NULL CHECK (version >= 0),
          type TEXT NOT NULL,
          data TEXT NOT NULL,
          idempotency_key TEXT NOT NULL,
          payload TEXT NOT NULL,
          parent_ids TEXT NOT NULL,
          clock TEXT NOT NULL,
          metadata TEXT NOT NULL,
          recorded_at TIMESTAMPTZ NOT NULL DEFAULT now(),
          CONSTRAINT ${this.events}_stream_version UNIQUE (stream_id, version),
          CONSTRAINT ${this.events}_idempotency_key UNIQUE (idempotency_key),
          CONSTRAINT ${this.events}_event_id UNIQUE (event_id)
        )`);
      await client.query(`
        CREATE TABLE IF NOT EXISTS ${this.snapshots} (
          stream_id TEXT NOT NULL,
          version BIGINT NOT NULL,
          state TEXT NOT NULL,
          metadata TEXT,
          saved_at TIMESTAMPTZ NOT NULL DEFAULT now(),
          PRIMARY KEY (stream_id, version)
        )`);
      await this.migrateJsonbLayout(client);
      await this.announceAppends(client);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw databaseError(error, 'PostgresEventStore.setup');
    } finally {
      client.off('error', ignore);
      client.release();
    }
  }

  /**
   * Brings tables of the earlier layout up to date: JSON columns were `jsonb`, which refuses
   * `\u0000` and unpaired surrogates and reorders object keys, so they are `text` now (the JSON
   * exactly as `JSON.stringify` wrote it); snapshot versions were 32-bit.
   */
  private async migrateJsonbLayout(client: pg.PoolClient): Promise<void> {
    const old = await client.query<{ table_name: string; column_name: string; data_type: string }>(
      `SELECT table_name, column_name, data_type FROM information_schema.columns
       WHERE table_schema = current_schema() AND table_name = ANY($1::text[]) AND (data_type = 'jsonb' OR (table_name = $2 AND column_name = 'version' AND data_type = 'integer'))`,
      [[this.events, this.snapshots], this.snapshots],
    );
    for (const table of [this.events, this.snapshots]) {
      const changes = old.rows.filter((c) => c.table_name === table).map((c) => (c.data_type === 'jsonb' ? `ALTER COLUMN ${c.column_name} TYPE text USING ${c.column_name}::text` : `ALTER COLUMN ${c.column_name} TYPE bigint`));
      if (changes.length > 0) await client.query(`ALTER TABLE ${table} ${changes.join(', ')}`);
    }
  }

  /**
   * A trigger that announces each append on the table's channel ({@link channelOf}), with the
   * stream id as the payload: a statement trigger, so one notification per append however many
   * events it holds, sent when the append commits and never for one rolled back. A trigger, not
   * a NOTIFY in the append's statement, so that appends of every writer are heard, old releases
   * included, once the tables are set up by this one.
   */
  private async announceAppends(client: pg.PoolClient): Promise<void> {
    const name = `${this.events}_notify`;
    // Replaced on every setup, so that tables set up before an append announced itself after commit skip it.
    await client.query(`
      CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        channel text := TG_TABLE_NAME || '.' || TG_TABLE_SCHEMA;
        stream text;
      BEGIN
        IF current_setting('${ANNOUNCED_AFTER_COMMIT}', true) = 'on' THEN RETURN NULL; END IF;
        IF octet_length(channel) > 63 THEN channel := 'tot_' || md5(channel); END IF;
        FOR stream IN SELECT DISTINCT stream_id FROM appended LOOP
          PERFORM pg_notify(channel, stream);
        END LOOP;
        RETURN NULL;
      END $$`);
    const found = await client.query(`SELECT 1 FROM pg_trigger WHERE tgrelid = to_regclass($1) AND tgname = $2`, [this.events, name]);
    if (found.rows.length > 0) return;
    await client.query(`CREATE TRIGGER ${name} AFTER INSERT ON ${this.events} REFERENCING NEW TABLE AS appended FOR EACH STATEMENT EXECUTE FUNCTION ${name}()`);
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
    const a = prepareAppend(streamId, events, options, this.maxEventBytes, 'PostgresEventStore.append', 'now');
    const signal = a.signal;
    if (signal?.aborted) throw abortedError(signal, 'append');
    const client = await this.checkout(signal, 'append');
    const state: WriteState = { aborted: false, committing: false, done: false };
    if (!signal) return this.write(client, a, state);
    // An abort settles the append at once with nothing written: COMMIT is never sent, the
    // statement running is cancelled on the server, and the connection is dropped. Once COMMIT
    // is sent the append finishes instead (a commit takes a round trip).
    return new Promise<AppendResult>((resolve, reject) => {
      const stop = whenAborted(signal, () => {
        if (state.committing || state.done) return;
        state.aborted = true;
        state.cancelled = this.cancelStatement(client);
        reject(abortedError(signal, 'append'));
      });
      this.write(client, a, state).then(resolve, reject).finally(stop);
    });
  }

  private async write(client: pg.PoolClient, a: ReturnType<typeof prepareAppend>, state: WriteState): Promise<AppendResult> {
    let broken = false;
    // A connection lost mid-append errors both the query (handled below) and the client object.
    client.on('error', ignore);
    const commit = async () => {
      // No await between the check and the flag: an abort comes before both or after both.
      if (state.aborted) throw abortedError(a.signal, 'append');
      state.committing = true;
      await client.query('COMMIT');
    };
    // After the append's COMMIT, in the same round trip: an announcement in a transaction of its
    // own, which writes nothing and so waits for no WAL flush.
    // Unknown (the table not found), the append leaves its announcement to the table's trigger.
    const channel = await this.tableChannel(client).then(
      (c) => c.name,
      () => undefined,
    );
    const commitAndAnnounce = async () => {
      if (state.aborted) throw abortedError(a.signal, 'append');
      state.committing = true;
      await client.query(`COMMIT; ${this.announcement(channel!, a.streamId)}`);
    };
    try {
      // The signal may have fired while the connection was being handed over.
      if (state.aborted) throw abortedError(a.signal, 'append');
      // Without a signal nothing can stop the append, and COMMIT goes in the insert's round trip,
      // the only one when the stream is where the caller expects it. With a signal, COMMIT waits
      // for a round trip of its own, so that an abort until then leaves nothing written.
      const commitNow = a.signal === undefined;
      const written = await this.insert(client, a, commitNow, channel);
      if (written) {
        if (!commitNow) await (channel === undefined ? commit() : commitAndAnnounce());
        return written;
      }
      // Nothing written: a retry of stored keys, or a stream elsewhere than expected, checked
      // under the locks (taken again if the insert's transaction is over).
      if (commitNow) await client.query(`BEGIN; ${this.appendLocks(a.streamId)}`);
      const check = await client.query<{ v: number | null; known: boolean }>(
        `SELECT (SELECT MAX(version) FROM ${this.events} WHERE stream_id = $1) AS v, EXISTS (SELECT 1 FROM ${this.events} WHERE idempotency_key = ANY($2::text[])) AS known`,
        [a.streamId, a.events.map((p) => p.event.idempotencyKey)],
      );
      if (check.rows[0]!.known) {
        const stored = await this.storedByKeys(client, a.events);
        await commit();
        return stored!;
      }
      throw versionConflict(a.streamId, a.expectedVersion, check.rows[0]?.v ?? null);
    } catch (error) {
      // Aborted: the caller has its answer; the connection is dropped below, which rolls back.
      if (state.aborted) throw abortedError(a.signal, 'append');
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      const constraint = (error as { constraint?: string }).constraint;
      if (constraint === `${this.events}_stream_version`) {
        const now = await this.streamVersion(a.streamId).catch(() => null);
        throw versionConflict(a.streamId, a.expectedVersion, now);
      }
      if (constraint === `${this.events}_idempotency_key`) {
        // A concurrent append stored the same keys first: answer as a retry would be answered.
        const retried = await this.storedByKeys(this.pool, a.events).catch((retryError: unknown) => {
          throw databaseError(retryError, 'PostgresEventStore.append');
        });
        if (retried) return retried;
      }
      if (constraint === `${this.events}_event_id`) {
        const ids = a.events.flatMap((p) => (p.event.eventId === undefined ? [] : [p.event.eventId]));
        const stored = await this.pool.query<{ event_id: string }>(`SELECT event_id FROM ${this.events} WHERE event_id = ANY($1::text[])`, [ids]).catch(() => undefined);
        const taken = a.events.find((p) => stored?.rows.some((r) => r.event_id === p.event.eventId));
        if (taken) throw eventIdTaken('PostgresEventStore.append', taken, error);
      }
      throw databaseError(error, 'PostgresEventStore.append');
    } finally {
      // The abort handler must not cancel a statement of whoever uses the connection next.
      state.done = true;
      await state.cancelled;
      client.off('error', ignore);
      client.release(broken || state.aborted);
    }
  }

  /**
   * The statement that announces an append of `streamId` on `channel` (the trigger's channel, the
   * stream id as payload), sent after the append's COMMIT in the same round trip rather than in one
   * of its own, which every single append would wait for. With `storedEventId`, only if that event
   * is stored: an INSERT that wrote nothing (a conflict) sends nothing. Should it fail (a full
   * notification queue), the append is committed but reported failed; a retry with the same
   * idempotency keys answers with what was stored.
   */
  private announcement(channel: string, streamId: string, storedEventId?: string): string {
    const stored = storedEventId === undefined ? '' : ` WHERE EXISTS (SELECT 1 FROM ${this.events} WHERE event_id = ${sqlLiteral(storedEventId)})`;
    return `SELECT pg_notify(${sqlLiteral(channel)}, ${sqlLiteral(streamId)})${stored}`;
  }

  /** A pool connection; gives up the wait when `signal` aborts (the connection, when it comes, goes back unused). */
  private async checkout(signal: AbortSignal | undefined, where: string): Promise<pg.PoolClient> {
    const connecting = this.pool.connect();
    try {
      return await raceAbort(connecting, signal, where);
    } catch (error) {
      if (signal?.aborted) connecting.then((client) => client.release(), ignore);
      throw databaseError(error, `PostgresEventStore.${where}`);
    }
  }

  /**
   * Cancels the statement `client` is running (`pg_cancel_backend`), from a connection of its own:
   * the pool's may all be taken. The server stops at once and frees the append lock. Never
   * rejects: if the cancel cannot be sent, dropping the connection still rolls the transaction
   * back, once the server finishes the statement.
   */
  private async cancelStatement(client: pg.PoolClient): Promise<void> {
    const pid = (client as unknown as { processID?: unknown }).processID;
    if (typeof pid !== 'number') return;
    const canceller = new pg.Client({ ...this.pool.options, connectionTimeoutMillis: 5_000 } as pg.ClientConfig);
    canceller.on('error', ignore);
    try {
      await canceller.connect();
      await canceller.query('SELECT pg_cancel_backend($1)', [pid]);
    } catch {
      // Best effort, as said above.
    } finally {
      await canceller.end().catch(ignore);
    }
  }

  private async storedByKeys(client: pg.ClientBase | pg.Pool, batch: PreparedEvent[]): Promise<AppendResult | undefined> {
    const keys = batch.map((p) => p.event.idempotencyKey);
    const result = await client.query<Row>(`SELECT ${COLUMNS} FROM ${this.events} WHERE idempotency_key = ANY($1::text[])`, [keys]);
    if (result.rows.length === 0) return undefined;
    const byKey = new Map(result.rows.map((r) => [r.idempotency_key, r]));
    const found = batch.map((p) => byKey.get(p.event.idempotencyKey));
    const events = matchRetriedBatch(batch, found, (row, p) => row.payload === digest(p.payload)).map(toEvent);
    const version = await client.query<{ v: number }>(`SELECT MAX(version) AS v FROM ${this.events} WHERE stream_id = $1`, [events[0]!.streamId]);
    return { events, nextExpectedVersion: version.rows[0]!.v, deduplicated: true };
  }

  /**
   * The locks an append holds until it commits: the table's append lock shared, which a page of
   * `readAll` takes exclusive to wait for the appends under way, then the stream's own, so that
   * appends to one stream take turns. One lock for the whole table held this way serialised
   * every append of every process on one WAL flush at a time (about 4 ms on a plain disk: some
   * 230 appends a second, whatever the number of workers). Shared first, always: a page waiting
   * for the table lock lets no new append in, and none may then hold a stream lock it waits for.
   */
  private appendLocks(streamId: string): string {
    return `SELECT pg_advisory_xact_lock_shared(${this.lock}); SELECT pg_advisory_xact_lock(${this.streamLock}, ${lockKey32(streamId)});`;
  }

  /**
   * Begins the append's transaction, takes the append locks and inserts the batch, in one round
   * trip: an INSERT that reads the stream's last version under the locks and writes nothing when
   * it is not the one expected. Returns undefined when it wrote nothing. Commits in the same round
   * trip when `commitNow`, else leaves that to the caller.
   *
   * One simple-protocol query, so the values are literals: escaped (sqlLiteral), or numbers the
   * store checked or made. (The extended protocol takes one statement per round trip: begin and lock,
   * check, insert and commit took four, and a single append three times as long as a raw INSERT.)
   */
  private async insert(client: pg.ClientBase, a: ReturnType<typeof prepareAppend>, commitNow: boolean, channel: string | undefined): Promise<AppendResult | undefined> {
    const { streamId, events: batch } = a;
    const block = new TimeOrderedIds(batch.length);
    const ids = batch.map((p, i) => p.event.eventId ?? block.at(i));
    const parentIds = batch.map((p) => (p.event.parentIds ? JSON.stringify(p.event.parentIds) : '[]'));
    const clocks = batch.map((p) => (p.event.clock ? JSON.stringify(p.event.clock) : '{}'));
    const rows = batch.map((p, i) => {
      const e = p.event;
      return `(${sqlLiteral(ids[i]!)}, ${i}, ${sqlLiteral(e.type)}, ${sqlLiteral(p.dataJson)}, ${sqlLiteral(e.idempotencyKey)}, '${digest(p.payload)}', ${sqlLiteral(parentIds[i]!)}, ${sqlLiteral(clocks[i]!)}, ${sqlLiteral(p.metadataJson)})`;
    });
    const stream = sqlLiteral(streamId);
    // Only positions and versions come back: the rest is known here, and every row's recorded_at
    // is the transaction's now() (returned per row, it took a sixth of a batched append).
    const results = (await client.query(
      `BEGIN; ${this.appendLocks(streamId)} SELECT set_config('${ANNOUNCED_AFTER_COMMIT}', '${channel === undefined ? 'off' : 'on'}', true), ${isoTime('now()')} AS at;
       INSERT INTO ${this.events} (event_id, stream_id, version, type, data, idempotency_key, payload, parent_ids, clock, metadata)
       SELECT r.event_id, ${stream}, COALESCE(last.v, -1) + 1 + r.i, r.type, r.data, r.idempotency_key, r.payload, r.parent_ids, r.clock, r.metadata
       FROM (SELECT MAX(version) AS v FROM ${this.events} WHERE stream_id = ${stream}) AS last,
         (VALUES ${rows.join(', ')}) AS r(event_id, i, type, data, idempotency_key, payload, parent_ids, clock, metadata)
       WHERE ${expectedCondition(a.expectedVersion)}
       RETURNING global_position, version${!commitNow ? '' : channel === undefined ? '; COMMIT' : `; COMMIT; ${this.announcement(channel, streamId, ids[0]!)}`}`,
    )) as unknown as [unknown, unknown, unknown, pg.QueryResult<{ at: string }>, pg.QueryResult<{ global_position: string; version: number }>];
    const inserted = results[4].rows;
    if (inserted.length === 0) return undefined;
    const recordedAt = results[3].rows[0]!.at;
    const first = extent(inserted, (r) => r.version).min;
    const byVersion = new Map(inserted.map((r) => [r.version, r]));
    // Built when asked for, from the texts sent: most callers only want the next version.
    const written = () =>
      batch.map((p, i): StoredEvent => {
        const row = byVersion.get(first + i)!;
        return eventFromRow({
          global_position: row.global_position,
          event_id: ids[i]!,
          stream_id: streamId,
          version: row.version,
          type: p.event.type,
          data: p.dataJson,
          idempotency_key: p.event.idempotencyKey,
          parent_ids: parentIds[i]!,
          clock: clocks[i]!,
          metadata: p.metadataJson,
          recorded_at: recordedAt,
        });
      });
    return lazyAppendResult(written, first + batch.length - 1);
  }

  /**
   * See {@link EventStore.readStream}.
   *
   * @example
   * ```ts
   * for await (const e of store.readStream('run-1')) console.log(e.version, e.type);
   * ```
   */
  async *readStream(streamId: string, options?: ReadStreamOptions): AsyncIterable<StoredEvent> {
    this.open('readStream');
    const o = parseReadStream(streamId, options, 'PostgresEventStore.readStream');
    // Versions are 32-bit here: a version past that is past every stream's end.
    if (o.fromVersion > MAX_VERSION) return;
    let from = o.fromVersion;
    let left = o.limit ?? Number.POSITIVE_INFINITY;
    const to = Math.min(o.toVersion ?? MAX_VERSION, MAX_VERSION);
    while (left > 0) {
      this.open('readStream');
      const page = Math.min(PAGE, left);
      const rows = await this.page(`SELECT ${READ_COLUMNS} FROM ${this.events} WHERE stream_id = ${sqlLiteral(o.streamId)} AND version >= ${from} AND version <= ${to} ORDER BY version LIMIT ${page}`, 'readStream');
      for (const row of rows) yield toEvent(row);
      if (rows.length < page) return;
      left -= rows.length;
      from = rows.at(-1)!.version + 1;
    }
  }

  /**
   * See {@link EventStore.readAll}.
   *
   * @example
   * ```ts
   * for await (const e of store.readAll({ after: lastSeen })) handle(e);
   * ```
   */
  async *readAll(options?: ReadAllOptions): AsyncIterable<StoredEvent> {
    this.open('readAll');
    const o = parseReadAll(options, 'PostgresEventStore.readAll');
    // Positions are 64-bit here: nothing comes after the largest.
    if (o.after !== undefined && o.after >= MAX_POSITION) return;
    let after = o.after ?? 0n;
    let left = o.limit ?? Number.POSITIVE_INFINITY;
    while (left > 0) {
      this.open('readAll');
      const page = Math.min(PAGE, left);
      // Under the append lock, exclusive: the appends under way commit first, and the page sees
      // every position they took (one that commits late holds a position below later ones).
      const rows = await this.page(`SELECT ${READ_COLUMNS} FROM ${this.events} WHERE global_position > ${after} ORDER BY global_position LIMIT ${page}`, 'readAll', `SELECT pg_advisory_xact_lock(${this.lock}); `);
      for (const row of rows) yield toEvent(row);
      if (rows.length < page) return;
      left -= rows.length;
      after = BigInt(rows.at(-1)!.global_position);
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
    const id = parseStreamId(streamId, 'PostgresEventStore.streamVersion');
    const result = await this.query<{ v: number | null }>(`SELECT MAX(version) AS v FROM ${this.events} WHERE stream_id = $1`, [id], 'streamVersion');
    return result.rows[0]?.v ?? null;
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
    const s = prepareSnapshot(snapshot, this.maxSnapshotBytes, 'PostgresEventStore.saveSnapshot');
    await this.query(
      `INSERT INTO ${this.snapshots} (stream_id, version, state, metadata) VALUES ($1, $2, $3, $4) ON CONFLICT (stream_id, version) DO UPDATE SET state = EXCLUDED.state, metadata = EXCLUDED.metadata, saved_at = now()`,
      [s.streamId, s.version, s.stateJson, s.metadataJson ?? null],
      'saveSnapshot',
    );
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
    const id = parseStreamId(streamId, 'PostgresEventStore.loadSnapshot');
    // version is a bigint column: pg reads it as a string.
    const result = await this.query<{ stream_id: string; version: string; state: string; metadata: string | null }>(
      `SELECT stream_id, version, state, metadata FROM ${this.snapshots} WHERE stream_id = $1 ORDER BY version DESC LIMIT 1`,
      [id],
      'loadSnapshot',
    );
    const row = result.rows[0];
    if (!row) return null;
    try {
      return loadedSnapshot(row.stream_id, Number(row.version), row.state, row.metadata);
    } catch (error) {
      throw new TotError('ILLEGAL_STATE', `PostgresEventStore.loadSnapshot: the snapshot of "${id}" at version ${row.version} is not valid JSON: ${(error as Error).message}`, { cause: error });
    }
  }

  /**
   * The events of `streamId` from `fromVersion` on, then each event appended to it, as it is
   * recorded: heard through PostgreSQL's `LISTEN/NOTIFY` (every append announces its stream on
   * commit), not by asking the table again and again. Appends by any process that writes to these
   * tables are heard. One connection of the store listens for all its followers; when it is lost
   * (a restarted server, a terminated backend) it is opened again and each follower reads the
   * stream, since notifications sent meanwhile are lost. The iteration goes on until `signal`
   * aborts (it rejects with `ABORTED`), the caller stops it (`break`), or the store closes (it
   * ends). A stream that does not exist yet is followed too: its events come once it is written.
   *
   * Fails with `ILLEGAL_STATE` when the tables were set up by a release that did not announce
   * appends: call `setup()` again (it adds the trigger that does).
   *
   * @example
   * ```ts
   * const controller = new AbortController();
   * for await (const e of store.follow('run-1', { signal: controller.signal })) {
   *   console.log(e.version, e.type);
   *   if (e.type === 'run.finished') break;
   * }
   * ```
   */
  async *follow(streamId: string, options?: FollowOptions): AsyncIterable<StoredEvent> {
    this.open('follow');
    const id = parseStreamId(streamId, 'PostgresEventStore.follow');
    const o = parseOptions(followSchema, options, 'PostgresEventStore.follow') ?? {};
    const signal = o.signal;
    if (signal?.aborted) throw abortedError(signal, 'follow of the stream');
    let channel: string;
    try {
      // A query pending when the pool ends never settles: closing the store must not leave the follower waiting on one.
      channel = await raceAbort(raceAbort(this.announcedChannel(), signal, 'follow of the stream'), this.closing.signal);
    } catch (error) {
      // The store closing under a follower ends it, as it does one waiting below.
      if (this.closed && !signal?.aborted) return;
      throw error;
    }
    let next = o.fromVersion ?? 0;
    // Whether to read the stream again: set by a notification of this stream, by a reconnection
    // (which may have lost some) and by the LISTEN taking effect (what came before it is read then).
    let stale = true;
    let wake: (() => void) | undefined;
    const rouse = () => {
      stale = true;
      wake?.();
    };
    const unlisten = this.listenerOf().listen(channel, (payload) => (payload === undefined || payload === id ? rouse() : undefined), rouse);
    const stopClosing = whenAborted(this.closing.signal, rouse);
    try {
      for (;;) {
        if (!stale) {
          await raceAbort(
            new Promise<void>((resolve) => {
              wake = resolve;
              if (stale) resolve();
            }),
            signal,
            'follow of the stream',
          );
          wake = undefined;
        }
        if (this.closed) return;
        stale = false;
        const events = this.readStream(id, { fromVersion: next })[Symbol.asyncIterator]();
        for (;;) {
          let read: IteratorResult<StoredEvent>;
          try {
            read = await raceAbort(events.next(), this.closing.signal);
          } catch (error) {
            if (this.closed) return;
            throw error;
          }
          if (read.done) break;
          next = read.value.version + 1;
          yield read.value;
          if (signal?.aborted) throw abortedError(signal, 'follow of the stream');
        }
      }
    } finally {
      unlisten();
      stopClosing();
    }
  }

  /** The store's LISTEN connection, opened with the pool's settings; its losses are not errors: it connects again. */
  private listenerOf(): NotificationListener {
    this.listener ??= new NotificationListener(this.pool.options as pg.ClientConfig, ignore, this.closing.signal, 'tot-event-store-listener');
    return this.listener;
  }

  /**
   * The channel appends to the table are announced on, as the trigger names it: the table's name
   * and schema (so stores of two schemas or prefixes in one database do not hear each other),
   * hashed when longer than a channel name may be; and whether the trigger is there. Looked up once
   * per store; not kept when the table is missing (setup() may come between). Whether the trigger
   * is there matters to followers only, who look again when it was not ({@link announcedChannel}).
   */
  private tableChannel(client?: pg.ClientBase): Promise<TableChannel> {
    this.channel ??= (async () => {
      const text = `SELECT c.relname AS table, n.nspname AS schema, EXISTS (SELECT 1 FROM pg_trigger t WHERE t.tgrelid = c.oid AND t.tgname = $2) AS announced
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass($1)`;
      const values = [this.events, `${this.events}_notify`];
      // An append asks on the connection it holds: the pool may have no other to give.
      type Row = { table: string | null; schema: string | null; announced: boolean };
      const found = client ? await client.query<Row>(text, values) : await this.query<Row>(text, values, 'follow');
      const row = found.rows[0];
      if (!row) throw new TotError('ILLEGAL_STATE', `PostgresEventStore.follow: the store's tables do not exist; call setup() first.`);
      const channel = `${row.table}.${row.schema}`;
      return { name: Buffer.byteLength(channel) > 63 ? `tot_${nodeCrypto.createHash('md5').update(channel).digest('hex')}` : channel, announced: row.announced, table: `${row.schema}.${row.table}` };
    })();
    const looked = this.channel;
    looked.catch(() => (this.channel === looked ? (this.channel = undefined) : undefined));
    return looked;
  }

  /** The channel a follower listens on; fails when the table does not announce its appends. */
  private async announcedChannel(): Promise<string> {
    let c = await this.tableChannel();
    if (!c.announced) {
      // The trigger may have come since the look-up (setup() of this release): looked for again.
      this.channel = undefined;
      c = await this.tableChannel();
    }
    if (!c.announced) throw new TotError('ILLEGAL_STATE', `PostgresEventStore.follow: the table ${c.table} does not announce its appends (it was set up by an earlier release); call setup() again to add the trigger that does.`);
    return c.name;
  }

  /**
   * Ends the pool (when the store created it). Later calls fail with `ILLEGAL_STATE`.
   *
   * @example
   * ```ts
   * await store.close();
   * ```
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.closing.abort();
    await this.listener?.close();
    if (this.owned) await this.pool.end().catch((error: unknown) => {
      throw databaseError(error, 'PostgresEventStore.close');
    });
  }

  /**
   * One page of a read: `select` (every value in it a literal the store checked or escaped) after
   * `lock` and {@link INDEX_RANGE_SCAN}, in one simple-protocol query: one round trip, one implicit
   * transaction, so the settings and the lock end with it.
   */
  private async page(select: string, where: string, lock = ''): Promise<Row[]> {
    try {
      const results = (await this.pool.query<Row>(`${lock}${INDEX_RANGE_SCAN}${select}`)) as unknown as pg.QueryResult<Row>[];
      return results.at(-1)!.rows;
    } catch (error) {
      throw databaseError(error, `PostgresEventStore.${where}`);
    }
  }

  private async query<R extends pg.QueryResultRow>(text: string, values: unknown[], where: string): Promise<pg.QueryResult<R>> {
    try {
      return await this.pool.query<R>(text, values);
    } catch (error) {
      throw databaseError(error, `PostgresEventStore.${where}`);
    }
  }

  private open(where: string): void {
    if (this.closed) throw closedError(`PostgresEventStore.${where}`);
  }
}
