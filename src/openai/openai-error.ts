import type { TotError } from '../errors/index.js';
import { providerError } from '../internal/provider-error.js';
import { headerValue, isRetryableError, retryAfterMs } from '../model/with-retry.js';

// The openai client's APIError, by shape (any major, any copy of the package). Connection
// errors and timeouts are APIErrors without a status.
interface OpenAIApiError {
  message: string;
  status: number | undefined;
  headers: unknown;
  requestID?: string | null;
  code?: string | null;
  type?: string;
}

const isApiError = (error: unknown): error is OpenAIApiError => error instanceof Error && 'status' in error && 'requestID' in error;

/** The openai client's own retry rule: the server's `x-should-retry`, else the status (none: a connection failure). */
function retryable(e: OpenAIApiError): boolean {
  const should = headerValue(e.headers, 'x-should-retry');
  return should === 'true' ? true : should === 'false' ? false : isRetryableError(e);
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
