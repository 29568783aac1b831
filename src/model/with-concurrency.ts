import pLimit from 'p-limit';
import { z } from 'zod';
import { abortedError, whenAborted } from '../internal/abort.js';
import { parseOptions } from '../internal/validate.js';
import { languageModelSchema } from './schemas.js';
import type { GenerateResult, LanguageModel } from './types.js';
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

/** The options, strict: the middleware form checks them when it is made. */
export const optionsSchema = z.strictObject({ limit: z.number().int().positive() });

/**
 * Caps the calls in flight through this model at `limit` (p-limit); the rest queue in order.
 * A call whose signal aborts ends with `ABORTED` at once: queued, it leaves the queue and never
 * starts; started, it gives its slot back at once, even if the model under it ignores the signal
 * (a model that never settled would otherwise hold its slot, and every call behind it, for ever).
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
      let freeSlot: (() => void) | undefined;
      let cancel: (() => void) | undefined;
      const finish = (settle: () => void) => {
        if (settled) return;
        settled = true;
        cancel?.();
        freeSlot?.();
        settle();
      };
      cancel = signal ? whenAborted(signal, () => finish(() => reject(abortedError(signal, 'model call')))) : undefined;
      void gate(
        () =>
          new Promise<void>((free) => {
            // The slot may come free after the caller gave up: do not start a call nobody awaits.
            if (settled) return free();
            freeSlot = free;
            let pending: Promise<GenerateResult>;
            try {
              pending = Promise.resolve(model.generate(request, callOptions));
            } catch (error) {
              pending = Promise.reject(error);
            }
            pending.then(
              (result) => finish(() => resolve(result)),
              (error: unknown) => finish(() => reject(error)),
            );
          }),
      );
    });
  });
}
