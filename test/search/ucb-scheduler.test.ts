import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UCBScheduler } from '../../src/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

describe('UCBScheduler', () => {
  it('pulls every unexplored arm first, in the order given', () => {
    const ucb = new UCBScheduler();
    expect(ucb.select(['a', 'b', 'c'])).toBe('a');
    ucb.update('a', 0);
    expect(ucb.select(['a', 'b', 'c'])).toBe('b');
    ucb.update('b', 0);
    expect(ucb.select(['a', 'b', 'c'])).toBe('c');
  });

  it('then picks the highest mean + c·√(ln N / n)', () => {
    const ucb = new UCBScheduler();
    ucb.update('a', 1);
    ucb.update('a', 1);
    ucb.update('b', 0.5);
    // N = 3. a: 1 + √2·√(ln 3 / 2) ≈ 2.048; b: 0.5 + √2·√(ln 3 / 1) ≈ 1.982.
    expect(ucb.score('a')).toBeCloseTo(1 + Math.SQRT2 * Math.sqrt(Math.log(3) / 2), 12);
    expect(ucb.score('b')).toBeCloseTo(0.5 + Math.SQRT2 * Math.sqrt(Math.log(3)), 12);
    expect(ucb.select(['a', 'b'])).toBe('a');
  });

  it('explores more with a larger constant', () => {
    const greedy = new UCBScheduler({ c: 0 });
    const curious = new UCBScheduler({ c: 3 });
    for (const ucb of [greedy, curious]) {
      ucb.update('a', 0.9);
      ucb.update('a', 0.9);
      ucb.update('a', 0.9);
      ucb.update('b', 0.5);
    }
    expect(greedy.select(['a', 'b'])).toBe('a');
    expect(curious.select(['a', 'b'])).toBe('b');
  });

  it('keeps per-arm statistics', () => {
    const ucb = new UCBScheduler();
    ucb.update('a', 1);
    ucb.update('a', 0);
    expect(ucb.stats('a')).toEqual({ pulls: 2, totalReward: 1, meanReward: 0.5 });
    expect(ucb.totalPulls).toBe(2);
  });

  it('concentrates pulls on the best arm of a bandit (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 2, maxLength: 5 }), (means) => {
        const ucb = new UCBScheduler({ c: 0.5 });
        const arms = means.map((_, i) => `arm${i}`);
        for (let t = 0; t < 400; t++) {
          const arm = ucb.select(arms);
          ucb.update(arm, means[arms.indexOf(arm)]!);
        }
        const best = means.indexOf(Math.max(...means));
        const mostPulled = arms.map((a) => ucb.stats(a).pulls).reduce((bi, p, i, all) => (p > all[bi]! ? i : bi), 0);
        expect(means[mostPulled]).toBeCloseTo(means[best]!, 1);
      }),
      { numRuns: 50 },
    );
  });

  it('rejects bad input', async () => {
    await catchTotError(() => new UCBScheduler().select([]), 'INVALID_ARGUMENT');
    await catchTotError(() => new UCBScheduler().update('a', Number.NaN), 'INVALID_ARGUMENT');
    await catchTotError(() => new UCBScheduler({ c: -1 }), 'INVALID_ARGUMENT');
  });
});
