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
    const onAbort = () => {
      promise.catch(() => undefined);
      reject(abortedError(signal, what));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
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
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortedError(signal, 'wait'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

type SetMaxListeners = (n: number, ...targets: EventTarget[]) => void;
const setMaxListeners: SetMaxListeners | undefined = (() => {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => { setMaxListeners?: SetMaxListeners } | undefined } }).process;
  return proc?.getBuiltinModule?.('node:events')?.setMaxListeners;
})();

/**
 * A controller for the library's own fan-out (emulated samples, a run's calls). Every concurrent
 * call listens on its signal, so Node's leak warning at 11 listeners would be a false alarm here.
 */
function fanOutController(): AbortController {
  const controller = new AbortController();
  setMaxListeners?.(0, controller.signal);
  return controller;
}

/**
 * A {@link fanOutController} that aborts, with the same reason, as soon as any of `signals` does.
 * Call `release()` when the work is over, so the outer signals do not keep a listener.
 */
export function linkedController(signals: readonly (AbortSignal | undefined)[]): { controller: AbortController; release: () => void } {
  const controller = fanOutController();
  const links = signals.flatMap((signal) => {
    if (!signal) return [];
    const onAbort = () => controller.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    return [() => signal.removeEventListener('abort', onAbort)];
  });
  return { controller, release: () => links.forEach((unlink) => unlink()) };
}
