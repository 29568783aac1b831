import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { abortable, linkSignals, throwIfAborted } from '../internal/abort.js';
import { parseOptions } from '../internal/validate.js';
import { languageModelSchema } from './schemas.js';
import type { LanguageModel } from './types.js';
import { wrapModel } from './wrap-model.js';

/**
 * Options of {@link withTimeout}.
 *
 * @example
 * ```ts
 * import type { TimeoutOptions } from '@tot/core';
 *
 * const options: TimeoutOptions = { ms: 20_000 };
 * ```
 */
export interface TimeoutOptions {
  /** Time allowed for one call, in milliseconds. */
  ms: number;
}

/** The options, strict: the middleware form checks them when it is made. */
export const optionsSchema = z.strictObject({ ms: z.number().positive().max(2_147_483_647) });

/**
 * Fails a call with `TIMEOUT` (recoverable, so {@link withRetry} retries it) when it takes longer
 * than `ms`. The inner call's signal is aborted at that moment (with the `TIMEOUT` error as its
 * reason), and the caller is released even if the inner model ignores its signal.
 *
 * @example
 * ```ts
 * import { withRetry, withTimeout } from '@tot/core';
 *
 * const model = withRetry(withTimeout(provider, { ms: 30_000 }), { maxRetries: 2 });
 * ```
 */
export function withTimeout(model: LanguageModel, options: TimeoutOptions): LanguageModel {
  parseOptions(languageModelSchema, model, 'withTimeout', 'model');
  const { ms } = parseOptions(optionsSchema, options, 'withTimeout');
  return wrapModel(model, async (request, callOptions = {}) => {
    const outer = callOptions.signal;
    throwIfAborted(outer, 'model call');
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new TotError('TIMEOUT', `Model "${model.modelId}" did not answer within ${ms} ms.`, { details: { ms } })), ms);
    const { signal, unlink } = linkSignals(timeout.signal, outer);
    try {
      return await abortable(signal, () => model.generate(request, { ...callOptions, signal }), 'model call');
    } catch (error) {
      if (timeout.signal.aborted && !outer?.aborted) throw timeout.signal.reason as TotError;
      throw error;
    } finally {
      clearTimeout(timer);
      unlink();
    }
  });
}
