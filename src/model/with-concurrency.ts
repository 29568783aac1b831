import pLimit from 'p-limit';
import { z } from 'zod';
import { abortedError, whenAborted } from '../internal/abort.js';
import { parseOptions } from '../internal/validate.js';
import { languageModelSchema } from './schemas.js';
import type { LanguageModel } from './types.js';
import { wrapModel } from './wrap-model.js';

/**
 * Options of {@link withConcurrency}.
 *
 * @example
 * ```ts
 * import type { ConcurrencyOptions } from '@tot/core';
 *
 * const options: ConcurrencyOptions = { limit: 8 };
 * ```
 */
export interface ConcurrencyOptions {
  /** Calls allowed in flight at once. */
  limit: number;
}

const optionsSchema = z.object({ limit: z.number().int().positive() });

/**
 * Caps the calls in flight through this model at `limit` (p-limit); the rest queue in order.
 * A queued call whose signal aborts leaves the queue at once and never starts.
 *
 * @example
 * ```ts
 * import { withConcurrency } from '@tot/core';
 *
 * const model = withConcurrency(provider, { limit: 4 }); // share it across every role of the run
 * ```
 */
export function withConcurrency(model: LanguageModel, options: ConcurrencyOptions): LanguageModel {
  parseOptions(languageModelSchema, model, 'withConcurrency', 'model');
  const { limit } = parseOptions(optionsSchema, options, 'withConcurrency');
  const gate = pLimit(limit);
  return wrapModel(model, (request, callOptions = {}) => {
    const { signal } = callOptions;
    if (signal?.aborted) return Promise.reject(abortedError(signal, 'model call'));
    return new Promise((resolve, reject) => {
      let settled = false;
      const cancel = signal
        ? whenAborted(signal, () => {
            if (settled) return;
            settled = true;
            reject(abortedError(signal, 'model call'));
          })
        : undefined;
      void gate(async () => {
        // The slot may come free after the caller gave up: do not start a call nobody awaits.
        if (settled) return;
        try {
          const result = await model.generate(request, callOptions);
          if (!settled) resolve(result);
        } catch (error) {
          if (!settled) reject(error);
        } finally {
          settled = true;
          cancel?.();
        }
      });
    });
  });
}
