// SQLite's store written by several processes at once: a race for every round, and appends cut
// off by kill -9. Randomized: `npm test` runs them short, `npm run test:soak` at full length
// (test/helpers/soak.ts).
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../src/sqlite/index.js';
import { bundleFixture } from '../helpers/bundle-fixture.js';
import { collect } from '../helpers/collect.js';
import { soak } from '../helpers/soak.js';

const dir = () => mkdtempSync(join(tmpdir(), 'tot-sqlite-'));
const run = promisify(execFile);
/** Rounds of the race between 16 processes. */
const ROUNDS = soak({ quick: 50, full: 200 });
/** Lives of the appender killed with kill -9. */
const CRASHES = soak({ quick: 10, full: 30 });

describe('SqliteEventStore written by several processes', () => {
  // The child processes run their fixture bundled with the sources: plain node starts one in a
  // tenth of the time tsx takes to compile the sources on every start.
  const fixtures = { appender: '', crashAppender: '' };
  beforeAll(async () => {
    fixtures.appender = await bundleFixture('test/sqlite/fixtures/appender.ts');
    fixtures.crashAppender = await bundleFixture('test/sqlite/fixtures/crash-appender.ts');
  }, 120_000);

  it(`gives exactly one winner per round to 16 processes racing for ${ROUNDS} rounds, losing and duplicating nothing`, async () => {
    const path = join(dir(), 'race.db');
    new SqliteEventStore({ path }).close();
    const writers = Array.from({ length: 16 }, (_, i) =>
      run(process.execPath, [fixtures.appender, path, `w${i}`, String(ROUNDS)], { maxBuffer: 1 << 20 }).then((r) => JSON.parse(r.stdout) as { won: number[]; lost: number }),
    );
    // Every writer loaded and its store open before any starts.
    while (Array.from({ length: 16 }, (_, i) => existsSync(`${path}.ready.w${i}`)).some((ready) => !ready)) await new Promise((resolve) => setTimeout(resolve, 20));
    writeFileSync(`${path}.go`, '');
    const results = await Promise.all(writers);
    const wins = results.map((r) => r.won);
    // Every writer tried every round: 1 winner and 15 typed conflicts per round.
    expect(results.reduce((sum, r) => sum + r.won.length + r.lost, 0)).toBe(16 * ROUNDS);
    const rounds = wins.flat().sort((a, b) => a - b);
    expect(rounds).toEqual(Array.from({ length: ROUNDS }, (_, i) => i));
    const store = new SqliteEventStore({ path });
    const events = await collect(store.readStream('race'));
    expect(events.map((e) => e.version)).toEqual(Array.from({ length: ROUNDS }, (_, i) => i));
    events.forEach((e, i) => expect(wins[Number((e.data as { writer: string }).writer.slice(1))]).toContain(i));
    // The race was real: several processes won rounds.
    expect(wins.filter((w) => w.length > 0).length).toBeGreaterThanOrEqual(2);
    await store.close();
  }, 120_000);

  /** A life of the crash appender: loaded, it waits for `go()` to open the store and append. */
  function crashAppender(path: string, acked: Set<string>) {
    const child = spawn(process.execPath, [fixtures.crashAppender, path], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = createInterface({ input: child.stdout });
    const loaded = new Promise<void>((resolve) => lines.on('line', (line) => line === 'loaded' && resolve()));
    const appending = new Promise<void>((resolve) =>
      lines.on('line', (line) => {
        if (!line.startsWith('ack ')) return;
        acked.add(line.slice(4));
        resolve();
      }),
    );
    // 'close': its stdout is read to the end, so every batch it acknowledged is counted.
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    return { child, loaded, appending, closed, go: () => child.stdin.end('go\n') };
  }

  it(`keeps every acknowledged batch whole, with no torn batch and no version gap, across ${CRASHES} kill -9 crashes`, async () => {
    const path = join(dir(), 'crash.db');
    new SqliteEventStore({ path }).close();
    const acked = new Set<string>();
    let next = crashAppender(path, acked);
    for (let crash = 0; crash < CRASHES; crash++) {
      const life = next;
      await life.loaded;
      life.go();
      // The next life loads its modules meanwhile; it opens the store only once this one is dead.
      if (crash < CRASHES - 1) next = crashAppender(path, acked);
      await Promise.race([life.appending, life.closed]);
      // Killed at a random moment once it has started appending.
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 100));
      life.child.kill('SIGKILL');
      await life.closed;
      expect(life.child.signalCode, `life ${crash} was killed, not ended by an error`).toBe('SIGKILL');
    }
    const store = new SqliteEventStore({ path });
    const events = await collect(store.readStream('crash'));
    expect(events.map((e) => e.version)).toEqual(events.map((_, i) => i));
    const parts = new Map<string, number>();
    for (const e of events) {
      const batch = (e.data as { batch: string }).batch;
      parts.set(batch, (parts.get(batch) ?? 0) + 1);
    }
    for (const [batch, count] of parts) expect(count, `batch ${batch}`).toBe(5);
    for (const batch of acked) expect(parts.get(batch), `acknowledged batch ${batch}`).toBe(5);
    expect(acked.size).toBeGreaterThan(CRASHES);
    await store.close();
  }, 180_000);
});
