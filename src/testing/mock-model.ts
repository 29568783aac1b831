import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { parseOptions } from '../internal/validate.js';
import type { GenerateRequest, GenerateResult, LanguageModel } from '../model/types.js';
import { recordCall, toResult, type MockCall, type MockResponder, type MockResponse, type MockUsage } from './mock-response.js';

/**
 * Options of {@link mockModel}.
 *
 * @example
 * ```ts
 * import type { MockModelOptions } from '@tot/core/testing';
 *
 * const options: MockModelOptions = { modelId: 'mock-gpt', usage: { inputTokens: 10, outputTokens: 5 } };
 * ```
 */
export interface MockModelOptions {
  /** Default `'mock'`. */
  modelId?: string;
  /** Declare native `n > 1` (a string reply is then repeated `n` times). Default false: the core emulates `n`. */
  multipleOutputs?: boolean;
  /** Default `'estimate'`. */
  usage?: MockUsage;
  /** When an array of replies runs out: `'throw'` (default) or `'repeat-last'`. */
  whenExhausted?: 'throw' | 'repeat-last';
}

/**
 * A {@link LanguageModel} for tests that records every call.
 *
 * @example
 * ```ts
 * import { mockModel } from '@tot/core/testing';
 *
 * const model = mockModel(['first', 'second']);
 * model.callCount; // 0
 * ```
 */
export interface MockModel extends LanguageModel {
  /** Every call so far, in order, with its request and result or error. */
  readonly calls: readonly MockCall[];
  readonly callCount: number;
  readonly lastCall: MockCall | undefined;
  /** The last user message of each call — handy for asserting prompts. */
  prompts(): string[];
  /** Forgets the calls and rewinds an array of replies. */
  reset(): void;
}

const optionsSchema = z.strictObject({
  modelId: z.string().min(1).default('mock'),
  multipleOutputs: z.boolean().default(false),
  usage: z.unknown().optional(),
  whenExhausted: z.enum(['throw', 'repeat-last']).default('throw'),
});

/**
 * A mock model answering with a fixed reply, an array of replies consumed in order, or a function
 * of the request. It records every call (`calls`, `prompts()`), reports usage (estimated by
 * default), and honours abort signals: a call ends with `ABORTED` as soon as its signal fires,
 * even if a reply function ignores it. A reply function fails the call by returning an `Error` or
 * by throwing one: either way the call fails with that error, as a provider's would.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { generateStructured } from '@tot/core';
 * import { mockModel } from '@tot/core/testing';
 *
 * const model = mockModel(['not json', '{"score": 7}']);
 * const { value, attempts } = await generateStructured(model, { prompt: 'Rate it', schema: z.object({ score: z.number() }) });
 * // value.score === 7, attempts === 2, model.calls.length === 2
 * ```
 */
export function mockModel(response: MockResponse | readonly MockResponse[] | MockResponder, options: MockModelOptions = {}): MockModel {
  const o = parseOptions(optionsSchema, options, 'mockModel');
  const usage = (o.usage ?? 'estimate') as MockUsage;
  const calls: MockCall[] = [];
  let cursor = 0;

  const next = async (request: GenerateRequest, index: number, signal: AbortSignal | undefined): Promise<MockResponse> => {
    if (typeof response === 'function') return response(request, { callIndex: index, ...(signal ? { signal } : {}) });
    if (!Array.isArray(response)) return response as MockResponse;
    const replies = response as readonly MockResponse[];
    if (cursor < replies.length) return replies[cursor++]!;
    if (o.whenExhausted === 'repeat-last' && replies.length > 0) return replies[replies.length - 1]!;
    throw new TotError('GENERATION_FAILED', `mockModel "${o.modelId}": no reply left for call #${index + 1} (${replies.length} given).`, {
      recoverable: false,
      details: { request },
    });
  };

  return {
    modelId: o.modelId,
    capabilities: { multipleOutputs: o.multipleOutputs },
    get calls() {
      return calls;
    },
    get callCount() {
      return calls.length;
    },
    get lastCall() {
      return calls.at(-1);
    },
    prompts() {
      return calls.map((c) => c.request.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '');
    },
    reset() {
      calls.length = 0;
      cursor = 0;
    },
    generate(request, callOptions = {}): Promise<GenerateResult> {
      const { signal } = callOptions;
      return recordCall(calls, request, signal, async (call) => toResult(await next(request, call.index, signal), request, usage, `mockModel "${o.modelId}"`));
    },
  };
}
