import { z } from 'zod';
import { parseOptions } from '../internal/validate.js';
import type { FailureCategory } from './failure-category.js';

/**
 * A healing action: its name and its parameters, as the session engine's strategy table writes them.
 *
 * @example
 * ```ts
 * import type { HealingStrategy } from '@tot/core/sessions';
 *
 * const s: HealingStrategy = { action: 'retry_with_backoff', max_attempts: 3, backoff_ms: [100, 500, 2000] };
 * ```
 */
export interface HealingStrategy {
  action: string;
  [parameter: string]: unknown;
}

/**
 * The session engine's strategy table: for each failure category, the healing actions to choose from.
 * Categories it has no row for fall back to asking the user.
 *
 * @example
 * ```ts
 * import { HEALING_STRATEGIES } from '@tot/core/sessions';
 *
 * HEALING_STRATEGIES.port_in_use?.[0]; // { action: 'find_free_port', range: '8000-9000' }
 * ```
 */
export const HEALING_STRATEGIES: Readonly<Partial<Record<FailureCategory, readonly HealingStrategy[]>>> = Object.freeze({
  permission_denied: [
    { action: 'switch_tool', from: 'direct_write', to: 'safe_edit' },
    { action: 'request_approval', message: 'elevated permissions needed' },
  ],
  file_not_found: [
    { action: 'expand_context', type: 'symbol_search', query: 'find_alternate_location' },
    { action: 'suggest_create', template: 'default' },
  ],
  port_in_use: [
    { action: 'find_free_port', range: '8000-9000' },
    { action: 'kill_process', require_approval: true },
  ],
  lock_held: [
    { action: 'reduce_concurrency', max_parallel: 1 },
    { action: 'retry_with_backoff', max_attempts: 3, backoff_ms: [100, 500, 2000] },
  ],
  missing_dependency: [
    { action: 'suggest_install', package_manager: 'auto_detect' },
    { action: 'switch_tool', to: 'fallback' },
  ],
  path_non_compliant: [
    { action: 'doc_suggest', service: 'Epic-002' },
    { action: 'ask_user', options: 'auto_fix/manual' },
  ],
  test_failed: [
    { action: 'analyze_diff', tool: 'git_diff' },
    { action: 'expand_context', type: 'test_only', affected: true },
    { action: 'rollback', strategy: 'git_revert' },
  ],
  timeout: [
    { action: 'batch_reduce', factor: 0.5 },
    { action: 'increase_timeout', multiplier: 2 },
  ],
  syntax_error: [
    { action: 'rollback', strategy: 'git_revert' },
    { action: 'parse_error', tool: 'ast_parser' },
  ],
  unknown: [
    { action: 'log_for_review', priority: 'high' },
    { action: 'ask_user', include_stderr: true },
  ],
});

const optionsSchema = z.strictObject({
  // A strategy is the seed's table row: an action and any parameters of its own.
  strategies: z.record(z.string(), z.array(z.looseObject({ action: z.string() }))).optional(),
  alpha: z.number().gt(0).max(1).default(0.3),
  prior: z.number().min(0).max(1).default(0.5),
  history: z.record(z.string(), z.number()).optional(),
});

/** What a category with no row in the table gets. */
const FALLBACK: HealingStrategy = Object.freeze({ action: 'ask_user', include_stderr: true });

/**
 * Options of {@link HealingEngine}.
 *
 * @example
 * ```ts
 * import type { HealingEngineOptions } from '@tot/core/sessions';
 *
 * const options: HealingEngineOptions = { alpha: 0.3, prior: 0.5 };
 * ```
 */
export interface HealingEngineOptions {
  /** The strategy table. Default {@link HEALING_STRATEGIES}. */
  strategies?: Readonly<Partial<Record<FailureCategory, readonly HealingStrategy[]>>>;
  /** The learning rate of the success rates' moving average. Default 0.3. */
  alpha?: number;
  /** The success rate of an action not tried yet. Default 0.5. */
  prior?: number;
  /** Success rates to start from, by `category:action` (e.g. restored from a session). */
  history?: Record<string, number>;
}

/**
 * Chooses how to heal a failure: of the strategies for its category, the one with the
 * best success rate so far (ties: the table's order), and learns from each outcome with an
 * exponential moving average (α 0.3, from 0.5).
 *
 * @example
 * ```ts
 * import { HealingEngine } from '@tot/core/sessions';
 *
 * const healing = new HealingEngine();
 * const strategy = healing.select('lock_held');   // { action: 'reduce_concurrency', max_parallel: 1 }
 * healing.record('lock_held', strategy.action, false);
 * healing.select('lock_held').action;             // 'retry_with_backoff'
 * ```
 */
export class HealingEngine {
  private readonly strategies: Readonly<Partial<Record<FailureCategory, readonly HealingStrategy[]>>>;
  private readonly alpha: number;
  private readonly prior: number;
  private readonly rates = new Map<string, number>();

  constructor(options: HealingEngineOptions = {}) {
    const { alpha, prior, history } = parseOptions(optionsSchema, options, 'HealingEngine');
    this.strategies = options.strategies ?? HEALING_STRATEGIES;
    this.alpha = alpha;
    this.prior = prior;
    for (const [key, rate] of Object.entries(history ?? {})) this.rates.set(key, rate);
  }

  /**
   * The success rate of an action for a category so far.
   *
   * @example
   * ```ts
   * healing.successRate('timeout', 'batch_reduce'); // 0.5 before any outcome
   * ```
   */
  successRate(category: FailureCategory, action: string): number {
    return this.rates.get(`${category}:${action}`) ?? this.prior;
  }

  /**
   * The strategy to try for a failure of `category`.
   *
   * @example
   * ```ts
   * const { action } = healing.select(classifyFailure(stderr, exitCode));
   * ```
   */
  select(category: FailureCategory): HealingStrategy {
    const options = this.strategies[category] ?? [];
    let best: HealingStrategy | undefined;
    let bestRate = -1;
    for (const s of options) {
      const rate = this.successRate(category, s.action);
      if (rate > bestRate) {
        best = s;
        bestRate = rate;
      }
    }
    return { ...(best ?? FALLBACK) };
  }

  /**
   * Learns from an outcome: rate ← α·(1 if it worked, else 0) + (1 − α)·rate. Returns the new rate.
   *
   * @example
   * ```ts
   * healing.record('timeout', 'batch_reduce', true); // 0.65
   * ```
   */
  record(category: FailureCategory, action: string, success: boolean): number {
    const next = this.alpha * (success ? 1 : 0) + (1 - this.alpha) * this.successRate(category, action);
    this.rates.set(`${category}:${action}`, next);
    return next;
  }

  /**
   * The success rates learnt so far, by `category:action` (to persist and pass back as `history`).
   *
   * @example
   * ```ts
   * const saved = healing.toJSON();
   * const again = new HealingEngine({ history: saved });
   * ```
   */
  toJSON(): Record<string, number> {
    return Object.fromEntries(this.rates);
  }
}
