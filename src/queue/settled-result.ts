import { TotError, type ProtocolErrorObject, type TotErrorCode } from '../errors/index.js';
import { TOT_ERROR_CODES } from '../errors/error-codes.js';
import type { RunStatus } from './queue-types.js';

/** A settled run's result, or the error `result` rejects with (the run's own code; `ABORTED` when cancelled). */
export function settledResult(runId: string, status: RunStatus, result: unknown, error: ProtocolErrorObject | undefined): unknown {
  if (status === 'finished' || status === 'waiting') return result;
  if (status === 'cancelled') throw new TotError('ABORTED', `Run "${runId}" was cancelled.`, { details: { runId } as never });
  const code: TotErrorCode = error && error.code in TOT_ERROR_CODES ? (error.code as TotErrorCode) : 'INTERNAL';
  throw new TotError(code, `Run "${runId}" failed: ${error?.message ?? 'no reason recorded'}`, { recoverable: error?.recoverable ?? false, details: { runId } as never });
}
