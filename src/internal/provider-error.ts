import { TotError } from '../errors/index.js';
import { abortable, abortedError } from './abort.js';

/** What a provider adapter knows about a failed call. */
export interface ProviderFailure {
  /** The adapter's model (or embedder) id. */
  modelId: string;
  /** The provider's own message. */
  message: string;
  status?: number | undefined;
  retryable: boolean;
  providerCode?: string | undefined;
  requestId?: string | undefined;
  retryAfterMs?: number | undefined;
  /** The SDK's error, kept whole as the cause. */
  cause: unknown;
}

/**
 * The `GENERATION_FAILED` a provider adapter throws: status, provider code and retry verdict as
 * typed details, so callers branch on `details.status` and `withRetry` follows `details.retryable`
 * (its retry-after hint is read from the cause's headers).
 */
export function providerError(f: ProviderFailure): TotError<'GENERATION_FAILED'> {
  const http = f.status === undefined ? '' : `HTTP ${f.status}${f.providerCode === undefined ? '' : ` ${f.providerCode}`}: `;
  return new TotError('GENERATION_FAILED', `Model "${f.modelId}" failed: ${http}${f.message}`, {
    recoverable: f.retryable,
    cause: f.cause,
    details: {
      modelId: f.modelId,
      retryable: f.retryable,
      ...(f.status === undefined ? {} : { status: f.status }),
      ...(f.providerCode === undefined ? {} : { providerCode: f.providerCode }),
      ...(f.requestId === undefined ? {} : { requestId: f.requestId }),
      ...(f.retryAfterMs === undefined ? {} : { retryAfterMs: f.retryAfterMs }),
    },
  });
}

/**
 * One call to a provider SDK: raced with `signal` (a provider that ignores it cannot keep the
 * caller waiting), an abort reported as `ABORTED` whatever the SDK threw, and any other failure
 * turned into the adapter's typed error by `toError`.
 */
export async function callProvider<T>(signal: AbortSignal | undefined, what: string, call: () => PromiseLike<T>, toError: (error: unknown) => TotError): Promise<T> {
  try {
    return await abortable(signal, call, what);
  } catch (error) {
    if (TotError.isInstance(error)) throw error;
    if (signal?.aborted) throw abortedError(signal, what);
    throw toError(error);
  }
}
