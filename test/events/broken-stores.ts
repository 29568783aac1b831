import { InMemoryEventStore, TotError, type AppendOptions, type AppendResult, type EventStore, type NewEvent, type ReadAllOptions, type Snapshot, type StoredEvent } from '../../src/index.js';

/** A store that delegates to an in-memory store, for breaking one behaviour at a time. */
class Delegating implements EventStore {
  constructor(protected readonly inner: InMemoryEventStore = new InMemoryEventStore()) {}
  append(streamId: string, events: NewEvent[], options: AppendOptions): Promise<AppendResult> {
    return this.inner.append(streamId, events, options);
  }
  readStream(streamId: string, options?: Parameters<EventStore['readStream']>[1]) {
    return this.inner.readStream(streamId, options);
  }
  readAll(options?: ReadAllOptions) {
    return this.inner.readAll(options);
  }
  streamVersion(streamId: string) {
    return this.inner.streamVersion(streamId);
  }
  saveSnapshot(snapshot: Parameters<EventStore['saveSnapshot']>[0]) {
    return this.inner.saveSnapshot(snapshot);
  }
  loadSnapshot(streamId: string) {
    return this.inner.loadSnapshot(streamId);
  }
  close() {
    return this.inner.close();
  }
}

/** Stores only the first half of every batch. */
export class DropsBatchHalf extends Delegating {
  override append(streamId: string, events: NewEvent[], options: AppendOptions) {
    return this.inner.append(streamId, events.length > 1 ? events.slice(0, Math.ceil(events.length / 2)) : events, options);
  }
}

/** Appends whatever the stream's version. */
export class IgnoresExpectedVersion extends Delegating {
  override append(streamId: string, events: NewEvent[], options: AppendOptions) {
    return this.inner.append(streamId, events, { ...options, expectedVersion: 'any' });
  }
}

/** Writes a retried batch again under fresh keys instead of returning the stored events. */
export class DuplicatesOnRetry extends Delegating {
  private n = 0;
  override append(streamId: string, events: NewEvent[], options: AppendOptions) {
    const salt = `#${this.n++}`;
    return this.inner.append(streamId, events.map((e) => ({ ...e, idempotencyKey: e.idempotencyKey + salt })), options);
  }
}

/** Hands out the caller's own data objects on reads, so later changes by the caller show. */
export class SharesCallerObjects extends Delegating {
  private readonly originals = new Map<string, unknown>();
  override async append(streamId: string, events: NewEvent[], options: AppendOptions) {
    const result = await this.inner.append(streamId, events, options);
    for (const e of events) this.originals.set(e.idempotencyKey, e.data);
    return result;
  }
  override async *readStream(streamId: string, options?: Parameters<EventStore['readStream']>[1]) {
    for await (const e of this.inner.readStream(streamId, options)) yield { ...e, data: this.originals.get(e.idempotencyKey) ?? e.data };
  }
}

/** Returns readAll newest first. */
export class ReordersReadAll extends Delegating {
  override async *readAll(options?: ReadAllOptions) {
    const all: StoredEvent[] = [];
    for await (const e of this.inner.readAll(options)) all.push(e);
    yield* all.reverse();
  }
}

/** Checks the version, yields to the event loop, then writes: concurrent appenders all win. */
export class CheckThenWrite extends Delegating {
  override async append(streamId: string, events: NewEvent[], options: AppendOptions) {
    const actual = await this.inner.streamVersion(streamId);
    const expected = options.expectedVersion;
    const ok = expected === 'any' || (expected === 'no_stream' ? actual === null : expected === 'stream_exists' ? actual !== null : actual === expected);
    await new Promise((resolve) => setTimeout(resolve, 1));
    if (!ok) return this.inner.append(streamId, events, options);
    return this.inner.append(streamId, events, { ...options, expectedVersion: 'any' });
  }
}

/** Ignores a payload mismatch on a stored idempotency key (returns the stored events). */
export class TrustsKeysBlindly extends Delegating {
  override async append(streamId: string, events: NewEvent[], options: AppendOptions) {
    try {
      return await this.inner.append(streamId, events, options);
    } catch (error) {
      if ((error as { code?: string }).code !== 'IDEMPOTENCY_CONFLICT') throw error;
      return { events: [], nextExpectedVersion: (await this.inner.streamVersion(streamId)) ?? -1, deduplicated: true };
    }
  }
}

/** Forgets snapshots. */
export class LosesSnapshots extends Delegating {
  override async saveSnapshot() {}
}

/** Accepts data JSON cannot carry, dropping it silently (a function or bigint property becomes null). */
export class AcceptsAnyData extends Delegating {
  override append(streamId: string, events: NewEvent[], options: AppendOptions) {
    const lenient = (data: unknown) =>
      typeof data === 'object' && data !== null && !Array.isArray(data) ? Object.fromEntries(Object.entries(data).map(([k, v]) => [k, typeof v === 'function' || typeof v === 'bigint' ? null : v])) : data;
    return this.inner.append(streamId, events.map((e) => ({ ...e, data: lenient(e.data) })), options);
  }
}

/** Comes back empty after a reopen. */
export const forgetsOnReopen = { create: () => new InMemoryEventStore(), reopen: async () => new InMemoryEventStore() };

/** Reads data back with its object keys sorted, as PostgreSQL's jsonb does. */
export class SortsKeys extends Delegating {
  override async *readStream(streamId: string, options?: Parameters<EventStore['readStream']>[1]) {
    const sorted = (v: unknown): unknown =>
      Array.isArray(v) ? v.map(sorted) : typeof v === 'object' && v !== null ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted((v as Record<string, unknown>)[k])])) : v;
    for await (const e of this.inner.readStream(streamId, options)) yield { ...e, data: sorted(e.data) };
  }
}

/** Loads the snapshot saved last, whatever its version, and the same frozen object every time. */
export class KeepsLastSnapshot extends Delegating {
  private readonly last = new Map<string, Snapshot>();
  override async saveSnapshot(snapshot: Snapshot) {
    await this.inner.saveSnapshot(snapshot);
    this.last.set(snapshot.streamId, Object.freeze(JSON.parse(JSON.stringify(snapshot)) as Snapshot));
  }
  override async loadSnapshot(streamId: string) {
    return this.last.get(streamId) ?? null;
  }
}

/** Writes an event whose id another event has by dropping the id. */
export class ReusesEventIds extends Delegating {
  override async append(streamId: string, events: NewEvent[], options: AppendOptions) {
    try {
      return await this.inner.append(streamId, events, options);
    } catch (error) {
      if ((error as { code?: string }).code !== 'IDEMPOTENCY_CONFLICT') throw error;
      return this.inner.append(streamId, events.map(({ eventId: _, ...e }) => e), options);
    }
  }
}

/** Walks every event's data recursively before checking it: a value nested thousands deep overflows the stack. */
export class StringifiesFirst extends Delegating {
  override append(streamId: string, events: NewEvent[], options: AppendOptions) {
    // Down the first branch only, as a recursive copy would go first.
    const walk = (v: unknown): void => {
      if (typeof v === 'object' && v !== null) walk(Object.values(v)[0]);
    };
    for (const e of events) walk(e.data);
    return this.inner.append(streamId, events, options);
  }
}

/** Writes ids as a UTF-8 driver does: an unpaired surrogate becomes U+FFFD. */
export class ReplacesLoneSurrogates extends Delegating {
  override append(streamId: string, events: NewEvent[], options: AppendOptions) {
    const utf8 = (text: string) => Buffer.from(text, 'utf8').toString('utf8');
    return this.inner.append(utf8(streamId), events.map((e) => ({ ...e, type: utf8(e.type), idempotencyKey: utf8(e.idempotencyKey) })), options);
  }
}

/** Fails a read past the largest position instead of reading nothing. */
export class FailsPastTheEnd extends Delegating {
  override readAll(options?: ReadAllOptions) {
    if (options?.after !== undefined && options.after >= 2n ** 63n - 1n) throw new TotError('ILLEGAL_STATE', 'value out of range for type bigint');
    return this.inner.readAll(options);
  }
}
