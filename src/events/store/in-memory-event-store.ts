import { abortedError } from '../../internal/abort.js';
import { parseOptions } from '../../internal/validate.js';
import type { AppendOptions, AppendResult, EventStore, NewEvent, ReadAllOptions, ReadStreamOptions, Snapshot, StoredEvent } from './types.js';
import {
  closedError,
  matchRetriedBatch,
  parseReadAll,
  parseReadStream,
  parseSnapshot,
  parseStreamId,
  prepareAppend,
  storeOptionsSchema,
  versionConflict,
  versionMatches,
  storedPayload,
} from './validate-append.js';

/**
 * Options of {@link InMemoryEventStore}.
 *
 * @example
 * ```ts
 * import { InMemoryEventStore, type InMemoryEventStoreOptions } from '@tot/core';
 *
 * const options: InMemoryEventStoreOptions = { maxEventBytes: 64 * 1024 };
 * const store = new InMemoryEventStore(options);
 * ```
 */
export interface InMemoryEventStoreOptions {
  /** Largest event (JSON of data + metadata), in bytes. Default 1 MiB. */
  maxEventBytes?: number;
}


function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

const EMPTY: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;
const NO_PARENTS: string[] = Object.freeze([]) as unknown as string[];
const NO_CLOCK: Record<string, number> = Object.freeze({}) as Record<string, number>;

/**
 * The in-memory {@link EventStore}: the default wherever a store is optional, and the reference
 * the conformance suite is checked against. Stored events are deep-frozen, so readers share them
 * without copying.
 *
 * @example
 * ```ts
 * import { InMemoryEventStore } from '@tot/core';
 *
 * const store = new InMemoryEventStore();
 * const { nextExpectedVersion } = await store.append('s', [{ type: 't', data: {}, idempotencyKey: 'k1' }], { expectedVersion: 'no_stream' });
 * await store.append('s', [{ type: 't', data: {}, idempotencyKey: 'k2' }], { expectedVersion: nextExpectedVersion });
 * ```
 */
export class InMemoryEventStore implements EventStore {
  private readonly maxEventBytes: number;
  private readonly streams = new Map<string, StoredEvent[]>();
  private readonly log: StoredEvent[] = [];
  // Only stored events are kept (not the caller's input): the payload a retry is compared on is
  // rebuilt from them when a retry comes, which is rare.
  private readonly keys = new Map<string, StoredEvent>();
  private readonly clientIds = new Set<string>();
  private readonly snapshots = new Map<string, Snapshot>();
  private closed = false;

  constructor(options: InMemoryEventStoreOptions = {}) {
    this.maxEventBytes = parseOptions(storeOptionsSchema, options, 'InMemoryEventStore').maxEventBytes;
  }

  /**
   * See {@link EventStore.append}.
   *
   * @example
   * ```ts
   * import { InMemoryEventStore } from '@tot/core';
   *
   * await new InMemoryEventStore().append('s', [{ type: 't', data: 1, idempotencyKey: 'k' }], { expectedVersion: 'any' });
   * ```
   */
  async append(streamId: string, events: NewEvent[], options: AppendOptions): Promise<AppendResult> {
    this.open('append');
    const a = prepareAppend(streamId, events, options, this.maxEventBytes, 'InMemoryEventStore.append');
    if (a.signal?.aborted) throw abortedError(a.signal, 'append');
    // Everything below is synchronous: JavaScript runs it as one indivisible step, so a batch is atomic.
    const known = a.events.map((p) => this.keys.get(p.event.idempotencyKey));
    if (known.some((k) => k !== undefined)) {
      const stored = matchRetriedBatch(a.events, known, (entry, p) => storedPayload(entry, this.clientIds.has(entry.eventId)) === p.payload);
      return { events: stored, nextExpectedVersion: this.streams.get(stored[0]!.streamId)!.length - 1, deduplicated: true };
    }
    const stream = this.streams.get(a.streamId);
    const actual = stream ? stream.length - 1 : null;
    if (!versionMatches(a.expectedVersion, actual)) throw versionConflict(a.streamId, a.expectedVersion, actual);
    const target = stream ?? [];
    const recordedAt = new Date().toISOString();
    const written = a.events.map((p) => {
      // The data is parsed back from its JSON, so the store never shares objects with the caller.
      const event: StoredEvent = Object.freeze({
        eventId: p.event.eventId ?? crypto.randomUUID(),
        streamId: a.streamId,
        version: target.length,
        globalPosition: BigInt(this.log.length + 1),
        type: p.event.type,
        data: p.dataCopy,
        idempotencyKey: p.event.idempotencyKey,
        parentIds: p.event.parentIds ? Object.freeze([...p.event.parentIds]) as string[] : NO_PARENTS,
        clock: p.event.clock ? Object.freeze({ ...p.event.clock }) : NO_CLOCK,
        metadata: p.metadataCopy ?? EMPTY,
        recordedAt,
      });
      target.push(event);
      this.log.push(event);
      this.keys.set(p.event.idempotencyKey, event);
      if (p.event.eventId !== undefined) this.clientIds.add(event.eventId);
      return event;
    });
    this.streams.set(a.streamId, target);
    return { events: written, nextExpectedVersion: target.length - 1, deduplicated: false };
  }

  /**
   * See {@link EventStore.readStream}.
   *
   * @example
   * ```ts
   * import { InMemoryEventStore } from '@tot/core';
   *
   * for await (const e of new InMemoryEventStore().readStream('s', { fromVersion: 0 })) console.log(e.type);
   * ```
   */
  async *readStream(streamId: string, options?: ReadStreamOptions): AsyncIterable<StoredEvent> {
    this.open('readStream');
    const o = parseReadStream(streamId, options, 'InMemoryEventStore.readStream');
    const stream = this.streams.get(o.streamId) ?? [];
    const end = Math.min(stream.length - 1, o.toVersion ?? Number.POSITIVE_INFINITY);
    let count = 0;
    for (let v = o.fromVersion; v <= end; v++) {
      if (o.limit !== undefined && count++ >= o.limit) return;
      yield stream[v]!;
    }
  }

  /**
   * See {@link EventStore.readAll}.
   *
   * @example
   * ```ts
   * import { InMemoryEventStore } from '@tot/core';
   *
   * for await (const e of new InMemoryEventStore().readAll({ after: 0n })) console.log(e.globalPosition);
   * ```
   */
  async *readAll(options?: ReadAllOptions): AsyncIterable<StoredEvent> {
    this.open('readAll');
    const o = parseReadAll(options, 'InMemoryEventStore.readAll');
    const start = o.after === undefined || o.after < 0n ? 0 : Number(o.after);
    const end = o.limit === undefined ? this.log.length : Math.min(this.log.length, start + o.limit);
    for (let i = start; i < end; i++) yield this.log[i]!;
  }

  /**
   * See {@link EventStore.streamVersion}.
   *
   * @example
   * ```ts
   * import { InMemoryEventStore } from '@tot/core';
   *
   * await new InMemoryEventStore().streamVersion('unknown'); // null
   * ```
   */
  async streamVersion(streamId: string): Promise<number | null> {
    this.open('streamVersion');
    const stream = this.streams.get(parseStreamId(streamId, 'InMemoryEventStore.streamVersion'));
    return stream ? stream.length - 1 : null;
  }

  /**
   * See {@link EventStore.saveSnapshot}.
   *
   * @example
   * ```ts
   * import { InMemoryEventStore } from '@tot/core';
   *
   * await new InMemoryEventStore().saveSnapshot({ streamId: 's', version: 0, state: { n: 1 } });
   * ```
   */
  async saveSnapshot(snapshot: Snapshot): Promise<void> {
    this.open('saveSnapshot');
    const s = parseSnapshot(snapshot, 'InMemoryEventStore.saveSnapshot');
    this.snapshots.set(s.streamId, deepFreeze(JSON.parse(JSON.stringify(s)) as Snapshot));
  }

  /**
   * See {@link EventStore.loadSnapshot}.
   *
   * @example
   * ```ts
   * import { InMemoryEventStore } from '@tot/core';
   *
   * await new InMemoryEventStore().loadSnapshot('s'); // null
   * ```
   */
  async loadSnapshot(streamId: string): Promise<Snapshot | null> {
    this.open('loadSnapshot');
    return this.snapshots.get(parseStreamId(streamId, 'InMemoryEventStore.loadSnapshot')) ?? null;
  }

  /**
   * See {@link EventStore.close}.
   *
   * @example
   * ```ts
   * import { InMemoryEventStore } from '@tot/core';
   *
   * await new InMemoryEventStore().close();
   * ```
   */
  async close(): Promise<void> {
    this.closed = true;
  }

  private open(where: string): void {
    if (this.closed) throw closedError(`InMemoryEventStore.${where}`);
  }
}

