import type { z } from 'zod';
import { TotError } from '../errors/index.js';
import { parseOptions } from '../internal/validate.js';
import { workOptionsSchema } from './queue-options.js';
import type { WorkOptions } from './queue-types.js';

/** A worker's options, checked. */
export type ParsedWorkOptions = z.output<typeof workOptionsSchema>;

/**
 * What every queue does the same way around its workers: whether it is closed, `work` (checked
 * options, a worker tracked until it ends) and waiting for the workers on close. Each queue brings
 * its own worker loop.
 */
export class QueueLifecycle {
  private readonly controller = new AbortController();
  private readonly workers = new Set<Promise<void>>();

  /** Aborts when the queue is closed. */
  get closing(): AbortSignal {
    return this.controller.signal;
  }

  /** `ILLEGAL_STATE` once the queue is closed. */
  checkOpen(where: string): void {
    if (this.controller.signal.aborted) throw new TotError('ILLEGAL_STATE', `${where}: the queue is closed.`);
  }

  /** Checks `options`, starts `loop` with them and tracks it until it ends; bad options or a closed queue reject. */
  work(options: WorkOptions, loop: (o: ParsedWorkOptions) => Promise<void>): Promise<void> {
    let o: ParsedWorkOptions;
    try {
      o = parseOptions(workOptionsSchema, options, 'work');
      this.checkOpen('work');
    } catch (error) {
      return Promise.reject(error);
    }
    const worker = loop(o);
    this.workers.add(worker);
    void worker.finally(() => this.workers.delete(worker)).catch(() => undefined);
    return worker;
  }

  /** Marks the queue closed: its workers see `closing` abort. */
  close(): void {
    this.controller.abort(new TotError('ABORTED', 'The queue was closed.'));
  }

  /** Settles when every worker has ended. */
  async drained(): Promise<void> {
    await Promise.allSettled([...this.workers]);
  }
}
