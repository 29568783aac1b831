import type { EventStore, StreamId, EventId } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * The Streamable HTTP transport's resumability store (a client that reconnects with
 * `Last-Event-ID` is sent what it missed), bounded: the SDK's own in-memory store is for examples
 * and keeps every message forever, and a long-running server must not. Keeps the last `max`
 * messages of each transport.
 */
export class BoundedEventStore implements EventStore {
  private readonly events = new Map<EventId, { streamId: StreamId; message: JSONRPCMessage }>();
  private next = 0;

  constructor(private readonly max = 1000) {}

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    // Sortable ids: a counter, zero-padded, then the stream.
    const id = `${String(this.next++).padStart(12, '0')}_${streamId}`;
    this.events.set(id, { streamId, message });
    if (this.events.size > this.max) this.events.delete(this.events.keys().next().value as EventId);
    return id;
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return this.events.get(eventId)?.streamId;
  }

  async replayEventsAfter(lastEventId: EventId, { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> }): Promise<StreamId> {
    const last = this.events.get(lastEventId);
    if (!last) return '';
    for (const [id, e] of this.events) if (id > lastEventId && e.streamId === last.streamId) await send(id, e.message);
    return last.streamId;
  }
}
