import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { parseOptions } from '../internal/validate.js';
import type { GenerateResult } from '../model/types.js';
import { isTreeEvent } from './replay-run.js';
import type { RunEvent } from './run-event.js';
import type { EventStore, NewEvent, StoredEvent } from './store/types.js';

/**
 * Options of a recorded run (see `Explorer.run` and `Explorer.resume`).
 *
 * @example
 * ```ts
 * import type { RecordingOptions } from '@tot/core';
 *
 * const options: RecordingOptions = { maxContentChars: 400 }; // seed 004's cap on a thought
 * ```
 */
export interface RecordingOptions {
  /** Refuse (with `INVALID_ARGUMENT`) a thought longer than this. Default: no cap. Seed 004 uses 400. */
  maxContentChars?: number;
  /** Events per append. Default 256. */
  batchSize?: number;
}

const optionsSchema = z.object({
  store: z.custom<EventStore>((v) => typeof v === 'object' && v !== null && typeof (v as EventStore).append === 'function' && typeof (v as EventStore).readStream === 'function', 'expected an EventStore'),
  runId: z.string().min(1),
  maxContentChars: z.number().int().positive().optional(),
  batchSize: z.number().int().positive().max(10_000).default(256),
});

/**
 * What a resumed recorder found in the log.
 *
 * @example
 * ```ts
 * import { RunRecorder, type RecordedRun } from '@tot/core';
 *
 * const { recorded }: { recorded: RecordedRun } = await RunRecorder.resume({ store, runId: 'run-1' });
 * recorded.modelResults.size; // distinct recorded requests
 * ```
 */
export interface RecordedRun {
  /** The run.started event and the nodes the run started from. */
  start: RunEvent[];
  /** Model results by request key, in the order they completed. */
  modelResults: Map<string, GenerateResult[]>;
  /** How many tree events the log holds: a deterministic re-run re-emits exactly these first. */
  treeEvents: number;
  /** The log's run.finished, if the run had finished. */
  finished: Extract<RunEvent, { type: 'run.finished' }> | undefined;
  events: StoredEvent[];
}

/**
 * Writes a run's events to one stream of an {@link EventStore}, in order, in batches, with the
 * stream's optimistic concurrency: if another worker takes the run over, the next append fails
 * with `EXPECTED_VERSION_CONFLICT` and the run stops. Used by `Explorer.run({ store })` and
 * `Explorer.resume`.
 *
 * @example
 * ```ts
 * import { InMemoryEventStore, RunRecorder } from '@tot/core';
 *
 * const recorder = RunRecorder.begin({ store: new InMemoryEventStore(), runId: 'run-1' });
 * explorer.on('event', (e) => recorder.record(e));
 * ```
 */
export class RunRecorder {
  readonly runId: string;
  private readonly store: EventStore;
  private readonly maxContentChars: number | undefined;
  private readonly batchSize: number;
  private version: number;
  private skipTreeEvents: number;
  private readonly queue: RunEvent[] = [];
  private writing: Promise<void> | undefined;
  private failed: TotError | undefined;
  private readonly listeners: ((error: TotError) => void)[] = [];
  // Keys are unique per recorder: a retried append of this recorder is deduplicated, while another
  // worker writing the same version fails on the version, as a conflict should.
  private readonly session = crypto.randomUUID();

  private constructor(options: z.output<typeof optionsSchema>, version: number, skipTreeEvents: number) {
    this.store = options.store;
    this.runId = options.runId;
    this.maxContentChars = options.maxContentChars;
    this.batchSize = options.batchSize;
    this.version = version;
    this.skipTreeEvents = skipTreeEvents;
  }

  /**
   * A recorder for a new run: its first append requires that the stream does not exist yet.
   *
   * @example
   * ```ts
   * import { InMemoryEventStore, RunRecorder } from '@tot/core';
   *
   * const recorder = RunRecorder.begin({ store: new InMemoryEventStore(), runId: 'run-1' });
   * ```
   */
  static begin(options: { store: EventStore; runId: string } & RecordingOptions): RunRecorder {
    return new RunRecorder(parseOptions(optionsSchema, options, 'RunRecorder.begin'), -1, 0);
  }

  /**
   * Reads a recorded run and claims it: appends `run.resumed` expecting the log's last version, so
   * that of two workers resuming the same run exactly one proceeds; the other gets
   * `EXPECTED_VERSION_CONFLICT`. A run that had finished is returned without a claim.
   *
   * @example
   * ```ts
   * import { RunRecorder } from '@tot/core';
   *
   * const { recorder, recorded } = await RunRecorder.resume({ store, runId: 'run-1' });
   * ```
   */
  static async resume(options: { store: EventStore; runId: string } & RecordingOptions): Promise<{ recorder: RunRecorder | undefined; recorded: RecordedRun }> {
    const o = parseOptions(optionsSchema, options, 'RunRecorder.resume');
    const events: StoredEvent[] = [];
    for await (const e of o.store.readStream(o.runId)) events.push(e);
    if (events.length === 0) throw new TotError('INVALID_ARGUMENT', `resume: no recorded run "${o.runId}" in the store`, { details: { field: 'runId' } });
    const data = events.map((e) => e.data as RunEvent);
    const start: RunEvent[] = [];
    for (const e of data) {
      if (e.type === 'run.started' || (e.type === 'node.created' && start.length > 0)) start.push(e);
      else if (start.length > 0) break;
    }
    const requested = new Map<string, string>();
    const modelResults = new Map<string, GenerateResult[]>();
    let treeEvents = 0;
    let finished: RecordedRun['finished'];
    for (const e of data) {
      if (isTreeEvent(e)) treeEvents += 1;
      if (e.type === 'llm.requested') requested.set(e.callId, e.requestKey);
      if (e.type === 'llm.completed') {
        const key = requested.get(e.callId);
        if (key === undefined) continue;
        const list = modelResults.get(key) ?? [];
        list.push({ outputs: e.outputs, usage: e.usage, ...(e.finishReason ? { finishReason: e.finishReason } : {}) });
        modelResults.set(key, list);
      }
      if (e.type === 'run.finished') finished = e;
    }
    const recorded: RecordedRun = { start, modelResults, treeEvents, finished, events };
    if (finished) return { recorder: undefined, recorded };
    const last = events.at(-1)!.version;
    const recorder = new RunRecorder(o, last, treeEvents);
    await recorder.append([{ type: 'run.resumed', runId: o.runId, seq: -1, at: Date.now(), fromVersion: last }]);
    return { recorder, recorded };
  }

  /**
   * The first append error, if any: the run must stop.
   *
   * @example
   * ```ts
   * if (recorder.failure) throw recorder.failure;
   * ```
   */
  get failure(): TotError | undefined {
    return this.failed;
  }

  /**
   * Calls `listener` once if recording fails.
   *
   * @example
   * ```ts
   * recorder.onFailure((error) => controller.abort(error));
   * ```
   */
  onFailure(listener: (error: TotError) => void): void {
    this.listeners.push(listener);
  }

  /**
   * Queues an event for the store. While a resumed run re-emits the tree events the log already
   * holds, they are skipped.
   *
   * @example
   * ```ts
   * explorer.on('event', (e) => recorder.record(e));
   * ```
   */
  record(event: RunEvent): void {
    if (this.failed) return;
    if (isTreeEvent(event) && this.skipTreeEvents > 0) {
      this.skipTreeEvents -= 1;
      return;
    }
    if (event.type === 'node.created' && this.maxContentChars !== undefined && event.node.content.length > this.maxContentChars) {
      this.fail(new TotError('INVALID_ARGUMENT', `Thought ${event.node.id} has ${event.node.content.length} characters, more than the recording limit of ${this.maxContentChars}.`, { details: { field: 'maxContentChars', nodeId: event.node.id } }));
      return;
    }
    this.queue.push(event);
    this.writing ??= this.drain();
  }

  /**
   * Resolves once every event recorded so far is stored; rejects with the recording failure.
   *
   * @example
   * ```ts
   * await recorder.durable();
   * ```
   */
  async durable(): Promise<void> {
    while (this.writing) await this.writing;
    if (this.failed) throw this.failed;
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0 && !this.failed) {
        await this.append(this.queue.splice(0, this.batchSize));
      }
    } catch (error) {
      this.fail(TotError.isInstance(error) ? error : new TotError('ILLEGAL_STATE', `Recording run "${this.runId}" failed: ${String(error)}`, { cause: error }));
    } finally {
      this.writing = undefined;
    }
  }

  private async append(events: RunEvent[]): Promise<void> {
    const batch: NewEvent[] = events.map((event, i) => ({ type: event.type, data: event, idempotencyKey: `${this.runId}:${this.version + 1 + i}:${this.session}` }));
    const result = await this.store.append(this.runId, batch, { expectedVersion: this.version < 0 ? 'no_stream' : this.version });
    this.version = result.nextExpectedVersion;
  }

  private fail(error: TotError): void {
    if (this.failed) return;
    this.failed = error;
    this.queue.length = 0;
    for (const listener of this.listeners) listener(error);
  }
}
