import assert from 'node:assert/strict';
import { TotError, type TotErrorCode } from '../errors/index.js';
import type { EventStore, NewEvent, StoredEvent } from '../events/store/types.js';
import { z } from 'zod';
import { parseOptions } from '../internal/validate.js';

const registerOptionsSchema = z.strictObject({ name: z.string().optional(), timeoutMs: z.number().positive().optional() });

/**
 * How the conformance suite gets stores.
 *
 * @example
 * ```ts
 * import type { EventStoreFactory } from '@tot/core/testing';
 * import { SqliteEventStore } from '@tot/core/sqlite';
 *
 * const factory: EventStoreFactory = {
 *   create: () => new SqliteEventStore({ path: 'test.db' }),
 *   reopen: async (store) => { await store.close(); return new SqliteEventStore({ path: 'test.db' }); },
 * };
 * ```
 */
export interface EventStoreFactory {
  /** A store for one test. Stores may share a database: every test writes to its own streams. */
  create(): EventStore | Promise<EventStore>;
  /** Cleans up after a test. Default: `store.close()`. */
  destroy?(store: EventStore): void | Promise<void>;
  /** Closes `store` and opens the same storage again (enables the durability test). */
  reopen?(store: EventStore): EventStore | Promise<EventStore>;
  /** Appenders in the concurrency tests. Default 8. */
  concurrency?: number;
}

/**
 * One test of the suite, framework-agnostic: `run` throws (node:assert) when the store fails it.
 *
 * @example
 * ```ts
 * import { eventStoreConformanceCases } from '@tot/core/testing';
 *
 * for (const c of eventStoreConformanceCases(factory)) await c.run();
 * ```
 */
export interface ConformanceCase {
  name: string;
  /** Runs the test; throws when the store fails it. */
  run(): Promise<void>;
}

/**
 * The `describe`/`it` pair of a test framework (vitest, node:test, jest, mocha…).
 *
 * @example
 * ```ts
 * import { describe, it } from 'node:test';
 * import type { TestRegistrar } from '@tot/core/testing';
 *
 * const registrar: TestRegistrar = { describe, it };
 * ```
 */
export interface TestRegistrar {
  /** Groups tests. */
  describe(name: string, body: () => void): unknown;
  /** Registers one test (the third argument is a timeout in milliseconds where the framework takes one). */
  it(name: string, body: () => Promise<void>, timeout?: number): unknown;
}

let counter = 0;
const unique = (label: string) => `conformance-${label}-${process.pid}-${Date.now().toString(36)}-${(counter++).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

const event = (key: string, data: unknown = { key }, extra: Partial<NewEvent> = {}): NewEvent => ({ type: 'test.event', data, idempotencyKey: key, ...extra });

async function collect(iterable: AsyncIterable<StoredEvent>): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const e of iterable) out.push(e);
  return out;
}

async function rejects(promise: unknown, code: TotErrorCode, what: string, field?: string): Promise<void> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  assert.ok(caught !== undefined, `${what}: expected ${code}, but it succeeded`);
  assert.ok(TotError.isInstance(caught), `${what}: expected a TotError ${code}, got ${String(caught)}`);
  assert.equal((caught as TotError).code, code, `${what}: expected ${code}, got ${(caught as TotError).code}: ${(caught as TotError).message}`);
  if (field !== undefined) assert.equal((caught as TotError<'INVALID_ARGUMENT'>).details?.field, field, `${what}: the error names ${field}`);
}

/** The JSON text of a value: equal texts are equal values with their keys in the same order. */
const text = (value: unknown) => JSON.stringify(value);

/** `value` nested in `depth` arrays or objects. */
function nested(depth: number, wrap: (inner: unknown) => unknown): unknown {
  let v: unknown = 0;
  for (let i = 0; i < depth; i++) v = wrap(v);
  return v;
}

/** Strings a model can emit that a database may refuse or change: NUL, half an emoji, a reversed pair. */
const HOSTILE_TEXT = 'nul \u0000 high \ud83d low \ude00x reversed \ude00\ud83d end';

/** A call that may throw synchronously or reject. */
const attempt = (fn: () => unknown): Promise<unknown> => Promise.resolve().then(fn);

/**
 * The conformance suite of {@link EventStore} as plain test cases: round trip and contiguous
 * versions, the expected-version matrix with nothing written on a conflict, concurrent appenders
 * with exactly one winner, sequential and concurrent idempotent retries, `IDEMPOTENCY_CONFLICT`,
 * atomic batches, `parentIds`/`clock` round trip, `readAll` ordering, snapshot + tail = full
 * replay, durability across `reopen`, bad input and closed stores.
 *
 * @example
 * ```ts
 * import { eventStoreConformanceCases } from '@tot/core/testing';
 * import { InMemoryEventStore } from '@tot/core';
 *
 * const cases = eventStoreConformanceCases({ create: () => new InMemoryEventStore() });
 * for (const c of cases) await c.run();
 * ```
 */
export function eventStoreConformanceCases(factory: EventStoreFactory): ConformanceCase[] {
  const n = factory.concurrency ?? 8;
  const withStore = (name: string, body: (store: EventStore) => Promise<void>): ConformanceCase => ({
    name,
    async run() {
      const store = await factory.create();
      try {
        await body(store);
      } finally {
        if (factory.destroy) await factory.destroy(store);
        else await store.close().catch(() => undefined);
      }
    },
  });

  const cases: ConformanceCase[] = [
    withStore('appends a batch and reads it back with versions 0, 1, 2', async (store) => {
      const s = unique('roundtrip');
      const result = await store.append(s, [event('a1', { n: 1 }), event('a2', { n: 2 }), event('a3', { text: 'ünïcødé ✓', nested: { list: [1, null, true] } })], { expectedVersion: 'no_stream' });
      assert.equal(result.deduplicated, false);
      assert.equal(result.nextExpectedVersion, 2);
      assert.deepEqual(result.events.map((e) => e.version), [0, 1, 2]);
      const read = await collect(store.readStream(s));
      assert.deepEqual(read.map((e) => [e.version, e.type, e.data, e.idempotencyKey, e.streamId]), [
        [0, 'test.event', { n: 1 }, 'a1', s],
        [1, 'test.event', { n: 2 }, 'a2', s],
        [2, 'test.event', { text: 'ünïcødé ✓', nested: { list: [1, null, true] } }, 'a3', s],
      ]);
      assert.deepEqual(read.map((e) => e.eventId), result.events.map((e) => e.eventId));
      assert.equal(new Set(read.map((e) => e.eventId)).size, 3);
      for (const e of read) assert.ok(!Number.isNaN(Date.parse(e.recordedAt)), 'recordedAt is an ISO date');
      assert.equal(await store.streamVersion(s), 2);
    }),

    withStore('continues versions without gaps across appends', async (store) => {
      const s = unique('contiguous');
      let expected: number | 'no_stream' = 'no_stream';
      for (let i = 0; i < 5; i++) {
        const r = await store.append(s, [event(`${s}-${i}a`), event(`${s}-${i}b`)], { expectedVersion: expected });
        expected = r.nextExpectedVersion;
      }
      assert.deepEqual((await collect(store.readStream(s))).map((e) => e.version), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    }),

    withStore('follows the expected-version matrix and writes nothing on a conflict', async (store) => {
      const rows: [string, 'absent' | 'present', NewEvent['type'] | number | 'any' | 'no_stream' | 'stream_exists', boolean][] = [
        ['any on a new stream', 'absent', 'any', true],
        ['any on an existing stream', 'present', 'any', true],
        ['no_stream on a new stream', 'absent', 'no_stream', true],
        ['no_stream on an existing stream', 'present', 'no_stream', false],
        ['stream_exists on a new stream', 'absent', 'stream_exists', false],
        ['stream_exists on an existing stream', 'present', 'stream_exists', true],
        ['the right version', 'present', 1, true],
        ['a version behind', 'present', 0, false],
        ['a version ahead', 'present', 2, false],
        ['a version on a new stream', 'absent', 0, false],
      ];
      for (const [label, state, expectedVersion, ok] of rows) {
        const s = unique('matrix');
        if (state === 'present') await store.append(s, [event(`${s}-0`), event(`${s}-1`)], { expectedVersion: 'no_stream' });
        const before = await collect(store.readStream(s));
        const append = store.append(s, [event(`${s}-new`)], { expectedVersion: expectedVersion as never });
        if (ok) {
          const r = await append;
          assert.equal(r.events[0]!.version, before.length, `${label}: version`);
        } else {
          await rejects(append, 'EXPECTED_VERSION_CONFLICT', label);
          assert.deepEqual((await collect(store.readStream(s))).map((e) => e.eventId), before.map((e) => e.eventId), `${label}: nothing written`);
          assert.equal(await store.streamVersion(s), before.length === 0 ? null : before.length - 1, `${label}: version unchanged`);
        }
      }
    }),

    withStore(`lets exactly one of ${n} concurrent appenders win, losing or duplicating nothing`, async (store) => {
      const s = unique('race');
      await store.append(s, [event(`${s}-seed`)], { expectedVersion: 'no_stream' });
      for (let round = 0; round < 5; round++) {
        const results = await Promise.allSettled(Array.from({ length: n }, (_, i) => store.append(s, [event(`${s}-r${round}-w${i}`, { round, writer: i })], { expectedVersion: round })));
        const winners = results.filter((r) => r.status === 'fulfilled');
        assert.equal(winners.length, 1, `round ${round}: exactly one winner`);
        for (const r of results) if (r.status === 'rejected') assert.equal((r.reason as TotError).code, 'EXPECTED_VERSION_CONFLICT', `round ${round}: losers get EXPECTED_VERSION_CONFLICT`);
      }
      assert.deepEqual((await collect(store.readStream(s))).map((e) => e.version), [0, 1, 2, 3, 4, 5]);
    }),

    withStore('returns the stored events for a sequential idempotent retry and writes nothing', async (store) => {
      const s = unique('retry');
      const batch = [event(`${s}-1`), event(`${s}-2`)];
      const first = await store.append(s, batch, { expectedVersion: 'no_stream' });
      const again = await store.append(s, batch, { expectedVersion: 'no_stream' });
      assert.equal(again.deduplicated, true);
      assert.deepEqual(again.events.map((e) => [e.eventId, e.version, e.globalPosition]), first.events.map((e) => [e.eventId, e.version, e.globalPosition]));
      assert.equal(again.nextExpectedVersion, 1);
      assert.equal((await collect(store.readStream(s))).length, 2);
    }),

    withStore(`stores one copy when ${n} identical appends race`, async (store) => {
      const s = unique('retry-race');
      const batch = [event(`${s}-x`), event(`${s}-y`)];
      const results = await Promise.all(Array.from({ length: n }, () => store.append(s, batch, { expectedVersion: 'any' })));
      assert.equal(results.filter((r) => !r.deduplicated).length, 1, 'exactly one append writes');
      const ids = results[0]!.events.map((e) => e.eventId);
      for (const r of results) assert.deepEqual(r.events.map((e) => e.eventId), ids, 'every caller gets the stored events');
      assert.equal((await collect(store.readStream(s))).length, 2);
    }),

    withStore('refuses a stored idempotency key with a different payload, writing nothing', async (store) => {
      const s = unique('idem-conflict');
      await store.append(s, [event(`${s}-k`, { v: 1 })], { expectedVersion: 'no_stream' });
      await rejects(store.append(s, [event(`${s}-k`, { v: 2 })], { expectedVersion: 'any' }), 'IDEMPOTENCY_CONFLICT', 'same key, other data');
      await rejects(store.append(unique('other-stream'), [event(`${s}-k`, { v: 1 })], { expectedVersion: 'any' }), 'IDEMPOTENCY_CONFLICT', 'same key, other stream');
      await rejects(store.append(s, [event(`${s}-k`, { v: 1 }), event(`${s}-fresh`)], { expectedVersion: 'any' }), 'IDEMPOTENCY_CONFLICT', 'stored and new keys in one batch');
      assert.deepEqual((await collect(store.readStream(s))).map((e) => e.data), [{ v: 1 }]);
    }),

    withStore('writes a batch whole or not at all', async (store) => {
      const s = unique('atomic');
      const big = Array.from({ length: 50 }, (_, i) => event(`${s}-${i}`, { i }));
      const r = await store.append(s, big, { expectedVersion: 'no_stream' });
      assert.equal(r.events.length, 50);
      assert.deepEqual((await collect(store.readStream(s))).map((e) => (e.data as { i: number }).i), big.map((_, i) => i));
      await rejects(store.append(s, [event(`${s}-ok`), event(`${s}-bad`, { f: () => 1 })], { expectedVersion: 49 }), 'INVALID_ARGUMENT', 'a batch with a bad event');
      await rejects(store.append(s, [event(`${s}-c1`), event(`${s}-c2`)], { expectedVersion: 3 }), 'EXPECTED_VERSION_CONFLICT', 'a conflicting batch');
      assert.equal((await collect(store.readStream(s))).length, 50, 'nothing of the refused batches');
      const all = await collect(store.readAll());
      assert.ok(!all.some((e) => e.idempotencyKey === `${s}-ok` || e.idempotencyKey === `${s}-c1`), 'nothing of the refused batches in readAll');
    }),

    withStore('round-trips event ids, parentIds, clocks and metadata', async (store) => {
      const s = unique('dag');
      const root = await store.append(s, [event(`${s}-root`, { step: 0 }, { eventId: `${s}-evt-root`, clock: { a: 1 }, metadata: { role: 'planner', cost: 12 } })], { expectedVersion: 'no_stream' });
      await store.append(s, [event(`${s}-child`, { step: 1 }, { parentIds: [root.events[0]!.eventId], clock: { a: 1, b: 1 } })], { expectedVersion: 0 });
      const [first, second] = await collect(store.readStream(s));
      assert.equal(first!.eventId, `${s}-evt-root`);
      assert.deepEqual(first!.clock, { a: 1 });
      assert.deepEqual(first!.metadata, { role: 'planner', cost: 12 });
      assert.deepEqual(first!.parentIds, []);
      assert.deepEqual(second!.parentIds, [`${s}-evt-root`]);
      assert.deepEqual(second!.clock, { a: 1, b: 1 });
      assert.deepEqual(second!.metadata, {});
    }),

    withStore('keeps what was appended when the caller changes its objects or the events it was given', async (store) => {
      const s = unique('copies');
      const data = { list: [1, 2], inner: { n: 1 } };
      const metadata = { tag: 'a' };
      const parentIds = ['p'];
      const clock = { a: 1 };
      const plain = { type: 'test.event', data: { n: 1 }, idempotencyKey: `${s}-2` };
      // Changed before the append settles, too: a store that awaits must have taken its copy first.
      const pending = store.append(s, [event(`${s}-1`, data, { metadata, parentIds, clock }), plain], { expectedVersion: 'no_stream' });
      plain.type = 'changed';
      plain.data.n = 2;
      plain.idempotencyKey = `${s}-changed`;
      const result = await pending;
      data.list.push(3);
      data.inner.n = 2;
      metadata.tag = 'b';
      parentIds.push('q');
      clock.a = 9;
      // A store may hand out frozen events instead of copies: then the change itself fails.
      const change = (fn: () => void) => {
        try {
          fn();
        } catch (error) {
          if (!(error instanceof TypeError)) throw error;
        }
      };
      const given = result.events[0]!;
      change(() => (given.data as typeof data).list.push(4));
      change(() => given.parentIds.push('r'));
      change(() => (given.clock.a = 8));
      change(() => (given.metadata.tag = 'c'));
      for (let read = 0; read < 2; read++) {
        const [stored, second] = await collect(store.readStream(s));
        assert.deepEqual([stored!.data, stored!.metadata, stored!.parentIds, stored!.clock], [{ list: [1, 2], inner: { n: 1 } }, { tag: 'a' }, ['p'], { a: 1 }], `read ${read + 1}`);
        assert.deepEqual([second!.type, second!.data, second!.idempotencyKey], ['test.event', { n: 1 }, `${s}-2`], `read ${read + 1}`);
        change(() => ((stored!.data as typeof data).inner.n = 5));
      }
    }),

    withStore('reads all events in commit order with strictly increasing positions', async (store) => {
      const a = unique('all-a');
      const b = unique('all-b');
      const start = (await collect(store.readAll())).at(-1)?.globalPosition ?? 0n;
      await store.append(a, [event(`${a}-1`), event(`${a}-2`)], { expectedVersion: 'no_stream' });
      await store.append(b, [event(`${b}-1`)], { expectedVersion: 'no_stream' });
      await store.append(a, [event(`${a}-3`)], { expectedVersion: 1 });
      const all = await collect(store.readAll({ after: start }));
      const mine = all.filter((e) => e.streamId === a || e.streamId === b);
      assert.deepEqual(mine.map((e) => e.idempotencyKey), [`${a}-1`, `${a}-2`, `${b}-1`, `${a}-3`]);
      for (let i = 1; i < all.length; i++) assert.ok(all[i]!.globalPosition > all[i - 1]!.globalPosition, 'positions strictly increase');
      assert.equal(typeof all[0]?.globalPosition, 'bigint');
      const firstTwo = await collect(store.readAll({ after: start, limit: 2 }));
      assert.equal(firstTwo.length, 2);
      const rest = await collect(store.readAll({ after: firstTwo[1]!.globalPosition }));
      assert.deepEqual([...firstTwo, ...rest].map((e) => e.eventId), all.map((e) => e.eventId), 'paging with after/limit reads everything once');
    }),

    withStore('reads a stream range with fromVersion, toVersion and limit', async (store) => {
      const s = unique('range');
      await store.append(s, Array.from({ length: 10 }, (_, i) => event(`${s}-${i}`, i)), { expectedVersion: 'no_stream' });
      assert.deepEqual((await collect(store.readStream(s, { fromVersion: 3, toVersion: 6 }))).map((e) => e.version), [3, 4, 5, 6]);
      assert.deepEqual((await collect(store.readStream(s, { fromVersion: 8 }))).map((e) => e.version), [8, 9]);
      assert.deepEqual((await collect(store.readStream(s, { limit: 2 }))).map((e) => e.version), [0, 1]);
      assert.deepEqual(await collect(store.readStream(s, { fromVersion: 20 })), []);
    }),

    withStore('replays a snapshot plus its tail as the full stream', async (store) => {
      const s = unique('snapshot');
      await store.append(s, Array.from({ length: 6 }, (_, i) => event(`${s}-${i}`, { add: i + 1 })), { expectedVersion: 'no_stream' });
      const fold = (total: number, e: StoredEvent) => total + (e.data as { add: number }).add;
      const full = (await collect(store.readStream(s))).reduce(fold, 0);
      const head = (await collect(store.readStream(s, { toVersion: 3 }))).reduce(fold, 0);
      assert.equal(await store.loadSnapshot(s), null);
      await store.saveSnapshot({ streamId: s, version: 3, state: { total: head }, metadata: { by: 'test' } });
      await store.append(s, [event(`${s}-6`, { add: 7 })], { expectedVersion: 5 });
      const snapshot = await store.loadSnapshot(s);
      assert.ok(snapshot, 'snapshot stored');
      assert.equal(snapshot.version, 3);
      assert.deepEqual(snapshot.metadata, { by: 'test' });
      const tail = await collect(store.readStream(s, { fromVersion: snapshot.version + 1 }));
      assert.equal(tail.reduce(fold, (snapshot.state as { total: number }).total), full + 7);
      await store.saveSnapshot({ streamId: s, version: 6, state: { total: full + 7 } });
      assert.equal((await store.loadSnapshot(s))!.version, 6, 'the latest snapshot wins');
    }),

    withStore('reports an unknown stream as empty', async (store) => {
      const s = unique('unknown');
      assert.equal(await store.streamVersion(s), null);
      assert.deepEqual(await collect(store.readStream(s)), []);
      assert.equal(await store.loadSnapshot(s), null);
    }),

    withStore('refuses bad input with INVALID_ARGUMENT and leaves the store as it was', async (store) => {
      const s = unique('bad');
      await store.append(s, [event(`${s}-0`)], { expectedVersion: 'no_stream' });
      const cases: [string, () => unknown][] = [
        ['an empty batch', () => store.append(s, [], { expectedVersion: 'any' })],
        ['a negative version', () => store.append(s, [event(`${s}-neg`)], { expectedVersion: -1 })],
        ['a fractional version', () => store.append(s, [event(`${s}-frac`)], { expectedVersion: 0.5 })],
        ['no expectedVersion', () => store.append(s, [event(`${s}-none`)], {} as never)],
        ['an empty stream id', () => store.append('', [event(`${s}-empty`)], { expectedVersion: 'any' })],
        ['an event without idempotency key', () => store.append(s, [{ type: 't', data: 1 } as never], { expectedVersion: 'any' })],
        ['a duplicated key in one batch', () => store.append(s, [event(`${s}-dup`), event(`${s}-dup`)], { expectedVersion: 'any' })],
        ['a function in data', () => store.append(s, [event(`${s}-fn`, { f: () => 1 })], { expectedVersion: 'any' })],
        ['a bigint in data', () => store.append(s, [event(`${s}-big`, { n: 1n })], { expectedVersion: 'any' })],
        ['NaN in data', () => store.append(s, [event(`${s}-nan`, { n: Number.NaN })], { expectedVersion: 'any' })],
        ['a cycle in data', () => { const o: Record<string, unknown> = {}; o.self = o; return store.append(s, [event(`${s}-cycle`, o)], { expectedVersion: 'any' }); }],
        ['a Date in data', () => store.append(s, [event(`${s}-date`, { at: new Date(0) })], { expectedVersion: 'any' })],
        ['a getter that throws in data', () => store.append(s, [event(`${s}-getter`, { get boom(): never { throw new Error('boom'); } })], { expectedVersion: 'any' })],
        ['a sparse batch', () => store.append(s, [, event(`${s}-sparse`)] as never, { expectedVersion: 'any' })], // eslint-disable-line no-sparse-arrays
        ['an oversize event', () => store.append(s, [event(`${s}-huge`, 'x'.repeat(2_000_000))], { expectedVersion: 'any' })],
        ['a negative fromVersion', () => collect(store.readStream(s, { fromVersion: -1 }))],
      ];
      for (const [label, call] of cases) await rejects(attempt(call), 'INVALID_ARGUMENT', label);
      assert.deepEqual((await collect(store.readStream(s))).map((e) => e.idempotencyKey), [`${s}-0`]);
    }),

    withStore('round-trips data, metadata, clocks and snapshot state exactly: NUL, unpaired surrogates, key order, "__proto__" keys', async (store) => {
      const s = unique('exact');
      const data = JSON.parse(`{"z":1,"a":{"y":[{"b":2,"a":1}],"x":null},"__proto__":{"polluted":true},"2":"two","1":"one","text":${text(HOSTILE_TEXT)},${text(HOSTILE_TEXT)}:"a key"}`) as Record<string, unknown>;
      const metadata = JSON.parse(`{"b":${text(HOSTILE_TEXT)},"a":1,"__proto__":{"x":1}}`) as Record<string, unknown>;
      const clock = JSON.parse('{"worker_b":2,"worker_a":1,"__proto__":3}') as Record<string, number>;
      const sent = [event(`${s}-1`, data, { metadata, clock }), event(`${s}-2`, HOSTILE_TEXT), event(`${s}-3`, ['\ud800', '\udfff', '\u0000'])];
      await store.append(s, sent, { expectedVersion: 'no_stream' });
      for (const read of [await collect(store.readStream(s)), (await collect(store.readAll())).filter((e) => e.streamId === s)]) {
        assert.deepEqual(read.map((e) => [text(e.data), text(e.metadata), text(e.clock)]), sent.map((e) => [text(e.data), text(e.metadata ?? {}), text(e.clock ?? {})]), 'read back as sent, key order included');
      }
      assert.equal((await store.append(s, sent, { expectedVersion: 'no_stream' })).deduplicated, true, 'a retry of the same events is deduplicated');
      await store.saveSnapshot({ streamId: s, version: 2, state: data, metadata });
      const snapshot = await store.loadSnapshot(s);
      assert.deepEqual([text(snapshot?.state), text(snapshot?.metadata)], [text(data), text(metadata)], 'the snapshot reads back as saved');
    }),

    withStore('refuses identifiers with NUL or unpaired surrogates with INVALID_ARGUMENT naming the field, writing nothing', async (store) => {
      const s = unique('ids');
      await store.append(s, [event(`${s}-0`)], { expectedVersion: 'no_stream' });
      for (const bad of ['a\u0000b', 'a\ud800', '\udc00a', '\udc00\ud800']) {
        const label = text(bad);
        await rejects(attempt(() => store.append(`${s}${bad}`, [event(`${s}-x`)], { expectedVersion: 'any' })), 'INVALID_ARGUMENT', `stream id ${label}`, 'streamId');
        await rejects(attempt(() => collect(store.readStream(`${s}${bad}`))), 'INVALID_ARGUMENT', `readStream ${label}`, 'streamId');
        await rejects(attempt(() => store.streamVersion(`${s}${bad}`)), 'INVALID_ARGUMENT', `streamVersion ${label}`, 'streamId');
        await rejects(attempt(() => store.loadSnapshot(`${s}${bad}`)), 'INVALID_ARGUMENT', `loadSnapshot ${label}`, 'streamId');
        await rejects(attempt(() => store.saveSnapshot({ streamId: `${s}${bad}`, version: 0, state: 1 })), 'INVALID_ARGUMENT', `snapshot stream id ${label}`, 'snapshot.streamId');
        const fields: [string, Partial<NewEvent>][] = [
          ['type', { type: `t${bad}` }],
          ['idempotencyKey', { idempotencyKey: `${s}${bad}` }],
          ['eventId', { eventId: `${s}${bad}` }],
          ['parentIds[0]', { parentIds: [`${s}${bad}`] }],
          [`clock.${bad}`, { clock: { [bad]: 1 } }],
        ];
        for (const [field, extra] of fields) {
          await rejects(attempt(() => store.append(s, [event(`${s}-ok`), event(`${s}-bad`, 1, extra)], { expectedVersion: 'any' })), 'INVALID_ARGUMENT', `${field} ${label}`, `events[1].${field}`);
        }
      }
      assert.deepEqual((await collect(store.readStream(s))).map((e) => e.idempotencyKey), [`${s}-0`], 'nothing written');
    }),

    withStore('refuses values nested deeper than 512 levels with INVALID_ARGUMENT, however deep, and keeps 512', async (store) => {
      const s = unique('deep');
      const cases: [string, unknown][] = [
        ['arrays 20,000 deep', nested(20_000, (v) => [v])],
        ['objects 5,000 deep', nested(5_000, (v) => ({ v }))],
        ['arrays 513 deep', nested(513, (v) => [v])],
      ];
      for (const [label, value] of cases) {
        await rejects(attempt(() => store.append(s, [event(`${s}-data`, value)], { expectedVersion: 'any' })), 'INVALID_ARGUMENT', `data: ${label}`, 'events[0].data');
        await rejects(attempt(() => store.append(s, [event(`${s}-meta`, 1, { metadata: { deep: value } })], { expectedVersion: 'any' })), 'INVALID_ARGUMENT', `metadata: ${label}`, 'events[0].metadata');
        await rejects(attempt(() => store.saveSnapshot({ streamId: s, version: 0, state: value })), 'INVALID_ARGUMENT', `snapshot state: ${label}`, 'snapshot.state');
      }
      assert.equal(await store.streamVersion(s), null, 'nothing written');
      assert.equal(await store.loadSnapshot(s), null, 'no snapshot saved');
      const deepest = nested(512, (v) => [v]);
      await store.append(s, [event(`${s}-512`, deepest)], { expectedVersion: 'no_stream' });
      assert.equal(text((await collect(store.readStream(s)))[0]!.data), text(deepest), '512 levels round-trip');
    }),

    withStore('refuses values whose JSON would be far larger than the value without building it', async (store) => {
      const s = unique('shared');
      // One string held 2^40 times: its JSON would be terabytes.
      let shared: unknown = 'x';
      for (let i = 0; i < 40; i++) shared = [shared, shared];
      await rejects(attempt(() => store.append(s, [event(`${s}-0`, shared)], { expectedVersion: 'any' })), 'INVALID_ARGUMENT', 'event data');
      await rejects(attempt(() => store.saveSnapshot({ streamId: s, version: 0, state: shared })), 'INVALID_ARGUMENT', 'snapshot state');
      assert.equal(await store.streamVersion(s), null, 'nothing written');
    }),

    withStore('refuses an eventId another stored event has with IDEMPOTENCY_CONFLICT, writing nothing, and still deduplicates a retry', async (store) => {
      const s = unique('event-ids');
      const mine = await store.append(s, [event(`${s}-0`, 0, { eventId: `${s}-chosen` })], { expectedVersion: 'no_stream' });
      const made = await store.append(s, [event(`${s}-1`)], { expectedVersion: 0 });
      const other = unique('event-ids-other');
      await rejects(store.append(other, [event(`${s}-2`, 2, { eventId: `${s}-chosen` })], { expectedVersion: 'any' }), 'IDEMPOTENCY_CONFLICT', 'an id the caller chose before, in another stream');
      await rejects(store.append(s, [event(`${s}-3`, 3, { eventId: `${s}-chosen` })], { expectedVersion: 1 }), 'IDEMPOTENCY_CONFLICT', 'an id the caller chose before, in the same stream');
      await rejects(store.append(other, [event(`${s}-4`), event(`${s}-5`, 5, { eventId: made.events[0]!.eventId })], { expectedVersion: 'any' }), 'IDEMPOTENCY_CONFLICT', 'an id the store made');
      await rejects(store.append(other, [event(`${s}-6`, 6, { eventId: `${s}-twice` }), event(`${s}-7`, 7, { eventId: `${s}-twice` })], { expectedVersion: 'any' }), 'INVALID_ARGUMENT', 'one id twice in a batch', 'events[1].eventId');
      assert.equal(await store.streamVersion(other), null, 'nothing written to the other stream');
      assert.equal(await store.streamVersion(s), 1, 'nothing written to the stream');
      const retry = await store.append(s, [event(`${s}-0`, 0, { eventId: `${s}-chosen` })], { expectedVersion: 'no_stream' });
      assert.equal(retry.deduplicated, true, 'a retry of the event with its id is deduplicated');
      assert.equal(retry.events[0]!.eventId, mine.events[0]!.eventId);
    }),

    withStore('loads the snapshot of the highest version, as a fresh object the caller may change', async (store) => {
      const s = unique('snapshot-latest');
      await store.saveSnapshot({ streamId: s, version: 5, state: { at: 5, list: [1] } });
      await store.saveSnapshot({ streamId: s, version: 3, state: { at: 3, list: [1] } });
      const first = await store.loadSnapshot(s);
      assert.equal(first?.version, 5, 'version 5 saved before version 3 is still the latest');
      (first!.state as { list: number[] }).list.push(2);
      (first!.state as { at: number }).at = 0;
      const second = await store.loadSnapshot(s);
      assert.notEqual(second, first, 'a new object on every load');
      assert.deepEqual(second?.state, { at: 5, list: [1] }, "the caller's change is not stored");
      await store.saveSnapshot({ streamId: s, version: 5, state: { at: 'again' } });
      assert.deepEqual((await store.loadSnapshot(s))?.state, { at: 'again' }, 'saving a version again replaces it');
      await store.saveSnapshot({ streamId: s, version: 2 ** 40, state: 'far' });
      assert.equal((await store.loadSnapshot(s))?.version, 2 ** 40, 'any safe integer is a version');
    }),

    withStore('reads nothing past the end and refuses negative, fractional or mistyped positions, versions and limits', async (store) => {
      const s = unique('ranges');
      const { events } = await store.append(s, [event(`${s}-0`), event(`${s}-1`), event(`${s}-2`)], { expectedVersion: 'no_stream' });
      const before = events[0]!.globalPosition - 1n;
      assert.deepEqual(await collect(store.readAll({ after: 2n ** 70n })), [], 'readAll after 2^70');
      assert.deepEqual(await collect(store.readAll({ after: 2n ** 63n - 1n })), [], 'readAll after 2^63 - 1');
      assert.deepEqual(await collect(store.readStream(s, { fromVersion: 2 ** 40 })), [], 'readStream from 2^40');
      assert.deepEqual((await collect(store.readStream(s, { toVersion: 2 ** 40, limit: 2 ** 40 }))).map((e) => e.version), [0, 1, 2], 'readStream to 2^40, limit 2^40');
      assert.deepEqual((await collect(store.readAll({ after: before, limit: 2 ** 40 }))).filter((e) => e.streamId === s).length, 3, 'readAll limit 2^40');
      const bad: [string, () => unknown, string][] = [
        ['readAll after -1n', () => collect(store.readAll({ after: -1n })), 'options.after'],
        ['readAll after a number', () => collect(store.readAll({ after: 1 as never })), 'options.after'],
        ['readAll after a string', () => collect(store.readAll({ after: '1' as never })), 'options.after'],
        ['readAll limit 0', () => collect(store.readAll({ limit: 0 })), 'options.limit'],
        ['readAll limit 1.5', () => collect(store.readAll({ limit: 1.5 })), 'options.limit'],
        ['readStream fromVersion -1', () => collect(store.readStream(s, { fromVersion: -1 })), 'options.fromVersion'],
        ['readStream fromVersion 1.5', () => collect(store.readStream(s, { fromVersion: 1.5 })), 'options.fromVersion'],
        ['readStream fromVersion NaN', () => collect(store.readStream(s, { fromVersion: Number.NaN })), 'options.fromVersion'],
        ['readStream fromVersion Infinity', () => collect(store.readStream(s, { fromVersion: Number.POSITIVE_INFINITY })), 'options.fromVersion'],
        ['readStream fromVersion a string', () => collect(store.readStream(s, { fromVersion: '1' as never })), 'options.fromVersion'],
        ['readStream toVersion -1', () => collect(store.readStream(s, { toVersion: -1 })), 'options.toVersion'],
        ['readStream limit -1', () => collect(store.readStream(s, { limit: -1 })), 'options.limit'],
        ['readStream limit Infinity', () => collect(store.readStream(s, { limit: Number.POSITIVE_INFINITY })), 'options.limit'],
        ['snapshot version -1', () => store.saveSnapshot({ streamId: s, version: -1, state: 1 }), 'snapshot.version'],
        ['snapshot version 1.5', () => store.saveSnapshot({ streamId: s, version: 1.5, state: 1 }), 'snapshot.version'],
        ['snapshot version a string', () => store.saveSnapshot({ streamId: s, version: '1' as never, state: 1 }), 'snapshot.version'],
      ];
      for (const [label, call, field] of bad) await rejects(attempt(call), 'INVALID_ARGUMENT', label, field);
      assert.equal(await store.loadSnapshot(s), null, 'no snapshot saved');
    }),

    withStore('fails every call with ILLEGAL_STATE once closed', async (store) => {
      await store.close();
      await rejects(attempt(() => store.append(unique('closed'), [event(unique('k'))], { expectedVersion: 'any' })), 'ILLEGAL_STATE', 'append after close');
      await rejects(attempt(() => collect(store.readAll())), 'ILLEGAL_STATE', 'readAll after close');
      await rejects(attempt(() => store.streamVersion('x')), 'ILLEGAL_STATE', 'streamVersion after close');
    }),
  ];

  if (factory.reopen) {
    const reopen = factory.reopen.bind(factory);
    cases.push({
      name: 'keeps every event, version and snapshot across reopen',
      async run() {
        let store = await factory.create();
        try {
          const s = unique('durable');
          await store.append(s, [event(`${s}-0`, { n: 0 }), event(`${s}-1`, { n: 1 })], { expectedVersion: 'no_stream' });
          await store.saveSnapshot({ streamId: s, version: 1, state: { n: 1 } });
          const before = await collect(store.readStream(s));
          store = await reopen(store);
          assert.deepEqual((await collect(store.readStream(s))).map((e) => [e.eventId, e.version, e.globalPosition, e.data]), before.map((e) => [e.eventId, e.version, e.globalPosition, e.data]));
          assert.equal(await store.streamVersion(s), 1);
          assert.deepEqual((await store.loadSnapshot(s))?.state, { n: 1 });
          const next = await store.append(s, [event(`${s}-2`)], { expectedVersion: 1 });
          assert.equal(next.events[0]!.version, 2);
          assert.ok(next.events[0]!.globalPosition > before[1]!.globalPosition, 'positions keep increasing after reopen');
          assert.equal((await store.append(s, [event(`${s}-0`, { n: 0 }), event(`${s}-1`, { n: 1 })], { expectedVersion: 'no_stream' })).deduplicated, true, 'idempotency survives reopen');
        } finally {
          if (factory.destroy) await factory.destroy(store);
          else await store.close().catch(() => undefined);
        }
      },
    });
  }
  return cases;
}

/**
 * Registers the whole {@link eventStoreConformanceCases} suite with a test framework, in one
 * `describe`. Works with vitest, node:test, jest and mocha.
 *
 * @example
 * ```ts
 * import { describe, it } from 'vitest';
 * import { registerEventStoreConformance } from '@tot/core/testing';
 * import { InMemoryEventStore } from '@tot/core';
 *
 * registerEventStoreConformance({ describe, it }, { create: () => new InMemoryEventStore() }, { name: 'InMemoryEventStore' });
 * ```
 */
export function registerEventStoreConformance(test: TestRegistrar, factory: EventStoreFactory, options: { name?: string; timeoutMs?: number } = {}): void {
  parseOptions(registerOptionsSchema, options, 'registerEventStoreConformance');
  test.describe(`EventStore conformance: ${options.name ?? 'store'}`, () => {
    for (const c of eventStoreConformanceCases(factory)) test.it(c.name, () => c.run(), options.timeoutMs ?? 30_000);
  });
}
