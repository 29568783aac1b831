// A session started with deferStart stores its start with its first write, in the same append:
// until then the store holds no such session, and after it the session is what a restore reads.
import { describe, expect, it, vi } from 'vitest';
import { InMemoryEventStore } from '../../src/index.js';
import { SessionEngine } from '../../src/sessions/index.js';
import { SqliteEventStore } from '../../src/sqlite/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

/** The store's next append is stored, and then its reply is lost (the caller sees an error). */
function loseReplyOfNextAppend(store: InMemoryEventStore): void {
  const append = store.append.bind(store);
  vi.spyOn(store, 'append').mockImplementationOnce(async (...args) => {
    await append(...args);
    throw new Error('connection lost after the commit');
  });
}

/** A session started with deferStart on an in-memory store, nothing stored yet. */
async function deferredSession() {
  const store = new InMemoryEventStore();
  const engine = new SessionEngine({ store });
  return { store, engine, s: await engine.startSession({ goal: 'g', deferStart: true }) };
}

describe('a session started with deferStart', () => {
  for (const [name, store] of [
    ['in memory', () => new InMemoryEventStore()],
    ['on SQLite', () => new SqliteEventStore({ path: ':memory:' })],
  ] as const) {
    it(`stores its start and its first thought in one append, and restores as it is live (${name})`, async () => {
      const events = store();
      const append = vi.spyOn(events, 'append');
      const engine = new SessionEngine({ store: events, writerId: 'w1' });
      const s = await engine.startSession({ goal: 'g', deferStart: true });
      expect(await events.streamVersion(s.id)).toBeNull();
      await s.addThought({ role: 'planner', content: 'cache it' });
      expect(append.mock.calls.map(([, batch]) => batch.map((e) => e.type))).toEqual([['session.started', 'thought.added']]);
      expect((await engine.restore(s.id)).snapshot()).toEqual(s.snapshot());
    });
  }

  it('stores nothing when its first write fails, and its start with the next write', async () => {
    const { store, engine, s } = await deferredSession();
    vi.spyOn(store, 'append').mockRejectedValueOnce(new Error('disk full'));
    await expect(s.addThought({ role: 'planner', content: 'a' })).rejects.toThrow('disk full');
    expect(await store.streamVersion(s.id)).toBeNull();
    await s.addThought({ role: 'planner', content: 'a' });
    expect(await store.streamVersion(s.id)).toBe(1);
    expect((await engine.restore(s.id)).snapshot()).toEqual(s.snapshot());
  });

  it('goes on with its next write when its first was stored but the reply was lost', async () => {
    const { store, engine, s } = await deferredSession();
    loseReplyOfNextAppend(store);
    await expect(s.addThought({ role: 'planner', content: 'a' })).rejects.toThrow('connection lost');
    await s.addThought({ role: 'planner', content: 'b' });
    const restored = await engine.restore(s.id);
    expect(restored.snapshot().thoughts.map((t) => t.content)).toEqual(['a', 'b']);
    expect(restored.snapshot()).toEqual(s.snapshot());
  });

  it('reads back, on refresh, a first write that was stored with its start though its reply was lost', async () => {
    const { store, engine, s } = await deferredSession();
    loseReplyOfNextAppend(store);
    await expect(s.addThought({ role: 'planner', content: 'a' })).rejects.toThrow('connection lost');
    await s.refresh();
    expect(s.snapshot().thoughts.map((t) => t.content)).toEqual(['a']);
    const b = await s.addThought({ role: 'planner', content: 'b', parentIds: [s.snapshot().thoughts[0]!.id] });
    expect(b.parentIds).toEqual([s.snapshot().thoughts[0]!.id]);
    expect((await engine.restore(s.id)).snapshot()).toEqual(s.snapshot());
  });

  it('writes at once after a checkpoint that stored its start but lost the reply', async () => {
    const { store, engine, s } = await deferredSession();
    loseReplyOfNextAppend(store);
    await s.checkpoint().catch(() => undefined);
    await s.addThought({ role: 'planner', content: 'a' });
    expect((await engine.restore(s.id)).snapshot().thoughts.map((t) => t.content)).toEqual(['a']);
  });

  it('stores its start before a checkpoint taken ahead of any write, so that a restore finds the session', async () => {
    const { engine, s } = await deferredSession();
    await s.checkpoint();
    expect((await engine.restore(s.id)).snapshot()).toEqual(s.snapshot());
  });

  it('refuses a stream another writer made under its id, reading nothing of it', async () => {
    const { store, s } = await deferredSession();
    await store.append(s.id, [{ type: 'session.started', data: { sessionId: s.id, goal: 'other', successCriteria: [], budget: {}, maxThoughtChars: 400, at: 0 }, idempotencyKey: 'other-start' }], { expectedVersion: 'no_stream' });
    await catchTotError(() => s.addThought({ role: 'planner', content: 'a' }), 'EXPECTED_VERSION_CONFLICT');
    expect(s.snapshot().goal).toBe('g');
    expect(s.thoughtCount).toBe(0);
  });

  it('is refused with an id of the caller\'s', async () => {
    const engine = new SessionEngine({ store: new InMemoryEventStore() });
    const error = await catchTotError(() => engine.startSession({ goal: 'g', id: 'mine', deferStart: true }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('options.deferStart');
  });
});
