import { TotError } from '../errors/index.js';
import { sleep } from '../internal/abort.js';
import { isLanguageModel } from '../model/schemas.js';
import type { GenerateRequest, LanguageModel } from '../model/types.js';
import { wrapModel } from '../model/wrap-model.js';

/**
 * A fixed latency in milliseconds, or a function of the request and the call's index.
 *
 * @example
 * ```ts
 * import type { Latency } from '@tot/core/testing';
 *
 * const jittered: Latency = (_request, index) => 200 + (index % 5) * 20;
 * ```
 */
export type Latency = number | ((request: GenerateRequest, callIndex: number) => number);

/**
 * Delays every call by `latency` before passing it on — for benchmarks of concurrency and for
 * abort tests. The wait ends at once with `ABORTED` when the call's signal fires.
 *
 * @example
 * ```ts
 * import { mockModel, withLatency } from '@tot/core/testing';
 *
 * const slow = withLatency(mockModel('ok'), 200);
 * ```
 */
export function withLatency(model: LanguageModel, latency: Latency): LanguageModel {
  if (!isLanguageModel(model)) throw new TotError('INVALID_ARGUMENT', 'withLatency: model: expected a LanguageModel', { details: { field: 'model' } });
  if (typeof latency !== 'function' && !(typeof latency === 'number' && Number.isFinite(latency) && latency >= 0)) {
    throw new TotError('INVALID_ARGUMENT', 'withLatency: latency: expected a non-negative number of milliseconds or a function', { details: { field: 'latency' } });
  }
  let index = 0;
  return wrapModel(model, async (request, callOptions = {}) => {
    const ms = typeof latency === 'function' ? latency(request, index++) : latency;
    await sleep(Math.max(0, ms), callOptions.signal);
    return model.generate(request, callOptions);
  });
}
