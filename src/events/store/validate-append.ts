import { z } from 'zod';
import { TotError } from '../../errors/index.js';
import { parseOptions } from '../../internal/validate.js';
import type { AppendOptions, ExpectedVersion, NewEvent, ReadAllOptions, ReadStreamOptions, Snapshot, StoredEvent } from './types.js';

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
 * Validates like {@link assertJson} and returns a deep-frozen copy in the same pass, adding to
 * `size[0]` an upper bound of the value's JSON size in bytes (every character counted as its
 * longest escape), so that the exact JSON is only needed near the size limit. Paths are only
 * built when the value is invalid: then {@link assertJson} walks it again to name the place.
 */
export function cloneJson(v: unknown, path: string, size: number[]): unknown {
  try {
    return copyJson(v, [], size);
  } catch (error) {
    if (error !== INVALID) throw error;
    assertJson(v, path);
    throw error;
  }
}

function copyJson(v: unknown, ancestors: object[], size: number[]): unknown {
  if (v === null || typeof v === 'boolean') {
    size[0]! += 5;
    return v;
  }
  if (typeof v === 'string') {
    size[0]! += 2 + 6 * v.length;
    return v;
  }
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw INVALID;
    size[0]! += 24;
    return v;
  }
  if (typeof v !== 'object' || ancestors.includes(v)) throw INVALID;
  ancestors.push(v);
  let copy: unknown;
  if (Array.isArray(v)) {
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) {
      if (v[i] === undefined) throw INVALID;
      out[i] = copyJson(v[i], ancestors, size);
    }
    size[0]! += 2 + v.length;
    copy = Object.freeze(out);
  } else {
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto !== Object.prototype && proto !== null) throw INVALID;
    const out: Record<string, unknown> = {};
    for (const key in v) {
      const item = (v as Record<string, unknown>)[key];
      if (item === undefined) continue;
      out[key] = copyJson(item, ancestors, size);
      size[0]! += 4 + 6 * key.length;
    }
    size[0]! += 2;
    copy = Object.freeze(out);
  }
  ancestors.pop();
  return copy;
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

/** A validated append: the events with their JSON text and their canonical payload (for idempotency). */
export interface PreparedEvent {
  event: NewEvent;
  readonly dataJson: string;
  readonly metadataJson: string;
  /** Deep-frozen copies of data and metadata: what the store returns, never the caller's objects. */
  readonly dataCopy: unknown;
  readonly metadataCopy: Record<string, unknown> | undefined;
  /** Compared on an idempotent retry: everything the caller chose, stream included (computed on first use). */
  readonly payload: string;
}

class Prepared implements PreparedEvent {
  private text: string | undefined;
  private data: string | undefined;
  private meta: string | undefined;
  constructor(
    readonly event: NewEvent,
    private readonly streamId: string,
    readonly dataCopy: unknown,
    readonly metadataCopy: Record<string, unknown> | undefined,
  ) {}
  get dataJson(): string {
    this.data ??= JSON.stringify(this.dataCopy);
    return this.data;
  }
  get metadataJson(): string {
    this.meta ??= this.metadataCopy === undefined ? '{}' : JSON.stringify(this.metadataCopy);
    return this.meta;
  }
  get payload(): string {
    this.text ??= payloadOf(this.streamId, this.event.type, this.dataJson, this.event.eventId, this.event.parentIds ?? [], this.event.clock ?? {}, this.metadataJson);
    return this.text;
  }
}

/** Validates an append's arguments; throws `INVALID_ARGUMENT` naming the field. */
export function prepareAppend(streamId: unknown, events: unknown, options: unknown, maxEventBytes: number, where: string): { streamId: string; events: PreparedEvent[]; expectedVersion: ExpectedVersion; signal?: AbortSignal } {
  const id = parseOptions(streamIdSchema, streamId, where, 'streamId');
  const o = parseOptions(appendOptionsSchema, options, where);
  if (!Array.isArray(events) || events.length === 0) {
    throw new TotError('INVALID_ARGUMENT', `${where}: events: expected a non-empty array of events`, { details: { field: 'events' } });
  }
  const keys = new Set<string>();
  const prepared = events.map((raw, i): PreparedEvent => {
    const event = (isPlainEvent(raw) ? raw : parseOptions(newEventSchema, raw, where, `events[${i}]`)) as NewEvent;
    if (keys.has(event.idempotencyKey)) throw new TotError('INVALID_ARGUMENT', `${where}: events[${i}].idempotencyKey: "${event.idempotencyKey}" appears twice in the batch`, { details: { field: `events[${i}].idempotencyKey` } });
    keys.add(event.idempotencyKey);
    if (event.data === undefined) throw notJson(`events[${i}].data`, 'undefined is not JSON');
    // One pass validates, copies and freezes; the JSON is only written when a store needs it, or
    // when the size bound comes near the limit.
    const bound = [utf8Length(event.type)];
    const dataCopy = cloneJson(event.data, `events[${i}].data`, bound);
    const metadataCopy = event.metadata === undefined ? undefined : (cloneJson(event.metadata, `events[${i}].metadata`, bound) as Record<string, unknown>);
    const prepared = new Prepared(event, id, dataCopy, metadataCopy);
    if (bound[0]! > maxEventBytes) checkSize(prepared.dataJson, prepared.metadataJson, event.type, maxEventBytes, where, i);
    return prepared;
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

/**
 * A UUID-formatted id that starts with the time in milliseconds (UUID version 7): ids made one after
 * another sort in order, so a database index on them grows at its end instead of at random places.
 */
export function timeOrderedId(now: number = Date.now()): string {
  const random = crypto.getRandomValues(new Uint8Array(10));
  const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  const time = now.toString(16).padStart(12, '0').slice(-12);
  random[0] = (random[0]! & 0x0f) | 0x70;
  random[2] = (random[2]! & 0x3f) | 0x80;
  const r = hex(random);
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-${r.slice(0, 4)}-${r.slice(4, 8)}-${r.slice(8, 20)}`;
}
