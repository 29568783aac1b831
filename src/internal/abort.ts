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

// One real listener per signal, however many calls wait on it, removed when the last waiter
// leaves: a long-lived signal shared by thousands of calls carries one listener, not thousands,
// and a short-lived one is not held. Node keeps a timeout or `AbortSignal.any` signal alive for
// as long as an abort listener is on it, so a listener left behind would keep such a signal (and
// all it references) until it aborts, which may be never.
const waiters = new WeakMap<AbortSignal, { callbacks: Set<() => void>; listener: () => void }>();

/** Calls `onAbort` once when `signal` aborts (now, if it has); returns the function that cancels that. */
export function whenAborted(signal: AbortSignal, onAbort: () => void): () => void {
  if (signal.aborted) {
    onAbort();
    return () => undefined;
  }
  let entry = waiters.get(signal);
  if (!entry) {
    const callbacks = new Set<() => void>();
    const listener = () => {
      waiters.delete(signal);
      for (const callback of callbacks) callback();
    };
    entry = { callbacks, listener };
    waiters.set(signal, entry);
    signal.addEventListener('abort', listener, { once: true });
  }
  const own = entry;
  own.callbacks.add(onAbort);
  return () => {
    if (!own.callbacks.delete(onAbort) || own.callbacks.size > 0 || waiters.get(signal) !== own) return;
    waiters.delete(signal);
    signal.removeEventListener('abort', own.listener);
  };
}

/** A signal that aborts when any of several does, and the function that unlinks it from them. */
export interface LinkedSignal<S extends AbortSignal | undefined = AbortSignal> {
  signal: S;
  /** Stops listening on the sources: call it when the work the signal was made for has ended. */
  unlink: () => void;
}

const NOTHING_TO_UNLINK = (): void => undefined;

/**
 * A signal that aborts, with the source's reason, as soon as any of `signals` does, and the
 * function that removes what it added to them. `AbortSignal.any` does the same, but Node keeps
 * every signal it makes alive while a source is alive and a listener is on it: with one
 * long-lived source (a server's shutdown signal) each call's linked signal stayed in memory,
 * about 2 KB a call. Call `unlink` when the call ends (in a `finally`); after that the linked
 * signal no longer follows its sources. One signal (or none) is returned as it is.
 *
 * @example
 * ```ts
 * const { signal, unlink } = linkSignals(callerSignal, timeout.signal);
 * try {
 *   return await work(signal);
 * } finally {
 *   unlink();
 * }
 * ```
 */
export function linkSignals(first: AbortSignal, ...rest: (AbortSignal | undefined)[]): LinkedSignal;
export function linkSignals(...signals: (AbortSignal | undefined)[]): LinkedSignal<AbortSignal | undefined>;
export function linkSignals(...signals: (AbortSignal | undefined)[]): LinkedSignal<AbortSignal | undefined> {
  const sources = [...new Set(signals.filter((s): s is AbortSignal => s !== undefined))];
  if (sources.length <= 1) return { signal: sources[0], unlink: NOTHING_TO_UNLINK };
  const controller = new AbortController();
  const aborted = sources.find((s) => s.aborted);
  if (aborted) {
    controller.abort(aborted.reason);
    return { signal: controller.signal, unlink: NOTHING_TO_UNLINK };
  }
  const cancels: (() => void)[] = [];
  const unlink = () => {
    for (const cancel of cancels.splice(0)) cancel();
  };
  for (const source of sources) {
    cancels.push(
      whenAborted(source, () => {
        unlink();
        controller.abort(source.reason);
      }),
    );
  }
  return { signal: controller.signal, unlink };
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
