// A thought the session builds itself is folded without checking its data again (the options it
// was built from were checked); the one field that comes from elsewhere, the engine's clock, is.
import { describe, expect, it } from 'vitest';
import { InMemoryEventStore } from '../../src/index.js';
import { SessionEngine } from '../../src/sessions/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

describe('a thought the session built', () => {
  it('is folded as written: the session and a restore of it hold the same thought', async () => {
    const store = new InMemoryEventStore();
    const engine = new SessionEngine({ store, writerId: 'w1', now: () => 1_000 });
    const s = await engine.startSession({ goal: 'g' });
    const a = await s.addThought({ role: 'planner', content: 'Read the rows.' });
    const b = await s.addThought({ role: 'critic', content: 'Some rows are late.', parentIds: [a.id], edge: 'contradicts', modelCalls: 2 });
    expect(b).toEqual({ id: 't1', role: 'critic', content: 'Some rows are late.', parentIds: ['t0'], edge: 'contradicts', tokens: 7, modelCalls: 2, key: b.key, writer: 'w1', clock: { w1: 2 }, at: 1_000 });
    expect((await engine.restore(s.id)).snapshot()).toEqual(s.snapshot());
  });

  it('is refused as corrupt when the engine\'s clock gave no finite time for it', async () => {
    let broken = false;
    const engine = new SessionEngine({ store: new InMemoryEventStore(), now: () => (broken ? ('soon' as unknown as number) : 1_000) });
    const s = await engine.startSession({ goal: 'g' });
    broken = true;
    const error = await catchTotError(() => s.addThought({ role: 'planner', content: 'one' }), 'INVALID_FORMAT');
    expect(error.message).toContain('thought.added: at');
  });
});
