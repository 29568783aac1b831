import { TotError } from '../errors/index.js';
import type { EventStore, NewEvent } from '../events/store/types.js';
import type { RunEventBase } from './run-event.js';

/**
 * Writes a run's events to one stream of an event store, in order and in batches, with the
 * stream's optimistic concurrency: the first append of a new run expects no stream, the first of
 * a resumed run expects the log's last version (that append is the claim: of two resumers, one
 * gets `EXPECTED_VERSION_CONFLICT`). The first failure stops recording and is reported once.
 */
export class RunRecorder {
  private version: number;
  private readonly queue: RunEventBase[] = [];
  private writing: Promise<void> | undefined;
  private failed: TotError | undefined;
  private listener: ((error: TotError) => void) | undefined;
  // Keys are unique per recorder: a retried append of this recorder is deduplicated, while another
  // worker writing the same version fails on the version, as a conflict should.
  // Keys are per stream, so the run id need not be in them: a short random session and the version.
  private readonly session = crypto.randomUUID().slice(0, 13);

  constructor(
    private readonly store: EventStore,
    readonly runId: string,
    /** The version of the stream's last event; -1 for a new run. */
    version: number,
    private readonly batchSize = 256,
  ) {
    this.version = version;
  }

  get failure(): TotError | undefined {
    return this.failed;
  }

  onFailure(listener: (error: TotError) => void): void {
    this.listener = listener;
  }

  record(event: RunEventBase): void {
    if (this.failed) return;
    this.queue.push(event);
    this.writing ??= this.drain();
  }

  /** Stops with `error` (an event the run refuses to record). */
  refuse(error: TotError): void {
    this.fail(error);
  }

  /** Resolves once every event recorded so far is stored; rejects with the recording failure. */
  async durable(): Promise<void> {
    while (this.writing) await this.writing;
    if (this.failed) throw this.failed;
  }

  private async drain(): Promise<void> {
    // Let the events of this turn join the first batch: an append per event would cost more than the events.
    await undefined;
    try {
      while (this.queue.length > 0 && !this.failed) await this.append(this.queue.splice(0, this.batchSize));
    } catch (error) {
      this.fail(TotError.isInstance(error) ? error : new TotError('ILLEGAL_STATE', `Recording run "${this.runId}" failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error, details: { where: { kind: 'recording', runId: this.runId } } }));
    } finally {
      this.writing = undefined;
    }
  }

  private async append(events: RunEventBase[]): Promise<void> {
    const first = this.version + 1;
    const batch: NewEvent[] = new Array(events.length);
    for (let i = 0; i < events.length; i++) batch[i] = { type: events[i]!.type, data: events[i], idempotencyKey: `${this.session}:${first + i}` };
    const result = await this.store.append(this.runId, batch, { expectedVersion: this.version < 0 ? 'no_stream' : this.version });
    this.version = result.nextExpectedVersion;
  }

  private fail(error: TotError): void {
    if (this.failed) return;
    this.failed = error;
    this.queue.length = 0;
    this.listener?.(error);
  }
}
