// The sequentialthinking tool against the reference server's behaviour: a thought number sent
// again with other words is appended (the reference keeps every call), the very same call sent
// again (a retry) is stored once, a long thought is stored unit for unit, and a call reads only
// what it adds, never a copy of the whole session.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InMemoryEventStore } from '../../src/index.js';
import { SessionEngine, AgentSession } from '../../src/sessions/index.js';
import { createMcpServer, SessionCache } from '../../src/mcp/index.js';
import { splitThought } from '../../src/mcp/split-thought.js';
import { structured, text } from '../helpers/mcp-sampling.js';

type Reply = { session_id: string; thoughtNumber: number; totalThoughts: number; branches: string[]; thoughtHistoryLength: number };
type Graph = { thoughts: { id: string; role: string; content: string; parentIds: string[]; edge?: string }[] };

const open: { client: Client; server: McpServer }[] = [];

afterEach(async () => {
  vi.restoreAllMocks();
  for (const { client, server } of open.splice(0)) {
    await client.close();
    await server.close();
  }
});

/** A server on an in-memory store, and `think` / `graph` through a client connected to it. */
async function connect(store = new InMemoryEventStore()) {
  const server = createMcpServer({ engine: new SessionEngine({ store }) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'sequential-thinking-test', version: '1.0.0' });
  await client.connect(clientSide);
  open.push({ client, server });
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
    expect(r.isError, text(r)).toBeFalsy();
    return r;
  };
  return {
    call,
    think: async (args: Record<string, unknown>) => structured<Reply>(await call('sequentialthinking', { nextThoughtNeeded: true, totalThoughts: 3, ...args })),
    graph: async (session_id: string) => structured<{ graph: Graph }>(await call('think_graph_export', { session_id, format: 'json' })).graph,
  };
}

describe('sequentialthinking, a thought number sent again', () => {
  it('appends a thought sent under a number already used, with other words, as the reference server does', async () => {
    const { think, graph } = await connect();
    const first = await think({ thought: 'Import the rows in one transaction.', thoughtNumber: 1 });
    await think({ thought: 'A crash loses the whole batch.', thoughtNumber: 2, session_id: first.session_id });
    const again = await think({ thought: 'Or a crash loses only the rows since the last commit.', thoughtNumber: 2, session_id: first.session_id });
    expect(again).toMatchObject({ session_id: first.session_id, thoughtNumber: 2, thoughtHistoryLength: 3 });
    // Both thoughts 2 follow thought 1.
    expect((await graph(first.session_id)).thoughts.map((t) => [t.id, t.content, t.parentIds])).toEqual([
      ['t0', 'Import the rows in one transaction.', []],
      ['t1', 'A crash loses the whole batch.', ['t0']],
      ['t2', 'Or a crash loses only the rows since the last commit.', ['t0']],
    ]);
  });

  it('makes the next number follow the latest thought sent under the one before it', async () => {
    const { think, graph } = await connect();
    const { session_id } = await think({ thought: 'One.', thoughtNumber: 1 });
    await think({ thought: 'Two.', thoughtNumber: 2, session_id });
    await think({ thought: 'Two, again.', thoughtNumber: 2, session_id });
    await think({ thought: 'Three.', thoughtNumber: 3, session_id });
    expect((await graph(session_id)).thoughts.at(-1)).toMatchObject({ id: 't3', content: 'Three.', parentIds: ['t2'] });
  });

  it('makes a thought of the main line follow the one before it sent on a branch', async () => {
    const { think, graph } = await connect();
    const { session_id } = await think({ thought: 'One.', thoughtNumber: 1 });
    await think({ thought: 'Two.', thoughtNumber: 2, session_id });
    await think({ thought: 'Three, on w.', thoughtNumber: 3, branchFromThought: 2, branchId: 'w', session_id });
    await think({ thought: 'Four.', thoughtNumber: 4, session_id });
    const thoughts = (await graph(session_id)).thoughts;
    const three = thoughts.find((t) => t.content === 'Three, on w.')!;
    expect(thoughts.find((t) => t.content === 'Four.')).toMatchObject({ parentIds: [three.id], edge: 'causes' });
  });

  it('stores the very same call sent twice (a retry) once, and answers it as the first time', async () => {
    const { think, graph } = await connect();
    const { session_id } = await think({ thought: 'One.', thoughtNumber: 1 });
    const call = { thought: 'Two.', thoughtNumber: 2, session_id };
    const once = await think(call);
    const twice = await think(call);
    expect(twice).toEqual(once);
    expect((await graph(session_id)).thoughts.map((t) => t.content)).toEqual(['One.', 'Two.']);
  });

  it('keeps a retried thought 1 that names no session in the session the first went to', async () => {
    const { think, graph } = await connect();
    const once = await think({ thought: 'One.', thoughtNumber: 1 });
    const twice = await think({ thought: 'One.', thoughtNumber: 1 });
    expect(twice.session_id).toBe(once.session_id);
    expect((await graph(once.session_id)).thoughts).toHaveLength(1);
  });
});

describe('sequentialthinking, a session read back', () => {
  it('goes on where the sequence stopped on a server that restores the session from the store', async () => {
    const store = new InMemoryEventStore();
    const first = await connect(store);
    const { session_id } = await first.think({ thought: 'One.', thoughtNumber: 1 });
    await first.think({ thought: 'Two.', thoughtNumber: 2, session_id });
    await first.think({ thought: 'Two, again.', thoughtNumber: 2, session_id });
    // Another server on the same store: it holds nothing of the session until this call.
    const second = await connect(store);
    const next = await second.think({ thought: 'Three.', thoughtNumber: 3, session_id });
    expect(next.thoughtHistoryLength).toBe(4);
    expect((await second.graph(session_id)).thoughts.at(-1)).toMatchObject({ id: 't3', parentIds: ['t2'] });
  });
});

describe('sequentialthinking, a thought longer than the session\'s limit', () => {
  const stored = async (thought: string) => {
    const { think, graph } = await connect();
    const { session_id } = await think({ thought, thoughtNumber: 1 });
    return (await graph(session_id)).thoughts.map((t) => t.content);
  };

  it('keeps its leading spaces', async () => {
    const thought = `${' '.repeat(100)}${'indented '.repeat(50)}`;
    expect((await stored(thought)).join('')).toBe(thought);
  });

  it('keeps a line break where a part ends', async () => {
    // The only break in the second half of the first 400 units is the newline at 390.
    const thought = `${'x'.repeat(390)}\n${'y'.repeat(300)}`;
    const parts = await stored(thought);
    expect(parts).toEqual([`${'x'.repeat(390)}\n`, 'y'.repeat(300)]);
  });

  it('never cuts a surrogate pair in two', async () => {
    // 399 units, then an emoji at 399–400: a cut at 400 would split it.
    const thought = `${'a'.repeat(399)}😀${'b'.repeat(10)}`;
    const parts = await stored(thought);
    expect(parts).toEqual(['a'.repeat(399), `😀${'b'.repeat(10)}`]);
  });
});

describe('splitThought', () => {
  it('gives back any text unit for unit, in parts within the limit, none ending in half a pair', () => {
    const unit = fc.oneof(fc.constantFrom(' ', '\n', '\t', '\r', 'a', '😀', '\ud83d', '\ude00'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }));
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 400 }), fc.integer({ min: 2, max: 40 }), (thought, max) => {
        const parts = splitThought(thought, max);
        expect(parts.join('')).toBe(thought);
        for (const [i, part] of parts.entries()) {
          expect(part.length).toBeLessThanOrEqual(max);
          if (i < parts.length - 1) expect(part.length).toBeGreaterThan(0);
          const last = part.charCodeAt(part.length - 1);
          const next = parts[i + 1]?.charCodeAt(0) ?? 0;
          expect(last >= 0xd800 && last <= 0xdbff && next >= 0xdc00 && next <= 0xdfff, `part ${i} ends in half a pair`).toBe(false);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('sequentialthinking, the work a call does', () => {
  it('copies no session: neither snapshot() nor toJSON() is called, on a call to a session of 30 thoughts', async () => {
    const { think } = await connect();
    const { session_id } = await think({ thought: 'Thought 1.', thoughtNumber: 1 });
    for (let n = 2; n <= 30; n++) await think({ thought: `Thought ${n}.`, thoughtNumber: n, session_id });
    const snapshot = vi.spyOn(AgentSession.prototype, 'snapshot');
    const toJSON = vi.spyOn(AgentSession.prototype, 'toJSON');
    await think({ thought: 'Thought 31.', thoughtNumber: 31, session_id });
    expect(snapshot).not.toHaveBeenCalled();
    expect(toJSON).not.toHaveBeenCalled();
  });

  it('reads, on each call, only the thoughts another writer added since the one before', async () => {
    const { think, call } = await connect();
    const { session_id } = await think({ thought: 'Thought 1.', thoughtNumber: 1 });
    for (let n = 2; n <= 30; n++) await think({ thought: `Thought ${n}.`, thoughtNumber: n, session_id });
    await call('think_plan_step', { session_id, content: 'A thought from another tool.' });
    const read = vi.spyOn(AgentSession.prototype, 'thought');
    await think({ thought: 'Thought 31.', thoughtNumber: 31, session_id });
    // The other tool's thought, not the 31 before it, nor the one this call wrote (it has it).
    expect(read.mock.calls).toEqual([['t30']]);
  });

  it('stores a new session\'s start and its first thought in one append', async () => {
    const store = new InMemoryEventStore();
    const append = vi.spyOn(store, 'append');
    const { think } = await connect(store);
    const { session_id } = await think({ thought: 'Thought 1.', thoughtNumber: 1 });
    expect(append.mock.calls.map(([stream, events]) => [stream, events.map((e) => e.type)])).toEqual([[session_id, ['session.started', 'thought.added']]]);
  });

  it('starts a session anew for a client whose last session, never stored, is no longer held', async () => {
    const store = new InMemoryEventStore();
    const engine = new SessionEngine({ store });
    // One session held at a time: the next one started pushes the one before out.
    const server = createMcpServer({ engine, sessions: new SessionCache(engine, { maxOpen: 1 }) });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'sequential-thinking-test', version: '1.0.0' });
    await client.connect(clientSide);
    open.push({ client, server });
    const think = (n: number) => client.callTool({ name: 'sequentialthinking', arguments: { thought: `Thought ${n}.`, thoughtNumber: n, totalThoughts: 3, nextThoughtNeeded: true } }) as Promise<CallToolResult>;
    // The first call's write fails, and with it its session's start, stored with its thought.
    vi.spyOn(store, 'append').mockRejectedValueOnce(new Error('disk full'));
    expect((await think(1)).isError).toBe(true);
    expect((await client.callTool({ name: 'think_session_start', arguments: { goal: 'Another session.' } })).isError).toBeFalsy();
    const next = await think(2);
    expect(next.isError, text(next)).toBeFalsy();
    expect(await store.streamVersion(structured<Reply>(next).session_id)).toBe(1);
  });
});
