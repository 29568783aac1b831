/**
 * Every code a {@link TotError} can carry, with whether an error of that code is recoverable
 * by default (a retry or a different branch may succeed).
 *
 * The first four are the error codes of the Tree-of-Thoughts agent protocol; the rest belong to the library.
 *
 * @example
 * ```ts
 * import { TOT_ERROR_CODES } from '@tot/core';
 *
 * TOT_ERROR_CODES.BUDGET_EXCEEDED.recoverable; // false
 * ```
 */
export const TOT_ERROR_CODES = {
  /** A model output or protocol message does not have the expected shape. */
  INVALID_FORMAT: { recoverable: true },
  /** A model call (or a generator built on one) failed. */
  GENERATION_FAILED: { recoverable: true },
  /** An evaluation did not finish in time. */
  EVALUATION_TIMEOUT: { recoverable: true },
  /** A search ran out of states to explore. */
  SEARCH_EXHAUSTED: { recoverable: false },
  /** A model call did not finish within its timeout. */
  TIMEOUT: { recoverable: true },
  /** A budget limit (calls, tokens, cost or wall time) would be exceeded. */
  BUDGET_EXCEEDED: { recoverable: false },
  /** The operation was cancelled through its `AbortSignal`. */
  ABORTED: { recoverable: false },
  /** A caller passed an option or argument that is not valid. */
  INVALID_ARGUMENT: { recoverable: false },
  /** A state change that the status machine forbids (e.g. expanding a pruned node). */
  ILLEGAL_STATE: { recoverable: false },
  /** An event store append found a different stream version than expected. */
  EXPECTED_VERSION_CONFLICT: { recoverable: true },
  /** An idempotency key was reused with a different payload. */
  IDEMPOTENCY_CONFLICT: { recoverable: false },
  /** The same sub-goal was attempted repeatedly without progress. */
  LOOP_DETECTED: { recoverable: false },
  /** A resume's configuration (or the run it replays) differs from the recorded run's; nothing was written. */
  RESUME_MISMATCH: { recoverable: false },
  /** Code outside the library's contracts threw (a custom strategy, a user callback): the original error is the cause. */
  INTERNAL: { recoverable: false },
} as const satisfies Record<string, { recoverable: boolean }>;

/**
 * The code of a {@link TotError}.
 *
 * @example
 * ```ts
 * import type { TotErrorCode } from '@tot/core';
 *
 * const code: TotErrorCode = 'INVALID_FORMAT';
 * ```
 */
export type TotErrorCode = keyof typeof TOT_ERROR_CODES;
