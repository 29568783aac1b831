// BoundedEventStore, the Streamable HTTP transport's resumability store in `tot mcp --http` (one per
// MCP session): what a client reconnecting with Last-Event-ID is sent, and its bound.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { BoundedEventStore } from '../../src/mcp/bounded-event-store.js';

const note = (n: number): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { n } });

async function replay(store: BoundedEventStore, after: string) {
  const sent: [string, JSONRPCMessage][] = [];
  const stream = await store.replayEventsAfter(after, { send: async (id, message) => void sent.push([id, message]) });
  return { stream, sent };
}

describe('BoundedEventStore', () => {
  it('replays, in order, the events of the same stream after the one given, and none of another stream', async () => {
    const store = new BoundedEventStore();
    const a1 = await store.storeEvent('a', note(1));
    const b1 = await store.storeEvent('b', note(2));
    const a2 = await store.storeEvent('a', note(3));
    const a3 = await store.storeEvent('a', note(4));
    await store.storeEvent('b', note(5));
    expect(await store.getStreamIdForEventId(a1)).toBe('a');
    expect(await store.getStreamIdForEventId(b1)).toBe('b');
    const { stream, sent } = await replay(store, a1);
    expect(stream).toBe('a');
    expect(sent).toEqual([
      [a2, note(3)],
      [a3, note(4)],
    ]);
    expect((await replay(store, a3)).sent).toEqual([]);
  });

  it('orders ids past ten by number, not by their first digit', async () => {
    const store = new BoundedEventStore();
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await store.storeEvent('s', note(i)));
    const { sent } = await replay(store, ids[8]!);
    expect(sent.map(([, m]) => (m as unknown as { params: { n: number } }).params.n)).toEqual([9, 10, 11]);
  });

  it('keeps the last `max` events: an id older than those is unknown, and a reconnect from it is refused', async () => {
    const store = new BoundedEventStore(3);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await store.storeEvent('s', note(i)));
    expect(await store.getStreamIdForEventId(ids[1]!)).toBeUndefined();
    expect((await replay(store, ids[1]!)).stream).toBe('');
    expect((await replay(store, ids[2]!)).sent.map(([id]) => id)).toEqual([ids[3], ids[4]]);
  });
});
