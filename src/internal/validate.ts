import { z } from 'zod';
import { TotError } from '../errors/index.js';

function describePath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '';
  return path
    .map((key, i) => (typeof key === 'number' ? `[${key}]` : i === 0 ? String(key) : `.${String(key)}`))
    .join('');
}

/**
 * Parses `value` with `schema`, or throws `INVALID_ARGUMENT` naming the first offending field:
 * `withRetry: options.maxRetries: Too small: expected number to be >=0`.
 */
export function parseOptions<S extends z.ZodType>(schema: S, value: unknown, where: string, root = 'options'): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = describePath(issue.path);
  const name = field === '' ? root : field.startsWith('[') ? `${root}${field}` : `${root}.${field}`;
  throw new TotError('INVALID_ARGUMENT', `${where}: ${name}: ${issue.message}`, {
    details: { field: name, issues: result.error.issues },
  });
}

/** A zod schema for an optional `AbortSignal`. */
export const signalSchema = z.custom<AbortSignal>((v) => v instanceof AbortSignal, 'expected an AbortSignal').optional();

/** A zod schema for a function of any shape (typed by the caller). */
export function fnSchema<F extends (...args: never[]) => unknown>(message = 'expected a function') {
  return z.custom<F>((v) => typeof v === 'function', message);
}
