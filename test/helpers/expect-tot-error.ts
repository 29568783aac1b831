import { expect } from 'vitest';
import { TotError, type TotErrorCode } from '../../src/index.js';

/** Runs `action` and returns the TotError it throws (or rejects with), failing the test if it is anything else. */
export async function catchTotError<C extends TotErrorCode>(action: () => unknown, code: C): Promise<TotError<C>> {
  let caught: unknown;
  try {
    await action();
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected a TotError ${code}`).toBeDefined();
  expect(TotError.isInstance(caught), `expected a TotError, got ${String(caught)}`).toBe(true);
  expect((caught as TotError).code).toBe(code);
  return caught as TotError<C>;
}

/** A promise that settles after `ms`. */
export const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A user message request. */
export const ask = (content: string, extra: Record<string, unknown> = {}) => ({ messages: [{ role: 'user' as const, content }], ...extra });
