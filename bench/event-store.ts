/**
 * Event store throughput: appends per second one event per call and in batches of 100, and the
 * time to replay a 100,000-event run into its tree, for each store. PostgreSQL is measured when
 * TOT_POSTGRES_URL is set or a throwaway server can be started (.ci/postgres).
 * Targets (issue #4): in-memory ≥ 500,000 events/s batched; SQLite ≥ 60,000 events/s batched and
 * ≥ 5,000 single appends/s; PostgreSQL ≥ 10,000 events/s batched; replay ≤ 1 s in memory.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryEventStore, replayRun, type EventStore, type NewEvent, type RunEventInput, type SearchEvent } from '../src/index.js';
import { PostgresEventStore } from '../src/postgres/index.js';
import { SqliteEventStore } from '../src/sqlite/index.js';
import { median, report } from './harness.js';

const SINGLES = 5_000;
const BATCHED = 100_000;
const REPLAY = 100_000;

const event = (stream: string, i: number): NewEvent => ({ type: 'node.evaluated', data: { nodeId: `node_3_${i}`, evaluation: { score: i % 10, confidence: 0.8, reasoning: 'a short reason' } }, idempotencyKey: `${stream}:${i}` });

async function singles(store: EventStore, label: string): Promise<number> {
  const stream = `singles-${label}-${Date.now()}`;
  const started = performance.now();
  let version: number | 'no_stream' = 'no_stream';
  for (let i = 0; i < SINGLES; i++) version = (await store.append(stream, [event(stream, i)], { expectedVersion: version })).nextExpectedVersion;
  return SINGLES / ((performance.now() - started) / 1000);
}

async function batched(store: EventStore, label: string): Promise<number> {
  const stream = `batched-${label}-${Date.now()}`;
  const started = performance.now();
  let version: number | 'no_stream' = 'no_stream';
  for (let b = 0; b < BATCHED / 100; b++) {
    version = (await store.append(stream, Array.from({ length: 100 }, (_, i) => event(stream, b * 100 + i)), { expectedVersion: version })).nextExpectedVersion;
  }
  return BATCHED / ((performance.now() - started) / 1000);
}

/**
 * A synthetic recorded search of exactly REPLAY events: a wide tree, every node created and
 * evaluated. Typed as the search's own events, so a change of the log format fails to compile here.
 */
function runEvents(runId: string): SearchEvent[] {
  const events: SearchEvent[] = [];
  let seq = 0;
  const push = (e: RunEventInput<SearchEvent>) => events.push({ ...e, runId, seq: seq++, at: 0 } as SearchEvent);
  const searchConfig = { strategy: 'bfs', maxDepth: 3, branchingFactor: 100, pruningThreshold: 0 };
  push({ type: 'run.started', runner: 'search', problem: 'replay', config: {} });
  push({ type: 'search.started', taskId: runId, taskType: 'general', searchConfig, nodes: 0 });
  push({ type: 'node.created', node: { id: 'root', parentId: null, childrenIds: [], depth: 0, content: 'replay', evaluation: null, status: 'pending', metadata: {} } });
  const parents = ['root'];
  let n = 0;
  while (events.length < REPLAY - 1) {
    const parent = parents[Math.floor(n / 100)]!;
    const depth = parent === 'root' ? 1 : Number(parent.split('_')[1]) + 1;
    const id = `node_${depth}_${++n}`;
    push({ type: 'node.created', node: { id, parentId: parent, childrenIds: [], depth, content: `thought ${n}`, evaluation: null, status: 'pending', metadata: {} } });
    if (events.length < REPLAY - 1) push({ type: 'node.evaluated', nodeId: id, evaluation: { score: n % 10, confidence: 0.9, reasoning: 'r' } });
    parents.push(id);
  }
  push({ type: 'run.finished', stopReason: 'max_depth', stats: {}, errors: [] });
  return events;
}

async function replay(store: EventStore, label: string): Promise<number> {
  const runId = `replay-${label}-${Date.now()}`;
  const events = runEvents(runId);
  const created = events.filter((e) => e.type === 'node.created').length;
  for (let i = 0; i < events.length; i += 1000) {
    await store.append(runId, events.slice(i, i + 1000).map((e, j) => ({ type: e.type, data: e, idempotencyKey: `${runId}:${i + j}` })), { expectedVersion: i === 0 ? 'no_stream' : i - 1 });
  }
  const times: number[] = [];
  for (let r = 0; r < 3; r++) {
    const started = performance.now();
    const { tree } = await replayRun(store, runId);
    times.push(performance.now() - started);
    if (tree.size !== created) throw new Error(`replay built ${tree.size} nodes of ${created}`);
  }
  return median(times);
}

async function measure(label: string, store: EventStore) {
  // One untimed round first: the first appends of a process also pay for compiling the append path.
  await batched(store, `${label}-warm-up`);
  const figures = {
    singleAppendsPerSecond: Math.round(median([await singles(store, label), await singles(store, label), await singles(store, label)])),
    batchedEventsPerSecond: Math.round(median([await batched(store, label), await batched(store, label), await batched(store, label)])),
    replay100kMs: Math.round(await replay(store, label)),
  };
  await store.close();
  return figures;
}

const results: Record<string, unknown> = {};
results.inMemory = await measure('memory', new InMemoryEventStore());
results.sqlite = await measure('sqlite', new SqliteEventStore({ path: join(mkdtempSync(join(tmpdir(), 'tot-bench-')), 'bench.db') }));

let url = process.env.TOT_POSTGRES_URL;
let started: string | undefined;
if (!url) {
  try {
    const out = execFileSync('bash', ['.ci/postgres', 'start'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    url = /TOT_POSTGRES_URL=(.*)/.exec(out)?.[1];
    started = /TOT_POSTGRES_DATA=(.*)/.exec(out)?.[1];
  } catch {
    url = undefined;
  }
}
if (url) {
  const store = new PostgresEventStore({ connectionString: url, tablePrefix: `bench_${Date.now()}_` });
  await store.setup();
  results.postgres = await measure('postgres', store);
} else results.postgres = 'not measured: PostgreSQL unavailable';
if (started) execFileSync('bash', ['.ci/postgres', 'stop', started]);

report('event-store', {
  ...results,
  targets: {
    inMemoryBatchedEventsPerSecond: 500_000,
    sqliteBatchedEventsPerSecond: 60_000,
    sqliteSingleAppendsPerSecond: 5_000,
    postgresBatchedEventsPerSecond: 10_000,
    inMemoryReplay100kMs: 1_000,
  },
});
