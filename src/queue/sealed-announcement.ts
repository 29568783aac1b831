// A run's settlement as a worker announces it to the processes waiting for its result. PostgreSQL
// delivers a notification to any session of the database that listens on its channel, and lets
// any session send one: neither needs a privilege. The announcement is therefore sealed (AES-256-GCM)
// with a key kept in a table of the queue's schema, so that reading or forging one takes what
// reading or writing the runs' jobs takes: access to that schema.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { ProtocolErrorObject } from '../errors/index.js';

/** What an announcement tells a waiting `result()`: a terminal run's outcome. */
export interface Announcement {
  runId: string;
  status: 'finished' | 'failed';
  result?: unknown;
  error?: ProtocolErrorObject;
}

/** Marks a sealed payload (a bare run id is a UUID, which never starts so). */
const PREFIX = 's1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** The key's length in bytes (AES-256). */
export const ANNOUNCE_KEY_BYTES = 32;

/** A fresh key for a queue's schema. */
export function newAnnounceKey(): Buffer {
  return randomBytes(ANNOUNCE_KEY_BYTES);
}

/** The sealed payload of `announcement`. */
export function seal(key: Buffer, announcement: Announcement): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(announcement), 'utf8'), cipher.final()]);
  return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

/** The announcement `payload` seals with `key`, or `undefined` for anything else (a bare run id, a forgery, another key's). */
export function unseal(key: Buffer, payload: string): Announcement | undefined {
  if (!payload.startsWith(PREFIX)) return undefined;
  const bytes = Buffer.from(payload.slice(PREFIX.length), 'base64');
  if (bytes.length <= IV_BYTES + TAG_BYTES) return undefined;
  let a: Announcement;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    a = JSON.parse(Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8')) as Announcement;
  } catch {
    return undefined;
  }
  return typeof a?.runId === 'string' && (a.status === 'finished' || a.status === 'failed') ? a : undefined;
}
