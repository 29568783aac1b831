import { TotError } from '../errors/index.js';

/** The `ABORTED` error for a signal, keeping the signal's reason as the cause. */
export function abortedError(signal: AbortSignal | undefined, what = 'operation'): TotError {
  const reason: unknown = signal?.reason;
  if (TotError.isInstance(reason)) return reason;
  return new TotError('ABORTED', `The ${what} was aborted.`, { cause: reason });
}

export function throwIfAborted(signal: AbortSignal | undefined, what?: string): void {
  if (signal?.aborted) throw abortedError(signal, what);
}

// One real listener per signal, however many calls wait on it: adding and removing an
// EventTarget listener costs microseconds, and a long-lived signal shared by thousands of calls
// would otherwise carry thousands of listeners.
const waiters = new WeakMap<AbortSignal, Set<() => void>>();

/** Calls `onAbort` once when `signal` aborts (now, if it has); returns the function that cancels that. */
export function whenAborted(signal: AbortSignal, onAbort: () => void): () => void {
  if (signal.aborted) {
    onAbort();
    return () => false;
  }
  let set = waiters.get(signal);
  if (!set) {
    const callbacks = new Set<() => void>();
    set = callbacks;
    waiters.set(signal, callbacks);
    signal.addEventListener(
      'abort',
      () => {
        waiters.delete(signal);
        for (const callback of callbacks) callback();
      },
      { once: true },
    );
  }
  const callbacks = set;
  callbacks.add(onAbort);
  return () => callbacks.delete(onAbort);
}

/**
 * Settles with `promise`, or rejects with `ABORTED` as soon as `signal` fires, whichever comes
 * first. Work that ignores its signal can therefore never keep a caller waiting.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined, what?: string): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(abortedError(signal, what));
  }
  return new Promise<T>((resolve, reject) => {
    const cancel = whenAborted(signal, () => {
      promise.catch(() => undefined);
      reject(abortedError(signal, what));
    });
    promise.then(
      (value) => {
        cancel();
        resolve(value);
      },
      (error: unknown) => {
        cancel();
        reject(error);
      },
    );
  });
}

/**
 * Starts `work` and settles with it, or rejects with `ABORTED` as soon as `signal` fires, whichever
 * comes first; a signal that has already fired rejects at once and `work` never starts. A
 * synchronous throw from `work` becomes a rejection. Every middleware runs the model it wraps
 * through this, so that a call settles on abort by itself even when the model under it ignores
 * its signal (a late result or error of the abandoned work is dropped).
 */
export function abortable<T>(signal: AbortSignal | undefined, work: () => T | PromiseLike<T>, what?: string): Promise<T> {
  if (signal?.aborted) return Promise.reject(abortedError(signal, what));
  let pending: Promise<T>;
  try {
    pending = Promise.resolve(work());
  } catch (error) {
    pending = Promise.reject(error);
  }
  return raceAbort(pending, signal, what);
}

const MAX_TIMEOUT_MS = 2_147_483_647;

/** Waits `ms` milliseconds (at most about 24.8 days), rejecting with `ABORTED` if `signal` fires first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortedError(signal, 'wait'));
  return new Promise<void>((resolve, reject) => {
    // setTimeout fires at once for a delay past its 32-bit limit: such a wait is capped instead.
    const timer = setTimeout(
      () => {
        cancel?.();
        resolve();
      },
      Math.min(ms, MAX_TIMEOUT_MS),
    );
    const cancel = signal
      ? whenAborted(signal, () => {
          clearTimeout(timer);
          reject(abortedError(signal, 'wait'));
        })
      : undefined;
  });
}
