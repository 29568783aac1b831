import { describe, expect, it } from 'vitest';
import { budgetStop, calculateReward, convergenceStop, qualityStop } from '../../src/sessions/index.js';

describe('calculateReward (seed 004)', () => {
  it('weighs completeness 0.4, (1 − risk) 0.3, (1 − cost/2000) 0.2 and the history prior 0.1', () => {
    expect(calculateReward({ completeness: 1, risk: 0.1, cost: 500, historyPrior: 0.5 })).toBeCloseTo(0.4 + 0.27 + 0.15 + 0.05, 12);
  });

  it('takes the seed\'s defaults for what the score leaves out: completeness 0, risk 0.5, cost 1000, prior 0.5', () => {
    expect(calculateReward({})).toBeCloseTo(0 + 0.15 + 0.1 + 0.05, 12);
  });

  it('caps the cost term at zero from 2000 tokens on', () => {
    expect(calculateReward({ completeness: 0, risk: 1, cost: 5000, historyPrior: 0 })).toBe(0);
  });

  it('takes other weights', () => {
    expect(calculateReward({ completeness: 1, risk: 0, cost: 0, historyPrior: 0 }, { completeness: 1, risk: 0, cost: 0, historyPrior: 0 })).toBe(1);
  });
});

describe('the early-stopping rules (seed 004)', () => {
  it('stops on budget once tokens or time pass 90%, not at 90% exactly', () => {
    expect(budgetStop({ tokensUsed: 4500, maxTokens: 5000 })).toBe(false);
    expect(budgetStop({ tokensUsed: 4501, maxTokens: 5000 })).toBe(true);
    expect(budgetStop({ tokensUsed: 10, maxTokens: 5000, msElapsed: 550_000, maxMs: 600_000 })).toBe(true);
  });

  it('stops on quality at the first branch complete with risk under 0.2', () => {
    const branches = [
      { id: 'a', score: { completeness: 0.9, risk: 0.1 } },
      { id: 'b', score: { completeness: 1, risk: 0.2 } },
      { id: 'c', score: { completeness: 1, risk: 0.19 } },
    ];
    expect(qualityStop(branches)?.id).toBe('c');
    expect(qualityStop(branches.slice(0, 2))).toBeUndefined();
  });

  it('stops on convergence when the rewards\' variance is under 0.1, with two branches or more', () => {
    expect(convergenceStop([0.2, 0.3])).toBe(true);
    expect(convergenceStop([0, 1])).toBe(false); // variance 0.25
    expect(convergenceStop([0.5])).toBe(false);
    expect(convergenceStop([0.1, 0.3], 0.005)).toBe(false); // variance 0.01
  });
});
