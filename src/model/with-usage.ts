import { z } from 'zod';
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

const optionsSchema = z.object({ meter: z.instanceof(UsageMeter, { message: 'expected a UsageMeter' }) });

/**
 * Counts every call that passes through the model, and its tokens, into `meter`.
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
      const result = await model.generate(request, callOptions);
      meter.record(result, request);
      return result;
    } catch (error) {
      meter.recordFailure();
      throw error;
    }
  });
}
