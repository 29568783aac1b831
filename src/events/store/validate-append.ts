import { z } from 'zod';
import { TotError } from '../../errors/index.js';
import { parseOptions } from '../../internal/validate.js';
import type { AppendOptions, AppendResult, ExpectedVersion, NewEvent, ReadAllOptions, ReadStreamOptions, Snapshot, StoredEvent } from './types.js';

/** Default largest event (its JSON), in bytes. */
export const DEFAULT_MAX_EVENT_BYTES = 1_048_576;

const streamIdSchema = z.string().min(1, 'expected a non-empty stream id').max(512);

const newEventSchema = z.object({
  type: z.string().min(1).max(256),
  data: z.unknown(),
  idempotencyKey: z.string().min(1).max(512),
  eventId: z.string().min(1).max(256).optional(),
  parentIds: z.array(z.string().min(1)).optional(),
  clock: z.record(z.string(), z.number().int().nonnegative()).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

/** The common, valid shape checked inline: a zod parse per event would dominate batched appends. */
function isPlainEvent(raw: unknown): raw is NewEvent {
  if (typeof raw !== 'object' || raw === null) return false;
  const e = raw as Record<string, unknown>;
  return (
    typeof e.type === 'string' &&
    e.type.length > 0 &&
    e.type.length <= 256 &&
    typeof e.idempotencyKey === 'string' &&
    e.idempotencyKey.length > 0 &&
    e.idempotencyKey.length <= 512 &&
    e.eventId === undefined &&
    e.parentIds === undefined &&
    e.clock === undefined &&
    e.metadata === undefined
  );
}

const expectedVersionSchema = z.union([
  z.enum(['any', 'no_stream', 'stream_exists']),
  z.number().int().nonnegative('expected a version ≥ 0 (use "no_stream" for a new stream)'),
]);

const appendOptionsSchema = z.object({
  expectedVersion: expectedVersionSchema,
  signal: z.custom<AbortSignal>((v) => v instanceof AbortSignal, 'expected an AbortSignal').optional(),
});

/** The common, valid options checked inline (appends one event at a time are common). */
function isPlainAppendOptions(raw: unknown): raw is AppendOptions {
  if (typeof raw !== 'object' || raw === null) return false;
  const { expectedVersion: v, signal } = raw as AppendOptions;
  const version = v === 'any' || v === 'no_stream' || v === 'stream_exists' || (Number.isSafeInteger(v) && (v as number) >= 0);
  return version && (signal === undefined || signal instanceof AbortSignal);
}

/** Throws `INVALID_ARGUMENT` naming the path of the first value that JSON cannot carry faithfully. */
export function assertJson(value: unknown, path: string): void {
  checkJson(value, path, []);
}

// A plain recursive function (no closure, no Set): this runs for every event appended.
function checkJson(v: unknown, at: string, ancestors: object[]): void {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw notJson(at, `${v} is not a finite number`);
    return;
  }
  if (typeof v !== 'object') throw notJson(at, `a ${typeof v} is not JSON`);
  if (ancestors.includes(v)) throw notJson(at, 'the value contains a cycle');
  ancestors.push(v);
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      if (v[i] === undefined) throw notJson(`${at}[${i}]`, 'undefined is not JSON');
      checkJson(v[i], `${at}[${i}]`, ancestors);
    }
  } else {
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto !== Object.prototype && proto !== null) throw notJson(at, `a ${(v as object).constructor?.name ?? 'non-plain'} object is not JSON`);
    for (const key in v) {
      const item = (v as Record<string, unknown>)[key];
      if (item !== undefined) checkJson(item, `${at}.${key}`, ancestors);
    }
  }
  ancestors.pop();
}

const INVALID = Symbol('invalid JSON');

/**
 * Validates like {@link assertJson} and returns an upper bound of the value's JSON size in bytes
 * (every character counted as its longest escape), so that the exact JSON is only written near
 * the size limit. The walk allocates nothing; paths are only built when the value is invalid:
 * then {@link assertJson} walks it again to name the place.
 */
export function measureJson(v: unknown, path: string): number {
  try {
    return measure(v, []);
  } catch (error) {
    if (error !== INVALID) throw error;
    assertJson(v, path);
    throw error;
  }
}

function measure(v: unknown, ancestors: object[]): number {
  if (v === null || typeof v === 'boolean') return 5;
  if (typeof v === 'string') return 2 + 6 * v.length;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw INVALID;
    return 24;
  }
  if (typeof v !== 'object' || ancestors.includes(v)) throw INVALID;
  ancestors.push(v);
  let size = 2;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      if (v[i] === undefined) throw INVALID;
      size += 1 + measure(v[i], ancestors);
    }
  } else {
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto !== Object.prototype && proto !== null) throw INVALID;
    for (const key in v) {
      const item = (v as Record<string, unknown>)[key];
      if (item !== undefined) size += 4 + 6 * key.length + measure(item, ancestors);
    }
  }
  ancestors.pop();
  return size;
}

function notJson(path: string, why: string): TotError {
  return new TotError('INVALID_ARGUMENT', `event store: ${path}: ${why}`, { details: { field: path } });
}

/** UTF-8 byte length without allocating (the core runs outside Node too). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function checkSize(dataJson: string, metadataJson: string, type: string, maxEventBytes: number, where: string, i: number): void {
  const size = utf8Length(dataJson) + utf8Length(metadataJson) + utf8Length(type);
  if (size > maxEventBytes) {
    throw new TotError('INVALID_ARGUMENT', `${where}: events[${i}]: ${size} bytes exceeds the limit of ${maxEventBytes}`, { details: { field: `events[${i}]`, size, maxEventBytes } });
  }
}

/** A validated event of an append, with its JSON text and the payload an idempotent retry is compared on. */
export interface PreparedEvent {
  event: NewEvent;
  /** The JSON of `data`, as the store keeps it. */
  readonly dataJson: string;
  /** The JSON of `metadata` (`{}` when there is none). */
  readonly metadataJson: string;
  /** Compared on an idempotent retry: everything the caller chose, stream included. */
  readonly payload: string;
}

// The JSON is written on first use: the in-memory store writes one text for the whole batch and
// needs an event's own text only near the size limit or for a retry.
class Prepared implements PreparedEvent {
  private text: string | undefined;
  private data: string | undefined;
  private meta: string | undefined;
  constructor(
    readonly event: NewEvent,
    private readonly streamId: string,
  ) {}
  get dataJson(): string {
    this.data ??= JSON.stringify(this.event.data);
    return this.data;
  }
  get metadataJson(): string {
    this.meta ??= this.event.metadata === undefined ? '{}' : JSON.stringify(this.event.metadata);
    return this.meta;
  }
  get payload(): string {
    this.text ??= payloadOf(this.streamId, this.event.type, this.dataJson, this.event.eventId, this.event.parentIds ?? [], this.event.clock ?? {}, this.metadataJson);
    return this.text;
  }
}

/** How {@link prepareAppend} treats the JSON text of each event. */
export type JsonTiming =
  /** Written when first asked for: the store uses the events before its first `await`. */
  | 'lazy'
  /** Written now: the store awaits before it uses them, and the caller may change its objects meanwhile. */
  | 'now';

/**
 * Validates an append's arguments; throws `INVALID_ARGUMENT` naming the field. The events are the
 * caller's objects: a store must take what it keeps from them (their JSON) before it awaits,
 * unless `json` is `'now'`.
 */
export function prepareAppend(streamId: unknown, events: unknown, options: unknown, maxEventBytes: number, where: string, json: JsonTiming = 'lazy'): { streamId: string; events: PreparedEvent[]; expectedVersion: ExpectedVersion; signal?: AbortSignal } {
  const id = typeof streamId === 'string' && streamId.length > 0 && streamId.length <= 512 ? streamId : parseOptions(streamIdSchema, streamId, where, 'streamId');
  const o = isPlainAppendOptions(options) ? options : parseOptions(appendOptionsSchema, options, where);
  if (!Array.isArray(events) || events.length === 0) {
    throw new TotError('INVALID_ARGUMENT', `${where}: events: expected a non-empty array of events`, { details: { field: 'events' } });
  }
  const keys = new Set<string>();
  const prepared = events.map((raw, i): PreparedEvent => {
    // zod's output is a copy; a plain event is the caller's object, copied here when the store awaits before using it.
    const event = (isPlainEvent(raw) ? (json === 'now' ? { type: raw.type, data: raw.data, idempotencyKey: raw.idempotencyKey } : raw) : parseOptions(newEventSchema, raw, where, `events[${i}]`)) as NewEvent;
    const distinct = keys.size;
    keys.add(event.idempotencyKey);
    if (keys.size === distinct) throw new TotError('INVALID_ARGUMENT', `${where}: events[${i}].idempotencyKey: "${event.idempotencyKey}" appears twice in the batch`, { details: { field: `events[${i}].idempotencyKey` } });
    if (event.data === undefined) throw notJson(`events[${i}].data`, 'undefined is not JSON');
    const bound = utf8Length(event.type) + measureJson(event.data, `events[${i}].data`) + (event.metadata === undefined ? 0 : measureJson(event.metadata, `events[${i}].metadata`));
    const p = new Prepared(event, id);
    if (bound > maxEventBytes) checkSize(p.dataJson, p.metadataJson, event.type, maxEventBytes, where, i);
    if (json === 'now') void p.payload;
    return p;
  });
  return { streamId: id, events: prepared, expectedVersion: o.expectedVersion, ...(o.signal ? { signal: o.signal } : {}) };
}

/**
 * What an idempotent retry is compared on: everything the caller chose, stream included, as the
 * JSON it was sent with (a retry sends the same event, so the same text).
 */
function payloadOf(streamId: string, type: string, dataJson: string, eventId: string | undefined, parentIds: string[], clock: Record<string, number>, metadataJson: string): string {
  return `${JSON.stringify([streamId, type, eventId ?? null, parentIds, clock])}\n${dataJson}\n${metadataJson}`;
}

/** The payload of a stored event, comparable with {@link PreparedEvent.payload}. */
export function storedPayload(e: StoredEvent, clientEventId: boolean): string {
  return payloadOf(e.streamId, e.type, JSON.stringify(e.data), clientEventId ? e.eventId : undefined, e.parentIds, e.clock, JSON.stringify(e.metadata));
}

/**
 * The result of a write whose events are built when first read: most callers only want the next
 * expected version. Reading (or setting) `events` behaves as with a plain property.
 */
export function lazyAppendResult(build: () => StoredEvent[], nextExpectedVersion: number): AppendResult {
  let events: StoredEvent[] | undefined;
  return {
    get events() {
      events ??= build();
      return events;
    },
    set events(value) {
      events = value;
    },
    nextExpectedVersion,
    deduplicated: false,
  };
}

/** Whether `expected` admits a stream whose last version is `actual` (`null`: no stream). */
export function versionMatches(expected: ExpectedVersion, actual: number | null): boolean {
  if (expected === 'any') return true;
  if (expected === 'no_stream') return actual === null;
  if (expected === 'stream_exists') return actual !== null;
  return actual === expected;
}

export function versionConflict(streamId: string, expected: ExpectedVersion, actual: number | null): TotError {
  return new TotError('EXPECTED_VERSION_CONFLICT', `Stream "${streamId}" is at ${actual === null ? 'no stream' : `version ${actual}`}, expected ${typeof expected === 'number' ? `version ${expected}` : expected}.`, {
    details: { streamId, expectedVersion: expected, actualVersion: actual },
  });
}

export function idempotencyConflict(key: string, why: string): TotError {
  return new TotError('IDEMPOTENCY_CONFLICT', `Idempotency key "${key}" ${why}.`, { details: { idempotencyKey: key } });
}

/**
 * A batch some of whose keys are already stored must be a retry of a stored batch, whole and
 * unchanged: returns the stored entries in batch order, or throws `IDEMPOTENCY_CONFLICT`.
 * `found[i]` is what the store holds under the key of `batch[i]`.
 */
export function matchRetriedBatch<T>(batch: readonly PreparedEvent[], found: readonly (T | undefined)[], unchanged: (stored: T, event: PreparedEvent) => boolean): T[] {
  return batch.map((p, i) => {
    const stored = found[i];
    if (stored === undefined) throw idempotencyConflict(p.event.idempotencyKey, 'is new but other keys of its batch are already stored: a batch is retried whole or not at all');
    if (!unchanged(stored, p)) throw idempotencyConflict(p.event.idempotencyKey, 'is already stored with a different payload');
    return stored;
  });
}

const readStreamSchema = z.object({
  fromVersion: z.number().int().nonnegative().default(0),
  toVersion: z.number().int().nonnegative().optional(),
  limit: z.number().int().positive().optional(),
});
const readAllSchema = z.object({
  after: z.bigint().optional(),
  limit: z.number().int().positive().optional(),
});
const snapshotSchema = z.object({
  streamId: streamIdSchema,
  version: z.number().int().nonnegative(),
  state: z.unknown(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

export function parseReadStream(streamId: unknown, options: ReadStreamOptions | undefined, where: string) {
  return { streamId: parseOptions(streamIdSchema, streamId, where, 'streamId'), ...parseOptions(readStreamSchema, options ?? {}, where) };
}

export function parseReadAll(options: ReadAllOptions | undefined, where: string) {
  return parseOptions(readAllSchema, options ?? {}, where);
}

export function parseSnapshot(snapshot: Snapshot, where: string): Snapshot {
  const s = parseOptions(snapshotSchema, snapshot, where, 'snapshot') as Snapshot;
  assertJson(s.state, 'snapshot.state');
  return s;
}

export function parseStreamId(streamId: unknown, where: string): string {
  return parseOptions(streamIdSchema, streamId, where, 'streamId');
}

export function closedError(where: string): TotError {
  return new TotError('ILLEGAL_STATE', `${where}: the store is closed.`);
}

/** Options every store takes. */
export const storeOptionsSchema = z.object({ maxEventBytes: z.number().int().positive().default(DEFAULT_MAX_EVENT_BYTES) });
