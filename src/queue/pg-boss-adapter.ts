// pg-boss 10, 11 and 12 behind the few calls the PostgreSQL queue makes. What differs:
// - 10 keeps settled jobs in a `job` table and moves them to an `archive` after 12 hours; 11 and 12
//   keep every job in `job` until it is deleted (7 days after it settled, pg-boss's default).
// - A job's expiry is `expire_in` (an interval) in 10, `expire_seconds` in 11 and 12.
// - 10 expires jobs with `expire()`; 11 and 12 do it in `supervise()`, at most once per
//   `monitorIntervalSeconds` for the whole fleet.
// - 12 (since 12.x added `touch()`) has a job heartbeat: a job whose heartbeat is older than its
//   `heartbeatSeconds` is offered again. Where a major has none, a worker's lease is the job's
//   expiry, renewed by moving its start forward.
// - 10 and 11 are CommonJS with a default export; 12 is ESM with a named `PgBoss`.
import { ANNOUNCE_KEY_BYTES, newAnnounceKey } from './sealed-announcement.js';

/** A fetched job, as `fetch({ includeMetadata: true })` gives it in every major. */
export interface FetchedJob<T> {
  id: string;
  data: T;
  retryCount: number;
}

/** The calls of a pg-boss instance the queue makes, as 10, 11 and 12 all spell them. */
interface Boss {
  start(): Promise<unknown>;
  stop(options: { graceful: boolean; close: boolean; wait: boolean }): Promise<void>;
  on(event: 'error', listener: (error: unknown) => void): unknown;
  getDb(): { executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }> };
  createQueue(name: string, options: object): Promise<void>;
  send(name: string, data: object, options: object): Promise<string | null>;
  fetch(name: string, options: { batchSize: number; includeMetadata: true }): Promise<FetchedJob<unknown>[] | null>;
  fail(name: string, id: string, data: object): Promise<unknown>;
  cancel(name: string, id: string): Promise<{ affected?: number } | undefined>;
  /** pg-boss 10. */
  expire?(): Promise<unknown>;
  /** pg-boss 11 and 12. */
  supervise?(): Promise<unknown>;
  /** pg-boss 12 with job heartbeats. */
  touch?(name: string, ids: string[]): Promise<unknown>;
}

/** What the queue needs to open pg-boss. */
export interface PgBossConfig {
  connectionString: string;
  schema: string;
  maxConnections: number;
  leaseSeconds: number;
  maxAttempts: number;
  onError: (error: unknown) => void;
}

/** pg-boss's longest job expiry (24 hours); a job's heartbeat, where there is one, bounds crash takeover instead. */
const LONGEST_EXPIRY_SECONDS = 24 * 60 * 60;
/** pg-boss 12 refuses a shorter heartbeat. */
const SHORTEST_HEARTBEAT_SECONDS = 10;

/**
 * How often a worker sweeps for runs whose lease passed: a third of a lease, and at least 1.5 s,
 * so that on 11 and 12 every sweep passes pg-boss's once-a-second monitor gate.
 */
export function sweepMs(leaseSeconds: number): number {
  return Math.max(Math.ceil((leaseSeconds * 1000) / 3), 1500);
}

/** PostgreSQL's code of a table that does not exist. */
const UNDEFINED_TABLE = '42P01';

/**
 * The schema's announcement key, made by the first process that opens the queue: a table of the
 * queue's own in pg-boss's schema (pg-boss leaves tables it does not know alone), one row.
 */
async function announceKey(db: ReturnType<Boss['getDb']>, schema: string): Promise<Buffer> {
  const table = `${schema}.tot_announce_key`;
  const read = async (): Promise<Buffer | undefined> => {
    const { rows } = await db.executeSql(`SELECT key FROM ${table} WHERE id = 1`);
    const key = (rows[0] as { key?: unknown } | undefined)?.key;
    if (key === undefined) return undefined;
    if (!Buffer.isBuffer(key) || key.length !== ANNOUNCE_KEY_BYTES) throw new Error(`${table} holds no key of ${ANNOUNCE_KEY_BYTES} bytes`);
    return key;
  };
  // Read first: a role that may use the schema's tables but not create one works once the key is there.
  try {
    const key = await read();
    if (key) return key;
  } catch (error) {
    if ((error as { code?: unknown }).code !== UNDEFINED_TABLE) throw error;
  }
  // Several processes opening a fresh schema at once: `CREATE TABLE IF NOT EXISTS` is not safe
  // against a concurrent one (PostgreSQL answers the loser "type … already exists", 42710, or a
  // unique violation, 23505). The statements run as one implicit transaction (a simple query of
  // several statements) under a lock of the table's own, so they take turns, and an error rolls
  // all of them back. Read committed whatever the database's default: under repeatable read the
  // snapshot is taken before the lock is granted, and a process that waited would fail to insert
  // beside a row it cannot see ("could not serialize access"). The key is hex, and the table's
  // name a checked identifier: both literals.
  const lockKey = `tot_announce_key:${schema}`;
  await db.executeSql(
    `SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
     SELECT pg_advisory_xact_lock(hashtext('${lockKey}'));
     CREATE TABLE IF NOT EXISTS ${table} (id int PRIMARY KEY CHECK (id = 1), key bytea NOT NULL);
     INSERT INTO ${table} (id, key) VALUES (1, decode('${newAnnounceKey().toString('hex')}', 'hex')) ON CONFLICT (id) DO NOTHING`,
  );
  const key = await read();
  if (!key) throw new Error(`${table} holds no key`);
  return key;
}

/** pg-boss as the queue drives it: the instance, which major it is, and the parts that differ. */
export class PgBossAdapter {
  private constructor(
    readonly boss: Boss,
    /** The key that seals the schema's settle announcements (sealed-announcement.ts). */
    readonly announceKey: Buffer,
    /** The major of the installed pg-boss. */
    readonly major: 10 | 11 | 12,
    /** Whether a worker's hold is a pg-boss job heartbeat (12 with `touch`, leases of 10 s or more) rather than the job's expiry. */
    readonly heartbeat: boolean,
    private readonly config: PgBossConfig,
  ) {}

  /** Imports pg-boss, starts an instance (installing or migrating its schema) and tells its major from it. */
  static async open(config: PgBossConfig): Promise<PgBossAdapter> {
    // A missing pg-boss fails with Node's own "Cannot find package", which `tot` turns into an install hint.
    const module = (await import('pg-boss')) as unknown as { PgBoss?: unknown; default?: unknown };
    const PgBossClass = (typeof module.PgBoss === 'function' ? module.PgBoss : module.default) as new (options: object) => Boss;
    const boss = new PgBossClass({
      connectionString: config.connectionString,
      schema: config.schema,
      max: config.maxConnections,
      // The queue's own sweep expires leases; pg-boss's background maintenance deletes old jobs
      // (and archives them, on 10). 11 and 12 expire in the monitor step of `supervise()`, which
      // runs at most once per monitorIntervalSeconds: once a second lets every sweep through.
      schedule: false,
      monitorIntervalSeconds: 1,
      application_name: 'tot-queue',
    });
    boss.on('error', config.onError);
    await boss.start();
    const major = typeof boss.expire === 'function' ? 10 : typeof module.PgBoss === 'function' ? 12 : 11;
    const heartbeat = typeof boss.touch === 'function' && config.leaseSeconds >= SHORTEST_HEARTBEAT_SECONDS;
    let key: Buffer;
    try {
      key = await announceKey(boss.getDb(), config.schema);
    } catch (error) {
      await boss.stop({ graceful: false, close: true, wait: true }).catch(() => undefined);
      throw error;
    }
    return new PgBossAdapter(boss, key, major, heartbeat, config);
  }

  /** The tables that hold a queue's jobs, live and settled. */
  get tables(): readonly string[] {
    return this.major === 10 ? ['job', 'archive'] : ['job'];
  }

  /** The retry and hold options of a run's job, for its queue and for each job sent. */
  jobOptions(): object {
    const retries = { retryLimit: this.config.maxAttempts - 1, retryDelay: 0 };
    return this.heartbeat
      ? { ...retries, heartbeatSeconds: this.config.leaseSeconds, expireInSeconds: LONGEST_EXPIRY_SECONDS }
      : { ...retries, expireInSeconds: this.config.leaseSeconds };
  }

  /** Renews this worker's hold on the jobs it drives: their ids by queue. */
  async renew(held: ReadonlyMap<string, string[]>): Promise<void> {
    if (this.heartbeat) {
      await Promise.all([...held].map(([name, ids]) => this.boss.touch!(name, ids)));
      return;
    }
    const names = [...held.keys()];
    const ids = [...held.values()].flat();
    // pg-boss expires a job whose start is older than its expiry: moving the start forward renews it.
    const expiry = this.major === 10 ? 'expire_in = make_interval(secs => $3)' : 'expire_seconds = $3';
    await this.boss
      .getDb()
      .executeSql(`UPDATE ${this.config.schema}.job SET started_on = now(), ${expiry} WHERE name = ANY($1::text[]) AND id = ANY($2::uuid[]) AND state = 'active'`, [names, ids, this.config.leaseSeconds]);
  }

  /** Offers again the jobs whose hold passed, in every queue of the schema (any worker may; pg-boss serialises it). */
  async sweep(): Promise<void> {
    await (this.major === 10 ? this.boss.expire!() : this.boss.supervise!());
  }

  /**
   * The statement that completes a job and announces it, in one round trip (pg-boss's `complete`
   * and a separate `pg_notify` took two): $1 queue, $2 run id, $3 output, $4 channel, $5 the
   * announcement. The update is pg-boss's own `complete` of one job (the same on 10, 11 and 12),
   * and the announcement goes only when it completed the job: not when the run was cancelled, or
   * failed or completed meanwhile.
   */
  completeSql(): string {
    return `WITH done AS (
        UPDATE ${this.config.schema}.job SET completed_on = now(), state = 'completed', output = $3::jsonb
        WHERE name = $1 AND id = $2::uuid AND state = 'active'
        RETURNING id
      )
      SELECT pg_notify($4, $5) FROM done`;
  }

  /**
   * The statement that queues a waiting run again with its answers, while it still waits where
   * they were checked ($1 queue, $2 run id, $3 log version, $4 answers); it returns the run's id
   * when it did. `started_on` is cleared so that fetching it counts no retry: a wait is no failed
   * attempt. On 10, a job pg-boss archived meanwhile goes back to the live table.
   */
  requeueSql(): string {
    const s = this.config.schema;
    const waitingHere = `name = $1 AND id = $2::uuid AND state = 'completed' AND output->>'status' = 'waiting' AND (output->>'logVersion')::bigint = $3`;
    const live = `UPDATE ${s}.job SET state = 'created', data = data || jsonb_build_object('answers', $4::jsonb), output = NULL, completed_on = NULL, started_on = NULL, start_after = now(), keep_until = greatest(keep_until, now() + interval '14 days')
          WHERE ${waitingHere} RETURNING id`;
    if (this.major !== 10) return live;
    const columns = 'id, name, priority, data, state, retry_limit, retry_count, retry_delay, retry_backoff, start_after, started_on, singleton_key, singleton_on, expire_in, created_on, completed_on, keep_until, dead_letter, policy, output';
    return `WITH archived AS (DELETE FROM ${s}.archive WHERE ${waitingHere} RETURNING ${columns}),
        moved AS (
          INSERT INTO ${s}.job (${columns})
          SELECT id, name, priority, data || jsonb_build_object('answers', $4::jsonb), 'created', retry_limit, retry_count, retry_delay, retry_backoff, now(), NULL, singleton_key, singleton_on, expire_in, created_on, NULL, now() + interval '14 days', dead_letter, policy, NULL
          FROM archived RETURNING id
        ),
        live AS (${live})
        SELECT id FROM moved UNION ALL SELECT id FROM live`;
  }
}
