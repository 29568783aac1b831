/**
 * `promise`, or a rejection with a plain `Error` if it is still pending after `ms`: for calls that
 * must settle at once (on abort), so that a hang fails its test quickly instead of at the test
 * timeout. The bound is generous; the call is expected to settle within a few ticks.
 */
export function settlesWithin<T>(promise: Promise<T>, ms = 1_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const pending = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms);
  });
  return Promise.race([promise, pending]).finally(() => clearTimeout(timer));
}
