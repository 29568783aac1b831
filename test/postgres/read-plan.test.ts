import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresEventStore } from '../../src/postgres/index.js';
import { collect } from '../helpers/collect.js';

const url = process.env.TOT_POSTGRES_URL;
let prefixes = 0;
const prefix = () => `plan${process.pid}_${Date.now().toString(36)}_${prefixes++}_`;

interface Sent {
  text: string;
  values: unknown[] | undefined;
}

/** A pool that remembers every query the store sends through `pool.query`. */
class RecordingPool extends pg.Pool {
  readonly sent: Sent[] = [];
  override query(...args: unknown[]): never {
    const [first, second] = args as [string | { text: string; values?: unknown[] }, unknown];
    this.sent.push(typeof first === 'string' ? { text: first, values: Array.isArray(second) ? second : undefined } : { text: first.text, values: first.values });
    return (super.query as (...a: unknown[]) => never)(...args);
  }
}

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/**
 * The plan PostgreSQL makes for a query the store sent, made as the store's query was: the
 * statements sent before its SELECT in the same text (planner settings) run first, in the same
 * implicit transaction.
 */
async function planOf(pool: pg.Pool, sent: Sent): Promise<PlanNode[]> {
  let rows: { 'QUERY PLAN': { Plan: PlanNode }[] }[];
  if (sent.values && sent.values.length > 0) {
    rows = (await pool.query(`EXPLAIN (FORMAT JSON) ${sent.text}`, sent.values)).rows;
  } else {
    const select = sent.text.lastIndexOf('SELECT ');
    const results = (await pool.query(`${sent.text.slice(0, select)}EXPLAIN (FORMAT JSON) ${sent.text.slice(select)}`)) as unknown as pg.QueryResult | pg.QueryResult[];
    rows = [results].flat().at(-1)!.rows;
  }
  return nodesOf(rows[0]!['QUERY PLAN'][0]!.Plan);
}

/** Every page the store read with, planned now. */
async function pagePlans(pool: RecordingPool, table: string, read: () => Promise<unknown>): Promise<PlanNode[][]> {
  pool.sent.length = 0;
  await read();
  const pages = pool.sent.filter((q) => q.text.includes(`FROM ${table}`) && q.text.includes('ORDER BY'));
  expect(pages.length).toBeGreaterThan(1);
  return Promise.all(pages.map((page) => planOf(pool, page)));
}

/** An index scan on `index`: no bitmap scan (whose rows need sorting), no sort, no sequential scan. */
function expectIndexRangeScan(plans: PlanNode[][], index: string): void {
  for (const nodes of plans) {
    expect(nodes.map((n) => n['Node Type'])).not.toEqual(expect.arrayContaining([expect.stringMatching(/^(Sort|Incremental Sort|Bitmap Heap Scan|Seq Scan)$/)]));
    expect(nodes).toContainEqual(expect.objectContaining({ 'Node Type': 'Index Scan', 'Index Name': index }));
  }
}

const event = (stream: string, i: number) => ({ type: 'step', data: { i, text: 'a few words' }, idempotencyKey: `${stream}:${i}` });

/** Appends `count` events to `stream` through the store, in batches of 500, after `first` events already there. */
async function fill(store: PostgresEventStore, stream: string, count: number, first = 0): Promise<void> {
  for (let i = first; i < first + count; i += 500) {
    await store.append(
      stream,
      Array.from({ length: Math.min(500, first + count - i) }, (_, j) => event(stream, i + j)),
      { expectedVersion: i === 0 ? 'no_stream' : i - 1 },
    );
  }
}

/**
 * Loads `streams` × `perStream` events straight into the table in one statement (a bulk load),
 * each a copy of the table's first event under its own id, stream, version and key.
 */
async function bulkLoad(pool: pg.Pool, table: string, streams: number, perStream: number): Promise<void> {
  const columns = await pool.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name = $1 AND column_name NOT IN ('global_position', 'event_id', 'stream_id', 'version', 'idempotency_key')`,
    [table],
  );
  const copied = columns.rows.map((c) => c.column_name);
  await pool.query(
    `INSERT INTO ${table} (event_id, stream_id, version, idempotency_key, ${copied.join(', ')})
     SELECT 'bulk-' || g, 'bulk-' || (g % ${streams}), g / ${streams}, 'bulk:' || g, ${copied.map((c) => `first.${c}`).join(', ')}
     FROM generate_series(0, ${streams * perStream - 1}) AS g, (SELECT * FROM ${table} ORDER BY global_position LIMIT 1) AS first`,
  );
}

describe.skipIf(!url)('PostgresEventStore read plans', () => {
  let pool: RecordingPool;
  const tables: string[] = [];

  /** A store on new tables that autovacuum leaves alone: their statistics change only by ANALYZE. */
  async function freshStore(): Promise<{ store: PostgresEventStore; table: string }> {
    const p = prefix();
    const store = new PostgresEventStore({ pool, tablePrefix: p });
    await store.setup();
    tables.push(`${p}events`, `${p}snapshots`);
    await pool.query(`ALTER TABLE ${p}events SET (autovacuum_enabled = false)`);
    return { store, table: `${p}events` };
  }

  beforeAll(() => {
    pool = new RecordingPool({ connectionString: url!, max: 4 });
  });

  afterAll(async () => {
    if (tables.length > 0) await pool.query(`DROP TABLE IF EXISTS ${tables.join(', ')}`);
    await pool.end();
  });

  // The plans these guard against: without statistics, or with statistics from before the stream
  // grew, PostgreSQL estimates a handful of rows and fetches every row of the stream from the
  // page's first version on, sorts them, and keeps 500: a read of the whole stream is quadratic.
  it('reads a stream page by page with an index range scan on a bulk-loaded table never analyzed', async () => {
    const { store, table } = await freshStore();
    // Copies of a 1.5 KB event: without statistics, PostgreSQL estimates the rows from the pages.
    await store.append('seed', [{ type: 'step', data: 'x'.repeat(1_500), idempotencyKey: 'seed' }], { expectedVersion: 'no_stream' });
    await bulkLoad(pool, table, 1, 40_000);
    await fill(store, 'long', 3_000);
    const plans = await pagePlans(pool, table, async () => expect(await collect(store.readStream('long'))).toHaveLength(3_000));
    expectIndexRangeScan(plans, `${table}_stream_version`);
  });

  it('reads a stream page by page with an index range scan when the statistics predate its growth', async () => {
    const { store, table } = await freshStore();
    await fill(store, 'seed', 1);
    await bulkLoad(pool, table, 10, 2_000);
    await fill(store, 'long', 10);
    await pool.query(`ANALYZE ${table}`);
    await fill(store, 'long', 2_990, 10);
    const plans = await pagePlans(pool, table, async () => expect(await collect(store.readStream('long'))).toHaveLength(3_000));
    expectIndexRangeScan(plans, `${table}_stream_version`);
  });

  it('reads part of a stream page by page with an index range scan when the statistics are current', async () => {
    const { store, table } = await freshStore();
    await fill(store, 'long', 3_000);
    await pool.query(`ANALYZE ${table}`);
    const plans = await pagePlans(pool, table, async () => expect(await collect(store.readStream('long', { fromVersion: 100, toVersion: 2_899 }))).toHaveLength(2_800));
    expectIndexRangeScan(plans, `${table}_stream_version`);
  });

  it('reads the whole log page by page with an index range scan on a table never analyzed', async () => {
    const { store, table } = await freshStore();
    await fill(store, 'a', 1_500);
    await fill(store, 'b', 1_500);
    const plans = await pagePlans(pool, table, async () => expect(await collect(store.readAll({ after: 10n }))).toHaveLength(2_990));
    expectIndexRangeScan(plans, `${table}_pkey`);
  });
});
