import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareClocks, EventDag, VectorClock } from '../../src/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

describe('VectorClock', () => {
  it('increments its own counter and leaves the original unchanged', () => {
    const a = new VectorClock('a');
    const a1 = a.increment();
    expect(a.counters).toEqual({ a: 0 });
    expect(a1.counters).toEqual({ a: 1 });
  });

  it('merges by element-wise maximum, then increments (seed 004)', () => {
    expect(new VectorClock('a', { a: 2, b: 1 }).merge({ b: 5, c: 1 }).counters).toEqual({ a: 3, b: 5, c: 1 });
  });

  it('orders causally related clocks and finds concurrent ones', () => {
    const a1 = new VectorClock('a').increment();
    const b1 = new VectorClock('b').merge(a1.counters);
    const a2 = a1.increment();
    expect(a1.compare(b1)).toBe('before');
    expect(b1.compare(a1)).toBe('after');
    expect(a2.compare(b1)).toBe('concurrent');
    expect(a1.compare(a1.counters)).toBe('equal');
    expect(compareClocks({}, { x: 0 })).toBe('equal');
  });

  it('is antisymmetric and consistent (property)', () => {
    const clock = fc.dictionary(fc.constantFrom('a', 'b', 'c'), fc.nat({ max: 5 }));
    const flip = { before: 'after', after: 'before', equal: 'equal', concurrent: 'concurrent' } as const;
    fc.assert(
      fc.property(clock, clock, (x, y) => {
        expect(compareClocks(y, x)).toBe(flip[compareClocks(x, y)]);
        // Merging always comes after both inputs.
        const merged = new VectorClock('z', x).merge(y);
        expect(['after']).toContain(merged.compare(x));
        expect(['after']).toContain(merged.compare(y));
      }),
    );
  });

  it('rejects bad counters', async () => {
    await catchTotError(() => new VectorClock(''), 'INVALID_ARGUMENT');
    await catchTotError(() => new VectorClock('a', { a: -1 }), 'INVALID_ARGUMENT');
    await catchTotError(() => new VectorClock('a').merge({ b: 1.5 }), 'INVALID_ARGUMENT');
  });
});

describe('EventDag', () => {
  const dag = () =>
    new EventDag([
      { eventId: 'root', clock: { a: 1 } },
      { eventId: 'left', parentIds: ['root'], clock: { a: 2 } },
      { eventId: 'right', parentIds: ['root'], clock: { a: 1, b: 1 } },
      { eventId: 'merge', parentIds: ['left', 'right'], clock: { a: 3, b: 1 } },
    ]);

  it('lists edges and ancestors over parentIds', () => {
    expect(dag().edges()).toEqual([
      ['root', 'left'],
      ['root', 'right'],
      ['left', 'merge'],
      ['right', 'merge'],
    ]);
    expect([...dag().ancestors('merge')].sort()).toEqual(['left', 'right', 'root']);
    expect([...dag().ancestors('root')]).toEqual([]);
  });

  it('accepts a write that has seen its parents', () => {
    expect(() => dag().assertCausal({ parentIds: ['merge'], clock: { a: 4, b: 1 } })).not.toThrow();
  });

  it("reports seed 004's 409 — a write concurrent with its parent — as EXPECTED_VERSION_CONFLICT", async () => {
    const error = await catchTotError(() => dag().assertCausal({ parentIds: ['left'], clock: { a: 1, b: 2 } }), 'EXPECTED_VERSION_CONFLICT');
    expect(error.details).toMatchObject({ parent: 'left', order: 'concurrent' });
    await catchTotError(() => dag().assertCausal({ parentIds: ['left'], clock: { a: 2 } }), 'EXPECTED_VERSION_CONFLICT');
    await catchTotError(() => dag().assertCausal({ parentIds: ['unknown'], clock: { a: 9 } }), 'EXPECTED_VERSION_CONFLICT');
  });
});
