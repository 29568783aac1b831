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

// System error codes of a connection that could not be made: nothing listens at the address, no
// address for the name, no route to it. A reset or a timeout is not among them: the server was reached.
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * The system error code (`ECONNREFUSED`, `ENOTFOUND`, …) of a provider that could not be reached,
 * found in `error`'s cause chain (fetch's `TypeError: fetch failed` holds it as its cause, and an
 * address tried over IPv4 and IPv6 as an `AggregateError`'s errors).
 */
export function unreachableCode(error: unknown, depth = 0): string | undefined {
  if (typeof error !== 'object' || error === null || depth > 6) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && UNREACHABLE.has(code)) return code;
  const inner = (error as { errors?: unknown }).errors;
  if (Array.isArray(inner)) {
    for (const e of inner) {
      const found = unreachableCode(e, depth + 1);
      if (found) return found;
    }
  }
  return unreachableCode((error as { cause?: unknown }).cause, depth + 1);
}

/**
 * The `GENERATION_FAILED` a provider adapter throws: status, provider code and retry verdict as
 * typed details, so callers branch on `details.status` and `withRetry` follows `details.retryable`
 * (its retry-after hint is read from the cause's headers). A provider that could not be reached
 * has its system error code in `details.unreachable`.
 */
export function providerError(f: ProviderFailure): TotError<'GENERATION_FAILED'> {
  const http = f.status === undefined ? '' : `HTTP ${f.status}${f.providerCode === undefined ? '' : ` ${f.providerCode}`}: `;
  const unreachable = f.status === undefined ? unreachableCode(f.cause) : undefined;
  return new TotError('GENERATION_FAILED', `Model "${f.modelId}" failed: ${http}${f.message}${unreachable === undefined ? '' : ` (${unreachable})`}`, {
    recoverable: f.retryable,
    cause: f.cause,
    details: {
      modelId: f.modelId,
      retryable: f.retryable,
      ...(f.status === undefined ? {} : { status: f.status }),
      ...(f.providerCode === undefined ? {} : { providerCode: f.providerCode }),
      ...(f.requestId === undefined ? {} : { requestId: f.requestId }),
      ...(f.retryAfterMs === undefined ? {} : { retryAfterMs: f.retryAfterMs }),
      ...(unreachable === undefined ? {} : { unreachable }),
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
