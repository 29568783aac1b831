import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EventStore, StoredEvent } from '../../src/index.js';
import { SessionEngine } from '../../src/sessions/index.js';
import { PostgresEventStore } from '../../src/postgres/index.js';
import { SqliteEventStore } from '../../src/sqlite/index.js';
import { bundleFixture } from '../helpers/bundle-fixture.js';
import { collect } from '../helpers/collect.js';

const root = join(import.meta.dirname, '../..');
// The writer bundled with its sources, under plain node: tsx would compile them in each of the nine
// processes (2 s of CPU apiece against 0.5 s).
let writerScript: string;
beforeAll(async () => {
  writerScript = await bundleFixture('test/sessions/fixtures/session-writer.ts');
}, 120_000);
const pgUrl = process.env.TOT_POSTGRES_URL;
if (!pgUrl) console.warn('TOT_POSTGRES_URL is not set: the agent-session PostgreSQL 8-client test is SKIPPED');

/**
 * Runs the writer fixture: it restores the session, says it is ready, and writes once `<db>.go`
 * exists. Collects the thoughts it acknowledged and, when it stops by itself, its conflict count.
 */
function writer(path: string, sessionId: string, writerId: string, count: number) {
  const child = spawn(process.execPath, [writerScript, path, sessionId, writerId, String(count)], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const acknowledged: { id: string; content: string }[] = [];
  const stats = { conflicts: -1 };
  let buffer = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
      const line = JSON.parse(buffer.slice(0, nl)) as { id: string; content: string } | { conflicts: number };
      if ('conflicts' in line) stats.conflicts = line.conflicts;
      else acknowledged.push(line);
      buffer = buffer.slice(nl + 1);
    }
  });
  const done = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, acknowledged, stats, done };
}

/** Lets the writers go once every one of them is ready (has restored the session). */
async function startTogether(path: string, writerIds: string[]) {
  while (writerIds.some((id) => !existsSync(`${path}.ready.${id}`))) await new Promise((resolve) => setTimeout(resolve, 20));
  writeFileSync(`${path}.go`, '');
}

/** How many times the writer changes from one thought to the next, in stream order. */
function writerSwitches(events: StoredEvent[]): number {
  const writers = events.filter((e) => e.type === 'thought.added').map((e) => (e.data as { writer: string }).writer);
  return writers.filter((w, i) => i > 0 && w !== writers[i - 1]).length;
}

/** Every acknowledged thought is in the stream exactly once, under its id; versions have no gap. */
function expectWhole(events: StoredEvent[], acknowledged: { id: string; content: string }[]) {
  expect(events.map((e) => e.version)).toEqual(events.map((_, i) => i));
  const thoughts = events.filter((e) => e.type === 'thought.added').map((e) => e.data as { thoughtId: string; content: string });
  const byContent = new Map<string, string[]>();
  for (const t of thoughts) byContent.set(t.content, [...(byContent.get(t.content) ?? []), t.thoughtId]);
  for (const a of acknowledged) expect(byContent.get(a.content), a.content).toEqual([a.id]);
  expect(thoughts.map((t) => t.thoughtId)).toEqual(thoughts.map((_, i) => `t${i}`));
}

describe('an agent session shared by several writers', () => {
  it('takes thoughts from 8 processes on one SQLite file at once: every acknowledged thought once, versions contiguous', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'tot-got-')), 'sessions.db');
    const store = new SqliteEventStore({ path });
    const session = await new SessionEngine({ store }).startSession({ goal: 'shared' });
    await store.close();
    const ids = Array.from({ length: 8 }, (_, i) => `p${i}`);
    const writers = ids.map((id) => writer(path, session.id, id, 25));
    await startTogether(path, ids);
    const codes = await Promise.all(writers.map((w) => w.done));
    expect(codes).toEqual(Array(8).fill(0));
    const reader = new SqliteEventStore({ path });
    const events = await collect(reader.readStream(session.id));
    const restored = await new SessionEngine({ store: reader }).restore(session.id);
    await reader.close();
    const acknowledged = writers.flatMap((w) => w.acknowledged);
    expect(acknowledged).toHaveLength(200);
    expectWhole(events, acknowledged);
    expect(restored.snapshot().thoughts).toHaveLength(200);
    expect(Object.keys(restored.snapshot().clock).sort()).toEqual(ids);
    // They wrote at once, not one after the other: all 8 restored the session at version 0 before
    // the barrier let them go, and each one's first append expects that version, so exactly one of
    // those appends can succeed and every other writer is refused at least once (the seed's 409),
    // re-reads what the others wrote and retries. That holds however the machine schedules the
    // processes, so it is what this test asserts. How finely the stream interleaves does depend on
    // the scheduling (about 60 to 80 writer switches on an idle machine, but a loaded CI runner
    // may let one writer run ahead), so only what the counts guarantee is asserted of it: 8 writers
    // in one stream switch at least 7 times.
    const conflicts = writers.map((w) => w.stats.conflicts);
    expect(conflicts.every((n) => n >= 0)).toBe(true);
    expect(conflicts.filter((n) => n > 0).length).toBeGreaterThanOrEqual(7);
    expect(writerSwitches(events)).toBeGreaterThanOrEqual(7);
  }, 120_000);

  it('restores a session whose writer was killed with kill -9 from SQLite, and goes on from it', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'tot-got-')), 'sessions.db');
    const store = new SqliteEventStore({ path });
    const session = await new SessionEngine({ store }).startSession({ goal: 'crash' });
    await store.close();
    const w = writer(path, session.id, 'doomed', 0);
    await startTogether(path, ['doomed']);
    while (w.acknowledged.length < 40) await new Promise((r) => setTimeout(r, 20));
    w.child.kill('SIGKILL');
    await w.done;
    const again = new SqliteEventStore({ path });
    const engine = new SessionEngine({ store: again, writerId: 'after' });
    const restored = await engine.restore(session.id);
    const events = await collect(again.readStream(session.id));
    expect(restored.version).toBe(events.length - 1);
    expectWhole(events, w.acknowledged);
    // The same state as folding every event from the start.
    const fromEvents = await new SessionEngine({ store: withoutSnapshots(again) }).restore(session.id);
    expect(restored.snapshot()).toEqual(fromEvents.snapshot());
    const next = await restored.addThought({ role: 'critic', content: 'after the crash' });
    expect(next.id).toBe(`t${restored.snapshot().thoughts.length - 1}`);
    await again.close();
  }, 60_000);

  it.skipIf(!pgUrl)('takes thoughts from 8 PostgreSQL clients at once: every acknowledged thought once, versions contiguous', async () => {
    const prefix = `got_${Date.now().toString(36)}_`;
    const stores = Array.from({ length: 8 }, () => new PostgresEventStore({ connectionString: pgUrl!, tablePrefix: prefix }));
    try {
      await stores[0]!.setup();
      const session = await new SessionEngine({ store: stores[0]! }).startSession({ goal: 'shared' });
      const sessions = await Promise.all(stores.map((s, i) => new SessionEngine({ store: s, writerId: `c${i}` }).restore(session.id)));
      const acknowledged = (
        await Promise.all(
          sessions.map(async (s, i) => {
            const out: { id: string; content: string }[] = [];
            for (let k = 0; k < 25; k++) {
              const t = await s.addThought({ role: 'planner', content: `c${i} #${k}` });
              out.push({ id: t.id, content: t.content });
            }
            return out;
          }),
        )
      ).flat();
      expect(acknowledged).toHaveLength(200);
      expectWhole(await collect(stores[0]!.readStream(session.id)), acknowledged);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  }, 120_000);
});

/** The store without its snapshots: a restore must fold every event. */
function withoutSnapshots(store: EventStore): EventStore {
  return Object.assign(Object.create(store) as EventStore, { loadSnapshot: async () => null });
}
