import { describe, expect, it } from 'vitest';
import { chanceOutside, median } from '../../bench/harness.js';
import { seededRandom } from '../../src/index.js';

/** The share of `trials` pairs of runs (`first` and `second` draws) whose second median lies outside the first's range. */
function simulate(first: number, second: number, trials: number, next: () => number): number {
  let outside = 0;
  for (let i = 0; i < trials; i++) {
    const a = Array.from({ length: first }, next);
    const m = median(Array.from({ length: second }, next));
    if (m < Math.min(...a) || m > Math.max(...a)) outside++;
  }
  return outside / trials;
}

/** Four standard errors of a share `p` estimated from `trials` draws: a correct formula stays inside nearly always. */
const tolerance = (p: number, trials: number) => 4 * Math.sqrt((p * (1 - p)) / trials);

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
    const odd = [3, 5, 7, 9, 11, 15, 21, 101].map((rounds) => chanceOutside(rounds));
    for (let i = 1; i < odd.length; i++) expect(odd[i]).toBeLessThan(odd[i - 1]!);
  });

  it('is 3/7 for 4 rounds, an upper bound for an even count: the orders with two or more of the second run\'s rounds below all of the first\'s, and as many above', () => {
    // Of the 70 orders of 4 and 4 rounds, 15 put two or more of the second run's first.
    expect(chanceOutside(4)).toBeCloseTo(30 / 70, 12);
  });

  it('takes the second run\'s rounds into account when they differ from the first\'s', () => {
    // 5 first rounds, 15 second: of the C(20, 5) = 15,504 orders, 792 put eight or more of the second run's rounds first.
    expect(chanceOutside(5, 15)).toBeCloseTo((2 * 792) / 15_504, 12);
    expect(chanceOutside(5, 5)).toBe(chanceOutside(5));
  });

  it('agrees with a simulation of runs of random rounds for odd counts, and bounds it from above for even ones', () => {
    const next = seededRandom(7);
    const trials = 40_000;
    for (const [first, second] of [[5, 5], [7, 7], [11, 11], [5, 15], [15, 5]] as const) {
      const p = chanceOutside(first, second);
      expect(Math.abs(simulate(first, second, trials, next) - p), `${first} and ${second} rounds`).toBeLessThan(tolerance(p, trials));
    }
    for (const rounds of [4, 6]) expect(simulate(rounds, rounds, trials, next), `${rounds} rounds`).toBeLessThan(chanceOutside(rounds));
  });

  it('refuses a count of rounds that is not a positive whole number', () => {
    for (const bad of [0, -1, 2.5, Number.NaN]) expect(() => chanceOutside(bad)).toThrow(RangeError);
  });
});
