import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { abortable, sleep } from '../internal/abort.js';
import { toTotError } from '../internal/to-tot-error.js';
import { fnSchema, parseOptions } from '../internal/validate.js';
import { languageModelSchema } from './schemas.js';
import type { CallOptions, LanguageModel } from './types.js';
import { wrapModel } from './wrap-model.js';

/**
 * Options of {@link withRetry}.
 *
 * @example
 * ```ts
 * import type { RetryOptions } from '@tot/core';
 *
 * const options: RetryOptions = { maxRetries: 4, initialDelayMs: 250, maxDelayMs: 8_000 };
 * ```
 */
export interface RetryOptions {
  /** Retries after the first attempt. Default 2. */
  maxRetries?: number;
  /** Delay before the first retry. Default 500 ms. */
  initialDelayMs?: number;
  /** Multiplier per retry. Default 2. */
  backoffFactor?: number;
  /** Upper bound of a computed backoff delay. Default 30 000 ms. */
  maxDelayMs?: number;
  /** Apply full jitter (a uniform delay in [0, backoff]). Default true. */
  jitter?: boolean;
  /** A retry-after hint longer than this is not waited for: the error is thrown. Default 60 000 ms. */
  maxRetryAfterMs?: number;
  /** Decides whether an error is worth a retry. Default: {@link isRetryableError}. Aborts are never retried. */
  shouldRetry?: (error: unknown, attempt: number) => boolean;
  /** Random source in [0, 1) for jitter. Default `Math.random`. */
  random?: () => number;
}

/** The options, strict: the middleware form and the embedders check them when they are made. */
export const optionsSchema = z.strictObject({
  maxRetries: z.number().int().min(0).max(100).default(2),
  initialDelayMs: z.number().min(0).default(500),
  backoffFactor: z.number().min(1).default(2),
  maxDelayMs: z.number().min(0).default(30_000),
  jitter: z.boolean().default(true),
  maxRetryAfterMs: z.number().min(0).default(60_000),
  shouldRetry: fnSchema<(error: unknown, attempt: number) => boolean>().optional(),
  random: fnSchema<() => number>().optional(),
});

function statusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as { status?: unknown; statusCode?: unknown };
  const status = e.status ?? e.statusCode;
  return typeof status === 'number' ? status : undefined;
}

/**
 * The default retry policy: retries timeouts, rate limits (408/409/429), server errors (5xx),
 * network errors and recoverable {@link TotError}s; never an abort, a budget stop, bad arguments,
 * other 4xx, or an error whose `isRetryable` is `false`. A provider adapter's verdict
 * (`details.retryable` of a `GENERATION_FAILED`) is followed as it is.
 *
 * @example
 * ```ts
 * import { isRetryableError } from '@tot/core';
 *
 * isRetryableError(Object.assign(new Error('rate limited'), { status: 429 })); // true
 * isRetryableError(Object.assign(new Error('bad request'), { status: 400 })); // false
 * ```
 */
export function isRetryableError(error: unknown): boolean {
  if (typeof error === 'object' && error !== null && 'isRetryable' in error && typeof error.isRetryable === 'boolean') {
    return error.isRetryable;
  }
  if (TotError.isInstance(error)) {
    if (TotError.hasCode(error, 'GENERATION_FAILED')) {
      if (typeof error.details?.retryable === 'boolean') return error.details.retryable;
      if (error.cause !== undefined) return isRetryableError(error.cause);
    }
    return error.recoverable;
  }
  if (error instanceof Error && error.name === 'AbortError') return false;
  const status = statusOf(error);
  if (status === undefined) return true;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** A header of a `Headers` object or a plain record, by its lower-case name (any case in a record). */
export function headerValue(headers: unknown, name: string): string | undefined {
  if (headers === null || typeof headers !== 'object') return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name && typeof value === 'string') return value;
  }
  return undefined;
}

/**
 * Reads a retry-after hint from an error: a numeric `retryAfterMs` property, or a
 * `retry-after-ms` / `retry-after` (seconds or HTTP date) header in `responseHeaders` or `headers`.
 *
 * @example
 * ```ts
 * import { retryAfterMs } from '@tot/core';
 *
 * retryAfterMs({ responseHeaders: { 'retry-after': '2' } }); // 2000
 * ```
 */
export function retryAfterMs(error: unknown, now: number = Date.now()): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as { retryAfterMs?: unknown; responseHeaders?: unknown; headers?: unknown; cause?: unknown };
  if (typeof e.retryAfterMs === 'number' && e.retryAfterMs >= 0) return e.retryAfterMs;
  for (const headers of [e.responseHeaders, e.headers]) {
    const ms = headerValue(headers, 'retry-after-ms');
    if (ms !== undefined && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
    const value = headerValue(headers, 'retry-after');
    if (value === undefined) continue;
    if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value) * 1000;
    const date = Date.parse(value);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  return TotError.isInstance(error) ? retryAfterMs(e.cause, now) : undefined;
}

/**
 * Retries failed calls with exponential backoff and full jitter, honouring a provider's
 * retry-after hint. An abort is never retried, and the call (an attempt, or the wait between
 * attempts) ends with `ABORTED` at once when the signal fires, even if the model ignores it.
 * When every attempt fails, the last error is thrown (as a {@link TotError}) with
 * `details.attempts` and `details.errors`.
 *
 * Put it outside {@link withBudget} so that every attempt is admitted by the budget.
 *
 * @example
 * ```ts
 * import { withRetry } from '@tot/core';
 *
 * const reliable = withRetry(model, { maxRetries: 3, initialDelayMs: 1_000 });
 * ```
 */
export function withRetry(model: LanguageModel, options: RetryOptions = {}): LanguageModel {
  parseOptions(languageModelSchema, model, 'withRetry', 'model');
  const retry = retryPolicy(options, 'withRetry');
  return wrapModel(model, (request, callOptions = {}) =>
    // Raced with the signal: an attempt that ignores its signal must not keep the caller waiting.
    retry(model.modelId, () => abortable(callOptions.signal, () => model.generate(request, callOptions), 'model call'), callOptions),
  );
}

/**
 * Runs an attempt until it succeeds, under a retry policy: the loop of {@link withRetry}, shared
 * with the embedder adapters so that every retry of the library follows one rule.
 */
export type RetryPolicy = <T>(id: string, attempt: () => Promise<T>, callOptions: Pick<CallOptions, 'signal' | 'onRetry'>) => Promise<T>;

/** The policy of `options` (checked, defaults filled in), or `INVALID_ARGUMENT` naming the option (`root.field`) for `where`. */
export function retryPolicy(options: RetryOptions, where: string, root = 'options'): RetryPolicy {
  const o = parseOptions(optionsSchema, options, where, root);
  const shouldRetry = o.shouldRetry ?? ((error: unknown) => isRetryableError(error));
  const random = o.random ?? Math.random;
  return async (id, run, { signal, onRetry }) => {
    const errors: unknown[] = [];
    for (let attempt = 0; ; attempt++) {
      try {
        return await run();
      } catch (error) {
        errors.push(error);
        if (signal?.aborted || TotError.hasCode(error, 'ABORTED')) throw toTotError(error, 'ABORTED', 'The call was aborted');
        const hint = retryAfterMs(error);
        if (hint !== undefined && hint > o.maxRetryAfterMs) {
          throw finalError(id, error, errors, { retryAfterMs: hint, maxRetryAfterMs: o.maxRetryAfterMs });
        }
        if (attempt >= o.maxRetries || !shouldRetry(error, attempt + 1)) throw finalError(id, error, errors);
        const backoff = Math.min(o.maxDelayMs, o.initialDelayMs * o.backoffFactor ** attempt);
        const delay = hint ?? (o.jitter ? random() * backoff : backoff);
        // The caller may refuse the retry (a run whose budget cannot admit another attempt).
        onRetry?.({ attempt: attempt + 1, delayMs: delay, error });
        await sleep(delay, signal);
      }
    }
  };
}

function finalError(modelId: string, last: unknown, errors: unknown[], hint?: { retryAfterMs: number; maxRetryAfterMs: number }): TotError {
  const base = toTotError(last, 'GENERATION_FAILED', `Model "${modelId}" failed`);
  if (errors.length === 1 && hint === undefined) return base;
  const waited = hint === undefined ? '' : `; the provider asked to wait ${hint.retryAfterMs} ms, more than maxRetryAfterMs (${hint.maxRetryAfterMs} ms)`;
  const attempts = errors.length === 1 ? '' : ` (after ${errors.length} attempts)`;
  return new TotError(base.code, `${base.message}${attempts}${waited}`, {
    recoverable: base.recoverable,
    cause: last,
    details: {
      ...base.details,
      attempts: errors.length,
      errors: errors.map((e) => (e instanceof Error ? e.message : String(e))),
      ...(hint === undefined ? {} : hint),
    },
  });
}
