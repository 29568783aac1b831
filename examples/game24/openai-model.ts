/**
 * A LanguageModel for any OpenAI-compatible chat completions endpoint, written with fetch: the
 * library itself never talks to a network. Errors carry `status` and `responseHeaders`, so
 * `withRetry` can tell rate limits from bad requests and honour Retry-After.
 */
import type { LanguageModel } from '@tot/core';

export interface OpenAiModelOptions {
  baseUrl: string;
  apiKey: string;
  model: string;
}

export function openAiCompatibleModel(options: OpenAiModelOptions): LanguageModel {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  return {
    modelId: options.model,
    capabilities: { multipleOutputs: true },
    async generate(request, { signal } = {}) {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${options.apiKey}` },
        body: JSON.stringify({
          model: options.model,
          messages: request.messages,
          n: request.n ?? 1,
          temperature: request.temperature,
          max_tokens: request.maxOutputTokens,
          stop: request.stop,
          seed: request.seed,
          ...(request.responseFormat?.type === 'json' ? { response_format: { type: 'json_object' } } : {}),
        }),
        ...(signal ? { signal } : {}),
      });
      if (!response.ok) {
        throw Object.assign(new Error(`${options.model}: HTTP ${response.status} ${(await response.text()).slice(0, 300)}`), {
          status: response.status,
          responseHeaders: response.headers,
        });
      }
      const body = (await response.json()) as {
        choices: { message: { content: string | null }; finish_reason?: string }[];
        usage?: { prompt_tokens?: number; completion_tokens?: number };
      };
      const finish = body.choices[0]?.finish_reason;
      return {
        outputs: body.choices.map((c) => c.message.content ?? ''),
        usage: {
          ...(body.usage?.prompt_tokens === undefined ? {} : { inputTokens: body.usage.prompt_tokens }),
          ...(body.usage?.completion_tokens === undefined ? {} : { outputTokens: body.usage.completion_tokens }),
        },
        ...(finish === 'stop' || finish === 'length' ? { finishReason: finish } : finish === 'content_filter' ? { finishReason: 'content-filter' as const } : {}),
        raw: body,
      };
    },
  };
}
