import { TotError } from '../errors/index.js';

/**
 * Why no later call of a run can succeed after a model call failed this way:
 *
 * - `authentication`: the provider answered 401 (a wrong or missing API key);
 * - `permission`: 403 (the key may not use this model or endpoint);
 * - `not_found`: 404 (no such model, or no such endpoint at the base URL);
 * - `unreachable`: no connection could be made (connection refused, no address for the name),
 *   with whatever retries the model stack has already spent.
 *
 * Every other failure concerns one request (a reply that does not parse, a content filter, a 400,
 * a 429 or 5xx that retries did not get past) and leaves the run going.
 */
export type FatalReason = 'authentication' | 'permission' | 'not_found' | 'unreachable';

const BY_STATUS: Record<number, FatalReason> = { 401: 'authentication', 403: 'permission', 404: 'not_found' };

/**
 * The one rule, applied by the run to each failed model call: whether `error` is a provider error
 * after which no later call can succeed. Decided from the typed fields the provider adapters set on
 * `GENERATION_FAILED` (`details.status`, `details.unreachable`), through the causes a middleware
 * may have wrapped it in.
 */
export function fatalReason(error: unknown): FatalReason | undefined {
  for (let e: unknown = error, depth = 0; TotError.isInstance(e) && depth < 6; e = e.cause, depth++) {
    if (!TotError.hasCode(e, 'GENERATION_FAILED')) continue;
    const status = e.details?.status;
    if (status !== undefined && BY_STATUS[status] !== undefined) return BY_STATUS[status];
    if (e.details?.unreachable !== undefined) return 'unreachable';
  }
  return undefined;
}
