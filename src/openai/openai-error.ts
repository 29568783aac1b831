import type { TotError } from '../errors/index.js';
import { providerError } from '../internal/provider-error.js';
import { isRetryableError, retryAfterMs } from '../model/with-retry.js';

// The openai client's APIError, by shape (any major, any copy of the package). Connection
// errors and timeouts are APIErrors without a status.
interface OpenAIApiError {
  message: string;
  status: number | undefined;
  headers: { get(name: string): string | null } | Record<string, string> | undefined;
  requestID?: string | null;
  code?: string | null;
  type?: string;
}

const isApiError = (error: unknown): error is OpenAIApiError => error instanceof Error && 'status' in error && 'requestID' in error;

function header(headers: OpenAIApiError['headers'], name: string): string | undefined {
  if (headers === undefined) return undefined;
  if (typeof headers.get === 'function') return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  return (headers as Record<string, string>)[name];
}

/** The retry rule of the openai client itself: the server's `x-should-retry`, else 408, 409, 429, 5xx and connection failures. */
function retryable(e: OpenAIApiError): boolean {
  const should = header(e.headers, 'x-should-retry');
  if (should === 'true') return true;
  if (should === 'false') return false;
  return e.status === undefined || e.status === 408 || e.status === 409 || e.status === 429 || e.status >= 500;
}

/** An error of the openai client as the library's typed `GENERATION_FAILED`. */
export function openAIError(error: unknown, modelId: string): TotError<'GENERATION_FAILED'> {
  const message = error instanceof Error ? error.message : String(error);
  if (!isApiError(error)) return providerError({ modelId, message, retryable: isRetryableError(error), cause: error });
  return providerError({
    modelId,
    // The client starts its message with the status, which the library's message already gives.
    message: message.replace(/^\d{3} /, ''),
    status: error.status,
    retryable: retryable(error),
    providerCode: error.code ?? error.type ?? undefined,
    requestId: error.requestID ?? undefined,
    retryAfterMs: retryAfterMs(error),
    cause: error,
  });
}
