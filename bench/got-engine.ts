/**
 * GoT engine (issue #13): `addThought` in memory and on SQLite (targets ≤ 50 µs and ≤ 300 µs
 * median), `runParallel('race')` over 5 branches whose workers take 20–200 ms (target: wall ≤ the
 * fastest valid branch + 10 ms), and the restore of a 10,000-event session from SQLite (≤ 200 ms).
 *
 * npm run bench:got-engine
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GotEngine, InMemoryEventStore, type BranchWorker, type EventStore } from '../src/index.js';
import { SqliteEventStore } from '../src/sqlite/index.js';
import { median, report } from './harness.js';

const round = (x: number) => Math.round(x * 100) / 100;

/** Median microseconds per addThought over `count` thoughts, after `warm` untimed ones. */
async function addThoughtMicros(store: EventStore, count: number, warm: number): Promise<{ median: number; p95: number }> {
  const s = await new GotEngine({ store, writerId: 'bench' }).startSession({ goal: 'bench' });
  const samples: number[] = [];
  for (let i = 0; i < warm + count; i++) {
    const started = performance.now();
    await s.addThought({ role: i % 2 ? 'critic' : 'planner', content: `step ${i}: cache the parsed config and drop it on SIGHUP`, parentIds: i > 0 ? [`t${i - 1}`] : [] });
    if (i >= warm) samples.push((performance.now() - started) * 1000);
  }
  samples.sort((a, b) => a - b);
  return { median: round(median(samples)), p95: round(samples[Math.floor(samples.length * 0.95)]!) };
}

const dir = mkdtempSync(join(tmpdir(), 'tot-got-bench-'));
try {
  const memory = await addThoughtMicros(new InMemoryEventStore(), 5_000, 1_000);
  const sqliteStore = new SqliteEventStore({ path: join(dir, 'add.db') });
  const sqlite = await addThoughtMicros(sqliteStore, 3_000, 500);
  await sqliteStore.close();

  // The race: five branches, each worker a timer; every plan valid.
  const plan = { rollback: { strategy: 'git_revert' }, limits: { max_changes: 40 }, capabilities_required: ['safe_edit'], success_criteria: ['tests pass'] };
  const delays = [200, 65, 155, 20, 110];
  const overshoot: number[] = [];
  for (let i = 0; i < 12; i++) {
    const engine = new GotEngine({ store: new InMemoryEventStore(), writerId: 'bench' });
    const s = await engine.startSession({ goal: 'race' });
    const t = await s.addThought({ role: 'planner', content: 'five ways' });
    const branches = await s.fork({ from: t.id, branches: delays.map((d) => ({ name: `d${d}` })) });
    const worker: BranchWorker = (b, ctx) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => resolve({ plan }), Number(b.name.slice(1)));
        ctx.signal.addEventListener('abort', () => (clearTimeout(timer), reject(ctx.signal.reason)), { once: true });
      });
    const started = performance.now();
    const out = await s.runParallel({ branchIds: branches.map((b) => b.id), strategy: 'race', worker });
    const wall = performance.now() - started;
    if (out.winner?.name !== 'd20') throw new Error(`the race was won by ${out.winner?.name}`);
    if (i >= 2) overshoot.push(wall - Math.min(...delays));
  }

  // A 10,000-event session on SQLite, restored from its latest checkpoint (and, for comparison, from its events alone).
  const path = join(dir, 'restore.db');
  const writer = new SqliteEventStore({ path });
  const s = await new GotEngine({ store: writer, writerId: 'bench' }).startSession({ goal: 'long' });
  const [branch] = await s.fork({ from: (await s.addThought({ role: 'planner', content: 'root' })).id, branches: [{ name: 'main' }] });
  for (let i = 0; s.version < 9_999; i++) await s.addThought({ role: 'planner', content: `step ${i}`, parentIds: [`t${i}`], branchId: branch!.id });
  const events = s.version + 1;
  await writer.close();
  const restores: number[] = [];
  const fullFolds: number[] = [];
  for (let i = 0; i < 7; i++) {
    const store = new SqliteEventStore({ path });
    let started = performance.now();
    const restored = await new GotEngine({ store }).restore(s.id);
    restores.push(performance.now() - started);
    if (restored.version !== s.version) throw new Error('the restore missed events');
    const bare = Object.assign(Object.create(store) as EventStore, { loadSnapshot: async () => null });
    started = performance.now();
    await new GotEngine({ store: bare }).restore(s.id);
    fullFolds.push(performance.now() - started);
    await store.close();
  }

  report('got-engine', {
    addThought: { memory: { ...memory, thoughts: 5_000, target: 50 }, sqlite: { ...sqlite, thoughts: 3_000, target: 300 } },
    race: { branches: delays.length, workerMs: delays, fastestMs: Math.min(...delays), medianOvershootMs: round(median(overshoot)), runs: overshoot.map(round), target: 10 },
    restore: { events, fromCheckpointMedianMs: round(median(restores)), fromEventsMedianMs: round(median(fullFolds)), target: 200 },
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
