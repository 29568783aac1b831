import { abortedError } from '../../internal/abort.js';
import { parseOptions } from '../../internal/validate.js';
import { TimeOrderedIds } from './event-ids.js';
import type { AppendOptions, AppendResult, EventStore, NewEvent, ReadAllOptions, ReadStreamOptions, Snapshot, StoredEvent } from './types.js';
import {
  closedError,
  eventIdTaken,
  lazyAppendResult,
  loadedSnapshot,
  matchRetriedBatch,
  parseReadAll,
  parseReadStream,
  parseStreamId,
  prepareAppend,
  prepareSnapshot,
  storeOptionsSchema,
  versionConflict,
  versionMatches,
  storedPayload,
  type PreparedSnapshot,
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
  /** Largest event (JSON of data, metadata, parent ids and clock, and the type), in bytes. Default 1 MiB. */
  maxEventBytes?: number;
  /** Largest snapshot (JSON of state and metadata), in bytes. Default 64 MiB. */
  maxSnapshotBytes?: number;
}

/** What an event carries beyond type, data and key, as kept (JSON): its own id (or null), its parent ids and its clock. */
type Extra = [eventId: string | null, parentIds: string[], clock: Record<string, number>];

/**
 * The events of one append, kept together: their data as one JSON text, so that a stored event
 * costs the garbage collector next to nothing, and events are rebuilt when they are read. An
 * append of one event (a session's thought) keeps its type and key as they are and its extras as
 * one JSON text: a handful of objects per event, which every collection would otherwise walk.
 */
class Batch {
  constructor(
    readonly streamId: string,
    readonly firstVersion: number,
    /** The global position of the first event; the others follow without gaps. */
    readonly firstPosition: number,
    readonly recordedAt: string,
    /** The millisecond of the batch's event ids. */
    readonly time: number,
    /** The events' types, or the one event's. */
    private readonly types: string | readonly string[],
    /** The events' idempotency keys, or the one event's. */
    private readonly keys: string | readonly string[],
    /** A JSON array of the events' data. */
    readonly data: string,
    /** A JSON array of the events' metadata; undefined when no event has any. */
    readonly metadata: string | undefined,
    /** A JSON array of each event's {@link Extra} (null for an event without); undefined when no event has an id, parents or a clock of its own. */
    private readonly extras: string | undefined,
  ) {}

  /** Where each event's data starts in `data`, found on the first read of part of the batch. */
  private starts: Uint32Array | undefined;
  /** The ids the store makes for the events, drawn when first read. */
  private made: TimeOrderedIds | undefined;

  get size(): number {
    return typeof this.keys === 'string' ? 1 : this.keys.length;
  }

  key(i: number): string {
    return typeof this.keys === 'string' ? this.keys : this.keys[i]!;
  }

  private get ids(): TimeOrderedIds {
    this.made ??= new TimeOrderedIds(this.size, this.time);
    return this.made;
  }

  /** The extras of every event (undefined when none has any). */
  private extrasOf(): readonly (Extra | null)[] | undefined {
    return this.extras === undefined ? undefined : (JSON.parse(this.extras) as (Extra | null)[]);
  }

  /** Whether event `i` has an id its caller chose. */
  ownId(i: number): boolean {
    return (this.extrasOf()?.[i]?.[0] ?? null) !== null;
  }

  /** The index of the event whose store-made id is `id`, or -1 (an id never read was never handed out). */
  madeIdIndex(id: string): number {
    return this.made?.indexOf(id) ?? -1;
  }

  /** Fresh events `from` to `to` (indexes within the batch, `to` exclusive): callers may change them. */
  events(from = 0, to = this.size): StoredEvent[] {
    // A read of a few events (a retry, a small page) parses only theirs, so paging through a large
    // batch stays linear.
    const few = (to - from) * 4 < this.size;
    const all = few ? undefined : (JSON.parse(this.data) as unknown[]);
    const metadata = this.metadata === undefined ? undefined : (JSON.parse(this.metadata) as Record<string, unknown>[]);
    const extras = this.extrasOf();
    const out: StoredEvent[] = [];
    for (let i = from; i < to; i++) {
      const extra = extras?.[i];
      out.push({
        eventId: extra?.[0] ?? this.ids.at(i),
        streamId: this.streamId,
        version: this.firstVersion + i,
        globalPosition: BigInt(this.firstPosition + i),
        type: typeof this.types === 'string' ? this.types : this.types[i]!,
        data: all ? all[i] : this.dataAt(i),
        idempotencyKey: this.key(i),
        parentIds: extra ? extra[1] : [],
        clock: extra ? extra[2] : {},
        metadata: metadata?.[i] ?? {},
        recordedAt: this.recordedAt,
      });
    }
    return out;
  }

  private dataAt(i: number): unknown {
    this.starts ??= elementStarts(this.data, this.size);
    return JSON.parse(this.data.slice(this.starts[i], this.starts[i + 1]! - 1));
  }
}

/**
 * Where each element of a JSON array of `count` elements starts, plus one past the last element's
 * closing delimiter. The text is `JSON.stringify` output (no whitespace), so the elements are
 * separated by the commas outside strings at nesting depth 1.
 */
function elementStarts(json: string, count: number): Uint32Array {
  const starts = new Uint32Array(count + 1);
  starts[0] = 1;
  starts[count] = json.length;
  let n = 1;
  let depth = 0;
  for (let i = 0; i < json.length && n < count; i++) {
    const c = json.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // Skip the string, escapes included.
      for (i++; i < json.length && json.charCodeAt(i) !== 0x22; i++) if (json.charCodeAt(i) === 0x5c /* \ */) i++;
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) depth++;
    else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
    else if (c === 0x2c /* , */ && depth === 1) starts[n++] = i + 1;
  }
  return starts;
}

/**
 * `text` made one piece in memory. `JSON.stringify` builds its text as a tree of pieces (a thought's
 * data came out as five strings and four joins); kept as it is, every piece is an object the
 * garbage collector walks for as long as the store holds the event. Reading a character flattens
 * the tree into one string, and the next collection drops the join left around it.
 */
function flat(text: string): string {
  text.charCodeAt(text.length - 1);
  return text;
}

interface Stream {
  readonly batches: Batch[];
  length: number;
}

/** The index of the batch holding `n`, where `first(b)` is the first number batch `b` holds. */
function batchIndex(batches: readonly Batch[], n: number, first: (b: Batch) => number): number {
  let lo = 0;
  let hi = batches.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (first(batches[mid]!) <= n) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

const byVersion = (b: Batch) => b.firstVersion;
const byPosition = (b: Batch) => b.firstPosition;

/**
 * The in-memory {@link EventStore}: the default wherever a store is optional, and the reference
 * the conformance suite is checked against. Every read returns fresh event objects, as the
 * database stores do, so a caller changing one changes nothing stored.
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
  private readonly maxSnapshotBytes: number;
  private readonly streams = new Map<string, Stream>();
  /** Every batch in commit order. */
  private readonly log: Batch[] = [];
  private position = 0;
  /** Idempotency key → global position. */
  private readonly keys = new Map<string, number>();
  /** Event ids the callers chose → global position (the ids the store makes are found in their batch). */
  private readonly eventIds = new Map<string, number>();
  /** The millisecond of the last batch's ids: never earlier than the one before, so the log is in id order. */
  private lastMillisecond = 0;
  /** The last append's millisecond and its ISO text. */
  private recorded = { at: Number.NaN, text: '' };
  /** The latest snapshot of each stream. */
  private readonly snapshots = new Map<string, PreparedSnapshot>();
  private closed = false;

  constructor(options: InMemoryEventStoreOptions = {}) {
    const o = parseOptions(storeOptionsSchema, options, 'InMemoryEventStore');
    this.maxEventBytes = o.maxEventBytes;
    this.maxSnapshotBytes = o.maxSnapshotBytes;
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
    // Everything below is synchronous: JavaScript runs it as one indivisible step, so a batch is
    // atomic, and the caller cannot change its events before their JSON is taken.
    if (a.events.some((p) => this.keys.has(p.event.idempotencyKey))) {
      const known = a.events.map((p) => this.keys.get(p.event.idempotencyKey));
      const stored = matchRetriedBatch(a.events, known, (position, p) => this.payloadAt(position) === p.payload);
      return { events: stored.map((position) => this.eventAt(position)), nextExpectedVersion: this.streams.get(a.streamId)!.length - 1, deduplicated: true };
    }
    const stream = this.streams.get(a.streamId);
    const actual = stream ? stream.length - 1 : null;
    if (!versionMatches(a.expectedVersion, actual)) throw versionConflict(a.streamId, a.expectedVersion, actual);
    for (const p of a.events) if (p.event.eventId !== undefined && this.hasEventId(p.event.eventId)) throw eventIdTaken('InMemoryEventStore.append', p);
    const n = a.events.length;
    const types = new Array<string>(n);
    const keys = new Array<string>(n);
    const data = new Array<unknown>(n);
    let metadata: unknown[] | undefined;
    let extras: (Extra | null)[] | undefined;
    for (let i = 0; i < n; i++) {
      const e = a.events[i]!.event;
      types[i] = e.type;
      keys[i] = e.idempotencyKey;
      data[i] = e.data;
      if (e.metadata !== undefined) (metadata ??= new Array<unknown>(n).fill({}))[i] = e.metadata;
      if (e.eventId !== undefined || e.parentIds !== undefined || e.clock !== undefined) {
        (extras ??= new Array<Extra | null>(n).fill(null))[i] = [e.eventId ?? null, e.parentIds ?? [], e.clock ?? {}];
      }
    }
    const target = stream ?? { batches: [], length: 0 };
    const now = Date.now();
    this.lastMillisecond = Math.max(this.lastMillisecond, now);
    // The appends of one millisecond share its text.
    if (now !== this.recorded.at) this.recorded = { at: now, text: new Date(now).toISOString() };
    const batch = new Batch(a.streamId, target.length, this.position + 1, this.recorded.text, this.lastMillisecond, n === 1 ? types[0]! : types, n === 1 ? keys[0]! : keys, flat(JSON.stringify(data)), metadata && flat(JSON.stringify(metadata)), extras && flat(JSON.stringify(extras)));
    target.batches.push(batch);
    target.length += n;
    this.log.push(batch);
    for (let i = 0; i < n; i++) this.keys.set(keys[i]!, this.position + 1 + i);
    if (extras) {
      for (let i = 0; i < n; i++) {
        const id = extras[i]?.[0];
        if (id != null) this.eventIds.set(id, this.position + 1 + i);
      }
    }
    this.position += n;
    this.streams.set(a.streamId, target);
    return lazyAppendResult(() => batch.events(), target.length - 1);
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
    const stream = this.streams.get(o.streamId);
    if (!stream) return;
    // Taken now: appends made while the caller iterates are not read, as with a database page.
    const end = Math.min(stream.length, o.toVersion === undefined ? Number.POSITIVE_INFINITY : o.toVersion + 1, o.limit === undefined ? Number.POSITIVE_INFINITY : o.fromVersion + o.limit);
    yield* this.range(stream.batches, o.fromVersion, end, byVersion);
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
    const start = o.after === undefined || o.after < 0n ? 1 : Number(o.after) + 1;
    const end = Math.min(this.position + 1, o.limit === undefined ? Number.POSITIVE_INFINITY : start + o.limit);
    yield* this.range(this.log, start, end, byPosition);
  }

  /** The events numbered `from` to `end` (exclusive) by `first`, one batch parsed at a time. */
  private *range(batches: readonly Batch[], from: number, end: number, first: (b: Batch) => number): Generator<StoredEvent> {
    if (from >= end || batches.length === 0) return;
    for (let b = batchIndex(batches, from, first); b < batches.length; b++) {
      const batch = batches[b]!;
      const start = first(batch);
      if (start >= end) return;
      yield* batch.events(Math.max(0, from - start), Math.min(batch.size, end - start));
    }
  }

  private eventAt(position: number): StoredEvent {
    const batch = this.log[batchIndex(this.log, position, byPosition)]!;
    const i = position - batch.firstPosition;
    return batch.events(i, i + 1)[0]!;
  }

  /** Whether a stored event has the id `id`, whether its caller chose it or the store made it. */
  private hasEventId(id: string): boolean {
    if (this.eventIds.has(id)) return true;
    // A made id starts with its millisecond, and the log is in millisecond order: only the
    // batches of that millisecond can hold it.
    const time = /^([0-9a-f]{8})-([0-9a-f]{4})-7/.exec(id);
    if (!time) return false;
    const ms = Number.parseInt(time[1]! + time[2]!, 16);
    let lo = 0;
    let hi = this.log.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.log[mid]!.time < ms) lo = mid + 1;
      else hi = mid;
    }
    for (let b = lo; b < this.log.length && this.log[b]!.time === ms; b++) {
      const batch = this.log[b]!;
      const i = batch.madeIdIndex(id);
      // An event with an id of its own never hands out the id the store made for its place.
      if (i !== -1 && !batch.ownId(i)) return true;
    }
    return false;
  }

  private payloadAt(position: number): string {
    const batch = this.log[batchIndex(this.log, position, byPosition)]!;
    return storedPayload(this.eventAt(position), batch.ownId(position - batch.firstPosition));
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
    const s = prepareSnapshot(snapshot, this.maxSnapshotBytes, 'InMemoryEventStore.saveSnapshot');
    // The latest is the highest version, as in the database stores: an older one saved late is not it.
    const latest = this.snapshots.get(s.streamId);
    if (!latest || latest.version <= s.version) this.snapshots.set(s.streamId, s);
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
    const s = this.snapshots.get(parseStreamId(streamId, 'InMemoryEventStore.loadSnapshot'));
    return s ? loadedSnapshot(s.streamId, s.version, s.stateJson, s.metadataJson) : null;
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

