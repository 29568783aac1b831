import type { EventStore, StreamId, EventId } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ReplayBudget, ReplayHolder } from './http/replay-budget.js';

/** The bytes of messages one MCP session's store holds by default: 8 MiB. */
export const DEFAULT_REPLAY_BYTES_PER_SESSION = 8 * 2 ** 20;

interface Held {
  streamId: StreamId;
  /** The message as JSON (UTF-8): its bytes are what the budgets count, and all it keeps alive. */
  data: Buffer;
  ticket: number | undefined;
}

/**
 * The Streamable HTTP transport's resumability store (a client that reconnects with
 * `Last-Event-ID` is sent what it missed), bounded in bytes: the SDK's own in-memory store is for
 * examples and keeps every message forever, and a long-running server must not. Holds the latest
 * messages of one MCP session, at most `maxBytes` of them as JSON, and, with a shared
 * {@link ReplayBudget}, within the bytes all sessions may hold together; the oldest go first. A
 * message larger than either bound is sent but not held.
 *
 * A client may resume from an event it holds, or from the newest event it let go (nothing after
 * that one was dropped). From an older one, what it missed is gone: the store does not know the id,
 * and the SDK's transport answers the reconnect with 400 (`Invalid event ID format`), as for any
 * id it does not know.
 *
 * @example
 * ```ts
 * const budget = new ReplayBudget(64 * 2 ** 20);
 * new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, eventStore: new BoundedEventStore({ maxBytes: 8 * 2 ** 20, budget }) });
 * ```
 */
export class BoundedEventStore implements EventStore, ReplayHolder {
  private readonly events = new Map<EventId, Held>();
  private bytes = 0;
  private next = 0;
  /** The newest event let go: every event after it is held, so a client may still resume from it. */
  private floor: { id: EventId; streamId: StreamId } | undefined;
  private readonly maxBytes: number;
  private readonly budget: ReplayBudget | undefined;

  /**
   * @example
   * ```ts
   * const store = new BoundedEventStore({ maxBytes: 2 ** 20 });
   * ```
   */
  constructor(options: { maxBytes?: number; budget?: ReplayBudget } = {}) {
    this.maxBytes = options.maxBytes ?? DEFAULT_REPLAY_BYTES_PER_SESSION;
    this.budget = options.budget;
  }

  /**
   * Holds a message of a stream; returns its event id.
   *
   * @example
   * ```ts
   * const id = await store.storeEvent('stream-1', { jsonrpc: '2.0', method: 'notifications/message', params: {} });
   * ```
   */
  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    // Sortable ids: a counter, zero-padded, then the stream.
    const id = `${String(this.next++).padStart(12, '0')}_${streamId}`;
    const data = Buffer.from(JSON.stringify(message));
    if (data.length > this.maxBytes || (this.budget && data.length > this.budget.maxBytes)) {
      // Too large to hold: it goes, and so does everything before it (what is held stays the
      // unbroken tail of the session's messages).
      this.clear();
      this.floor = { id, streamId };
      return id;
    }
    const held: Held = { streamId, data, ticket: undefined };
    this.events.set(id, held);
    this.bytes += data.length;
    while (this.bytes > this.maxBytes) this.dropOldest();
    // Last: the shared budget may drop this store's oldest events (never this one, the newest of all).
    if (this.events.get(id) === held) held.ticket = this.budget?.hold(this, data.length);
    return id;
  }

  /**
   * The stream of an event this store can resume from; `undefined` for an id it let go or never had.
   *
   * @example
   * ```ts
   * await store.getStreamIdForEventId(lastEventId);
   * ```
   */
  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return this.events.get(eventId)?.streamId ?? (this.floor?.id === eventId ? this.floor.streamId : undefined);
  }

  /**
   * Sends, in order, the held events of the same stream after `lastEventId`; returns the stream's
   * id, or `''` when the id is not one it can resume from.
   *
   * @example
   * ```ts
   * await store.replayEventsAfter(lastEventId, { send: async (id, message) => write(id, message) });
   * ```
   */
  async replayEventsAfter(lastEventId: EventId, { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> }): Promise<StreamId> {
    const streamId = await this.getStreamIdForEventId(lastEventId);
    if (streamId === undefined) return '';
    // Taken before sending: events stored (or dropped) meanwhile do not disturb the replay.
    const after = [...this.events].filter(([id, e]) => id > lastEventId && e.streamId === streamId);
    for (const [id, e] of after) await send(id, JSON.parse(e.data.toString('utf8')) as JSONRPCMessage);
    return streamId;
  }

  /**
   * Lets go of the oldest event held (the shared budget calls this).
   *
   * @example
   * ```ts
   * store.dropOldest();
   * ```
   */
  dropOldest(): void {
    const first = this.events.entries().next();
    if (first.done) return;
    const [id, held] = first.value;
    this.events.delete(id);
    this.bytes -= held.data.length;
    if (held.ticket !== undefined) this.budget?.release(held.ticket);
    this.floor = { id, streamId: held.streamId };
  }

  /**
   * Lets go of every event (its session ended).
   *
   * @example
   * ```ts
   * transport.onclose = () => store.clear();
   * ```
   */
  clear(): void {
    while (this.events.size > 0) this.dropOldest();
  }

  /**
   * The bytes and events held.
   *
   * @example
   * ```ts
   * const { bytes, events } = store.stats();
   * ```
   */
  stats(): { bytes: number; events: number } {
    return { bytes: this.bytes, events: this.events.size };
  }
}
