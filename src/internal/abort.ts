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

/** Waits `ms` milliseconds, rejecting with `ABORTED` if `signal` fires first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortedError(signal, 'wait'));
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cancel?.();
      resolve();
    }, ms);
    const cancel = signal
      ? whenAborted(signal, () => {
          clearTimeout(timer);
          reject(abortedError(signal, 'wait'));
        })
      : undefined;
  });
}
