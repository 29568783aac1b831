import { z } from 'zod';
import { abortable } from '../internal/abort.js';
import { fnSchema, parseOptions } from '../internal/validate.js';
import type { CallOptions, ChatMessage, GenerateRequest, GenerateResult, LanguageModel, ModelCapabilities } from './types.js';

/**
 * A plain prompt-in, text-out function.
 *
 * @example
 * ```ts
 * import type { PromptFunction } from '@tot/core';
 *
 * const fn: PromptFunction = async (prompt, { signal }) => (await fetchCompletion(prompt, signal)).text;
 * ```
 */
export type PromptFunction = (prompt: string, options: CallOptions) => Promise<string> | string;

/**
 * A full request-in, result-out function. It may return the result, a single output, or one output per `n`.
 *
 * @example
 * ```ts
 * import type { RequestFunction } from '@tot/core';
 *
 * const fn: RequestFunction = async (request) => ({ outputs: ['ok'], usage: { inputTokens: 3, outputTokens: 1 } });
 * ```
 */
export type RequestFunction = (
  request: GenerateRequest,
  options: CallOptions,
) => Promise<GenerateResult | string | string[]> | GenerateResult | string | string[];

/**
 * Options of {@link fromFunction}.
 *
 * @example
 * ```ts
 * import { fromFunction, type FromFunctionOptions } from '@tot/core';
 *
 * const options: FromFunctionOptions = { modelId: 'my-llm', input: 'request', capabilities: { multipleOutputs: true } };
 * ```
 */
export interface FromFunctionOptions {
  /** Default `'function'`. */
  modelId?: string;
  /**
   * `'prompt'` (default): the function gets the messages flattened into one prompt string.
   * `'request'`: it gets the whole {@link GenerateRequest}.
   */
  input?: 'prompt' | 'request';
  /** Default `{}` (no native `n > 1`; the core emulates it). */
  capabilities?: ModelCapabilities;
}

const optionsSchema = z.strictObject({
  modelId: z.string().min(1).default('function'),
  input: z.enum(['prompt', 'request']).default('prompt'),
  capabilities: z.strictObject({ multipleOutputs: z.boolean().optional() }).default({}),
});

/**
 * Flattens messages into one prompt: a lone user message is passed as is; otherwise each message
 * becomes a `System:` / `User:` / `Assistant:` paragraph.
 *
 * @example
 * ```ts
 * import { messagesToPrompt } from '@tot/core';
 *
 * messagesToPrompt([{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }]);
 * // 'System: Be brief.\n\nUser: Hi'
 * ```
 */
export function messagesToPrompt(messages: readonly ChatMessage[]): string {
  if (messages.length === 1 && messages[0]!.role === 'user') return messages[0]!.content;
  const label = { system: 'System', user: 'User', assistant: 'Assistant' } as const;
  return messages.map((m) => `${label[m.role]}: ${m.content}`).join('\n\n');
}

/**
 * Turns a function into a {@link LanguageModel}: the quickest way to plug in any provider SDK.
 * The function gets the call's `signal` and should pass it on; the model ends the call with
 * `ABORTED` when the signal fires either way (and a call whose signal has already fired never
 * reaches the function).
 *
 * @example
 * ```ts
 * import { fromFunction } from '@tot/core';
 *
 * const model = fromFunction(async (prompt, { signal }) => {
 *   const res = await fetch('http://localhost:8080/complete', { method: 'POST', body: prompt, signal });
 *   return res.text();
 * }, { modelId: 'local-llm' });
 * ```
 */
export function fromFunction(fn: PromptFunction, options?: FromFunctionOptions & { input?: 'prompt' }): LanguageModel;
export function fromFunction(fn: RequestFunction, options: FromFunctionOptions & { input: 'request' }): LanguageModel;
export function fromFunction(fn: PromptFunction | RequestFunction, options: FromFunctionOptions = {}): LanguageModel {
  parseOptions(fnSchema(), fn, 'fromFunction', 'fn');
  const { modelId, input, capabilities } = parseOptions(optionsSchema, options, 'fromFunction');
  return {
    modelId,
    capabilities,
    async generate(request, callOptions = {}) {
      // Raced with the signal: the model honours it even when the function does not.
      const { signal } = callOptions;
      if (input === 'prompt') {
        const output = await abortable(signal, () => (fn as PromptFunction)(messagesToPrompt(request.messages), callOptions), 'model call');
        return { outputs: [output], usage: {} };
      }
      const result = await abortable(signal, () => (fn as RequestFunction)(request, callOptions), 'model call');
      if (typeof result === 'string') return { outputs: [result], usage: {} };
      if (Array.isArray(result)) return { outputs: result, usage: {} };
      return result;
    },
  };
}
