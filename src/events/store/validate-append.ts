import { z } from 'zod';
import { TotError } from '../../errors/index.js';
import { parseOptions } from '../../internal/validate.js';
import type { AppendOptions, AppendResult, ExpectedVersion, NewEvent, ReadAllOptions, ReadStreamOptions, Snapshot, StoredEvent } from './types.js';

/** Default largest event (its JSON), in bytes. */
export const DEFAULT_MAX_EVENT_BYTES = 1_048_576;

/** Default largest snapshot (the JSON of its state and metadata), in bytes. */
export const DEFAULT_MAX_SNAPSHOT_BYTES = 67_108_864;

/**
 * The deepest event data, metadata and snapshot state may nest arrays and objects (`[[1]]` nests
 * 2 deep). `JSON.stringify` recurses once per level and overflows the stack a few thousand levels
 * down; no event needs anywhere near this many.
 */
export const MAX_JSON_DEPTH = 512;

/**
 * Whether `text` can be an identifier (stream id, event id, type, idempotency key, parent id,
 * clock key) in every store: no NUL (PostgreSQL's text cannot hold one) and no unpaired UTF-16
 * surrogate (UTF-8 cannot encode one: the drivers write U+FFFD instead, so that `'a\ud800'` and
 * `'a\udbff'` would name one stream).
 */
export function isIdentifierText(text: string): boolean {
  return !text.includes('\u0000') && (text as unknown as { isWellFormed(): boolean }).isWellFormed();
}

const identifier = (max: number) => z.string().min(1).max(max).refine(isIdentifierText, 'expected text without NUL characters or unpaired UTF-16 surrogates');

const streamIdSchema = z.string().min(1, 'expected a non-empty stream id').max(512).refine(isIdentifierText, 'expected text without NUL characters or unpaired UTF-16 surrogates');

const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
};

// Not z.record: it copies the object and drops a "__proto__" key on the way. The value itself is
// checked as JSON when the append measures it.
const jsonObjectSchema = z.custom<Record<string, unknown>>(isPlainObject, 'expected a plain object');

const clockSchema = z.custom<Record<string, number>>(isPlainObject, 'expected a plain object of counters').superRefine((clock, ctx) => {
  for (const key of Object.keys(clock)) {
    if (key.length === 0 || key.length > 256 || !isIdentifierText(key)) {
      ctx.addIssue({ code: 'custom', message: 'expected a key of 1 to 256 characters without NUL characters or unpaired UTF-16 surrogates', path: [key] });
    } else if (!Number.isSafeInteger(clock[key]) || clock[key]! < 0) {
      ctx.addIssue({ code: 'custom', message: 'expected a whole number ≥ 0', path: [key] });
    }
  }
});

const newEventSchema = z.object({
  type: identifier(256),
  data: z.unknown(),
  idempotencyKey: identifier(512),
  eventId: identifier(256).optional(),
  parentIds: z.array(identifier(256)).optional(),
  clock: clockSchema.optional(),
  metadata: jsonObjectSchema.optional(),
});

const isIdentifier = (v: unknown, max: number): v is string => typeof v === 'string' && v.length > 0 && v.length <= max && isIdentifierText(v);

/** Parent ids the schema would take as they are: 1 to 256 characters each, identifier text. */
function isPlainParentIds(v: unknown): v is string[] {
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) if (!(i in v) || !isIdentifier(v[i], 256)) return false;
  return true;
}

/** A clock the schema would take as it is: a plain object of whole numbers ≥ 0 under keys of 1 to 256 characters. */
function isPlainClock(v: unknown): v is Record<string, number> {
  if (!isPlainObject(v)) return false;
  for (const key of Object.keys(v)) if (!isIdentifier(key, 256) || !Number.isSafeInteger(v[key]) || (v[key] as number) < 0) return false;
  return true;
}

/**
 * The common, valid shape checked inline: a zod parse per event would dominate batched appends,
 * and a session's thought (parent ids and a clock) is one append per MCP tool call. Anything this
 * does not recognise goes through the schema, which names what is wrong.
 */
function isPlainEvent(raw: unknown): raw is NewEvent {
  if (typeof raw !== 'object' || raw === null) return false;
  const e = raw as Record<string, unknown>;
  return (
    isIdentifier(e.type, 256) &&
    isIdentifier(e.idempotencyKey, 512) &&
    (e.eventId === undefined || isIdentifier(e.eventId, 256)) &&
    (e.parentIds === undefined || isPlainParentIds(e.parentIds)) &&
    (e.clock === undefined || isPlainClock(e.clock)) &&
    (e.metadata === undefined || isPlainObject(e.metadata))
  );
}

/** The fields of a plain event, its parent ids copied (zod's parse copies the array too). */
function plainCopy(e: NewEvent): NewEvent {
  const copy: NewEvent = { type: e.type, data: e.data, idempotencyKey: e.idempotencyKey };
  if (e.eventId !== undefined) copy.eventId = e.eventId;
  if (e.parentIds !== undefined) copy.parentIds = [...e.parentIds];
  if (e.clock !== undefined) copy.clock = e.clock;
  if (e.metadata !== undefined) copy.metadata = e.metadata;
  return copy;
}

const expectedVersionSchema = z.union([
  z.enum(['any', 'no_stream', 'stream_exists']),
  z.number().int().nonnegative('expected a version ≥ 0 (use "no_stream" for a new stream)'),
]);

const appendOptionsSchema = z.strictObject({
  expectedVersion: expectedVersionSchema,
  signal: z.custom<AbortSignal>((v) => v instanceof AbortSignal, 'expected an AbortSignal').optional(),
});

/** The common, valid options checked inline (appends one event at a time are common). */
function isPlainAppendOptions(raw: unknown): raw is AppendOptions {
  if (typeof raw !== 'object' || raw === null) return false;
  const { expectedVersion: v, signal } = raw as AppendOptions;
  const version = v === 'any' || v === 'no_stream' || v === 'stream_exists' || (Number.isSafeInteger(v) && (v as number) >= 0);
  // Any other key is a misspelt option: the schema names it.
  for (const key in raw) if (key !== 'expectedVersion' && key !== 'signal') return false;
  return version && (signal === undefined || signal instanceof AbortSignal);
}

const INVALID = Symbol('invalid JSON');

// The walk's stack, shared by every walk: a walk is synchronous and never starts another.
const pending: unknown[] = [];
const depths: number[] = [];

/**
 * Checks that `value` is JSON every store keeps faithfully (finite numbers, plain objects and
 * arrays, no `undefined` in an array, at most {@link MAX_JSON_DEPTH} levels of nesting) and
 * returns an upper bound of its JSON size in bytes (every character counted as its longest
 * escape), so that the exact JSON is only written near the size limit. Returns `Infinity` as soon
 * as the JSON is sure to exceed `maxBytes`, without walking the rest: a value that holds one
 * object many times (`[v, v]`, forty levels deep) has JSON far larger than itself.
 *
 * The walk keeps its own stack instead of recursing, so no nesting can overflow the call stack;
 * a cycle nests without end and fails the depth check. Paths are only built when the value is
 * invalid: then a second walk names the place. Throws `INVALID_ARGUMENT` naming `path`.
 */
export function measureJson(value: unknown, path: string, maxBytes: number): number {
  try {
    return measure(value, maxBytes);
  } catch (error) {
    // Drop the references to the caller's objects the interrupted walk left behind.
    pending.length = 0;
    depths.length = 0;
    if (error !== INVALID) throw notJson(path, `reading the value threw: ${(error as Error)?.message ?? String(error)}`, error);
    const invalid = describeInvalid(value, path, maxBytes);
    if (invalid === undefined) return Number.POSITIVE_INFINITY;
    throw invalid;
  }
}

function measure(root: unknown, maxBytes: number): number {
  let upper = 0;
  // A lower bound of the JSON's length: every value visited adds at least this much.
  let lower = 0;
  let top = 0;
  pending[top] = root;
  depths[top++] = 0;
  while (top > 0) {
    const v = pending[--top];
    pending[top] = undefined;
    if (typeof v === 'string') {
      upper += 2 + 6 * v.length;
      lower += 2 + v.length;
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw INVALID;
      upper += 24;
      lower += 1;
    } else if (v === null || typeof v === 'boolean') {
      upper += 5;
      lower += 4;
    } else if (typeof v !== 'object') {
      throw INVALID;
    } else {
      const depth = depths[top]! + 1;
      if (depth > MAX_JSON_DEPTH) throw INVALID;
      if (Array.isArray(v)) {
        const n = v.length;
        upper += 2 + n;
        lower += 1 + n;
        if (lower > maxBytes) return tooBig();
        for (let i = n - 1; i >= 0; i--) {
          const item: unknown = v[i];
          if (item === undefined) throw INVALID;
          pending[top] = item;
          depths[top++] = depth;
        }
      } else {
        const proto = Object.getPrototypeOf(v) as unknown;
        if (proto !== Object.prototype && proto !== null) throw INVALID;
        upper += 2;
        lower += 2;
        for (const key in v) {
          const item = (v as Record<string, unknown>)[key];
          if (item === undefined) continue;
          upper += 4 + 6 * key.length;
          lower += 3 + key.length;
          if (lower > maxBytes) return tooBig();
          pending[top] = item;
          depths[top++] = depth;
        }
      }
    }
    if (lower > maxBytes) return tooBig();
  }
  return upper;
}

function tooBig(): number {
  pending.length = 0;
  depths.length = 0;
  return Number.POSITIVE_INFINITY;
}

interface Frame {
  value: unknown;
  path: string;
  depth: number;
  /** Set on the frame that leaves an object: it is no longer an ancestor. */
  leave?: object;
}

/**
 * The error naming the first place (in document order) where `root` is not JSON, or undefined
 * when its JSON exceeds `maxBytes` before any such place.
 */
function describeInvalid(root: unknown, path: string, maxBytes: number): TotError | undefined {
  const stack: Frame[] = [{ value: root, path, depth: 0 }];
  const ancestors = new Set<object>();
  let lower = 0;
  while (stack.length > 0) {
    const { value: v, path: at, depth, leave } = stack.pop()!;
    if (leave) {
      ancestors.delete(leave);
      continue;
    }
    if (typeof v === 'string') lower += 2 + v.length;
    else if (typeof v === 'number') {
      if (!Number.isFinite(v)) return notJson(at, `${v} is not a finite number`);
      lower += 1;
    } else if (v === null || typeof v === 'boolean') lower += 4;
    else if (v === undefined) return notJson(at, 'undefined is not JSON');
    else if (typeof v !== 'object') return notJson(at, `a ${typeof v} is not JSON`);
    else {
      if (ancestors.has(v)) return notJson(at, 'the value contains a cycle');
      // Named at the top: the place itself is hundreds of levels down.
      if (depth >= MAX_JSON_DEPTH) return notJson(path, `the value nests deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`);
      const proto = Object.getPrototypeOf(v) as unknown;
      if (!Array.isArray(v) && proto !== Object.prototype && proto !== null) return notJson(at, `a ${(v as object).constructor?.name ?? 'non-plain'} object is not JSON`);
      ancestors.add(v);
      stack.push({ value: undefined, path: at, depth, leave: v });
      const children: Frame[] = [];
      if (Array.isArray(v)) {
        lower += 1 + v.length;
        for (let i = 0; i < v.length && lower <= maxBytes; i++) children.push({ value: v[i], path: `${at}[${i}]`, depth: depth + 1 });
      } else {
        lower += 2;
        for (const key in v) {
          const item = (v as Record<string, unknown>)[key];
          if (item === undefined) continue;
          lower += 3 + key.length;
          if (lower > maxBytes) break;
          children.push({ value: item, path: `${at}.${key}`, depth: depth + 1 });
        }
      }
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
    }
    if (lower > maxBytes) return undefined;
  }
  // Only a value that changes while it is read (a getter) gets here.
  return notJson(path, 'the value changed while it was read');
}

function notJson(path: string, why: string, cause?: unknown): TotError {
  return new TotError('INVALID_ARGUMENT', `event store: ${path}: ${why}`, { details: { field: path }, ...(cause === undefined ? {} : { cause }) });
}

/** `JSON.stringify(value)`, or `INVALID_ARGUMENT` if it throws (a getter) or gives nothing. */
function stringify(value: unknown, path: string): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value) as string | undefined;
  } catch (error) {
    throw notJson(path, `JSON.stringify failed: ${(error as Error)?.message ?? String(error)}`, error);
  }
  if (typeof text !== 'string') throw notJson(path, 'the value has no JSON');
  return text;
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

/** An upper bound of the UTF-8 size of the JSON of an event's parent ids and clock. */
function extrasBound(e: NewEvent): number {
  let size = 0;
  if (e.parentIds !== undefined) for (const id of e.parentIds) size += 3 + 6 * id.length;
  if (e.clock !== undefined) for (const key in e.clock) size += 4 + 6 * key.length + 16;
  return size;
}

function checkSize(p: Prepared, maxEventBytes: number, where: string, i: number): void {
  const e = p.event;
  const size = utf8Length(p.dataJson) + utf8Length(p.metadataJson) + utf8Length(e.type) + (e.parentIds ? utf8Length(JSON.stringify(e.parentIds)) : 0) + (e.clock ? utf8Length(JSON.stringify(e.clock)) : 0);
  if (size > maxEventBytes) {
    throw new TotError('INVALID_ARGUMENT', `${where}: events[${i}]: ${size} bytes exceeds the limit of ${maxEventBytes}`, { details: { field: `events[${i}]`, size, maxEventBytes } });
  }
}

function eventTooBig(where: string, i: number, maxEventBytes: number): TotError {
  return new TotError('INVALID_ARGUMENT', `${where}: events[${i}]: its JSON exceeds the limit of ${maxEventBytes} bytes`, { details: { field: `events[${i}]`, maxEventBytes } });
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
    private readonly index: number,
  ) {}
  get dataJson(): string {
    this.data ??= stringify(this.event.data, `events[${this.index}].data`);
    return this.data;
  }
  get metadataJson(): string {
    this.meta ??= this.event.metadata === undefined ? '{}' : stringify(this.event.metadata, `events[${this.index}].metadata`);
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
  const id = parseStreamId(streamId, where);
  const o = isPlainAppendOptions(options) ? options : parseOptions(appendOptionsSchema, options, where);
  if (!Array.isArray(events) || events.length === 0) {
    throw new TotError('INVALID_ARGUMENT', `${where}: events: expected a non-empty array of events`, { details: { field: 'events' } });
  }
  const keys = new Set<string>();
  let eventIds: Set<string> | undefined;
  const prepared: PreparedEvent[] = [];
  // A loop rather than map: map skips the holes of a sparse array, and a hole is no event.
  for (let i = 0; i < events.length; i++) {
    const raw: unknown = events[i];
    // zod's output is a copy; a plain event is the caller's object, copied here when the store
    // awaits before using it (only the fields an event has: no key set to undefined is added).
    let event = (isPlainEvent(raw) ? (json === 'now' ? plainCopy(raw) : raw) : parseOptions(newEventSchema, raw, where, `events[${i}]`)) as NewEvent;
    // zod keeps the caller's clock (a copy would drop a "__proto__" key): copied when the store awaits.
    if (json === 'now' && event.clock !== undefined) event = { ...event, clock: { ...event.clock } };
    const distinct = keys.size;
    keys.add(event.idempotencyKey);
    if (keys.size === distinct) throw new TotError('INVALID_ARGUMENT', `${where}: events[${i}].idempotencyKey: "${event.idempotencyKey}" appears twice in the batch`, { details: { field: `events[${i}].idempotencyKey` } });
    if (event.eventId !== undefined) {
      eventIds ??= new Set();
      const before = eventIds.size;
      eventIds.add(event.eventId);
      if (eventIds.size === before) throw new TotError('INVALID_ARGUMENT', `${where}: events[${i}].eventId: "${event.eventId}" appears twice in the batch`, { details: { field: `events[${i}].eventId` } });
    }
    if (event.data === undefined) throw notJson(`events[${i}].data`, 'undefined is not JSON');
    let bound = utf8Length(event.type) + measureJson(event.data, `events[${i}].data`, maxEventBytes);
    if (event.metadata !== undefined) bound += measureJson(event.metadata, `events[${i}].metadata`, maxEventBytes);
    if (event.parentIds !== undefined || event.clock !== undefined) bound += extrasBound(event);
    if (bound === Number.POSITIVE_INFINITY) throw eventTooBig(where, i, maxEventBytes);
    const p = new Prepared(event, id, i);
    if (bound > maxEventBytes) checkSize(p, maxEventBytes, where, i);
    if (json === 'now') void p.payload;
    prepared.push(p);
  }
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

const readStreamSchema = z.strictObject({
  fromVersion: z.number().int().nonnegative().default(0),
  toVersion: z.number().int().nonnegative().optional(),
  limit: z.number().int().positive().optional(),
});
const readAllSchema = z.strictObject({
  after: z.bigint().nonnegative().optional(),
  limit: z.number().int().positive().optional(),
});
const snapshotSchema = z.object({
  streamId: streamIdSchema,
  version: z.number().int().nonnegative(),
  state: z.unknown(),
  metadata: jsonObjectSchema.optional(),
});

/**
 * Validates `readStream`'s arguments: versions and limits are safe integers (a version past the
 * stream's end reads nothing).
 */
export function parseReadStream(streamId: unknown, options: ReadStreamOptions | undefined, where: string) {
  return { streamId: parseOptions(streamIdSchema, streamId, where, 'streamId'), ...parseOptions(readStreamSchema, options ?? {}, where) };
}

/** Validates `readAll`'s options: `after` is a `bigint` ≥ 0 (a position past the end reads nothing). */
export function parseReadAll(options: ReadAllOptions | undefined, where: string) {
  return parseOptions(readAllSchema, options ?? {}, where);
}

/** A validated snapshot, its state and metadata as the JSON text a store keeps. */
export interface PreparedSnapshot {
  streamId: string;
  version: number;
  stateJson: string;
  /** Undefined when the snapshot has no metadata. */
  metadataJson: string | undefined;
}

/**
 * Validates a snapshot and takes its JSON; throws `INVALID_ARGUMENT` naming the field, or when
 * the JSON of its state and metadata exceeds `maxSnapshotBytes`.
 */
export function prepareSnapshot(snapshot: unknown, maxSnapshotBytes: number, where: string): PreparedSnapshot {
  const s = parseOptions(snapshotSchema, snapshot, where, 'snapshot');
  if (s.state === undefined) throw notJson('snapshot.state', 'undefined is not JSON');
  const bound = measureJson(s.state, 'snapshot.state', maxSnapshotBytes) + (s.metadata === undefined ? 0 : measureJson(s.metadata, 'snapshot.metadata', maxSnapshotBytes));
  const tooBig = (size?: number) =>
    new TotError('INVALID_ARGUMENT', `${where}: snapshot: ${size === undefined ? 'its JSON' : `${size} bytes`} exceeds the limit of ${maxSnapshotBytes} bytes`, { details: { field: 'snapshot', maxSnapshotBytes, ...(size === undefined ? {} : { size }) } });
  if (bound === Number.POSITIVE_INFINITY) throw tooBig();
  const stateJson = stringify(s.state, 'snapshot.state');
  const metadataJson = s.metadata === undefined ? undefined : stringify(s.metadata, 'snapshot.metadata');
  if (bound > maxSnapshotBytes) {
    const size = utf8Length(stateJson) + (metadataJson === undefined ? 0 : utf8Length(metadataJson));
    if (size > maxSnapshotBytes) throw tooBig(size);
  }
  return { streamId: s.streamId, version: s.version, stateJson, metadataJson };
}

/** The snapshot a store returns: built from its JSON text, so a fresh object on every load. */
export function loadedSnapshot(streamId: string, version: number, stateJson: string, metadataJson: string | null | undefined): Snapshot {
  return { streamId, version, state: JSON.parse(stateJson) as unknown, ...(metadataJson == null ? {} : { metadata: JSON.parse(metadataJson) as Record<string, unknown> }) };
}

export function parseStreamId(streamId: unknown, where: string): string {
  // Checked inline first: a session's refresh asks for its stream's version before every MCP tool call.
  return isIdentifier(streamId, 512) ? streamId : parseOptions(streamIdSchema, streamId, where, 'streamId');
}

export function closedError(where: string): TotError {
  return new TotError('ILLEGAL_STATE', `${where}: the store is closed.`);
}

/** The error for an event whose `eventId` another stored event already has; nothing was written. */
export function eventIdTaken(where: string, p: PreparedEvent, cause?: unknown): TotError {
  const { eventId, idempotencyKey } = p.event;
  return new TotError('IDEMPOTENCY_CONFLICT', `${where}: eventId "${eventId}" (idempotency key "${idempotencyKey}") is already the id of another stored event; nothing was written.`, {
    details: { idempotencyKey, eventId },
    ...(cause === undefined ? {} : { cause }),
  });
}

/** Options every store takes. */
export const storeOptionsSchema = z.strictObject({
  maxEventBytes: z.number().int().positive().default(DEFAULT_MAX_EVENT_BYTES),
  maxSnapshotBytes: z.number().int().positive().default(DEFAULT_MAX_SNAPSHOT_BYTES),
});
