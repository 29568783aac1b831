import { z } from 'zod';
import { TotError } from '../../errors/index.js';
import { canonicalJson } from '../../internal/canonical-json.js';
import { parseOptions } from '../../internal/validate.js';
import type { AppendOptions, ExpectedVersion, NewEvent, ReadAllOptions, ReadStreamOptions, Snapshot } from './types.js';

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
  const seen = new Set<object>();
  const walk = (v: unknown, at: string): void => {
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw notJson(at, `${v} is not a finite number`);
      return;
    }
    if (typeof v !== 'object') throw notJson(at, `a ${typeof v} is not JSON`);
    if (seen.has(v)) throw notJson(at, 'the value contains a cycle');
    seen.add(v);
    if (Array.isArray(v)) {
      v.forEach((item, i) => {
        if (item === undefined) throw notJson(`${at}[${i}]`, 'undefined is not JSON');
        walk(item, `${at}[${i}]`);
      });
    } else {
      const proto = Object.getPrototypeOf(v) as unknown;
      if (proto !== Object.prototype && proto !== null) throw notJson(at, `a ${(v as object).constructor?.name ?? 'non-plain'} object is not JSON`);
      for (const [key, item] of Object.entries(v)) if (item !== undefined) walk(item, `${at}.${key}`);
    }
    seen.delete(v);
  };
  walk(value, path);
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

/** A validated append: the events with their JSON text and their canonical payload (for idempotency). */
export interface PreparedEvent {
  event: NewEvent;
  dataJson: string;
  metadataJson: string;
  /** Compared on an idempotent retry: everything the caller chose, stream included. */
  payload: string;
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
    const event = parseOptions(newEventSchema, raw, where, `events[${i}]`) as NewEvent;
    if (keys.has(event.idempotencyKey)) throw new TotError('INVALID_ARGUMENT', `${where}: events[${i}].idempotencyKey: "${event.idempotencyKey}" appears twice in the batch`, { details: { field: `events[${i}].idempotencyKey` } });
    keys.add(event.idempotencyKey);
    if (event.data === undefined) throw notJson(`events[${i}].data`, 'undefined is not JSON');
    assertJson(event.data, `events[${i}].data`);
    assertJson(event.metadata ?? {}, `events[${i}].metadata`);
    const dataJson = JSON.stringify(event.data);
    const metadataJson = JSON.stringify(event.metadata ?? {});
    const size = utf8Length(dataJson) + utf8Length(metadataJson) + utf8Length(event.type);
    if (size > maxEventBytes) {
      throw new TotError('INVALID_ARGUMENT', `${where}: events[${i}]: ${size} bytes exceeds the limit of ${maxEventBytes}`, { details: { field: `events[${i}]`, size, maxEventBytes } });
    }
    const payload = canonicalJson({
      streamId: id,
      type: event.type,
      data: JSON.parse(dataJson) as unknown,
      eventId: event.eventId,
      parentIds: event.parentIds ?? [],
      clock: event.clock ?? {},
      metadata: JSON.parse(metadataJson) as unknown,
    });
    return { event, dataJson, metadataJson, payload };
  });
  return { streamId: id, events: prepared, expectedVersion: o.expectedVersion, ...(o.signal ? { signal: o.signal } : {}) };
}

/** The payload of a stored event, comparable with {@link PreparedEvent.payload}; `clientEventId` says whether the id was the caller's. */
export function storedPayload(e: { streamId: string; type: string; data: unknown; eventId: string; parentIds: string[]; clock: Record<string, number>; metadata: unknown }, clientEventId: boolean): string {
  return canonicalJson({ streamId: e.streamId, type: e.type, data: e.data, eventId: clientEventId ? e.eventId : undefined, parentIds: e.parentIds, clock: e.clock, metadata: e.metadata });
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
