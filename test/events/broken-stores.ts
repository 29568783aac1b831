import { InMemoryEventStore, type AppendOptions, type AppendResult, type EventStore, type NewEvent, type ReadAllOptions, type StoredEvent } from '../../src/index.js';

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

/** Accepts data JSON cannot carry, dropping it silently. */
export class AcceptsAnyData extends Delegating {
  override append(streamId: string, events: NewEvent[], options: AppendOptions) {
    return this.inner.append(streamId, events.map((e) => ({ ...e, data: JSON.parse(JSON.stringify(e.data, (_k, v) => (typeof v === 'function' || typeof v === 'bigint' ? null : v)) ?? 'null') as unknown })), options);
  }
}

/** Comes back empty after a reopen. */
export const forgetsOnReopen = { create: () => new InMemoryEventStore(), reopen: async () => new InMemoryEventStore() };
