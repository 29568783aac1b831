import { describe, expect, it } from 'vitest';
import { chanceOutside, median } from '../../bench/harness.js';

/** A small seeded generator (mulberry32): the simulation below is the same on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The share of `trials` pairs of runs of `rounds` draws each whose second median lies outside the first's range. */
function simulate(rounds: number, trials: number, next: () => number): number {
  let outside = 0;
  for (let i = 0; i < trials; i++) {
    const first = Array.from({ length: rounds }, next);
    const second = median(Array.from({ length: rounds }, next));
    if (second < Math.min(...first) || second > Math.max(...first)) outside++;
  }
  return outside / trials;
}

describe("chanceOutside: how often a second run's median misses a first run's range by luck alone", () => {
  it('is certain for one round, whose range is a single value', () => {
    expect(chanceOutside(1)).toBe(1);
  });

  it('is 2/5 for 3 rounds and 1/6 for 5, as counted by hand from the orders of the merged rounds', () => {
    // 3 rounds: of the 20 orders of 3 first-run and 3 second-run rounds, 4 put two second-run rounds below all the first's, 4 above.
    expect(chanceOutside(3)).toBeCloseTo(2 / 5, 12);
    // 5 rounds: 21 of the 252 orders put three or more below, as many above.
    expect(chanceOutside(5)).toBeCloseTo(42 / 252, 12);
  });

  it('shrinks as the rounds grow', () => {
    const odd = [3, 5, 7, 9, 11, 15, 21, 101].map(chanceOutside);
    for (let i = 1; i < odd.length; i++) expect(odd[i]).toBeLessThan(odd[i - 1]!);
  });

  it('agrees with a simulation of runs of random rounds for odd counts, and bounds it from above for even ones', () => {
    const next = random(7);
    for (const rounds of [5, 7, 11]) expect(Math.abs(simulate(rounds, 40_000, next) - chanceOutside(rounds)), `${rounds} rounds`).toBeLessThan(0.006);
    for (const rounds of [4, 6]) expect(simulate(rounds, 40_000, next), `${rounds} rounds`).toBeLessThan(chanceOutside(rounds));
  });

  it('refuses a count of rounds that is not a positive whole number', () => {
    for (const bad of [0, -1, 2.5, Number.NaN]) expect(() => chanceOutside(bad)).toThrow(RangeError);
  });
});
