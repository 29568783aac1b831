/**
 * The stream version an append expects (optimistic concurrency). Versions start at 0.
 *
 * - `'any'`: append whatever the stream's state.
 * - `'no_stream'`: the stream must not exist yet.
 * - `'stream_exists'`: the stream must have at least one event.
 * - a number: the version of the stream's last event must be exactly this.
 *
 * @example
 * ```ts
 * import type { ExpectedVersion } from '@tot/core';
 *
 * const first: ExpectedVersion = 'no_stream';
 * const next: ExpectedVersion = 4; // the stream's last event has version 4
 * ```
 */
export type ExpectedVersion = 'any' | 'no_stream' | 'stream_exists' | number;

/**
 * Any JSON value.
 *
 * @example
 * ```ts
 * import type { JsonValue } from '@tot/core';
 *
 * const v: JsonValue = { scores: [7.5, 8], ok: true, note: null };
 * ```
 */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * An event to append.
 *
 * @example
 * ```ts
 * import type { NewEvent } from '@tot/core';
 *
 * const e: NewEvent = {
 *   type: 'node.evaluated',
 *   data: { nodeId: 'node_1_1', score: 7.5 },
 *   idempotencyKey: 'run-1:12',
 *   parentIds: ['evt-parent'],
 *   clock: { worker_a: 3 },
 * };
 * ```
 */
export interface NewEvent {
  /** 1 to 256 UTF-16 units. Identifiers (this, keys, ids, clock keys) hold no NUL and no unpaired surrogate. */
  type: string;
  /** Any JSON value, at most 512 arrays and objects deep; read back exactly as sent. */
  data: unknown;
  /** Required (1 to 512 UTF-16 units): re-appending the same key returns the stored event instead of writing it twice. */
  idempotencyKey: string;
  /**
   * Client-chosen event id (1 to 256 UTF-16 units), unique in the store. Default: a time-ordered
   * UUID (version 7) that the store assigns.
   */
  eventId?: string;
  /** Ids of the events this one follows from (a DAG). */
  parentIds?: string[];
  /** Vector clock: worker id → a whole number ≥ 0. */
  clock?: Record<string, number>;
  metadata?: Record<string, unknown>;
}

/**
 * An event as stored.
 *
 * @example
 * ```ts
 * import type { StoredEvent } from '@tot/core';
 *
 * const describe = (e: StoredEvent) => `${e.streamId}@${e.version} #${e.globalPosition}: ${e.type}`;
 * ```
 */
export interface StoredEvent {
  eventId: string;
  streamId: string;
  /** 0, 1, 2, … within the stream, without gaps. */
  version: number;
  /** Strictly increasing across the whole store, in commit order. */
  globalPosition: bigint;
  type: string;
  data: unknown;
  idempotencyKey: string;
  parentIds: string[];
  clock: Record<string, number>;
  metadata: Record<string, unknown>;
  /** ISO 8601. */
  recordedAt: string;
}

/**
 * What {@link EventStore.append} returns.
 *
 * @example
 * ```ts
 * import type { AppendResult } from '@tot/core';
 *
 * const next = (r: AppendResult) => r.nextExpectedVersion;
 * ```
 */
export interface AppendResult {
  /**
   * The stored events of the batch, in order (those stored before, for a deduplicated retry).
   * A store may build them when this is first read; reading it behaves as reading a plain property.
   */
  events: StoredEvent[];
  /** The version to expect in the next append to this stream. */
  nextExpectedVersion: number;
  /** True when every idempotency key was already stored with the same payload: nothing was written. */
  deduplicated: boolean;
}

/**
 * Options of {@link EventStore.append}.
 *
 * @example
 * ```ts
 * import type { AppendOptions } from '@tot/core';
 *
 * const options: AppendOptions = { expectedVersion: 'no_stream' };
 * ```
 */
export interface AppendOptions {
  expectedVersion: ExpectedVersion;
  signal?: AbortSignal;
}

/**
 * Options of {@link EventStore.readStream}.
 *
 * @example
 * ```ts
 * import type { ReadStreamOptions } from '@tot/core';
 *
 * const tail: ReadStreamOptions = { fromVersion: 101 };
 * ```
 */
export interface ReadStreamOptions {
  /** Default 0. */
  fromVersion?: number;
  /** Inclusive. */
  toVersion?: number;
  limit?: number;
}

/**
 * Options of {@link EventStore.readAll}.
 *
 * @example
 * ```ts
 * import type { ReadAllOptions } from '@tot/core';
 *
 * const page: ReadAllOptions = { after: 1_000n, limit: 500 };
 * ```
 */
export interface ReadAllOptions {
  /** Only events after this global position (≥ 0; past the end reads nothing). Default: from the start. */
  after?: bigint;
  limit?: number;
}

/**
 * A stream's folded state at a version, so that a reader replays only the tail.
 *
 * @example
 * ```ts
 * import type { Snapshot } from '@tot/core';
 *
 * const s: Snapshot = { streamId: 'run-1', version: 99, state: { nodes: 100 } };
 * ```
 */
export interface Snapshot {
  streamId: string;
  /** The version of the last event folded into `state`. */
  version: number;
  state: unknown;
  metadata?: Record<string, unknown>;
}

/**
 * An append-only event log with optimistic concurrency, atomic batches and idempotent appends.
 * Implementations: {@link InMemoryEventStore}, `SqliteEventStore` (`@tot/core/sqlite`),
 * `PostgresEventStore` (`@tot/core/postgres`); `@tot/core/testing` has the conformance suite
 * they all pass.
 *
 * @example
 * ```ts
 * import { InMemoryEventStore } from '@tot/core';
 *
 * const store = new InMemoryEventStore();
 * await store.append('run-1', [{ type: 'run.started', data: { problem: '4 9 10 13' }, idempotencyKey: 'run-1:0' }], { expectedVersion: 'no_stream' });
 * for await (const event of store.readStream('run-1')) console.log(event.version, event.type);
 * ```
 */
export interface EventStore {
  /**
   * Appends a batch atomically: all of it or none. Fails with `EXPECTED_VERSION_CONFLICT`
   * (nothing written) when the stream is not at `expectedVersion`; returns the stored events with
   * `deduplicated: true` when every idempotency key is already stored with the same payload; fails
   * with `IDEMPOTENCY_CONFLICT` when a key is stored with a different payload, or an `eventId` is
   * another stored event's.
   */
  append(streamId: string, events: NewEvent[], options: AppendOptions): Promise<AppendResult>;
  /** The stream's events in version order (nothing for an unknown stream). */
  readStream(streamId: string, options?: ReadStreamOptions): AsyncIterable<StoredEvent>;
  /** Every event in commit order (strictly increasing `globalPosition`). */
  readAll(options?: ReadAllOptions): AsyncIterable<StoredEvent>;
  /** The version of the stream's last event, or `null` for an unknown stream. */
  streamVersion(streamId: string): Promise<number | null>;
  /** Stores a stream's folded state at a version. */
  saveSnapshot(snapshot: Snapshot): Promise<void>;
  /** The stream's snapshot of the highest version, or `null`: a fresh object on every call. */
  loadSnapshot(streamId: string): Promise<Snapshot | null>;
  /** Releases resources; every later call fails with `ILLEGAL_STATE`. */
  close(): Promise<void>;
}
