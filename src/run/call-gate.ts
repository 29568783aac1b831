import { abortedError, whenAborted } from '../internal/abort.js';

/** A call waiting for a slot: `admit` gives it one; a call that is `gone` (its run stopped) is passed over. */
export interface GateEntry {
  gone: boolean;
  admit(): void;
}

/**
 * A call's place in its run's queue when the run's calls wait for a slot: higher goes first, equal
 * in arrival order (default 0). Set by a runner in the call's options (an operation graph gives
 * the calls with the longest chain of calls still after them the first free slots).
 */
export const CALL_PRIORITY: unique symbol = Symbol('tot.run.callPriority');

/** Waiters of one priority, in arrival order. */
class Fifo {
  readonly items: GateEntry[] = [];
  head = 0;
  get size(): number {
    return this.items.length - this.head;
  }
  shift(): GateEntry {
    const w = this.items[this.head]!;
    this.items[this.head++] = undefined as unknown as GateEntry;
    if (this.head === this.items.length) this.items.length = this.head = 0;
    return w;
  }
}

/**
 * At most `limit` model calls of a run at once; the rest wait by priority, then in order, and a waiter whose signal
 * aborts leaves the queue at once without ever starting.
 *
 * Hand-written rather than p-limit: p-limit makes five or six promises per call even when a slot
 * is free, and the Game of 24 replay benchmark (a 0 ms model, one call per node) showed the gate
 * and the abort race around it at about a tenth of the framework's time per node. Here a free
 * slot is taken synchronously; only a call that must wait gets a promise.
 */
export class CallGate {
  private active = 0;
  private waiting = 0;
  // Queues by priority, the highest first; nearly always one (priority 0).
  private readonly queues: { priority: number; fifo: Fifo }[] = [];

  constructor(private readonly limit: number) {}

  /** Takes a slot if one is free and nobody waits for one. */
  tryAcquire(): boolean {
    if (this.active < this.limit && this.waiting === 0) {
      this.active += 1;
      return true;
    }
    return false;
  }

  /**
   * Queues `entry` for a slot: its `admit` is called (holding the slot) when one frees up, unless it
   * is `gone` by then. The run queues its calls themselves, so that a call that waits costs no
   * promise of its own (at concurrency 16, most calls of the Game of 24 replay benchmark waited,
   * and their promises were an eighth of what the replay allocated).
   */
  enqueue(entry: GateEntry, priority = 0): void {
    this.queueOf(Number.isFinite(priority) ? priority : 0).items.push(entry);
    this.waiting += 1;
  }

  /** Takes a slot: `undefined` when one was free, else a promise of one that rejects with `ABORTED` if `signal` fires first. */
  acquire(signal: AbortSignal, priority = 0): Promise<void> | undefined {
    if (this.tryAcquire()) return undefined;
    return new Promise<void>((resolve, reject) => {
      let cancel: () => void = () => undefined;
      const entry: GateEntry = {
        gone: false,
        admit: () => {
          cancel();
          resolve();
        },
      };
      cancel = whenAborted(signal, () => {
        entry.gone = true;
        reject(abortedError(signal, 'model call'));
      });
      this.enqueue(entry, priority);
    });
  }

  private queueOf(priority: number): Fifo {
    let at = 0;
    while (at < this.queues.length && this.queues[at]!.priority > priority) at++;
    const found = this.queues[at];
    if (found?.priority === priority) return found.fifo;
    const fifo = new Fifo();
    this.queues.splice(at, 0, { priority, fifo });
    return fifo;
  }

  /** Gives a slot back, to the first waiter still waiting of the highest priority. */
  release(): void {
    this.active -= 1;
    while (this.active < this.limit && this.waiting > 0) {
      const fifo = this.queues.find((q) => q.fifo.size > 0)!.fifo;
      const entry = fifo.shift();
      this.waiting -= 1;
      if (entry.gone) continue;
      this.active += 1;
      entry.admit();
    }
  }
}
