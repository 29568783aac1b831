import { z } from 'zod';
import { abortable } from '../internal/abort.js';
import { parseOptions } from '../internal/validate.js';
import { languageModelSchema } from './schemas.js';
import type { LanguageModel } from './types.js';
import { UsageMeter } from './usage-meter.js';
import { wrapModel } from './wrap-model.js';

/**
 * Options of {@link withUsage}.
 *
 * @example
 * ```ts
 * import { UsageMeter, type UsageOptions } from '@tot/core';
 *
 * const options: UsageOptions = { meter: new UsageMeter() };
 * ```
 */
export interface UsageOptions {
  meter: UsageMeter;
}

/** The options, strict: the middleware form checks them when it is made. */
export const optionsSchema = z.strictObject({ meter: z.instanceof(UsageMeter, { message: 'expected a UsageMeter' }) });

/**
 * Counts every call that passes through the model, and its tokens, into `meter`. A call whose
 * signal aborts ends with `ABORTED` at once, even if the model ignores the signal, and counts as
 * failed. Usage the model reports in a malformed way is counted as unknown (see
 * {@link UsageMeter.record}).
 *
 * @example
 * ```ts
 * import { UsageMeter, withUsage } from '@tot/core';
 *
 * const meter = new UsageMeter();
 * const model = withUsage(provider, { meter });
 * ```
 */
export function withUsage(model: LanguageModel, options: UsageOptions): LanguageModel {
  parseOptions(languageModelSchema, model, 'withUsage', 'model');
  const { meter } = parseOptions(optionsSchema, options, 'withUsage');
  return wrapModel(model, async (request, callOptions) => {
    try {
      const result = await abortable(callOptions?.signal, () => model.generate(request, callOptions), 'model call');
      meter.record(result, request);
      return result;
    } catch (error) {
      meter.recordFailure();
      throw error;
    }
  });
}
