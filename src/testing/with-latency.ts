import { TotError } from '../errors/index.js';
import { abortable, sleep } from '../internal/abort.js';
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
 * abort tests. The call ends at once with `ABORTED` when its signal fires, during the wait or
 * after it (even if the model ignores the signal). A latency function must return a finite,
 * non-negative number of milliseconds (else the call fails with `INVALID_ARGUMENT`); one that
 * throws fails the call with `INTERNAL`.
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
  const delayOf = (request: GenerateRequest): number => {
    if (typeof latency !== 'function') return latency;
    const callIndex = index++;
    let ms: unknown;
    try {
      ms = latency(request, callIndex);
    } catch (error) {
      throw new TotError('INTERNAL', `withLatency: the latency function threw on call #${callIndex + 1}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
      throw new TotError('INVALID_ARGUMENT', `withLatency: latency: the function returned ${String(ms)} for call #${callIndex + 1}, expected a non-negative number of milliseconds`, {
        details: { field: 'latency' },
      });
    }
    return ms;
  };
  return wrapModel(model, async (request, callOptions = {}) => {
    const { signal } = callOptions;
    await sleep(delayOf(request), signal);
    // Raced as well: the call ends when the signal fires even if the model ignores it.
    return abortable(signal, () => model.generate(request, callOptions), 'model call');
  });
}
