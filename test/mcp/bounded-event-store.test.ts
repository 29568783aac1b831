// BoundedEventStore, the Streamable HTTP transport's resumability store in `tot mcp --http` (one per
// MCP session): what a client reconnecting with Last-Event-ID is sent, and its bounds in bytes, its
// own and the ReplayBudget all sessions share.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { BoundedEventStore } from '../../src/mcp/bounded-event-store.js';
import { ReplayBudget } from '../../src/mcp/http/replay-budget.js';

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

  it('holds at most maxBytes of messages (their JSON): the oldest go first, and a reconnect from an id it let go before the newest one is refused', async () => {
    // Each note is 67 bytes of JSON: room for three in 210 bytes.
    expect(Buffer.byteLength(JSON.stringify(note(0)))).toBe(67);
    const store = new BoundedEventStore({ maxBytes: 210 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await store.storeEvent('s', note(i)));
    expect(store.stats()).toEqual({ bytes: 201, events: 3 });
    // ids[0] is gone, and so is what came after it (ids[1]): nothing to resume from.
    expect(await store.getStreamIdForEventId(ids[0]!)).toBeUndefined();
    expect((await replay(store, ids[0]!)).stream).toBe('');
    // ids[1], the newest let go, is the last a client may have read before the ones held: it resumes.
    expect(await replay(store, ids[1]!)).toEqual({ stream: 's', sent: [2, 3, 4].map((n) => [ids[n], note(n)]) });
    expect((await replay(store, ids[2]!)).sent.map(([id]) => id)).toEqual([ids[3], ids[4]]);
  });

  it('counts the bytes of the JSON in UTF-8, not its characters', async () => {
    const store = new BoundedEventStore({ maxBytes: 1000 });
    await store.storeEvent('s', { jsonrpc: '2.0', method: 'm', params: { text: 'é'.repeat(100) } });
    // '{"jsonrpc":"2.0","method":"m","params":{"text":""}}' is 51 bytes; each é is two.
    expect(store.stats()).toEqual({ bytes: 251, events: 1 });
  });

  it('sends a message larger than maxBytes without holding it, and lets go of everything before it: a client that read it resumes from it', async () => {
    const store = new BoundedEventStore({ maxBytes: 210 });
    const before = await store.storeEvent('s', note(1));
    const big = await store.storeEvent('s', { jsonrpc: '2.0', method: 'notifications/message', params: { text: 'x'.repeat(300) } });
    const after = await store.storeEvent('s', note(2));
    expect(store.stats()).toEqual({ bytes: 67, events: 1 });
    // What came before the large message cannot be replayed whole: the id is unknown.
    expect((await replay(store, before)).stream).toBe('');
    expect(await replay(store, big)).toEqual({ stream: 's', sent: [[after, note(2)]] });
  });

  it('shares a ReplayBudget between stores: past its bytes, the oldest message of all goes first, whichever store holds it', async () => {
    const budget = new ReplayBudget(210);
    const a = new BoundedEventStore({ maxBytes: 1000, budget });
    const b = new BoundedEventStore({ maxBytes: 1000, budget });
    const a1 = await a.storeEvent('a', note(1));
    const b1 = await b.storeEvent('b', note(2));
    const a2 = await a.storeEvent('a', note(3));
    expect(budget.stats()).toEqual({ bytes: 201, events: 3 });
    const b2 = await b.storeEvent('b', note(4));
    // a1 was the oldest of all.
    expect(budget.stats()).toEqual({ bytes: 201, events: 3 });
    expect(a.stats().events).toBe(1);
    expect(b.stats().events).toBe(2);
    expect(await a.getStreamIdForEventId(a2)).toBe('a');
    expect((await replay(b, b1)).sent).toEqual([[b2, note(4)]]);
    expect(await replay(a, a1)).toEqual({ stream: 'a', sent: [[a2, note(3)]] });
    await b.storeEvent('b', note(5));
    // Then b1 goes; a2 (newer) stays.
    expect(b.stats().events).toBe(2);
    expect(a.stats().events).toBe(1);
    expect(budget.stats()).toEqual({ bytes: 201, events: 3 });
  });

  it('gives its bytes back to the shared budget when its session ends (clear)', async () => {
    const budget = new ReplayBudget(1000);
    const a = new BoundedEventStore({ budget });
    const b = new BoundedEventStore({ budget });
    await a.storeEvent('a', note(1));
    await b.storeEvent('b', note(2));
    a.clear();
    expect(a.stats()).toEqual({ bytes: 0, events: 0 });
    expect(budget.stats()).toEqual({ bytes: 67, events: 1 });
  });
});
