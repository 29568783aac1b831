import { abortedError, whenAborted } from '../internal/abort.js';

type Waiter = { resolve: () => void; reject: (error: unknown) => void; cancel: () => void; gone: boolean };

/**
 * At most `limit` model calls of a run at once; the rest wait in order, and a waiter whose signal
 * aborts leaves the queue at once without ever starting.
 *
 * Hand-written rather than p-limit: p-limit makes five or six promises per call even when a slot
 * is free, and the Game of 24 replay benchmark (a 0 ms model, one call per node) showed the gate
 * and the abort race around it at about a tenth of the framework's time per node. Here a free
 * slot is taken synchronously; only a call that must wait gets a promise.
 */
export class CallGate {
  private active = 0;
  private readonly queue: Waiter[] = [];
  private head = 0;

  constructor(private readonly limit: number) {}

  /** Takes a slot: `undefined` when one was free, else a promise of one that rejects with `ABORTED` if `signal` fires first. */
  acquire(signal: AbortSignal): Promise<void> | undefined {
    if (this.active < this.limit && this.head === this.queue.length) {
      this.active += 1;
      return undefined;
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, cancel: () => false, gone: false };
      waiter.cancel = whenAborted(signal, () => {
        waiter.gone = true;
        reject(abortedError(signal, 'model call'));
      });
      this.queue.push(waiter);
    });
  }

  /** Gives a slot back, to the first waiter still waiting. */
  release(): void {
    this.active -= 1;
    while (this.active < this.limit && this.head < this.queue.length) {
      const waiter = this.queue[this.head]!;
      this.queue[this.head++] = undefined as unknown as Waiter;
      if (this.head === this.queue.length) this.queue.length = this.head = 0;
      if (waiter.gone) continue;
      waiter.cancel();
      this.active += 1;
      waiter.resolve();
    }
  }
}
