import pg from 'pg';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { TotError } from '../errors/index.js';
import type { AppendOptions, AppendResult, EventStore, NewEvent, ReadAllOptions, ReadStreamOptions, Snapshot, StoredEvent } from '../events/store/types.js';
import {
  closedError,
  DEFAULT_MAX_EVENT_BYTES,
  matchRetriedBatch,
  parseReadAll,
  parseReadStream,
  parseSnapshot,
  parseStreamId,
  prepareAppend,
  versionConflict,
  versionMatches,
  type PreparedEvent,
} from '../events/store/validate-append.js';
import { TimeOrderedIds } from '../events/store/event-ids.js';
import { abortedError } from '../internal/abort.js';
import { parseOptions } from '../internal/validate.js';

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
  /** Largest event (JSON of data + metadata), in bytes. Default 1 MiB. */
  maxEventBytes?: number;
}

const optionsSchema = z
  .object({
    pool: z.custom<pg.Pool>((v) => typeof v === 'object' && v !== null && typeof (v as pg.Pool).connect === 'function', 'expected a pg Pool').optional(),
    connectionString: z.string().min(1).optional(),
    tablePrefix: z.string().regex(/^[a-z_][a-z0-9_]*$/, 'expected a lower-case SQL identifier prefix').default('tot_'),
    maxEventBytes: z.number().int().positive().default(DEFAULT_MAX_EVENT_BYTES),
  })
  .refine((o) => (o.pool === undefined) !== (o.connectionString === undefined), { message: 'give exactly one of pool or connectionString', path: ['pool'] });

interface Row {
  global_position: string;
  event_id: string;
  stream_id: string;
  version: number;
  type: string;
  data: unknown;
  idempotency_key: string;
  payload: string;
  parent_ids: string[];
  clock: Record<string, number>;
  metadata: Record<string, unknown>;
  recorded_at: Date;
}

const PAGE = 500;
/** Rows keep a digest of the payload an idempotent retry is compared on, not the payload itself. */
const digest = (payload: string) => createHash('sha256').update(payload).digest('base64');
const ignore = () => undefined;
const COLUMNS = 'global_position, event_id, stream_id, version, type, data, idempotency_key, payload, parent_ids, clock, metadata, recorded_at';

function toEvent(row: Row): StoredEvent {
  return {
    eventId: row.event_id,
    streamId: row.stream_id,
    version: row.version,
    globalPosition: BigInt(row.global_position),
    type: row.type,
    data: row.data,
    idempotencyKey: row.idempotency_key,
    parentIds: row.parent_ids,
    clock: row.clock,
    metadata: row.metadata,
    recordedAt: row.recorded_at.toISOString(),
  };
}

/** A 63-bit key for the append lock, derived from the table name. */
function lockKey(table: string): string {
  let h = 1469598103934665603n;
  for (const ch of table) h = BigInt.asUintN(63, (h ^ BigInt(ch.charCodeAt(0))) * 1099511628211n);
  return h.toString();
}

function databaseError(error: unknown, what: string): TotError {
  if (TotError.isInstance(error)) return error;
  return new TotError('ILLEGAL_STATE', `${what}: ${(error as Error).message}`, { cause: error, recoverable: true });
}

/**
 * An {@link EventStore} on PostgreSQL (`pg`, an optional peer dependency): the store that lets
 * several service instances share runs.
 *
 * Versions come from the events (unique `(stream_id, version)`): a conflicting write fails on the
 * constraint and becomes `EXPECTED_VERSION_CONFLICT`; a concurrent duplicate idempotency key fails
 * on its unique constraint and becomes "return the stored events". Appends take a
 * transaction-scoped advisory lock, so global positions are assigned in commit order and
 * `readAll` can never skip an event of a transaction that commits late. Call `setup()` once
 * (it is idempotent) before use.
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
  private readonly maxEventBytes: number;
  private closed = false;

  constructor(options: PostgresEventStoreOptions) {
    const o = parseOptions(optionsSchema, options, 'PostgresEventStore');
    this.owned = o.pool === undefined;
    this.pool = o.pool ?? new pg.Pool({ connectionString: o.connectionString! });
    // An idle client that loses its server must not crash the host process.
    if (this.owned) this.pool.on('error', () => undefined);
    this.events = `${o.tablePrefix}events`;
    this.snapshots = `${o.tablePrefix}snapshots`;
    this.lock = lockKey(this.events);
    this.maxEventBytes = o.maxEventBytes;
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
    const client = await this.pool.connect();
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
          data JSONB NOT NULL,
          idempotency_key TEXT NOT NULL,
          payload TEXT NOT NULL,
          parent_ids JSONB NOT NULL,
          clock JSONB NOT NULL,
          metadata JSONB NOT NULL,
          recorded_at TIMESTAMPTZ NOT NULL DEFAULT now(),
          CONSTRAINT ${this.events}_stream_version UNIQUE (stream_id, version),
          CONSTRAINT ${this.events}_idempotency_key UNIQUE (idempotency_key),
          CONSTRAINT ${this.events}_event_id UNIQUE (event_id)
        )`);
      await client.query(`
        CREATE TABLE IF NOT EXISTS ${this.snapshots} (
          stream_id TEXT NOT NULL,
          version INTEGER NOT NULL,
          state JSONB NOT NULL,
          metadata JSONB,
          saved_at TIMESTAMPTZ NOT NULL DEFAULT now(),
          PRIMARY KEY (stream_id, version)
        )`);
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
    if (a.signal?.aborted) throw abortedError(a.signal, 'append');
    const client = await this.pool.connect().catch((error: unknown) => {
      throw databaseError(error, 'PostgresEventStore.append');
    });
    let broken = false;
    // A connection lost mid-append errors both the query (handled below) and the client object.
    client.on('error', ignore);
    try {
      // Four round trips: begin and lock, check, insert, commit. The lock key is a number we made.
      await client.query(`BEGIN; SELECT pg_advisory_xact_lock(${this.lock})`);
      const check = await client.query<{ v: number | null; known: boolean }>(
        `SELECT (SELECT MAX(version) FROM ${this.events} WHERE stream_id = $1) AS v, EXISTS (SELECT 1 FROM ${this.events} WHERE idempotency_key = ANY($2::text[])) AS known`,
        [a.streamId, a.events.map((p) => p.event.idempotencyKey)],
      );
      if (check.rows[0]!.known) {
        const stored = await this.storedByKeys(client, a.events);
        await client.query('COMMIT');
        return stored!;
      }
      const actual = check.rows[0]?.v ?? null;
      if (!versionMatches(a.expectedVersion, actual)) throw versionConflict(a.streamId, a.expectedVersion, actual);
      const written = await this.insert(client, a.streamId, a.events, actual ?? -1);
      await client.query('COMMIT');
      return { events: written, nextExpectedVersion: written.at(-1)!.version, deduplicated: false };
    } catch (error) {
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
        const retried = await this.storedByKeys(this.pool, a.events);
        if (retried) return retried;
      }
      if (constraint === `${this.events}_event_id`) {
        throw new TotError('INVALID_ARGUMENT', `PostgresEventStore.append: an eventId of the batch is already used by another event`, { cause: error, details: { field: 'events' } });
      }
      throw databaseError(error, 'PostgresEventStore.append');
    } finally {
      client.off('error', ignore);
      client.release(broken);
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

  private async insert(client: pg.ClientBase, streamId: string, batch: PreparedEvent[], last: number): Promise<StoredEvent[]> {
    // One array parameter per column (unnest) instead of ten parameters per row, and only the
    // columns the database decides come back: the rest is already known here.
    const block = new TimeOrderedIds(batch.length);
    const ids = batch.map((p, i) => p.event.eventId ?? block.at(i));
    const result = await client.query<{ global_position: string; version: number; recorded_at: Date }>(
      `INSERT INTO ${this.events} (event_id, stream_id, version, type, data, idempotency_key, payload, parent_ids, clock, metadata)
       SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::jsonb[], $6::text[], $7::text[], $8::jsonb[], $9::jsonb[], $10::jsonb[])
       RETURNING global_position, version, recorded_at`,
      [
        ids,
        batch.map(() => streamId),
        batch.map((_, i) => last + 1 + i),
        batch.map((p) => p.event.type),
        batch.map((p) => p.dataJson),
        batch.map((p) => p.event.idempotencyKey),
        batch.map((p) => digest(p.payload)),
        batch.map((p) => JSON.stringify(p.event.parentIds ?? [])),
        batch.map((p) => JSON.stringify(p.event.clock ?? {})),
        batch.map((p) => p.metadataJson),
      ],
    );
    const byVersion = new Map(result.rows.map((r) => [r.version, r]));
    return batch.map((p, i) => {
      const row = byVersion.get(last + 1 + i)!;
      return {
        eventId: ids[i]!,
        streamId,
        version: row.version,
        globalPosition: BigInt(row.global_position),
        type: p.event.type,
        data: JSON.parse(p.dataJson) as unknown,
        idempotencyKey: p.event.idempotencyKey,
        parentIds: [...(p.event.parentIds ?? [])],
        clock: { ...p.event.clock },
        metadata: p.event.metadata === undefined ? {} : (JSON.parse(p.metadataJson) as Record<string, unknown>),
        recordedAt: row.recorded_at.toISOString(),
      };
    });
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
    let from = o.fromVersion;
    let left = o.limit ?? Number.POSITIVE_INFINITY;
    const to = o.toVersion ?? 2_147_483_647;
    while (left > 0) {
      this.open('readStream');
      const page = Math.min(PAGE, left);
      const result = await this.query<Row>(`SELECT ${COLUMNS} FROM ${this.events} WHERE stream_id = $1 AND version >= $2 AND version <= $3 ORDER BY version LIMIT $4`, [o.streamId, from, to, page], 'readStream');
      for (const row of result.rows) yield toEvent(row);
      if (result.rows.length < page) return;
      left -= result.rows.length;
      from = result.rows.at(-1)!.version + 1;
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
    let after = o.after === undefined || o.after < 0n ? 0n : o.after;
    let left = o.limit ?? Number.POSITIVE_INFINITY;
    while (left > 0) {
      this.open('readAll');
      const page = Math.min(PAGE, left);
      const result = await this.query<Row>(`SELECT ${COLUMNS} FROM ${this.events} WHERE global_position > $1 ORDER BY global_position LIMIT $2`, [after.toString(), page], 'readAll');
      for (const row of result.rows) yield toEvent(row);
      if (result.rows.length < page) return;
      left -= result.rows.length;
      after = BigInt(result.rows.at(-1)!.global_position);
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
    const s = parseSnapshot(snapshot, 'PostgresEventStore.saveSnapshot');
    await this.query(
      `INSERT INTO ${this.snapshots} (stream_id, version, state, metadata) VALUES ($1, $2, $3::jsonb, $4::jsonb) ON CONFLICT (stream_id, version) DO UPDATE SET state = EXCLUDED.state, metadata = EXCLUDED.metadata, saved_at = now()`,
      [s.streamId, s.version, JSON.stringify(s.state), s.metadata === undefined ? null : JSON.stringify(s.metadata)],
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
    const result = await this.query<{ stream_id: string; version: number; state: unknown; metadata: Record<string, unknown> | null }>(
      `SELECT stream_id, version, state, metadata FROM ${this.snapshots} WHERE stream_id = $1 ORDER BY version DESC LIMIT 1`,
      [id],
      'loadSnapshot',
    );
    const row = result.rows[0];
    if (!row) return null;
    return { streamId: row.stream_id, version: row.version, state: row.state, ...(row.metadata === null ? {} : { metadata: row.metadata }) };
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
    if (this.owned) await this.pool.end();
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
