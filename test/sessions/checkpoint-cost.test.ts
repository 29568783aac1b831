// What a session's automatic checkpoints cost as it grows: each checkpoint serialises the whole
// session, so checkpoints taken at a fixed interval cost a session of n events n²/interval in all
// (a thought's cost growing with the session). Checkpoints whose interval grows with the session
// cost O(1) per event amortised, and a restore still folds only the events after the latest one.
// They double: all of them together hold at most twice the session's events, and a restore folds at
// most as many events as the latest holds.
import { describe, expect, it } from 'vitest';
import { InMemoryEventStore, type EventStore } from '../../src/index.js';
import { SessionEngine, type AgentSession } from '../../src/sessions/index.js';

/** A store that records the version of every checkpoint saved to it. */
function recording(): { store: EventStore; versions: number[] } {
  const inner = new InMemoryEventStore();
  const versions: number[] = [];
  const store = Object.assign(Object.create(inner) as EventStore, {
    saveSnapshot: async (snapshot: Parameters<EventStore['saveSnapshot']>[0]) => {
      versions.push(snapshot.version);
      await inner.saveSnapshot(snapshot);
    },
  });
  return { store, versions };
}

/** A session grown to `events` events (one thought each, a chain), on the store. */
async function grown(store: EventStore, events: number): Promise<AgentSession> {
  const s = await new SessionEngine({ store, writerId: 'w1' }).startSession({ goal: 'a long session' });
  for (let i = 0; s.version < events; i++) await s.addThought({ role: 'planner', content: `step ${i}`, parentIds: i > 0 ? [`t${i - 1}`] : [] });
  return s;
}

/** The events' worth of state the automatic checkpoints serialised, per event of the session: a checkpoint at version v holds v events. */
const serialisedPerEvent = (versions: number[], events: number) => versions.reduce((sum, v) => sum + v, 0) / events;

describe('automatic checkpoints of a growing session', () => {
  it('come 100 events after the start, then whenever the session has doubled', async () => {
    const { store, versions } = recording();
    await grown(store, 1_000);
    // The start saves none. From version 100 on, the interval is the version of the
    // checkpoint before: 100 + 100, 200 + 200, 400 + 400; the next is due at 1,600.
    expect(versions).toEqual([100, 200, 400, 800]);
  });

  it('serialise at most 2 events\' worth of state per event added, however long the session', async () => {
    // Each checkpoint holds twice the events of the one before, so all of them together hold at
    // most 1 + 1/2 + 1/4 + … = 2 times the latest. Every 100 events, a session of 8,000 serialised
    // 40 events' worth per event; growing by a quarter, 4.6.
    const cases = [
      { events: 1_000, versions: [100, 200, 400, 800] },
      { events: 8_000, versions: [100, 200, 400, 800, 1_600, 3_200, 6_400] },
    ];
    for (const c of cases) {
      const { store, versions } = recording();
      await grown(store, c.events);
      expect(versions, `${c.events} events`).toEqual(c.versions);
      expect(serialisedPerEvent(versions, c.events), `${c.events} events`).toBeLessThanOrEqual(2);
    }
  }, 60_000);

  it('leave a restore at most as many events to fold as the checkpoint holds, and the restored session equal to the live one', async () => {
    const { store, versions } = recording();
    const s = await grown(store, 3_150);
    // …, 800, 1,600: the next is due at 1,600 + 1,600, so 1,550 events come after the latest.
    const latest = versions.at(-1)!;
    expect(latest).toBe(1_600);
    expect(s.version - latest).toBe(1_550);
    expect(s.version - latest).toBeLessThanOrEqual(latest);
    const again = await new SessionEngine({ store, writerId: 'w1' }).restore(s.id);
    expect(again.snapshot()).toEqual(s.snapshot());
  }, 60_000);
});
