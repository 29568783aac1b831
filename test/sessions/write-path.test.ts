import { describe, expect, it } from 'vitest';
import { InMemoryEventStore } from '../../src/index.js';
import { SessionEngine } from '../../src/sessions/index.js';
import { SqliteEventStore } from '../../src/sqlite/index.js';

// A session folds the events it writes as it built them; a restore folds them as the store keeps them.
describe('AgentSession write path', () => {
  for (const [name, store] of [
    ['in memory', () => new InMemoryEventStore()],
    ['on SQLite', () => new SqliteEventStore({ path: ':memory:' })],
  ] as const) {
    it(`holds what a restore from the store holds, after writes of one and of several events (${name})`, async () => {
      const engine = new SessionEngine({ store: store(), writerId: 'w1' });
      const s = await engine.startSession({ goal: 'g', budget: { maxTokens: 10, maxBranches: 4 } });
      const a = await s.addThought({ role: 'planner', content: 'cache it', tokens: 3 });
      const [br] = await s.fork({ from: a.id, branches: [{ name: 'lru' }] });
      await s.transition(br!.id, 'user_input');
      // 9 of 10 tokens: the thought and the move to warning are one write of two events.
      await s.addThought({ role: 'critic', content: 'it never expires', parentIds: [a.id], edge: 'contradicts', branchId: br!.id, tokens: 6 });
      expect(s.state).toBe('warning');
      const restored = await engine.restore(s.id);
      expect(restored.snapshot()).toEqual(s.snapshot());
    });
  }

  it('keeps the parent ids a thought was given when the caller changes its array before the write settles', async () => {
    const s = await new SessionEngine({ store: new InMemoryEventStore() }).startSession({ goal: 'g' });
    const a = await s.addThought({ role: 'planner', content: 'a' });
    const b = await s.addThought({ role: 'planner', content: 'b' });
    const parentIds = [a.id];
    const pending = s.addThought({ role: 'critic', content: 'c', parentIds });
    parentIds.push(b.id);
    const c = await pending;
    expect(c.parentIds).toEqual([a.id]);
    expect(s.thought(c.id)!.parentIds).toEqual([a.id]);
  });
});
