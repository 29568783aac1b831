import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { parseOptions } from '../internal/validate.js';

const weightsSchema = z.strictObject({ completeness: z.number(), risk: z.number(), cost: z.number(), historyPrior: z.number(), costScale: z.number() }).partial();
const usageSchema = z.strictObject({ tokensUsed: z.number().optional(), maxTokens: z.number().optional(), msElapsed: z.number().optional(), maxMs: z.number().optional() });

/**
 * The scores of a branch that its reward is made of: `completeness` 0–1, `risk` 0–1
 * (lower is better), `cost` in tokens (lower is better), `historyPrior` 0–1.
 *
 * @example
 * ```ts
 * import type { BranchScore } from '@tot/core/sessions';
 *
 * const score: BranchScore = { completeness: 0.8, risk: 0.3, cost: 600, historyPrior: 0.5 };
 * ```
 */
export interface BranchScore {
  completeness?: number;
  risk?: number;
  cost?: number;
  historyPrior?: number;
}

/**
 * The weights of a reward, and the cost at which the cost term reaches zero.
 *
 * @example
 * ```ts
 * import type { RewardWeights } from '@tot/core/sessions';
 *
 * const riskAverse: RewardWeights = { completeness: 0.3, risk: 0.5, cost: 0.1, historyPrior: 0.1, costScale: 2000 };
 * ```
 */
export interface RewardWeights {
  completeness: number;
  risk: number;
  cost: number;
  historyPrior: number;
  /** Tokens at which the cost term is 0. */
  costScale: number;
}

/**
 * The session engine's weights: 0.4 completeness, 0.3 (1 − risk), 0.2 (1 − min(cost / 2000, 1)), 0.1 history prior.
 *
 * @example
 * ```ts
 * import { DEFAULT_REWARD_WEIGHTS } from '@tot/core/sessions';
 *
 * DEFAULT_REWARD_WEIGHTS.completeness; // 0.4
 * ```
 */
export const DEFAULT_REWARD_WEIGHTS: Readonly<RewardWeights> = Object.freeze({ completeness: 0.4, risk: 0.3, cost: 0.2, historyPrior: 0.1, costScale: 2000 });

/**
 * A branch's reward (`calculate_reward`), with the session engine's defaults for what the score
 * leaves out (completeness 0, risk 0.5, cost 1000, history prior 0.5) and its weights unless given.
 *
 * @example
 * ```ts
 * import { calculateReward } from '@tot/core/sessions';
 *
 * calculateReward({ completeness: 1, risk: 0.1, cost: 500, historyPrior: 0.5 }); // 0.4 + 0.27 + 0.15 + 0.05 = 0.87
 * ```
 */
export function calculateReward(score: BranchScore, weights: Partial<RewardWeights> = {}): number {
  const w = { ...DEFAULT_REWARD_WEIGHTS, ...parseOptions(weightsSchema, weights, 'calculateReward', 'weights') };
  if (!(w.costScale > 0)) throw new TotError('INVALID_ARGUMENT', `calculateReward: weights.costScale: expected a positive number, got ${w.costScale}.`, { details: { field: 'weights.costScale' } });
  const completeness = score.completeness ?? 0;
  const risk = score.risk ?? 0.5;
  const cost = score.cost ?? 1000;
  const prior = score.historyPrior ?? 0.5;
  return w.completeness * completeness + w.risk * (1 - risk) + w.cost * (1 - Math.min(cost / w.costScale, 1)) + w.historyPrior * prior;
}

/**
 * The session engine's budget rule: stop early once tokens or time pass 90% of their budget.
 *
 * @example
 * ```ts
 * import { budgetStop } from '@tot/core/sessions';
 *
 * budgetStop({ tokensUsed: 4600, maxTokens: 5000 }); // true (92%)
 * ```
 */
export function budgetStop(usage: { tokensUsed?: number; maxTokens?: number; msElapsed?: number; maxMs?: number }, threshold = 0.9): boolean {
  parseOptions(usageSchema, usage, 'budgetStop', 'usage');
  const over = (used: number | undefined, max: number | undefined) => used !== undefined && max !== undefined && max > 0 && used / max > threshold;
  return over(usage.tokensUsed, usage.maxTokens) || over(usage.msElapsed, usage.maxMs);
}

/**
 * The session engine's quality rule: the first branch complete (1.0) with risk under 0.2 wins at once.
 *
 * @example
 * ```ts
 * import { qualityStop } from '@tot/core/sessions';
 *
 * qualityStop([{ id: 'a', score: { completeness: 0.9, risk: 0.1 } }, { id: 'b', score: { completeness: 1, risk: 0.15 } }])?.id; // 'b'
 * ```
 */
export function qualityStop<B extends { score: BranchScore }>(branches: readonly B[]): B | undefined {
  return branches.find((b) => (b.score.completeness ?? 0) === 1 && (b.score.risk ?? 1) < 0.2);
}

/**
 * The session engine's convergence rule: with two branches or more, stop when the variance of their rewards
 * is under `threshold` (default 0.1): they are about as good as each other.
 *
 * @example
 * ```ts
 * import { convergenceStop } from '@tot/core/sessions';
 *
 * convergenceStop([0.71, 0.7, 0.69]); // true
 * ```
 */
export function convergenceStop(rewards: readonly number[], threshold = 0.1): boolean {
  if (rewards.length < 2) return false;
  const mean = rewards.reduce((a, b) => a + b, 0) / rewards.length;
  const variance = rewards.reduce((a, r) => a + (r - mean) ** 2, 0) / rewards.length;
  return variance < threshold;
}
