import { TOT_ERROR_CODES, type TotErrorCode } from './error-codes.js';
import type { TotErrorDetails } from './error-details.js';

const marker = Symbol.for('tot.error');

/**
 * Options for constructing a {@link TotError}.
 *
 * @example
 * ```ts
 * import { TotError, type TotErrorOptions } from '@tot/core';
 *
 * const options: TotErrorOptions<'GENERATION_FAILED'> = { recoverable: true, details: { attempts: 2 } };
 * throw new TotError('GENERATION_FAILED', 'the provider returned 503', options);
 * ```
 */
export interface TotErrorOptions<C extends TotErrorCode = TotErrorCode> {
  /** Overrides the code's default recoverability. */
  recoverable?: boolean;
  /** The underlying error. */
  cause?: unknown;
  /** Structured data, typed per code (see {@link TotErrorDetailsMap}). */
  details?: TotErrorDetails<C>;
}

/**
 * The Tree-of-Thoughts agent protocol's error object, `{ code, message, recoverable }`.
 *
 * @example
 * ```ts
 * import { TotError, type ProtocolErrorObject } from '@tot/core';
 *
 * const wire: ProtocolErrorObject = new TotError('SEARCH_EXHAUSTED', 'no states left').toProtocolError();
 * ```
 */
export interface ProtocolErrorObject {
  code: string;
  message: string;
  recoverable: boolean;
}

/**
 * The one error type the library throws. Match on `code`, never on the message; `details` is
 * typed per code, and `TotError.hasCode(e, code)` narrows it.
 *
 * `TotError.isInstance(e)` works across package copies and realms because it checks a
 * `Symbol.for('tot.error')` marker rather than the prototype chain.
 *
 * @example
 * ```ts
 * import { TotError } from '@tot/core';
 *
 * try {
 *   await run();
 * } catch (error) {
 *   if (TotError.isInstance(error) && error.code === 'BUDGET_EXCEEDED') {
 *     console.log('stopped by budget', error.details);
 *   } else throw error;
 * }
 * ```
 */
export class TotError<C extends TotErrorCode = TotErrorCode> extends Error {
  /** A stable code, safe to branch on. */
  readonly code: C;
  /** Whether retrying or trying another branch may succeed. */
  readonly recoverable: boolean;
  /** Structured data, typed per code (see {@link TotErrorDetailsMap}). */
  readonly details: TotErrorDetails<C> | undefined;
  declare readonly cause: unknown;
  private readonly [marker] = true;

  constructor(code: C, message: string, options: TotErrorOptions<C> = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TotError';
    this.code = code;
    this.recoverable = options.recoverable ?? TOT_ERROR_CODES[code].recoverable;
    this.details = options.details;
  }

  /**
   * Whether `value` is a `TotError` (from any copy of this package).
   *
   * @example
   * ```ts
   * import { TotError } from '@tot/core';
   *
   * TotError.isInstance(new TotError('ABORTED', 'stopped')); // true
   * TotError.isInstance(new Error('x')); // false
   * ```
   */
  static isInstance(value: unknown): value is TotError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }

  /**
   * Whether `value` is a `TotError` with the given code.
   *
   * @example
   * ```ts
   * import { TotError } from '@tot/core';
   *
   * TotError.hasCode(new TotError('ABORTED', 'stopped'), 'ABORTED'); // true
   * ```
   */
  static hasCode<C extends TotErrorCode>(value: unknown, code: C): value is TotError<C> {
    return TotError.isInstance(value) && value.code === code;
  }

  /**
   * The Tree-of-Thoughts agent protocol's error object for this error.
   *
   * @example
   * ```ts
   * import { TotError } from '@tot/core';
   *
   * new TotError('EVALUATION_TIMEOUT', 'took too long').toProtocolError();
   * // { code: 'EVALUATION_TIMEOUT', message: 'took too long', recoverable: true }
   * ```
   */
  toProtocolError(): ProtocolErrorObject {
    return { code: this.code, message: this.message, recoverable: this.recoverable };
  }

  /**
   * A JSON-safe view of the error (used when errors are written to traces and event stores).
   *
   * @example
   * ```ts
   * import { TotError } from '@tot/core';
   *
   * JSON.stringify(new TotError('ABORTED', 'stopped'));
   * ```
   */
  toJSON(): { name: string; code: C; message: string; recoverable: boolean; details?: TotErrorDetails<C> } {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      recoverable: this.recoverable,
      ...(this.details === undefined ? {} : { details: this.details }),
    };
  }
}
