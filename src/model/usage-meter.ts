import { chargedUsage, type ChargedUsage } from '../budget/estimate-tokens.js';
import type { GenerateRequest, GenerateResult } from './types.js';
import { SAMPLE_INDEX_TAG } from './call-model.js';

/**
 * Totals for one tag value in a {@link UsageSnapshot}.
 *
 * @example
 * ```ts
 * import type { TagUsage } from '@tot/core';
 *
 * const evaluator: TagUsage = { calls: 12, inputTokens: 9_600, outputTokens: 480 };
 * ```
 */
export interface TagUsage {
  calls: number;
  inputTokens: number;
  outputTokens: number;
}

/**
 * What a {@link UsageMeter} has counted.
 *
 * @example
 * ```ts
 * import { UsageMeter, type UsageSnapshot } from '@tot/core';
 *
 * const snapshot: UsageSnapshot = new UsageMeter().snapshot();
 * snapshot.calls; // 0
 * ```
 */
export interface UsageSnapshot {
  /** Completed calls, including the ones served by a cache. */
  calls: number;
  failedCalls: number;
  cacheHits: number;
  /**
   * Input tokens: as reported, or, for a call that did not report them, estimated the way a
   * `Budget` charges them ({@link chargedUsage}).
   */
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** Completed calls whose provider did not report input or output tokens (their tokens are estimates). */
  callsWithUnknownUsage: number;
  /**
   * Completed calls whose provider reported usage that is not a token count (`NaN`, negative,
   * fractional, a string, …; see {@link ChargedUsage.malformed}). Each is also one of
   * `callsWithUnknownUsage`: the malformed figure is estimated, never added as it is.
   */
  callsWithMalformedUsage: number;
  /** Totals per `key=value` request tag, e.g. `byTag['role=evaluator']`. */
  byTag: Record<string, TagUsage>;
}

/**
 * Sums calls and tokens. Feed it with {@link withUsage}, read it with `snapshot()`.
 *
 * @example
 * ```ts
 * import { UsageMeter, withUsage } from '@tot/core';
 *
 * const meter = new UsageMeter();
 * const model = withUsage(provider, { meter });
 * // … run something …
 * console.log(meter.snapshot().totalTokens);
 * ```
 */
export class UsageMeter {
  private state: UsageSnapshot = UsageMeter.empty();

  private static empty(): UsageSnapshot {
    return { calls: 0, failedCalls: 0, cacheHits: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0, callsWithUnknownUsage: 0, callsWithMalformedUsage: 0, byTag: {} };
  }

  /**
   * Counts one completed call. Tokens the result does not report, or reports malformed, are
   * estimated ({@link chargedUsage}); a malformed report is also counted in
   * `callsWithMalformedUsage`. It never throws, whatever the result holds.
   *
   * @example
   * ```ts
   * import { UsageMeter } from '@tot/core';
   *
   * const meter = new UsageMeter();
   * meter.record({ outputs: ['x'], usage: { inputTokens: 10, outputTokens: 2 } });
   * meter.snapshot().totalTokens; // 12
   * ```
   */
  record(result: GenerateResult, request?: GenerateRequest): void {
    const s = this.state;
    const charged = chargedUsage(request ?? { messages: [] }, result);
    const input = charged.inputTokens;
    const output = charged.outputTokens;
    s.calls += 1;
    if (typeof result === 'object' && result !== null && result.cacheHit === true) s.cacheHits += 1;
    if (charged.estimated) s.callsWithUnknownUsage += 1;
    if (charged.malformed === true) s.callsWithMalformedUsage += 1;
    s.inputTokens += input;
    s.outputTokens += output;
    s.totalTokens += input + output;
    for (const [key, value] of Object.entries(request?.tags ?? {})) {
      if (key === SAMPLE_INDEX_TAG) continue;
      const bucket = (s.byTag[`${key}=${value}`] ??= { calls: 0, inputTokens: 0, outputTokens: 0 });
      bucket.calls += 1;
      bucket.inputTokens += input;
      bucket.outputTokens += output;
    }
  }

  /**
   * Counts one failed call.
   *
   * @example
   * ```ts
   * import { UsageMeter } from '@tot/core';
   *
   * const meter = new UsageMeter();
   * meter.recordFailure();
   * meter.snapshot().failedCalls; // 1
   * ```
   */
  recordFailure(): void {
    this.state.failedCalls += 1;
  }

  /**
   * A copy of the totals so far.
   *
   * @example
   * ```ts
   * import { UsageMeter } from '@tot/core';
   *
   * const { calls, totalTokens } = new UsageMeter().snapshot();
   * ```
   */
  snapshot(): UsageSnapshot {
    return structuredClone(this.state);
  }

  /**
   * Sets every total back to zero.
   *
   * @example
   * ```ts
   * import { UsageMeter } from '@tot/core';
   *
   * const meter = new UsageMeter();
   * meter.reset();
   * ```
   */
  reset(): void {
    this.state = UsageMeter.empty();
  }
}
