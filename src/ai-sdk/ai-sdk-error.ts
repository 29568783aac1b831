import type { TotError } from '../errors/index.js';
import { providerError } from '../internal/provider-error.js';
import { isRetryableError, retryAfterMs } from '../model/with-retry.js';

// The AI SDK marks its errors with Symbol.for keys (the same in every major), so they are known
// without importing @ai-sdk/provider, and whichever copy of it the provider package uses.
const AI_SDK_ERROR = Symbol.for('vercel.ai.error');
const API_CALL_ERROR = Symbol.for('vercel.ai.error.AI_APICallError');

const marked = (error: unknown, marker: symbol) => typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[marker] === true;

// AI SDK errors about a reply that could not be read (thrown as such by providers that do not go
// through the SDK's HTTP helpers): another attempt may get a good one. Every other AI SDK error
// (unsupported setting, invalid prompt, missing API key, …) fails every attempt.
const READ_ERRORS = new Set(['AI_JSONParseError', 'AI_TypeValidationError', 'AI_EmptyResponseBodyError', 'AI_InvalidResponseDataError', 'AI_NoContentGeneratedError']);

interface ApiCallError {
  message: string;
  statusCode?: number;
  isRetryable: boolean;
  responseHeaders?: Record<string, string>;
  data?: unknown;
}

/** The provider's error code from a parsed error body: `{ error: { code | type } }` (OpenAI, compatible servers, Anthropic). */
function providerCodeOf(data: unknown): string | undefined {
  const error = (data as { error?: { code?: unknown; type?: unknown } } | undefined)?.error;
  const code = error?.code ?? error?.type;
  return typeof code === 'string' ? code : typeof code === 'number' ? String(code) : undefined;
}

/** A provider error thrown through an AI SDK model as the library's typed `GENERATION_FAILED`. */
export function aiSdkError(error: unknown, modelId: string): TotError<'GENERATION_FAILED'> {
  const message = error instanceof Error ? error.message : String(error);
  if (marked(error, API_CALL_ERROR)) {
    const e = error as ApiCallError;
    // A 2xx reply the provider could not read (not JSON, not of the expected shape): the SDK
    // reports it as an API call error that is not retryable, but another attempt may get a good one.
    if (e.statusCode !== undefined && e.statusCode >= 200 && e.statusCode < 300) {
      return providerError({ modelId, message: `the provider could not read the reply: ${message}`, retryable: true, cause: error });
    }
    const headers = e.responseHeaders ?? {};
    return providerError({
      modelId,
      message,
      status: e.statusCode,
      // The SDK's own verdict: 408, 409, 429 and 5xx, network failures, and what a provider adds.
      retryable: e.isRetryable,
      providerCode: providerCodeOf(e.data),
      requestId: headers['x-request-id'] ?? headers['request-id'],
      retryAfterMs: retryAfterMs(e),
      cause: error,
    });
  }
  if (marked(error, AI_SDK_ERROR)) {
    return providerError({ modelId, message, retryable: READ_ERRORS.has((error as Error).name), cause: error });
  }
  // Below the SDK (a custom fetch, a provider's own code): the default policy judges it.
  return providerError({ modelId, message, retryable: isRetryableError(error), cause: error });
}
