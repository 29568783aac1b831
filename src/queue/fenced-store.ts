import { TotError } from '../errors/index.js';
import type { AppendOptions, AppendResult, EventStore, NewEvent, ReadAllOptions, ReadStreamOptions, Snapshot, StoredEvent } from '../events/store/types.js';

/**
 * The store as one job of a worker sees it. Once fenced, it refuses every append. A worker that
 * hands a run back fences the run's store before aborting it, so that the aborted run cannot
 * write `run.finished` (which would end the run for good): its log stays open, exactly as a crash
 * leaves it, and the next worker resumes it. Appends already under way complete; the log keeps
 * a prefix of the run's events, which is always a sound log.
 */
export class FencedStore implements EventStore {
  private fenced = false;
  private held: { streamId: string; events: NewEvent[] } | undefined;

  constructor(private readonly inner: EventStore) {}

  fence(): void {
    this.fenced = true;
  }

  /**
   * A new run's first append that holds `run.started` alone is kept back and written with the
   * next one. A search resumes from the events that follow `run.started` (its starting tree), so
   * a log cut right after `run.started` could not be resumed; kept back, a crash there leaves no
   * log and the next worker starts the run afresh. Nothing is lost: no model call is made before
   * the append of its request, which carries the held event with it.
   */
  append(streamId: string, events: NewEvent[], options: AppendOptions): Promise<AppendResult> {
    if (this.fenced) return Promise.reject(new TotError('ABORTED', 'The run was handed back to the queue: nothing more is recorded by this worker.'));
    if (options.expectedVersion === 'no_stream' && this.held === undefined && events.length === 1 && events[0]!.type === 'run.started') {
      this.held = { streamId, events };
      return Promise.resolve({ events: [], nextExpectedVersion: 0, deduplicated: false });
    }
    const held = this.held;
    if (held !== undefined && held.streamId === streamId && options.expectedVersion === 0) {
      this.held = undefined;
      return this.inner.append(streamId, [...held.events, ...events], { ...options, expectedVersion: 'no_stream' });
    }
    return this.inner.append(streamId, events, options);
  }

  readStream(streamId: string, options?: ReadStreamOptions): AsyncIterable<StoredEvent> {
    return this.inner.readStream(streamId, options);
  }

  readAll(options?: ReadAllOptions): AsyncIterable<StoredEvent> {
    return this.inner.readAll(options);
  }

  streamVersion(streamId: string): Promise<number | null> {
    return this.inner.streamVersion(streamId);
  }

  saveSnapshot(snapshot: Snapshot): Promise<void> {
    if (this.fenced) return Promise.reject(new TotError('ABORTED', 'The run was handed back to the queue.'));
    return this.inner.saveSnapshot(snapshot);
  }

  loadSnapshot(streamId: string): Promise<Snapshot | null> {
    return this.inner.loadSnapshot(streamId);
  }

  /** The worker's store is not this job's to close. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
