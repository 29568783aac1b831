import { describe, expect, it } from 'vitest';
import { extent } from '../../src/internal/extent.js';

describe('extent: the smallest and largest of a number over a list', () => {
  it('gives the smallest and the largest key', () => {
    expect(extent([{ depth: 2 }, { depth: 1 }, { depth: 3 }], (n) => n.depth)).toEqual({ min: 1, max: 3 });
  });

  it('gives Infinity and -Infinity over no items, as Math.min() and Math.max() do', () => {
    expect(extent([], (x: number) => x)).toEqual({ min: Math.min(), max: Math.max() });
  });

  it('takes a list longer than a spread into Math.min(...) can (RangeError past about 120,000)', () => {
    const values = Array.from({ length: 300_000 }, (_, i) => (i * 7919) % 300_007);
    expect(() => Math.min(...values)).toThrow(RangeError);
    expect(extent(values, (x) => x)).toEqual({ min: 0, max: 300_006 });
  });
});
