import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InMemoryEventStore } from '../../src/index.js';
import { registerEventStoreConformance } from '../../src/testing/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';
import { collect } from '../helpers/collect.js';

registerEventStoreConformance({ describe, it }, { create: () => new InMemoryEventStore() }, { name: 'InMemoryEventStore' });

// JSON values whose text is full of the characters that delimit elements: quotes, escapes, commas, brackets.
const tricky = fc.string({ unit: fc.constantFrom('"', '\\', ',', '[', ']', '{', '}', ':', 'a', 'é', '\n', '\u2028', '😀'), maxLength: 6 });
const { json } = fc.letrec<{ json: unknown }>((tie) => ({
  json: fc.oneof({ depthSize: 'small' }, tricky, fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), fc.array(tie('json'), { maxLength: 3 }), fc.dictionary(tricky, tie('json'), { maxKeys: 3 })),
}));

describe('InMemoryEventStore', () => {
  it('keeps what was appended when the caller later changes its objects or the events it got back', async () => {
    const store = new InMemoryEventStore();
    const data = { list: [1] };
    const { events } = await store.append('s', [{ type: 't', data, idempotencyKey: 'k' }], { expectedVersion: 'no_stream' });
    data.list[0] = 2;
    (events[0]!.data as { list: number[] }).list[0] = 3;
    for await (const e of store.readStream('s')) {
      expect(e.data).toEqual({ list: [1] });
      (e.data as { list: number[] }).list[0] = 4;
    }
    const [again] = await collect(store.readAll());
    expect(again!.data).toEqual({ list: [1] });
  });

  it('reads ranges that start and end inside batches', async () => {
    const store = new InMemoryEventStore();
    const batch = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ type: 't', data: from + i, idempotencyKey: `k${from + i}` }));
    await store.append('a', batch(0, 3), { expectedVersion: 'no_stream' });
    await store.append('b', batch(3, 2), { expectedVersion: 'no_stream' });
    await store.append('a', batch(5, 4), { expectedVersion: 2 });
    const read = async (events: AsyncIterable<{ data: unknown }>) => (await collect(events)).map((e) => e.data);
    expect(await read(store.readStream('a', { fromVersion: 2, toVersion: 4 }))).toEqual([2, 5, 6]);
    expect(await read(store.readStream('a', { fromVersion: 1, limit: 3 }))).toEqual([1, 2, 5]);
    expect(await read(store.readAll({ after: 2n, limit: 4 }))).toEqual([2, 3, 4, 5]);
    expect(await read(store.readAll({ after: 9n }))).toEqual([]);
  });

  it('reads any one event of a batch back as written, however its JSON nests and escapes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(json, { minLength: 5, maxLength: 12 }), async (values) => {
        const store = new InMemoryEventStore();
        await store.append('s', values.map((data, i) => ({ type: 't', data, idempotencyKey: `k${i}` })), { expectedVersion: 'no_stream' });
        for (let i = 0; i < values.length; i++) {
          const [one] = await collect(store.readStream('s', { fromVersion: i, limit: 1 }));
          expect(one!.data).toEqual(JSON.parse(JSON.stringify(values[i])));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('gives every event of a batch its own time-ordered UUID', async () => {
    const store = new InMemoryEventStore();
    const { events } = await store.append('s', Array.from({ length: 300 }, (_, i) => ({ type: 't', data: i, idempotencyKey: `k${i}` })), { expectedVersion: 'no_stream' });
    const ids = events.map((e) => e.eventId);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(300);
    expect([...ids].sort()).toEqual(ids);
    expect((await collect(store.readStream('s'))).map((e) => e.eventId)).toEqual(ids);
  });

  it('takes a configurable event size limit', async () => {
    const store = new InMemoryEventStore({ maxEventBytes: 100 });
    const error = await catchTotError(() => store.append('s', [{ type: 't', data: 'x'.repeat(200), idempotencyKey: 'k' }], { expectedVersion: 'any' }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('exceeds the limit of 100');
    await catchTotError(() => new InMemoryEventStore({ maxEventBytes: 0 }), 'INVALID_ARGUMENT');
  });

  it('takes a configurable snapshot size limit', async () => {
    const store = new InMemoryEventStore({ maxSnapshotBytes: 100 });
    const error = await catchTotError(() => store.saveSnapshot({ streamId: 's', version: 0, state: 'x'.repeat(200) }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('exceeds the limit of 100');
    await store.saveSnapshot({ streamId: 's', version: 0, state: 'x'.repeat(50) });
    await catchTotError(() => new InMemoryEventStore({ maxSnapshotBytes: 0 }), 'INVALID_ARGUMENT');
  });

  it('names the place where data stops being JSON, and the field whose data nests too deep', async () => {
    const store = new InMemoryEventStore();
    const cycle: Record<string, unknown> = { list: [1, {}] };
    (cycle.list as unknown[])[1] = { back: cycle };
    const cyclic = await catchTotError(() => store.append('s', [{ type: 't', data: cycle, idempotencyKey: 'k' }], { expectedVersion: 'any' }), 'INVALID_ARGUMENT');
    expect(cyclic.details?.field).toBe('events[0].data.list[1].back');
    expect(cyclic.message).toContain('cycle');
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = { deep };
    const tooDeep = await catchTotError(() => store.append('s', [{ type: 't', data: { ok: 1, deep }, idempotencyKey: 'k' }], { expectedVersion: 'any' }), 'INVALID_ARGUMENT');
    expect(tooDeep.details?.field).toBe('events[0].data');
    expect(tooDeep.message).toContain('deeper than 512 levels');
  });

  it('answers data whose getter throws with INVALID_ARGUMENT, keeping the error as its cause', async () => {
    const store = new InMemoryEventStore();
    const boom = new Error('boom');
    const data = {
      get value(): never {
        throw boom;
      },
    };
    const error = await catchTotError(() => store.append('s', [{ type: 't', data, idempotencyKey: 'k' }], { expectedVersion: 'any' }), 'INVALID_ARGUMENT');
    expect(error.cause).toBe(boom);
    expect(await store.streamVersion('s')).toBeNull();
  });

  describe('finding an event id it made', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('among many batches of one millisecond, and never an id it did not hand out', async () => {
      vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 0, 1) });
      const store = new InMemoryEventStore();
      const made: string[] = [];
      for (let b = 0; b < 40; b++) made.push((await store.append(`s${b}`, [{ type: 't', data: b, idempotencyKey: `k${b}` }, { type: 't', data: b, idempotencyKey: `k${b}b` }], { expectedVersion: 'no_stream' })).events[1]!.eventId);
      await catchTotError(() => store.append('other', [{ type: 't', data: 1, idempotencyKey: 'x', eventId: made[23]! }], { expectedVersion: 'any' }), 'IDEMPOTENCY_CONFLICT');
      // The same millisecond and block, a position no event has.
      const unused = `${made[23]!.slice(0, 32)}00ff`;
      await store.append('other', [{ type: 't', data: 1, idempotencyKey: 'y', eventId: unused }], { expectedVersion: 'any' });
    });

    it('when the clock goes back: ids keep the later millisecond, so both batches are still found', async () => {
      vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 0, 1) });
      const store = new InMemoryEventStore();
      const first = (await store.append('a', [{ type: 't', data: 1, idempotencyKey: 'k1' }], { expectedVersion: 'no_stream' })).events[0]!.eventId;
      vi.setSystemTime(Date.UTC(2025, 11, 31));
      const second = (await store.append('b', [{ type: 't', data: 2, idempotencyKey: 'k2' }], { expectedVersion: 'no_stream' })).events[0]!.eventId;
      // The time part (the first 48 bits) did not go back.
      expect(second.slice(0, 13)).toBe(first.slice(0, 13));
      await catchTotError(() => store.append('c', [{ type: 't', data: 3, idempotencyKey: 'k3', eventId: second }], { expectedVersion: 'any' }), 'IDEMPOTENCY_CONFLICT');
      await catchTotError(() => store.append('c', [{ type: 't', data: 3, idempotencyKey: 'k3', eventId: first }], { expectedVersion: 'any' }), 'IDEMPOTENCY_CONFLICT');
    });
  });

  it('refuses an append whose signal is already aborted', async () => {
    const store = new InMemoryEventStore();
    await catchTotError(() => store.append('s', [{ type: 't', data: 1, idempotencyKey: 'k' }], { expectedVersion: 'any', signal: AbortSignal.abort() }), 'ABORTED');
    expect(await store.streamVersion('s')).toBeNull();
  });
  it('refuses parent ids and clocks the event schema refuses, naming the field, whatever else the event has right', async () => {
    const store = new InMemoryEventStore();
    const cases: [string, Record<string, unknown>][] = [
      ['events[0].parentIds[0]', { parentIds: [''] }],
      ['events[0].parentIds[1]', { parentIds: ['p', 'x'.repeat(257)] }],
      ['events[0].parentIds[0]', { parentIds: [, 'p'] }], // eslint-disable-line no-sparse-arrays
      ['events[0].parentIds', { parentIds: 'p' }],
      ['events[0].clock.w', { clock: { w: -1 } }],
      ['events[0].clock.w', { clock: { w: 1.5 } }],
      ['events[0].clock.w', { clock: { w: '1' } }],
      ['events[0].clock.', { clock: { '': 1 } }],
      ['events[0].clock', { clock: [1] }],
      ['events[0].eventId', { eventId: '' }],
      ['events[0].metadata', { metadata: new Date(0) }],
    ];
    for (const [field, extra] of cases) {
      const error = await catchTotError(() => store.append('s', [{ type: 't', data: 1, idempotencyKey: 'k', parentIds: ['p'], clock: { w: 1 }, ...extra } as never], { expectedVersion: 'any' }), 'INVALID_ARGUMENT');
      expect(error.details?.field, JSON.stringify(extra)).toBe(field);
    }
    expect(await store.streamVersion('s')).toBeNull();
  });
});
