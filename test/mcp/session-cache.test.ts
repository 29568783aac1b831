// SessionCache, the LRU of open sessions over the engine's store behind --max-open-sessions: which
// session goes when one too many is held, what a hit does to the order, and that a session let go
// comes back from the store as it was. Then the same through createMcpServer({ maxOpenSessions }).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InMemoryEventStore } from '../../src/index.js';
import { SessionEngine, type AgentSession } from '../../src/sessions/index.js';
import { SessionCache } from '../../src/mcp/index.js';
import { closeInProcess, connectInProcess } from './in-process.js';

afterEach(closeInProcess);

/** An engine over a fresh in-memory store, and `n` sessions started on it, each with a thought. */
async function sessions(n: number) {
  const store = new InMemoryEventStore();
  const engine = new SessionEngine({ store });
  const started: AgentSession[] = [];
  for (let i = 0; i < n; i++) {
    const s = await engine.startSession({ goal: `goal ${i}`, budget: { maxBranches: 3 } });
    await s.addThought({ role: 'planner', content: `first thought of ${i}` });
    started.push(s);
  }
  return { store, engine, started };
}

describe('SessionCache', () => {
  it('lets the least recently added session go first when more than maxOpen are held', async () => {
    const { engine, started } = await sessions(4);
    const [a, b, c, d] = started as [AgentSession, AgentSession, AgentSession, AgentSession];
    const cache = new SessionCache(engine, { maxOpen: 2 });
    const restore = vi.spyOn(engine, 'restore');
    cache.add(a);
    cache.add(b);
    expect(cache.stats()).toEqual({ open: 2, hits: 0, restores: 0, evictions: 0 });
    cache.add(c); // a goes
    expect(cache.stats()).toMatchObject({ open: 2, evictions: 1 });
    expect(await cache.get(b.id)).toBe(b);
    expect(await cache.get(c.id)).toBe(c);
    expect(restore).not.toHaveBeenCalled();
    cache.add(d); // b goes: of b and c, b was used less recently
    expect(await cache.get(c.id)).toBe(c);
    expect(await cache.get(d.id)).toBe(d);
    expect(restore).not.toHaveBeenCalled();
    const b2 = await cache.get(b.id);
    expect(b2).not.toBe(b);
    expect(restore.mock.calls.map((call) => call[0])).toEqual([b.id]);
    expect(cache.stats()).toEqual({ open: 2, hits: 4, restores: 1, evictions: 3 });
  });

  it('moves a session it is asked for to the most recently used end: the other one goes next', async () => {
    const { engine, started } = await sessions(3);
    const [a, b, c] = started as [AgentSession, AgentSession, AgentSession];
    const cache = new SessionCache(engine, { maxOpen: 2 });
    cache.add(a);
    cache.add(b);
    // a is the oldest, but a hit refreshes it…
    expect(await cache.get(a.id)).toBe(a);
    cache.add(c);
    // …so b went, not a.
    const restore = vi.spyOn(engine, 'restore');
    expect(await cache.get(a.id)).toBe(a);
    expect(restore).not.toHaveBeenCalled();
    expect(await cache.get(b.id)).not.toBe(b);
    expect(restore.mock.calls.map((call) => call[0])).toEqual([b.id]);
  });

  it('reopens a session it let go from the store with the same state, which goes on where it was', async () => {
    const { engine, started } = await sessions(2);
    const [a, b] = started as [AgentSession, AgentSession];
    await a.fork({ from: 't0', branches: [{ name: 'x' }, { name: 'y' }] });
    await a.addThought({ role: 'critic', content: 'x is risky', parentIds: ['t0'], edge: 'contradicts', branchId: 'br0' });
    await a.setPlan('br1', { rollback: { strategy: 'none' }, limits: { max_changes: 1 }, capabilities_required: [], success_criteria: ['ok'] });
    await a.pause('lunch');
    const before = a.toJSON();
    const cache = new SessionCache(engine, { maxOpen: 1 });
    cache.add(a);
    cache.add(b); // a goes
    const reopened = await cache.get(a.id);
    expect(reopened).not.toBe(a);
    expect(reopened.toJSON()).toEqual(before);
    expect(reopened.state).toBe('paused');
    await reopened.resume();
    const t = await reopened.addThought({ role: 'planner', content: 'back', parentIds: ['t1'] });
    expect(t.id).toBe('t2');
  });

  it('restores a session asked for by several callers at once from the store once, and says when the store has none', async () => {
    const { engine, started } = await sessions(1);
    const cache = new SessionCache(engine, { maxOpen: 4 });
    const restore = vi.spyOn(engine, 'restore');
    const got = await Promise.all([1, 2, 3].map(() => cache.get(started[0]!.id)));
    expect(new Set(got).size).toBe(1);
    expect(restore).toHaveBeenCalledTimes(1);
    await expect(cache.get('sess_missing')).rejects.toThrow(/no session "sess_missing" in this server's store: send an id think_session_start returned, or start a session/);
    expect(cache.stats()).toMatchObject({ open: 1, restores: 2 });
  });

  it('lets a session go on forget, and holds at least one', async () => {
    const { engine, started } = await sessions(1);
    const cache = new SessionCache(engine, { maxOpen: 0 });
    expect(cache.maxOpen).toBe(1);
    cache.add(started[0]!);
    cache.forget(started[0]!.id);
    expect(cache.stats().open).toBe(0);
    expect(await cache.get(started[0]!.id)).not.toBe(started[0]);
  });
});

describe('createMcpServer({ maxOpenSessions })', () => {
  it('holds at most maxOpenSessions sessions: one let go is restored from the store when a tool asks for it, and goes on where it was', async () => {
    const s = await connectInProcess({ maxOpenSessions: 2 });
    const restore = vi.spyOn(s.engine, 'restore');
    const ids: string[] = [];
    for (const goal of ['first', 'second', 'third']) {
      const { session_id } = await s.ok<{ session_id: string }>('think_session_start', { goal });
      await s.ok('think_plan_step', { session_id, content: `${goal}: a thought` });
      ids.push(session_id);
    }
    const [first, second, third] = ids as [string, string, string];
    // Three sessions started, two held: nothing was restored yet.
    expect(restore).not.toHaveBeenCalled();

    // The first was let go when the third started: asking for it restores it…
    const step = await s.ok<{ thought_id: string }>('think_plan_step', { session_id: first, content: 'first: goes on', parent_ids: ['t0'] });
    expect(step.thought_id).toBe('t1');
    expect(restore.mock.calls.map((c) => c[0])).toEqual([first]);
    // …and the second (least recently used since) went in its place, while the third is held.
    await s.ok('think_session_status', { session_id: third });
    expect(restore).toHaveBeenCalledTimes(1);
    const status = await s.ok<{ goal: string; thoughts: number }>('think_session_status', { session_id: second });
    expect(status).toMatchObject({ goal: 'second', thoughts: 1 });
    expect(restore.mock.calls.map((c) => c[0])).toEqual([first, second]);
  });
});
