// What a session's automatic checkpoints cost as it grows: each checkpoint serialises the whole
// session, so checkpoints taken at a fixed interval cost a session of n events n²/interval in all
// (a thought's cost growing with the session). Checkpoints whose interval grows with the session
// cost O(1) per event amortised, and a restore still folds only the events after the latest one.
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
  it('come every 100 events while the session is small, then every quarter of its events', async () => {
    const { store, versions } = recording();
    await grown(store, 1_000);
    // 0 is the start's checkpoint. From version 400 on, the interval is a quarter of the version
    // of the checkpoint before (rounded up): 500 + 125, 625 + 157, 782 + 196.
    expect(versions).toEqual([0, 100, 200, 300, 400, 500, 625, 782, 978]);
  });

  it('serialise at most 5 events\' worth of state per event added, however long the session', async () => {
    // Each checkpoint holds 1.25 times the events of the one before, so all of them together hold
    // at most 1 + 0.8 + 0.8² + … = 5 times the latest. Every 100 events, a session of 8,000 serialised
    // 40 events' worth per event.
    for (const events of [1_000, 8_000]) {
      const { store, versions } = recording();
      await grown(store, events);
      expect(serialisedPerEvent(versions, events), `${events} events`).toBeLessThanOrEqual(5);
    }
  }, 60_000);

  it('leave a restore at most a quarter of the checkpoint\'s events to fold, and the restored session equal to the live one', async () => {
    const { store, versions } = recording();
    const s = await grown(store, 2_950);
    // …, 1912, 2390: the next is due at 2390 + 598.
    const latest = versions.at(-1)!;
    expect(latest).toBe(2_390);
    expect(s.version - latest).toBeLessThanOrEqual(Math.ceil(latest / 4));
    const again = await new SessionEngine({ store, writerId: 'w1' }).restore(s.id);
    expect(again.snapshot()).toEqual(s.snapshot());
  }, 60_000);
});
