/**
 * Event store speed, side by side, in one process: each of the library's stores against Emmett
 * (`@event-driven-io/emmett`, the leading TypeScript event-sourcing library: its in-memory, SQLite
 * and PostgreSQL stores) and against its raw driver doing the equivalent work (better-sqlite3,
 * pg). The contenders are interleaved: every round measures every workload for every contender,
 * in an order that rotates from round to round, and the figures are the medians over the rounds.
 *
 * Workloads:
 * - single appends: one event per append, the expected version given, to a new stream;
 * - batched appends: 100 events per append, likewise;
 * - read: a whole stream of 100,000 events (a recorded search run), in version order;
 * - replay (this library only): `replayRun` of that stream into its tree.
 *
 * The raw baselines use the store's own table (its DDL copied: the same columns and indexes) and
 * the same durability settings. An append is one transaction holding one INSERT of the same rows
 * (event id, stream, version, type, the data's JSON, key, timestamp); event ids are UUID version 7
 * (the `uuid` package), time-ordered like the store's: random ones (version 4) make every insert
 * touch a random page of the event id index, which took raw batched appends down to a third. A
 * read is a paged SELECT of the same rows ordered by version, with the data parsed from JSON. The
 * baselines check nothing: no expected version, no idempotency, no validation.
 *
 * Emmett's SQLite store runs on the `sqlite3` driver; it is given the same WAL mode and
 * `synchronous = NORMAL`. PostgreSQL is measured when TOT_POSTGRES_URL is set or a throwaway
 * cluster can be started (.ci/postgres); the benchmark makes a database of its own there (Emmett's
 * tables have fixed names) and drops it at the end. Autovacuum is off for the benchmark's tables,
 * so the reads first run on tables never analyzed (the state right after a bulk load), then again
 * after ANALYZE.
 *
 *   npm run bench:store                      every store
 *   npm run bench:store -- --rounds 3        fewer rounds
 *   npm run bench:store -- --only sqlite     one backend (memory, sqlite or postgres)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getInMemoryEventStore, STREAM_DOES_NOT_EXIST, type EventStore as EmmettStore } from '@event-driven-io/emmett';
import { getSQLiteEventStore, sqliteConnection } from '@event-driven-io/emmett-sqlite';
import { getPostgreSQLEventStore } from '@event-driven-io/emmett-postgresql';
import Database from 'better-sqlite3';
import pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { InMemoryEventStore, replayRun, type EventStore, type RunEventInput, type SearchEvent } from '../src/index.js';
import { PostgresEventStore } from '../src/postgres/index.js';
import { SqliteEventStore } from '../src/sqlite/index.js';
import { benchDir, gc, median, passRounds, pooled, report } from './harness.js';

const args = process.argv.slice(2);
const option = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? undefined : args[i + 1];
};
// 9 rounds, 3 in each pass of a whole run: a store's rates drift with the disk and the host from
// one half hour to the next, and 5 rounds (1 or 2 a pass) left 8 of the 27 rows outside the next
// run's ranges where chance alone puts 4.5; at 9 and 9 chance puts 0.8 there.
const ROUNDS = Number(option('rounds') ?? 9);
const ONLY = option('only');
const READ_EVENTS = 100_000;
const BATCH = 100;
/** A read stream is loaded in appends of this many events (untimed). */
const LOAD_BATCH = 1_000;
/** The page of the raw baselines' reads. */
const RAW_PAGE = 500;

type Workload = 'singles' | 'batched' | 'read';
const WORKLOADS: readonly Workload[] = ['singles', 'batched', 'read'];

/** How much each measurement does at most, per backend: a measurement also stops after `budgetMs`. */
interface Sizes {
  singles: number;
  batched: number;
  budgetMs: number;
}
const SIZES: Record<'memory' | 'sqlite' | 'postgres', Sizes> = {
  memory: { singles: 50_000, batched: 200_000, budgetMs: 1_000 },
  sqlite: { singles: 10_000, batched: 100_000, budgetMs: 1_000 },
  postgres: { singles: 2_000, batched: 50_000, budgetMs: 1_500 },
};

interface BenchEvent {
  type: string;
  data: Record<string, unknown>;
  key: string;
}

/** One way of storing events: an adapter from the benchmark's events to a store or a driver. */
interface Contender {
  readonly name: 'tot' | 'emmett' | 'raw';
  /** The events in the contender's own shape, built before the clock starts. */
  shape(events: readonly BenchEvent[]): unknown[];
  /** Appends shaped `events` to `stream`, whose last version is `last` (-1: no stream yet). */
  append(stream: string, events: unknown[], last: number): Promise<void>;
  /** Reads the whole stream in version order; returns how many events it read. */
  read(stream: string): Promise<number>;
  close(): Promise<void>;
}

const evaluated = (stream: string, i: number): BenchEvent => ({
  type: 'node.evaluated',
  data: { nodeId: `node_3_${i}`, evaluation: { score: i % 10, confidence: 0.8, reasoning: 'a short reason' } },
  key: `${stream}:${i}`,
});

/**
 * A synthetic recorded search of exactly `count` events: a wide tree, every node created and
 * evaluated. Typed as the search's own events, so a change of the log format fails to compile here.
 */
function runEvents(runId: string, count: number): SearchEvent[] {
  const events: SearchEvent[] = [];
  let seq = 0;
  const push = (e: RunEventInput<SearchEvent>) => events.push({ ...e, runId, seq: seq++, at: 0 } as SearchEvent);
  const searchConfig = { strategy: 'bfs', maxDepth: 3, branchingFactor: 100, pruningThreshold: 0 };
  push({ type: 'run.started', runner: 'search', problem: 'replay', config: {} });
  push({ type: 'search.started', taskId: runId, taskType: 'general', searchConfig, nodes: 0 });
  push({ type: 'node.created', node: { id: 'root', parentId: null, childrenIds: [], depth: 0, content: 'replay', evaluation: null, status: 'pending', metadata: {} } });
  const parents = ['root'];
  let n = 0;
  while (events.length < count - 1) {
    const parent = parents[Math.floor(n / 100)]!;
    const depth = parent === 'root' ? 1 : Number(parent.split('_')[1]) + 1;
    const id = `node_${depth}_${++n}`;
    push({ type: 'node.created', node: { id, parentId: parent, childrenIds: [], depth, content: `thought ${n}`, evaluation: null, status: 'pending', metadata: {} } });
    if (events.length < count - 1) push({ type: 'node.evaluated', nodeId: id, evaluation: { score: n % 10, confidence: 0.9, reasoning: 'r' } });
    parents.push(id);
  }
  push({ type: 'run.finished', stopReason: 'max_depth', stats: {}, errors: [] });
  return events;
}

// ---------------------------------------------------------------------------------------------
// Contenders

function tot(store: EventStore): Contender & { store: EventStore } {
  return {
    name: 'tot',
    store,
    shape: (events) => events.map((e) => ({ type: e.type, data: e.data, idempotencyKey: e.key })),
    async append(stream, events, last) {
      await store.append(stream, events as never, { expectedVersion: last < 0 ? 'no_stream' : last });
    },
    async read(stream) {
      let n = 0;
      for await (const _ of store.readStream(stream)) n++;
      return n;
    },
    close: () => store.close(),
  };
}

function emmett(store: EmmettStore, close: () => Promise<void>): Contender {
  return {
    name: 'emmett',
    shape: (events) => events.map((e) => ({ type: e.type, data: e.data })),
    async append(stream, events, last) {
      // Emmett's stream versions count events (the first event is version 1).
      await store.appendToStream(stream, events as never, { expectedStreamVersion: last < 0 ? STREAM_DOES_NOT_EXIST : BigInt(last + 1) });
    },
    async read(stream) {
      return (await store.readStream(stream)).events.length;
    },
    close,
  };
}

const SQLITE_COLUMNS = 'event_id, stream_id, version, type, data, idempotency_key, own_event_id, parent_ids, clock, metadata, recorded_at';

/**
 * better-sqlite3 alone, on a table made with the store's own DDL, with the store's pragmas. An
 * append is one `BEGIN IMMEDIATE` transaction running one INSERT of all its rows (a statement
 * prepared once per row count), faster for batches than a single-row INSERT run per event.
 */
function rawSqlite(path: string, ddl: readonly string[]): Contender {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('wal_autocheckpoint = 16384');
  for (const sql of ddl) db.exec(sql);
  const inserts = new Map<number, Database.Statement<unknown[]>>();
  const insert = (rows: number) => {
    let statement = inserts.get(rows);
    if (!statement) {
      statement = db.prepare(`INSERT INTO tot_events (${SQLITE_COLUMNS}) VALUES ${Array.from({ length: rows }, () => "(?, ?, ?, ?, ?, ?, 0, '[]', '{}', '{}', ?)").join(', ')}`);
      inserts.set(rows, statement);
    }
    return statement;
  };
  const page = db.prepare<[string, number, number]>(`SELECT * FROM tot_events WHERE stream_id = ? AND version >= ? ORDER BY version LIMIT ?`);
  const write = db.transaction((stream: string, events: BenchEvent[], first: number) => {
    const at = new Date().toISOString();
    const values: unknown[] = [];
    for (let i = 0; i < events.length; i++) {
      const e = events[i]!;
      values.push(uuidv7(), stream, first + i, e.type, JSON.stringify(e.data), e.key, at);
    }
    insert(events.length).run(values);
  });
  return {
    name: 'raw',
    shape: (events) => [...events],
    async append(stream, events, last) {
      write.immediate(stream, events as BenchEvent[], last + 1);
    },
    async read(stream) {
      let n = 0;
      for (let from = 0; ; ) {
        const rows = page.all(stream, from, RAW_PAGE) as { version: number; data: string }[];
        for (const row of rows) {
          JSON.parse(row.data);
          n++;
        }
        if (rows.length < RAW_PAGE) return n;
        from = rows.at(-1)!.version + 1;
      }
    },
    async close() {
      db.close();
    },
  };
}

/**
 * pg alone, on a table made `LIKE` the store's (the same columns, defaults, constraints and
 * indexes). An append is one INSERT statement (its own transaction) of all the rows, one array
 * parameter per column.
 */
async function rawPostgres(pool: pg.Pool, like: string): Promise<Contender> {
  const table = 'raw_events';
  await pool.query(`CREATE TABLE ${table} (LIKE ${like} INCLUDING ALL) WITH (autovacuum_enabled = false)`);
  const types = new Map((await pool.query<{ column_name: string; data_type: string }>(`SELECT column_name, data_type FROM information_schema.columns WHERE table_name = $1`, [table])).rows.map((r) => [r.column_name, r.data_type]));
  const json = types.get('data') === 'jsonb' ? 'jsonb' : 'text';
  // Whatever else the store's rows carry, a raw row carries the least that fills it.
  const payload = types.has('payload');
  const insert = `INSERT INTO ${table} (event_id, stream_id, version, type, data, idempotency_key, parent_ids, clock, metadata${payload ? ', payload' : ''})
    SELECT e, $2, v, t, d, k, '[]', '{}', '{}'${payload ? ", ''" : ''} FROM unnest($1::text[], $3::int[], $4::text[], $5::${json}[], $6::text[]) AS u(e, v, t, d, k)`;
  return {
    name: 'raw',
    shape: (events) => [...events],
    async append(stream, events, last) {
      const rows = events as BenchEvent[];
      await pool.query(insert, [rows.map(() => uuidv7()), stream, rows.map((_, i) => last + 1 + i), rows.map((e) => e.type), rows.map((e) => JSON.stringify(e.data)), rows.map((e) => e.key)]);
    },
    async read(stream) {
      let n = 0;
      for (let from = 0; ; ) {
        const { rows } = await pool.query<{ version: number; data: unknown }>(`SELECT * FROM ${table} WHERE stream_id = $1 AND version >= $2 ORDER BY version LIMIT $3`, [stream, from, RAW_PAGE]);
        for (const row of rows) {
          if (typeof row.data === 'string') JSON.parse(row.data);
          n++;
        }
        if (rows.length < RAW_PAGE) return n;
        from = rows.at(-1)!.version + 1;
      }
    },
    close: () => pool.end(),
  };
}

// ---------------------------------------------------------------------------------------------
// Measuring

let streams = 0;
const newStream = (label: string) => `${label}-${Date.now()}-${++streams}`;

/** Appends per second (`perAppend` 1) or events per second: until `count` events or the time budget. */
async function appends(c: Contender, count: number, perAppend: number, budgetMs: number): Promise<number> {
  const stream = newStream(`${c.name}-${perAppend}`);
  const batches: unknown[][] = [];
  for (let i = 0; i < count; i += perAppend) batches.push(c.shape(Array.from({ length: perAppend }, (_, j) => evaluated(stream, i + j))));
  gc();
  const started = performance.now();
  let done = 0;
  let elapsed = 0;
  for (const batch of batches) {
    await c.append(stream, batch, done - 1);
    done += perAppend;
    elapsed = performance.now() - started;
    if (elapsed >= budgetMs) break;
  }
  return done / (elapsed / 1000);
}

async function load(c: Contender, runId: string, events: readonly SearchEvent[]): Promise<void> {
  for (let i = 0; i < events.length; i += LOAD_BATCH) {
    const slice = events.slice(i, i + LOAD_BATCH).map((e, j) => ({ type: e.type, data: e as unknown as Record<string, unknown>, key: `${runId}:${i + j}` }));
    await c.append(runId, c.shape(slice), i - 1);
  }
}

async function reads(c: Contender, stream: string): Promise<number> {
  gc();
  const started = performance.now();
  const n = await c.read(stream);
  const elapsed = performance.now() - started;
  if (n !== READ_EVENTS) throw new Error(`${c.name} read ${n} events of ${READ_EVENTS}`);
  return READ_EVENTS / (elapsed / 1000);
}

type Samples = Record<string, Record<string, number[]>>;

const rotate = <T>(items: readonly T[], by: number) => items.map((_, i) => items[(i + by) % items.length]!);

/**
 * This pass's samples after the earlier passes' (bench/run.ts runs the list in passes, and each
 * pass measures its share of the rounds, `passRounds`): what the medians and ranges are taken from.
 */
function pooledSamples(key: string, samples: Samples): Samples {
  const out: Samples = {};
  for (const part of pooled(key, [samples])) {
    for (const [name, workloads] of Object.entries(part)) {
      const into = (out[name] ??= {});
      for (const [workload, rates] of Object.entries(workloads)) (into[workload] ??= []).push(...rates);
    }
  }
  return out;
}

async function measure(label: string, contenders: Contender[], sizes: Sizes, afterLoad?: () => Promise<void>) {
  const started = performance.now();
  const runId = `read-${label}-${Date.now()}`;
  const events = runEvents(runId, READ_EVENTS);
  for (const c of contenders) await load(c, runId, events);
  await afterLoad?.();
  // An untimed round first: the first appends of a process also pay for compiling the append path.
  for (const c of contenders) {
    await appends(c, Math.min(sizes.singles, 200), 1, sizes.budgetMs / 4);
    await appends(c, Math.min(sizes.batched, 2_000), BATCH, sizes.budgetMs / 4);
  }
  const samples: Samples = Object.fromEntries(contenders.map((c) => [c.name, { singles: [], batched: [], read: [] }]));
  for (const round of passRounds(ROUNDS)) {
    for (const workload of WORKLOADS) {
      for (const c of rotate(contenders, round)) {
        const rate =
          workload === 'singles' ? await appends(c, sizes.singles, 1, sizes.budgetMs) : workload === 'batched' ? await appends(c, sizes.batched, BATCH, sizes.budgetMs) : await reads(c, runId);
        samples[c.name]![workload]!.push(rate);
      }
    }
    console.error(`${label}: round ${round + 1} of ${ROUNDS} done (${Math.round((performance.now() - started) / 1000)} s)`);
  }
  return { runId, samples: pooledSamples(label, samples) };
}

/** Reads only, interleaved as above (the PostgreSQL reads after ANALYZE). */
async function measureReads(label: string, contenders: Contender[], runId: string): Promise<Samples> {
  const samples: Samples = Object.fromEntries(contenders.map((c) => [c.name, { read: [] }]));
  for (const round of passRounds(ROUNDS)) for (const c of rotate(contenders, round)) samples[c.name]!.read!.push(await reads(c, runId));
  return pooledSamples(label, samples);
}

async function replayMs(store: EventStore, runId: string): Promise<number> {
  const times: number[] = [];
  for (let r = 0; r < 3; r++) {
    gc();
    const started = performance.now();
    const { tree } = await replayRun(store, runId);
    times.push(performance.now() - started);
    if (tree.size !== (READ_EVENTS - 2) / 2) throw new Error(`replay built ${tree.size} nodes`);
  }
  return Math.round(median(times));
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** Medians per contender and workload, and this library's ratios to the others. */
function summarise(samples: Samples) {
  const medians: Record<string, Record<string, number>> = {};
  for (const [name, workloads] of Object.entries(samples)) {
    medians[name] = Object.fromEntries(Object.entries(workloads).map(([w, xs]) => [w, Math.round(median(xs))]));
  }
  const ratios: Record<string, Record<string, number>> = {};
  for (const other of Object.keys(medians).filter((n) => n !== 'tot')) {
    ratios[`totOver${other[0]!.toUpperCase()}${other.slice(1)}`] = Object.fromEntries(Object.keys(medians.tot!).map((w) => [w, round2(medians.tot![w]! / medians[other]![w]!)]));
  }
  return { medians, ratios, samples: Object.fromEntries(Object.entries(samples).map(([n, ws]) => [n, Object.fromEntries(Object.entries(ws).map(([w, xs]) => [w, xs.map(Math.round)]))])) };
}

// ---------------------------------------------------------------------------------------------
// The backends

const results: Record<string, unknown> = {};

if (!ONLY || ONLY === 'memory') {
  const store = tot(new InMemoryEventStore());
  const { runId, samples } = await measure('memory', [store, emmett(getInMemoryEventStore() as unknown as EmmettStore, async () => undefined)], SIZES.memory);
  results.memory = { ...summarise(samples), replay100kMs: await replayMs(store.store, runId) };
  await store.close();
}

if (!ONLY || ONLY === 'sqlite') {
  const dir = mkdtempSync(join(tmpdir(), 'tot-bench-'));
  const store = tot(new SqliteEventStore({ path: join(dir, 'tot.db') }));
  // The raw table is the store's own, DDL and all.
  const schema = new Database(join(dir, 'tot.db'), { readonly: true });
  const ddl = (schema.prepare(`SELECT sql FROM sqlite_master WHERE tbl_name = 'tot_events' AND sql IS NOT NULL`).all() as { sql: string }[]).map((r) => r.sql);
  schema.close();
  const emmettFile = join(dir, 'emmett.db');
  const connection = sqliteConnection({ fileName: emmettFile });
  await connection.command('PRAGMA journal_mode = WAL');
  await connection.command('PRAGMA synchronous = NORMAL');
  const emmettStore = getSQLiteEventStore({ fileName: emmettFile, schema: { autoMigration: 'CreateOrUpdate' }, connectionOptions: { singleton: true, connection } });
  const contenders = [store, emmett(emmettStore as unknown as EmmettStore, async () => connection.close()), rawSqlite(join(dir, 'raw.db'), ddl)];
  const { runId, samples } = await measure('sqlite', contenders, SIZES.sqlite);
  results.sqlite = { ...summarise(samples), replay100kMs: await replayMs(store.store, runId) };
  for (const c of contenders) await c.close();
  rmSync(dir, { recursive: true, force: true });
}

if (!ONLY || ONLY === 'postgres') {
  let url = process.env.TOT_POSTGRES_URL;
  let cluster: string | undefined;
  if (!url) {
    try {
      const out = execFileSync('bash', ['.ci/postgres', 'start'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
      url = /TOT_POSTGRES_URL=(.*)/.exec(out)?.[1];
      cluster = /TOT_POSTGRES_DATA=(.*)/.exec(out)?.[1];
    } catch {
      url = undefined;
    }
  }
  if (url) {
    // A database of the benchmark's own: Emmett's tables have fixed names.
    const database = `tot_bench_${Date.now()}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    const benchUrl = new URL(url);
    benchUrl.pathname = `/${database}`;
    const contenders: Contender[] = [];
    const pool = new pg.Pool({ connectionString: benchUrl.href });
    try {
      const totStore = new PostgresEventStore({ connectionString: benchUrl.href });
      const store = tot(totStore);
      contenders.push(store);
      await totStore.setup();
      const emmettStore = getPostgreSQLEventStore(benchUrl.href, { schema: { autoMigration: 'CreateOrUpdate' } });
      contenders.push(emmett(emmettStore as unknown as EmmettStore, () => emmettStore.close()));
      contenders.push(await rawPostgres(new pg.Pool({ connectionString: benchUrl.href }), 'tot_events'));
      const noAutovacuum = async () => {
        const tables = (await pool.query<{ relname: string }>(`SELECT relname FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace`)).rows;
        for (const { relname } of tables) await pool.query(`ALTER TABLE ${relname} SET (autovacuum_enabled = false)`);
      };
      await noAutovacuum();
      const { runId, samples } = await measure('postgres', contenders, SIZES.postgres, noAutovacuum);
      const stale = summarise(samples);
      await pool.query('ANALYZE');
      const analyzed = summarise(await measureReads('postgres-analyzed', contenders, runId));
      results.postgres = {
        ...stale,
        analyzedRead: {
          medians: Object.fromEntries(Object.entries(analyzed.medians).map(([name, m]) => [name, m.read])),
          ratios: Object.fromEntries(Object.entries(analyzed.ratios).map(([name, m]) => [name, m.read])),
          samples: analyzed.samples,
        },
        replay100kMs: await replayMs(store.store, runId),
      };
    } catch (error) {
      console.error(error);
      throw error;
    } finally {
      // Every pool is closed before the database is dropped (a connection the drop ended would be
      // an error event in a pool nobody listens to); if one is still open, the database stays.
      for (const c of contenders) await c.close().catch(() => undefined);
      await pool.end();
      await admin.query(`DROP DATABASE IF EXISTS ${database}`).catch((error: unknown) => console.error(`${database} not dropped: ${(error as Error).message}`));
      await admin.end();
      if (cluster) execFileSync('bash', ['.ci/postgres', 'stop', cluster]);
    }
  } else results.postgres = 'not measured: PostgreSQL unavailable';
}

const targets = { totOverRaw: 0.6, totOverEmmettPostgres: 1, inMemoryBatchedEventsPerSecond: 500_000, inMemoryReplay100kMs: 1_000 };
// Its package.json is not among the package's exports: read from bench/peers/node_modules, where the comparison libraries live.
const emmettVersion = (JSON.parse(readFileSync(`${benchDir}/peers/node_modules/@event-driven-io/emmett/package.json`, 'utf8')) as { version: string }).version;
const figures = { emmettVersion, rounds: ROUNDS, sizes: SIZES, readEvents: READ_EVENTS, batch: BATCH, rawPage: RAW_PAGE, ...results, targets };
// A partial run is printed, not saved: the saved figures (and docs/benchmarks.md) cover every store from one run.
if (ONLY) console.log(JSON.stringify(figures, (_, v: unknown) => v, 2));
else report('event-store', figures);

const n = (x: number) => x.toLocaleString('en-US');
console.log('\nstore       workload        @tot/core      Emmett         raw driver     tot/Emmett  tot/raw');
for (const [backend, r] of Object.entries(results)) {
  if (typeof r === 'string') {
    console.log(`${backend.padEnd(11)} ${r}`);
    continue;
  }
  const { medians, ratios, analyzedRead } = r as ReturnType<typeof summarise> & { analyzedRead?: { medians: Record<string, number>; ratios: Record<string, number> } };
  const line = (workload: string, cells: (number | undefined)[], overEmmett: number | undefined, overRaw: number | undefined) =>
    console.log(`${backend.padEnd(11)} ${workload.padEnd(15)} ${cells.map((x) => (x === undefined ? '' : n(x)).padEnd(14)).join(' ')} ${String(overEmmett ?? '').padEnd(11)} ${overRaw ?? ''}`);
  for (const w of WORKLOADS) {
    // Emmett's in-memory store hands out the objects it keeps: its read is not comparable.
    const comparable = !(backend === 'memory' && w === 'read');
    line(w, [medians.tot![w], comparable ? medians.emmett?.[w] : undefined, medians.raw?.[w]], comparable ? ratios.totOverEmmett?.[w] : undefined, ratios.totOverRaw?.[w]);
  }
  if (analyzedRead) line('read, analyzed', [analyzedRead.medians.tot, analyzedRead.medians.emmett, analyzedRead.medians.raw], analyzedRead.ratios.totOverEmmett, analyzedRead.ratios.totOverRaw);
}
