import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresEventStore } from '../../src/postgres/index.js';
import { registerEventStoreConformance } from '../../src/testing/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';
import { collect } from '../helpers/collect.js';

const url = process.env.TOT_POSTGRES_URL;
const data = process.env.TOT_POSTGRES_DATA;
let prefixes = 0;
const prefix = () => `t${process.pid}_${Date.now().toString(36)}_${prefixes++}_`;

describe.skipIf(!url)('PostgresEventStore', () => {
  const shared = prefix();
  beforeAll(async () => {
    const store = new PostgresEventStore({ connectionString: url!, tablePrefix: shared });
    await store.setup();
    await store.close();
  });

  registerEventStoreConformance(
    { describe, it },
    {
      create: () => new PostgresEventStore({ connectionString: url!, tablePrefix: shared }),
      async reopen(store) {
        await store.close();
        return new PostgresEventStore({ connectionString: url!, tablePrefix: shared });
      },
    },
    { name: 'PostgresEventStore' },
  );

  it('sets up idempotently, even from several instances at once', async () => {
    const p = prefix();
    const stores = Array.from({ length: 5 }, () => new PostgresEventStore({ connectionString: url!, tablePrefix: p }));
    await Promise.all(stores.map((s) => s.setup()));
    await stores[0]!.setup();
    await stores[0]!.append('s', [{ type: 't', data: 1, idempotencyKey: 'k' }], { expectedVersion: 'no_stream' });
    expect(await stores[1]!.streamVersion('s')).toBe(0);
    await Promise.all(stores.map((s) => s.close()));
  });

  it('works on a pool the host owns, and leaves it open on close', async () => {
    const pool = new pg.Pool({ connectionString: url! });
    const store = new PostgresEventStore({ pool, tablePrefix: shared });
    await store.append(`pool-${Date.now()}`, [{ type: 't', data: 1, idempotencyKey: `pool-${Date.now()}` }], { expectedVersion: 'no_stream' });
    await store.close();
    expect((await pool.query('SELECT 1 AS one')).rows[0].one).toBe(1);
    await pool.end();
  });

  it('validates its options', async () => {
    const error = await catchTotError(() => new PostgresEventStore({} as never), 'INVALID_ARGUMENT');
    expect(error.message).toContain('options.pool');
    await catchTotError(() => new PostgresEventStore({ connectionString: url!, tablePrefix: 'Robert"); DROP TABLE' }), 'INVALID_ARGUMENT');
  });

  it('gives exactly one winner per round to 16 clients racing for 200 rounds, losing and duplicating nothing', async () => {
    const stores = Array.from({ length: 16 }, () => new PostgresEventStore({ connectionString: url!, tablePrefix: shared }));
    const stream = `race-${Date.now()}`;
    let decided = -1;
    const writer = async (store: PostgresEventStore, w: number) => {
      const won: number[] = [];
      let lost = 0;
      for (let round = 0; round < 200; round++) {
        while (decided < round - 1) await new Promise((resolve) => setImmediate(resolve));
        try {
          await store.append(stream, [{ type: 'won', data: { round, writer: w }, idempotencyKey: `${stream}:${round}:${w}` }], { expectedVersion: round === 0 ? 'no_stream' : round - 1 });
          won.push(round);
          decided = round;
        } catch (error) {
          if ((error as { code?: string }).code !== 'EXPECTED_VERSION_CONFLICT') throw error;
          lost += 1;
          while (decided < round) decided = Math.max(decided, (await store.streamVersion(stream)) ?? -1);
        }
      }
      return { won, lost };
    };
    const results = await Promise.all(stores.map((s, i) => writer(s, i)));
    expect(results.reduce((sum, r) => sum + r.won.length + r.lost, 0)).toBe(16 * 200);
    expect(results.flatMap((r) => r.won).sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i));
    const events = await collect(stores[0]!.readStream(stream));
    expect(events.map((e) => e.version)).toEqual(Array.from({ length: 200 }, (_, i) => i));
    events.forEach((e, i) => expect(results[(e.data as { writer: number }).writer]!.won).toContain(i));
    await Promise.all(stores.map((s) => s.close()));
  }, 120_000);

  it('never lets readAll skip an event, whatever order concurrent transactions commit in', async () => {
    const writers = Array.from({ length: 8 }, () => new PostgresEventStore({ connectionString: url!, tablePrefix: shared }));
    const reader = new PostgresEventStore({ connectionString: url!, tablePrefix: shared });
    const start = (await collect(reader.readAll())).at(-1)?.globalPosition ?? 0n;
    let done = false;
    const seen: bigint[] = [];
    const poll = (async () => {
      let after = start;
      while (!done) {
        for await (const e of reader.readAll({ after })) {
          seen.push(e.globalPosition);
          after = e.globalPosition;
        }
      }
      for await (const e of reader.readAll({ after })) seen.push(e.globalPosition);
    })();
    await Promise.all(
      writers.map(async (store, w) => {
        for (let i = 0; i < 40; i++) {
          await store.append(`late-${Date.now()}-${w}-${i}`, Array.from({ length: 1 + (i % 5) }, (_, k) => ({ type: 't', data: { w, i, k }, idempotencyKey: `late-${start}-${w}-${i}-${k}` })), { expectedVersion: 'any' });
        }
      }),
    );
    done = true;
    await poll;
    const all = (await collect(reader.readAll({ after: start }))).map((e) => e.globalPosition);
    expect(seen).toEqual(all);
    await Promise.all([...writers, reader].map((s) => s.close()));
  }, 60_000);

  describe.skipIf(!data)('when the server is killed mid-append', () => {
    let store: PostgresEventStore;
    beforeAll(() => {
      store = new PostgresEventStore({ connectionString: url!, tablePrefix: shared });
    });
    afterAll(async () => {
      await store.close();
    });

    it('keeps every acknowledged batch whole, with no torn batch and no version gap', async () => {
      const stream = `crash-${Date.now()}`;
      const acked = new Set<string>();
      let version: number | null = null;
      for (let crash = 0; crash < 3; crash++) {
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
        execFileSync('bash', ['.ci/postgres', 'kill', data!]);
        await new Promise((resolve) => setTimeout(resolve, 100));
        execFileSync('bash', ['.ci/postgres', 'restart', data!]);
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
