import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { abortedError } from '../internal/abort.js';
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

const optionsSchema = z.object({ ms: z.number().positive().max(2_147_483_647) });

/**
 * Fails a call with `TIMEOUT` (recoverable, so {@link withRetry} retries it) when it takes longer
 * than `ms`. The inner call's signal is aborted at that moment, and the caller is released even if
 * the inner model ignores its signal.
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
  return wrapModel(model, (request, callOptions = {}) => {
    const outer = callOptions.signal;
    if (outer?.aborted) return Promise.reject(abortedError(outer, 'model call'));
    const controller = new AbortController();
    return new Promise((resolve, reject) => {
      const cleanup = () => {
        clearTimeout(timer);
        outer?.removeEventListener('abort', onAbort);
      };
      const timer = setTimeout(() => {
        const error = new TotError('TIMEOUT', `Model "${model.modelId}" did not answer within ${ms} ms.`, { details: { ms } });
        controller.abort(error);
        cleanup();
        reject(error);
      }, ms);
      const onAbort = () => {
        controller.abort(outer?.reason);
        cleanup();
        reject(abortedError(outer, 'model call'));
      };
      outer?.addEventListener('abort', onAbort, { once: true });
      Promise.resolve()
        .then(() => model.generate(request, { ...callOptions, signal: controller.signal }))
        .then(
          (result) => {
            cleanup();
            resolve(result);
          },
          (error: unknown) => {
            cleanup();
            reject(error);
          },
        );
    });
  });
}
