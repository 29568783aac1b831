import { TotError, type TotErrorCode } from '../errors/index.js';

/** Returns `error` if it is already a `TotError`, else wraps it in one with `code`. */
export function toTotError(error: unknown, code: TotErrorCode, message: string): TotError {
  if (TotError.isInstance(error)) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new TotError(code, `${message}: ${reason}`, { cause: error });
}
