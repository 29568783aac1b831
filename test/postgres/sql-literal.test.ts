import fc from 'fast-check';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PostgresEventStore } from '../../src/postgres/index.js';
import { sqlLiteral } from '../../src/postgres/sql-literal.js';
import { collect } from '../helpers/collect.js';

const url = process.env.TOT_POSTGRES_URL;

describe('sqlLiteral', () => {
  it("writes every text as pg's escapeLiteral does", () => {
    const text = fc.string({ unit: fc.constantFrom("'", '\\', 'E', '"', 'a', ' ', '\n', 'é', '😀', '\u0001') });
    fc.assert(
      fc.property(text, (t) => {
        expect(sqlLiteral(t)).toBe(pg.escapeLiteral(t));
      }),
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (t) => {
        expect(sqlLiteral(t)).toBe(pg.escapeLiteral(t));
      }),
    );
  });
});

describe.skipIf(!url)('PostgresEventStore with quotes and backslashes', () => {
  it('stores and reads back stream ids, types, keys, ids and data made of quotes and backslashes', async () => {
    const prefix = `lit${process.pid}_${Date.now().toString(36)}_`;
    const store = new PostgresEventStore({ connectionString: url!, tablePrefix: prefix });
    await store.setup();
    try {
      const stream = `it's a \\'stream\\' \\\\ '' E'x'`;
      const events = [
        { type: "o'clock\\", data: { text: "it's \\n not a newline, '' two quotes, \\' both", list: ['\\', "'", '"'] }, idempotencyKey: `${stream}:0` },
        { type: 'plain', data: "'); DROP TABLE x; --", idempotencyKey: `${stream}:1`, eventId: "id\\'1", parentIds: ["p'1", 'p\\2'], clock: { "w'1": 1 }, metadata: { "k'": "v\\" } },
      ];
      const appended = await store.append(stream, events, { expectedVersion: 'no_stream' });
      expect(appended.nextExpectedVersion).toBe(1);
      const read = await collect(store.readStream(stream));
      expect(read.map((e) => [e.streamId, e.type, e.idempotencyKey, e.data])).toEqual(events.map((e) => [stream, e.type, e.idempotencyKey, e.data]));
      expect(read[1]).toMatchObject({ eventId: "id\\'1", parentIds: ["p'1", 'p\\2'], clock: { "w'1": 1 }, metadata: { "k'": "v\\" } });
      expect(appended.events).toEqual(read);
      // The same batch again is a retry, answered from the store.
      const retried = await store.append(stream, events, { expectedVersion: 'no_stream' });
      expect(retried.deduplicated).toBe(true);
      expect(retried.events).toEqual(read);
    } finally {
      const pool = new pg.Pool({ connectionString: url! });
      await pool.query(`DROP TABLE IF EXISTS ${prefix}events, ${prefix}snapshots`);
      await pool.end();
      await store.close();
    }
  });
});
