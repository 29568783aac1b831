import { z } from 'zod';
import { callProvider } from '../internal/provider-error.js';
import { parseOptions } from '../internal/validate.js';
import { callModel, checkedRequest } from '../model/call-model.js';
import type { CallOptions, ChatMessage, GenerateRequest, GenerateResult, LanguageModel } from '../model/types.js';
import { SETTLES_ON_ABORT } from '../model/wrap-model.js';
import { aiSdkError } from './ai-sdk-error.js';
import { checkedAiSdkResult, finishReasonOf, usageOf } from './ai-sdk-result.js';
import { aiSdkModelSchema, callSettings, callSettingsShape } from './model-schema.js';
import type { AiSdkLanguageModel, AiSdkProviderOptions } from './types.js';

/**
 * Options of {@link fromAiSdk}.
 *
 * @example
 * ```ts
 * import type { FromAiSdkOptions } from '@tot/core/ai-sdk';
 *
 * const options: FromAiSdkOptions = { modelId: 'openai/gpt-4o-mini', providerOptions: { openai: { user: 'team-a' } } };
 * ```
 */
export interface FromAiSdkOptions {
  /** The id the library knows the model by (cache keys, traces, resume checks). Default: the AI SDK model's `modelId`. */
  modelId?: string;
  /** Provider settings sent with every call (the AI SDK's `providerOptions`). */
  providerOptions?: AiSdkProviderOptions;
  /** HTTP headers sent with every call. */
  headers?: Record<string, string>;
}

const optionsSchema = z.strictObject({
  modelId: z.string().min(1).optional(),
  ...callSettingsShape,
});

// The prompt every specification version takes: a system message's content is a string, the
// others' a list of parts.
type PromptMessage = { role: 'system'; content: string } | { role: 'user' | 'assistant'; content: [{ type: 'text'; text: string }] };

const toPromptMessage = (m: ChatMessage): PromptMessage =>
  m.role === 'system' ? { role: 'system', content: m.content } : { role: m.role, content: [{ type: 'text', text: m.content }] };

/**
 * Turns any Vercel AI SDK language model (specification v2, v3 or v4: `ai` 5, 6 or 7, from
 * `@ai-sdk/openai`, `@ai-sdk/anthropic`, `@ai-sdk/openai-compatible`, an Ollama provider, …) into
 * a {@link LanguageModel}.
 *
 * - Messages, `temperature`, `maxOutputTokens`, `stop`, `seed` and JSON mode (`responseFormat`,
 *   with its schema) map onto the model's call options; `tags` are never sent.
 * - Usage: the counts the provider reports; a count it does not report stays `undefined`, never 0.
 * - Finish reasons: `tool-calls` and v4's `interrupted` become `'other'`, v2's `unknown` none.
 * - `n > 1`: the AI SDK has no `n`, so the library asks `n` times in parallel (through
 *   `callModel`, which every runner uses, or this model's own `generate`).
 * - Errors: a `GENERATION_FAILED` with `details.status`, `details.providerCode` and the SDK's own
 *   retry verdict in `details.retryable` (408, 409, 429, 5xx and network failures), which
 *   `withRetry` follows, honouring `Retry-After` / `retry-after-ms`. The SDK's error is the
 *   `cause`.
 * - Retries: this adapter calls the provider's `doGenerate`, below the `ai` package, so the
 *   `maxRetries` of `generateText` never applies: one `generate` is one HTTP request, and
 *   `withRetry` (`retryMiddleware`) is the one place retries happen, each attempt admitted by the
 *   run's budget and logged as `llm.retried`.
 * - Abort: the signal reaches the provider's request, and the call settles with `ABORTED` as
 *   soon as it fires even if the provider ignores it.
 *
 * @example
 * ```ts
 * import { composeModel, retryMiddleware } from '@tot/core';
 * import { fromAiSdk } from '@tot/core/ai-sdk';
 * import { openai } from '@ai-sdk/openai';
 *
 * const model = composeModel(fromAiSdk(openai('gpt-4o-mini')), [retryMiddleware({ maxRetries: 3 })]);
 * const { outputs } = await model.generate({ messages: [{ role: 'user', content: 'Name a prime.' }] });
 * ```
 */
export function fromAiSdk(model: AiSdkLanguageModel, options: FromAiSdkOptions = {}): LanguageModel {
  parseOptions(aiSdkModelSchema('doGenerate'), model, 'fromAiSdk', 'model');
  const o = parseOptions(optionsSchema, options, 'fromAiSdk');
  const modelId = o.modelId ?? model.modelId;
  const fixed = callSettings(o);

  const adapter: LanguageModel = {
    modelId,
    async generate(request: GenerateRequest, callOptions: CallOptions = {}): Promise<GenerateResult> {
      const checked = checkedRequest(request, 'fromAiSdk');
      // No `n` in the AI SDK: samples are separate calls, made by the library's emulation.
      if ((checked.n ?? 1) > 1) return callModel(adapter, checked, callOptions);
      return generateOne(checked, callOptions.signal);
    },
  };
  // Every call races its signal below, so callModel need not race it again.
  Object.defineProperty(adapter, SETTLES_ON_ABORT, { value: true });

  async function generateOne(request: GenerateRequest, signal: AbortSignal | undefined): Promise<GenerateResult> {
    const json = request.responseFormat?.type === 'json';
    const callOptions = {
      prompt: request.messages.map(toPromptMessage),
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
      ...(request.maxOutputTokens === undefined ? {} : { maxOutputTokens: request.maxOutputTokens }),
      ...(request.stop === undefined ? {} : { stopSequences: request.stop }),
      ...(request.seed === undefined ? {} : { seed: request.seed }),
      ...(request.responseFormat === undefined ? {} : { responseFormat: request.responseFormat }),
      ...(signal === undefined ? {} : { abortSignal: signal }),
      ...fixed,
    };
    const raw = await callProvider(signal, 'model call', () => model.doGenerate(callOptions as never), (error) => aiSdkError(error, modelId));
    const result = checkedAiSdkResult('doGenerate', raw, modelId);
    let text = '';
    for (const part of result.content) if (part.type === 'text' && typeof part.text === 'string') text += part.text;
    // v4: the text to parse as JSON when it differs from the text parts (drafts before an answer).
    if (json && result.structuredOutputText !== undefined) text = result.structuredOutputText;
    const finishReason = finishReasonOf(result.finishReason);
    return { outputs: [text], usage: usageOf(result.usage), ...(finishReason === undefined ? {} : { finishReason }), raw };
  }

  return adapter;
}
