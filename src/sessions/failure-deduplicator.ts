import { z } from 'zod';
import { parseOptions } from '../internal/validate.js';
import type { FailureCategory } from './failure-category.js';

const optionsSchema = z.strictObject({ maxRetries: z.number().int().min(0).default(3) });

/**
 * What {@link FailureDeduplicator.shouldRetry} answers.
 *
 * @example
 * ```ts
 * import type { RetryVerdict } from '@tot/core/sessions';
 *
 * const say = (v: RetryVerdict) => (v.retry ? `retry ${v.attempt}` : v.reason);
 * ```
 */
export type RetryVerdict = { retry: true; attempt: number } | { retry: false; reason: 'max_retries' | 'not_retryable'; message: string };

/**
 * Categories never retried as they are: they need a change first.
 *
 * @example
 * ```ts
 * import { NON_RETRYABLE_FAILURES } from '@tot/core/sessions';
 *
 * NON_RETRYABLE_FAILURES.includes('syntax_error'); // true
 * ```
 */
export const NON_RETRYABLE_FAILURES: readonly FailureCategory[] = Object.freeze(['syntax_error', 'path_outside_project']);

/**
 * Counts retries per failure signature: a failure is retried at most `maxRetries` times
 * (default 3), then the strategy must change; a syntax error or a path outside the project is
 * never retried.
 *
 * @example
 * ```ts
 * import { FailureDeduplicator, failureSignature } from '@tot/core/sessions';
 *
 * const dedup = new FailureDeduplicator({ maxRetries: 2 });
 * const sig = failureSignature({ stderr, exitCode });
 * dedup.shouldRetry(sig, 'timeout'); // { retry: true, attempt: 1 }
 * ```
 */
export class FailureDeduplicator {
  readonly maxRetries: number;
  private readonly counts = new Map<string, number>();

  constructor(options: { maxRetries?: number } = {}) {
    this.maxRetries = parseOptions(optionsSchema, options, 'FailureDeduplicator').maxRetries;
  }

  /**
   * Whether a failure with this signature may be retried; a yes counts the retry.
   *
   * @example
   * ```ts
   * const verdict = dedup.shouldRetry(sig, category);
   * if (!verdict.retry) console.log(verdict.message);
   * ```
   */
  shouldRetry(signature: string, category: FailureCategory): RetryVerdict {
    const count = this.counts.get(signature) ?? 0;
    if (count >= this.maxRetries) return { retry: false, reason: 'max_retries', message: `failure ${signature.slice(0, 8)} was retried ${count} times: change the strategy` };
    if (NON_RETRYABLE_FAILURES.includes(category)) return { retry: false, reason: 'not_retryable', message: `a ${category} is not retried: it needs a fix first` };
    this.counts.set(signature, count + 1);
    return { retry: true, attempt: count + 1 };
  }

  /**
   * Retries counted for a signature.
   *
   * @example
   * ```ts
   * dedup.retries(sig); // 1
   * ```
   */
  retries(signature: string): number {
    return this.counts.get(signature) ?? 0;
  }
}
