import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { callProvider } from '../internal/provider-error.js';
import { parseOptions } from '../internal/validate.js';
import { callModel, checkedRequest, mergedFinishReason } from '../model/call-model.js';
import type { CallOptions, FinishReason, GenerateRequest, GenerateResult, LanguageModel } from '../model/types.js';
import { SETTLES_ON_ABORT } from '../model/wrap-model.js';
import type { OpenAIChatClient } from './client-types.js';
import { openAIError } from './openai-error.js';
import { chatCompletionSchema, inIndexOrder, parseChatCompletion } from './replies.js';

/**
 * Options of {@link openAIModel}.
 *
 * @example
 * ```ts
 * import OpenAI from 'openai';
 * import type { OpenAIModelOptions } from '@tot/core/openai';
 *
 * const options: OpenAIModelOptions = { client: new OpenAI(), model: 'gpt-4o-mini', structuredOutputs: true };
 * ```
 */
export interface OpenAIModelOptions {
  /** An `openai` client: `new OpenAI()`, `new OpenAI({ baseURL, apiKey })` for a compatible server, `new AzureOpenAI(…)`. */
  client: OpenAIChatClient;
  /** The model name sent to the server, e.g. `gpt-4o-mini` or `llama3.1:8b`. */
  model: string;
  /** The id the library knows the model by (cache keys, traces, resume checks). Default: `model`. */
  modelId?: string;
  /**
   * Send `n` and read `n` choices from one request. Default true. Set false for servers that
   * ignore `n` (the library then asks `n` times in parallel).
   */
  multipleOutputs?: boolean;
  /**
   * JSON mode with a schema: `true` sends `response_format: { type: 'json_schema', … }` with the
   * request's schema as guidance (`strict: false`: vLLM, LM Studio, recent Ollama, OpenAI);
   * `'strict'` asks OpenAI to guarantee the schema (`strict: true`, which wants every property
   * required and `additionalProperties: false`); `false` (default) sends `{ type: 'json_object' }`,
   * which nearly every compatible server accepts (OpenAI then wants the word "JSON" in the messages).
   */
  structuredOutputs?: boolean | 'strict';
  /** The body field for `maxOutputTokens`. Default `'max_tokens'`; OpenAI's reasoning models want `'max_completion_tokens'`. */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /**
   * Retries the client makes by itself, before the library sees an error. Default 0: `withRetry`
   * retries instead, so that every attempt is admitted by the run's budget and logged as
   * `llm.retried` (the client's own retries would be invisible to both).
   */
  clientMaxRetries?: number;
  /**
   * More body fields sent with every request (`top_p`, `user`, `reasoning_effort`, …); the
   * request's own fields win. `stream`, `n`, `model` and `messages` are refused.
   */
  params?: Record<string, unknown>;
  /** HTTP headers sent with every request. */
  headers?: Record<string, string>;
}

const chatClientSchema = z.custom<OpenAIChatClient>(
  (v) => typeof (v as { chat?: { completions?: { create?: unknown } } } | undefined)?.chat?.completions?.create === 'function',
  'expected an openai client (new OpenAI({ baseURL, apiKey }))',
);

// Body fields `params` may not set, and why.
const REFUSED_PARAMS: Record<string, string> = {
  stream: 'streaming is not supported: the adapter reads whole responses',
  n: 'give n in each request (GenerateRequest.n), where the library counts the outputs',
  model: 'give the model as the model option',
  messages: 'give the messages in each request',
};

const optionsSchema = z.strictObject({
  client: chatClientSchema,
  model: z.string().min(1),
  modelId: z.string().min(1).optional(),
  multipleOutputs: z.boolean().default(true),
  structuredOutputs: z.union([z.boolean(), z.literal('strict')]).default(false),
  maxTokensField: z.enum(['max_tokens', 'max_completion_tokens']).default('max_tokens'),
  clientMaxRetries: z.number().int().min(0).default(0),
  // Passed through on purpose: extra fields of the request body, whatever the provider takes.
  params: z
    .record(z.string(), z.unknown())
    .superRefine((params, ctx) => {
      for (const [key, message] of Object.entries(REFUSED_PARAMS)) if (key in params) ctx.addIssue({ code: 'custom', message, path: [key] });
    })
    .optional(),
  headers: z.record(z.string(), z.string()).optional(),
});

type Choice = z.output<typeof chatCompletionSchema>['choices'][number];

const FINISH_REASONS: Record<string, FinishReason> = { stop: 'stop', length: 'length', content_filter: 'content-filter' };

/** A choice's finish reason (a refusal is the content filter's). */
function finishReasonOf(choice: Choice): FinishReason | undefined {
  const raw = choice.message?.refusal ? 'content_filter' : choice.finish_reason;
  return raw === undefined || raw === null ? undefined : (FINISH_REASONS[raw] ?? 'other');
}

/**
 * A {@link LanguageModel} on the official `openai` client's chat completions: OpenAI, Azure
 * OpenAI, or any OpenAI-compatible server through the client's `baseURL` (vLLM, Ollama, LM Studio,
 * llama.cpp's server).
 *
 * - `n` is sent as is (one request, `n` choices); with `multipleOutputs: false` the library asks
 *   `n` times instead.
 * - `temperature`, `maxOutputTokens` (as `maxTokensField`), `stop` and `seed` go on the wire;
 *   JSON mode becomes `response_format` (see `structuredOutputs`); `tags` are never sent.
 * - Usage: `prompt_tokens` and `completion_tokens` when the server reports them, else `undefined`.
 * - Finish reasons: `length`, `content_filter` (or a refusal) as `'content-filter'`, tool calls as `'other'`.
 * - Errors: `GENERATION_FAILED` with `details.status`, `details.providerCode`, `details.requestId`
 *   and `details.retryable` (the client's own rule: `x-should-retry`, else 408, 409, 429, 5xx and
 *   connection failures); `withRetry` follows it and honours `retry-after-ms` / `Retry-After`.
 * - Retries: the client's own are off for these calls (`clientMaxRetries`, default 0), so that
 *   `withRetry` is the one place retries happen.
 * - Abort: the signal is the request's `signal` (the connection is closed), and the call settles
 *   with `ABORTED` at once.
 *
 * @example
 * ```ts
 * import OpenAI from 'openai';
 * import { composeModel, retryMiddleware } from '@tot/core';
 * import { openAIModel } from '@tot/core/openai';
 *
 * const client = new OpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY });
 * const model = composeModel(openAIModel({ client, model: 'gpt-4o-mini' }), [retryMiddleware({ maxRetries: 3 })]);
 * const { outputs } = await model.generate({ messages: [{ role: 'user', content: 'Name a prime.' }], n: 3 });
 * ```
 */
export function openAIModel(options: OpenAIModelOptions): LanguageModel {
  const o = parseOptions(optionsSchema, options, 'openAIModel');
  const { client } = options;
  const modelId = o.modelId ?? o.model;

  const adapter: LanguageModel = {
    modelId,
    capabilities: { multipleOutputs: o.multipleOutputs },
    async generate(request: GenerateRequest, callOptions: CallOptions = {}): Promise<GenerateResult> {
      const checked = checkedRequest(request, 'openAIModel');
      const n = checked.n ?? 1;
      if (n > 1 && !o.multipleOutputs) return callModel(adapter, checked, callOptions);
      return generate(checked, n, callOptions.signal);
    },
  };
  // Every call races its signal below, so callModel need not race it again.
  Object.defineProperty(adapter, SETTLES_ON_ABORT, { value: true });

  function responseFormat(format: GenerateRequest['responseFormat']): object | undefined {
    if (format?.type !== 'json') return undefined;
    if (!o.structuredOutputs || format.schema === undefined) return { type: 'json_object' };
    return { type: 'json_schema', json_schema: { name: 'response', schema: format.schema, strict: o.structuredOutputs === 'strict' } };
  }

  async function generate(request: GenerateRequest, n: number, signal: AbortSignal | undefined): Promise<GenerateResult> {
    const format = responseFormat(request.responseFormat);
    const body = {
      ...o.params,
      model: o.model,
      messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
      ...(n > 1 ? { n } : {}),
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
      ...(request.maxOutputTokens === undefined ? {} : { [o.maxTokensField]: request.maxOutputTokens }),
      ...(request.stop === undefined ? {} : { stop: request.stop }),
      ...(request.seed === undefined ? {} : { seed: request.seed }),
      ...(format === undefined ? {} : { response_format: format }),
    };
    const requestOptions = { maxRetries: o.clientMaxRetries, ...(signal === undefined ? {} : { signal }), ...(o.headers === undefined ? {} : { headers: o.headers }) };
    const raw = await callProvider(signal, 'model call', () => client.chat.completions.create(body as never, requestOptions as never), (error) => openAIError(error, modelId));
    const parsed = parseChatCompletion(raw);
    if (!parsed.success) {
      throw new TotError('GENERATION_FAILED', `Model "${modelId}" returned a response that is not a chat completion: ${parsed.error.issues[0]?.message}`, {
        details: { modelId, modelResult: raw, issues: parsed.error.issues, retryable: true },
      });
    }
    const { choices, usage } = parsed.data;
    if (choices.length !== n) {
      // No choice at all is a bad reply another attempt may mend; one for n > 1 is a server that ignores n.
      const empty = choices.length === 0;
      const hint = n > 1 && choices.length === 1 ? `: the server ignores n; pass multipleOutputs: false so that the library asks ${n} times` : '';
      throw new TotError('GENERATION_FAILED', `Model "${modelId}" was asked for ${n} choice(s) and returned ${choices.length}${hint}.`, {
        recoverable: empty,
        details: { modelId, modelResult: raw, retryable: empty },
      });
    }
    const ordered = inIndexOrder(choices);
    const finishReason = mergedFinishReason(ordered.map(finishReasonOf));
    return {
      outputs: ordered.map((c) => c.message?.content ?? ''),
      usage: {
        ...(typeof usage?.prompt_tokens === 'number' ? { inputTokens: usage.prompt_tokens } : {}),
        ...(typeof usage?.completion_tokens === 'number' ? { outputTokens: usage.completion_tokens } : {}),
      },
      ...(finishReason === undefined ? {} : { finishReason }),
      raw,
    };
  }

  return adapter;
}
