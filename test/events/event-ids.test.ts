import { describe, expect, it } from 'vitest';
import { TimeOrderedIds } from '../../src/events/store/event-ids.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('TimeOrderedIds', () => {
  it('starts every id with the time it was given, in milliseconds', () => {
    const id = new TimeOrderedIds(1, 0x0123_4567_89ab).at(0);
    expect(id).toMatch(UUID_V7);
    expect(id.slice(0, 13)).toBe('01234567-89ab');
  });

  it('numbers the ids of a block in batch order', () => {
    const ids = new TimeOrderedIds(1_000);
    const list = Array.from({ length: 1_000 }, (_, i) => ids.at(i));
    expect([...list].sort()).toEqual(list);
    expect(list[0]!.slice(-4)).toBe('0000');
    expect(list[999]!.slice(-4)).toBe('03e7');
  });

  it('draws a fresh random part for each block of 65,536, so a large batch has no repeated id', () => {
    const ids = new TimeOrderedIds(70_000, 1_700_000_000_000);
    const list = Array.from({ length: 70_000 }, (_, i) => ids.at(i));
    for (const id of [list[0]!, list[65_535]!, list[65_536]!, list[69_999]!]) expect(id).toMatch(UUID_V7);
    expect(new Set(list).size).toBe(70_000);
    expect(list[65_536]!.slice(0, 32)).not.toBe(list[0]!.slice(0, 32));
  });

  it('gives the same id for the same index every time it is asked', () => {
    const ids = new TimeOrderedIds(3);
    expect(ids.at(2)).toBe(ids.at(2));
    expect(new TimeOrderedIds(3).at(0)).not.toBe(ids.at(0));
  });
});
