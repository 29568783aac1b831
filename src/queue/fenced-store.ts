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
  private readonly last = new Map<string, NewEvent>();

  constructor(private readonly inner: EventStore) {}

  fence(): void {
    this.fenced = true;
  }

  /** The last event this job appended to `streamId`, once the store took it: how the run ended, without reading its log. */
  lastAppended(streamId: string): NewEvent | undefined {
    return this.last.get(streamId);
  }

  append(streamId: string, events: NewEvent[], options: AppendOptions): Promise<AppendResult> {
    if (this.fenced) return Promise.reject(new TotError('ABORTED', 'The run was handed back to the queue: nothing more is recorded by this worker.'));
    const appended = this.inner.append(streamId, events, options);
    const lastEvent = events.at(-1);
    // Appends to one stream are in order (each expects the version the previous one left).
    if (lastEvent !== undefined) void appended.then(() => this.last.set(streamId, lastEvent), () => undefined);
    return appended;
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
