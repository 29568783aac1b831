// PostgreSQL's store under contention and crashes: 16 clients racing for every round, and the
// server killed mid-append. Randomized: `npm test` runs them short, `npm run test:soak` at full
// length (test/helpers/soak.ts).
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresEventStore } from '../../src/postgres/index.js';
import { collect } from '../helpers/collect.js';
import { soak } from '../helpers/soak.js';

const url = process.env.TOT_POSTGRES_URL;
const data = process.env.TOT_POSTGRES_DATA;
/** Rounds of the race between 16 clients. */
const ROUNDS = soak({ quick: 50, full: 200 });
/** Times the server is killed with kill -9 while a client appends. */
const CRASHES = soak({ quick: 1, full: 3 });
const shared = `t${process.pid}_${Date.now().toString(36)}_races_`;

describe.skipIf(!url)('PostgresEventStore under contention and crashes', () => {
  beforeAll(async () => {
    const store = new PostgresEventStore({ connectionString: url!, tablePrefix: shared });
    await store.setup();
    await store.close();
  });

  it(`gives exactly one winner per round to 16 clients racing for ${ROUNDS} rounds, losing and duplicating nothing`, async () => {
    const stores = Array.from({ length: 16 }, () => new PostgresEventStore({ connectionString: url!, tablePrefix: shared }));
    const stream = `race-${Date.now()}`;
    let decided = -1;
    const writer = async (store: PostgresEventStore, w: number) => {
      const won: number[] = [];
      let lost = 0;
      for (let round = 0; round < ROUNDS; round++) {
        while (decided < round - 1) await new Promise((resolve) => setImmediate(resolve));
        try {
          await store.append(stream, [{ type: 'won', data: { round, writer: w }, idempotencyKey: `${stream}:${round}:${w}` }], { expectedVersion: round === 0 ? 'no_stream' : round - 1 });
          won.push(round);
          decided = round;
        } catch (error) {
          if ((error as { code?: string }).code !== 'EXPECTED_VERSION_CONFLICT') throw error;
          // The next round waits for this one's winner to say so: 15 losers polling the server
          // for the version left it too busy to answer the winner.
          lost += 1;
        }
      }
      return { won, lost };
    };
    const results = await Promise.all(stores.map((s, i) => writer(s, i)));
    expect(results.reduce((sum, r) => sum + r.won.length + r.lost, 0)).toBe(16 * ROUNDS);
    expect(results.flatMap((r) => r.won).sort((a, b) => a - b)).toEqual(Array.from({ length: ROUNDS }, (_, i) => i));
    const events = await collect(stores[0]!.readStream(stream));
    expect(events.map((e) => e.version)).toEqual(Array.from({ length: ROUNDS }, (_, i) => i));
    events.forEach((e, i) => expect(results[(e.data as { writer: number }).writer]!.won).toContain(i));
    await Promise.all(stores.map((s) => s.close()));
  }, 120_000);

  // On a server of its own: a kill -9 ends every connection to the server, and the worker's
  // server has other connections in this process (the files share one module graph), any of which
  // may be idle with nobody listening for its error when the server goes.
  describe.skipIf(!data)('when the server is killed mid-append', () => {
    let store: PostgresEventStore;
    let own: { url: string; data: string };
    beforeAll(async () => {
      const lines = execFileSync('bash', ['.ci/postgres', 'start'], { encoding: 'utf8' }).trim().split('\n');
      const value = (key: string) => lines.find((line) => line.startsWith(`${key}=`))!.slice(key.length + 1);
      own = { url: value('TOT_POSTGRES_URL'), data: value('TOT_POSTGRES_DATA') };
      store = new PostgresEventStore({ connectionString: own.url, tablePrefix: shared });
      await store.setup();
    }, 60_000);
    afterAll(async () => {
      await store?.close();
      if (own) execFileSync('bash', ['.ci/postgres', 'stop', own.data]);
    });

    it(`keeps every acknowledged batch whole, with no torn batch and no version gap, across ${CRASHES} kill -9 of the server`, async () => {
      const stream = `crash-${Date.now()}`;
      const acked = new Set<string>();
      let version: number | null = null;
      for (let crash = 0; crash < CRASHES; crash++) {
        let stop = false;
        const appender = (async () => {
          while (!stop) {
            const batch = `b${(version ?? -1) + 1}`;
            try {
              const r = await store.append(stream, Array.from({ length: 5 }, (_, i) => ({ type: 'part', data: { batch, i }, idempotencyKey: `${stream}:${batch}:${i}` })), { expectedVersion: version ?? 'no_stream' });
              version = r.nextExpectedVersion;
              acked.add(batch);
            } catch {
              // The server is down, or came back and we do not know if the last batch landed.
              await new Promise((resolve) => setTimeout(resolve, 50));
              version = await store.streamVersion(stream).catch(() => version);
            }
          }
        })();
        await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 300));
        execFileSync('bash', ['.ci/postgres', 'kill', own.data]);
        await new Promise((resolve) => setTimeout(resolve, 100));
        execFileSync('bash', ['.ci/postgres', 'restart', own.data]);
        await new Promise((resolve) => setTimeout(resolve, 300));
        stop = true;
        await appender;
      }
      const events = await collect(store.readStream(stream));
      expect(events.map((e) => e.version)).toEqual(events.map((_, i) => i));
      const parts = new Map<string, number>();
      for (const e of events) parts.set((e.data as { batch: string }).batch, (parts.get((e.data as { batch: string }).batch) ?? 0) + 1);
      for (const [batch, count] of parts) expect(count, `batch ${batch}`).toBe(5);
      for (const batch of acked) expect(parts.get(batch), `acknowledged batch ${batch}`).toBe(5);
      expect(acked.size).toBeGreaterThan(3);
    }, 120_000);
  });
});
