import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { parseOptions } from '../internal/validate.js';

/**
 * Options of {@link UCBScheduler}.
 *
 * @example
 * ```ts
 * import type { UCBSchedulerOptions } from '@tot/core';
 *
 * const options: UCBSchedulerOptions = { c: 1 }; // explore less than the default √2
 * ```
 */
export interface UCBSchedulerOptions {
  /** Exploration constant. Default √2. */
  c?: number;
}

/**
 * An arm's statistics in a {@link UCBScheduler}.
 *
 * @example
 * ```ts
 * import { UCBScheduler, type ArmStats } from '@tot/core';
 *
 * const s: ArmStats = new UCBScheduler().stats('a'); // { pulls: 0, totalReward: 0, meanReward: 0 }
 * ```
 */
export interface ArmStats {
  pulls: number;
  totalReward: number;
  meanReward: number;
}

const optionsSchema = z.strictObject({ c: z.number().min(0).default(Math.SQRT2) });

/**
 * The Upper Confidence Bound scheduler: arms never pulled come first (in the order given),
 * then the arm with the highest `mean + c·√(ln N / n)`, where `N` is the total pulls and `n` the
 * arm's. Ties go to the arm listed first. Usable on its own to share work between any branches,
 * and the selection rule of {@link mcts}.
 *
 * @example
 * ```ts
 * import { UCBScheduler } from '@tot/core';
 *
 * const ucb = new UCBScheduler();
 * const arms = ['draft-a', 'draft-b', 'draft-c'];
 * for (let round = 0; round < 10; round++) {
 *   const arm = ucb.select(arms);
 *   ucb.update(arm, await runRound(arm)); // reward in [0, 1]
 * }
 * ```
 */
export class UCBScheduler {
  readonly c: number;
  private readonly arms = new Map<string, { pulls: number; total: number }>();
  private pulls = 0;

  constructor(options: UCBSchedulerOptions = {}) {
    this.c = parseOptions(optionsSchema, options, 'UCBScheduler').c;
  }

  /**
   * Total pulls over all arms.
   *
   * @example
   * ```ts
   * import { UCBScheduler } from '@tot/core';
   *
   * new UCBScheduler().totalPulls; // 0
   * ```
   */
  get totalPulls(): number {
    return this.pulls;
  }

  /**
   * The UCB score of an arm (`Infinity` if never pulled).
   *
   * @example
   * ```ts
   * import { UCBScheduler } from '@tot/core';
   *
   * new UCBScheduler().score('new-arm'); // Infinity
   * ```
   */
  score(arm: string): number {
    const stats = this.arms.get(arm);
    if (!stats || stats.pulls === 0) return Number.POSITIVE_INFINITY;
    return stats.total / stats.pulls + this.c * Math.sqrt(Math.log(this.pulls) / stats.pulls);
  }

  /**
   * The arm to pull next among `arms`.
   *
   * @example
   * ```ts
   * import { UCBScheduler } from '@tot/core';
   *
   * new UCBScheduler().select(['a', 'b']); // 'a' (unexplored arms first, in order)
   * ```
   */
  select(arms: readonly string[]): string {
    if (!Array.isArray(arms) || arms.length === 0) throw new TotError('INVALID_ARGUMENT', 'UCBScheduler.select: arms: expected at least one arm', { details: { field: 'arms' } });
    let best = arms[0]!;
    let bestScore = this.score(best);
    for (let i = 1; i < arms.length; i++) {
      const s = this.score(arms[i]!);
      if (s > bestScore) {
        best = arms[i]!;
        bestScore = s;
      }
    }
    return best;
  }

  /**
   * Records a pull of `arm` with its reward.
   *
   * @example
   * ```ts
   * import { UCBScheduler } from '@tot/core';
   *
   * const ucb = new UCBScheduler();
   * ucb.update('a', 0.8);
   * ```
   */
  update(arm: string, reward: number): void {
    if (typeof arm !== 'string') throw new TotError('INVALID_ARGUMENT', 'UCBScheduler.update: arm: expected a string', { details: { field: 'arm' } });
    if (!Number.isFinite(reward)) throw new TotError('INVALID_ARGUMENT', 'UCBScheduler.update: reward: expected a finite number', { details: { field: 'reward' } });
    const stats = this.arms.get(arm) ?? { pulls: 0, total: 0 };
    stats.pulls += 1;
    stats.total += reward;
    this.arms.set(arm, stats);
    this.pulls += 1;
  }

  /**
   * An arm's pulls and rewards.
   *
   * @example
   * ```ts
   * import { UCBScheduler } from '@tot/core';
   *
   * const ucb = new UCBScheduler();
   * ucb.update('a', 1);
   * ucb.stats('a'); // { pulls: 1, totalReward: 1, meanReward: 1 }
   * ```
   */
  stats(arm: string): ArmStats {
    const s = this.arms.get(arm);
    if (!s) return { pulls: 0, totalReward: 0, meanReward: 0 };
    return { pulls: s.pulls, totalReward: s.total, meanReward: s.total / s.pulls };
  }
}
