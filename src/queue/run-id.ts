import { sha256 } from '@noble/hashes/sha2';
import { TotError } from '../errors/index.js';

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/**
 * The id of a queued run: a UUID (PostgreSQL's job ids are UUIDs), random, or derived from the
 * flow's name and the caller's idempotency key so that submitting again finds the same run.
 * A derived id is a version 8 UUID (RFC 9562: custom), from the key's SHA-256.
 */
export function queuedRunId(flow: string, key: string | undefined): string {
  if (key === undefined) return crypto.randomUUID();
  const b = sha256(new TextEncoder().encode(`tot-queue\u0000${flow}\u0000${key}`)).slice(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x80;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = hex(b);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `id` has the form of the ids {@link queuedRunId} makes (a UUID, in any case). */
export function isQueuedRunIdForm(id: string): boolean {
  return UUID.test(id);
}

/** The error of a queue asked, in `where`, about a run it does not have. */
export function noSuchRun(where: string, id: string): TotError {
  return new TotError('INVALID_ARGUMENT', `${where}: this queue has no run "${id}".`, { details: { field: 'runId' } });
}
