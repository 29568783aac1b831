// A write whose reply is lost: the store kept the batch but the writer was told of a conflict (a
// connection that dropped after the commit, and a store that took the retry for a stale one). The
// writer re-reads, finds its own batch under its call's keys, and answers done: nothing twice.
import { describe, expect, it } from 'vitest';
import { InMemoryEventStore, TotError, type EventStore } from '../../src/index.js';
import { SessionEngine } from '../../src/sessions/index.js';
import { collect } from '../helpers/collect.js';

/** The store, but the first append after `lose()` stores its batch and then reports a conflict. */
function losingOneReply(store: EventStore) {
  let armed = false;
  const wrapped = Object.assign(Object.create(store) as EventStore, {
    append: async (...args: Parameters<EventStore['append']>) => {
      const result = await store.append(...args);
      if (!armed) return result;
      armed = false;
      throw new TotError('EXPECTED_VERSION_CONFLICT', 'the reply was lost', { details: { streamId: args[0], expectedVersion: args[2].expectedVersion, actualVersion: result.nextExpectedVersion } });
    },
  });
  return { store: wrapped, lose: () => (armed = true) };
}

describe('an agent-session write whose reply was lost', () => {
  it('moves a branch once, and answers with the move stored', async () => {
    const base = new InMemoryEventStore();
    const { store, lose } = losingOneReply(base);
    const s = await new SessionEngine({ store, writerId: 'w' }).startSession({ goal: 'g' });
    await s.addThought({ role: 'planner', content: 'root' });
    await s.fork({ from: 't0', branches: [{ name: 'x' }] });
    lose();
    const b = await s.transition('br0', 'user_input');
    expect(b.state).toBe('planning');
    const moves = (await collect(base.readStream(s.id))).filter((e) => e.type === 'branch.transitioned');
    expect(moves.map((e) => (e.data as { to: string }).to)).toEqual(['planning']);
  });

  it('forks once', async () => {
    const base = new InMemoryEventStore();
    const { store, lose } = losingOneReply(base);
    const s = await new SessionEngine({ store, writerId: 'w' }).startSession({ goal: 'g' });
    await s.addThought({ role: 'planner', content: 'root' });
    lose();
    const made = await s.fork({ from: 't0', branches: [{ name: 'x' }] });
    expect(made.map((b) => b.id)).toEqual(['br0']);
    expect(s.snapshot().branches).toHaveLength(1);
  });
});
