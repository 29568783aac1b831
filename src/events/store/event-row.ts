import type { StoredEvent } from './types.js';

/** An event as the SQL stores keep it: snake_case columns, JSON as text. */
export interface EventRow {
  global_position: number | string | bigint;
  event_id: string;
  stream_id: string;
  version: number;
  type: string;
  data: string;
  idempotency_key: string;
  parent_ids: string;
  clock: string;
  metadata: string;
  /** ISO 8601. */
  recorded_at: string;
}

/** The JSON of no parent ids, no clock, no metadata: most events', answered without parsing. */
const jsonOrEmpty = (text: string, empty: '[]' | '{}') => (text === empty ? (empty === '[]' ? [] : {}) : JSON.parse(text));

/** A stored row as a fresh event. Throws `SyntaxError` on a column that is not JSON: each store names that damage its own way. */
export function eventFromRow(row: EventRow): StoredEvent {
  return {
    eventId: row.event_id,
    streamId: row.stream_id,
    version: row.version,
    globalPosition: BigInt(row.global_position),
    type: row.type,
    data: JSON.parse(row.data) as unknown,
    idempotencyKey: row.idempotency_key,
    parentIds: jsonOrEmpty(row.parent_ids, '[]') as string[],
    clock: jsonOrEmpty(row.clock, '{}') as Record<string, number>,
    metadata: jsonOrEmpty(row.metadata, '{}') as Record<string, unknown>,
    recordedAt: row.recorded_at,
  };
}
