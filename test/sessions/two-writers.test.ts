// Two processes (two engines, each over its own store object) send the same write to one session at
// the same moment. A write of the second one is a second intent, not a retry of the first: it is
// applied (after the store's conflict, re-read, from the state the first one left) or refused with a
// typed error; it is never answered "done" while only the first one's write is stored. Both engines
// read one fixed clock, so that the two requests are the same to the millisecond (the case where a
// key derived from the request made the store take the second for a retry of the first).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InMemoryEventStore, TotError, type EventStore } from '../../src/index.js';
import { SessionEngine, type AgentSession } from '../../src/sessions/index.js';
import { PostgresEventStore } from '../../src/postgres/index.js';
import { SqliteEventStore } from '../../src/sqlite/index.js';
import { collect } from '../helpers/collect.js';

const pgUrl = process.env.TOT_POSTGRES_URL;
if (!pgUrl) console.warn('TOT_POSTGRES_URL is not set: the agent-session two-writer PostgreSQL trials are SKIPPED');

const TRIALS = 50;
const now = () => 1_767_225_600_000;

/** Two store objects on one storage: what two processes hold. */
interface Pair {
  stores: [EventStore, EventStore];
  close(): Promise<void>;
}

const kinds: { name: string; skip?: boolean; open(): Promise<Pair> }[] = [
  {
    name: 'one in-memory store',
    async open() {
      const store = new InMemoryEventStore();
      return { stores: [store, store], close: async () => undefined };
    },
  },
  {
    name: 'one SQLite file',
    async open() {
      const path = join(mkdtempSync(join(tmpdir(), 'tot-got-two-')), 'sessions.db');
      const stores: [EventStore, EventStore] = [new SqliteEventStore({ path }), new SqliteEventStore({ path })];
      return { stores, close: async () => void (await Promise.all(stores.map((s) => s.close()))) };
    },
  },
  {
    name: 'one PostgreSQL database',
    skip: !pgUrl,
    async open() {
      const prefix = `got2w_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6)}_`;
      const stores: [PostgresEventStore, PostgresEventStore] = [new PostgresEventStore({ connectionString: pgUrl!, tablePrefix: prefix }), new PostgresEventStore({ connectionString: pgUrl!, tablePrefix: prefix })];
      await stores[0].setup();
      return { stores, close: async () => void (await Promise.all(stores.map((s) => s.close()))) };
    },
  },
];

/** A session with a thought t0 and a branch br0 in `planning`, as each of the two processes loaded it. */
async function twoWriters(pair: Pair): Promise<[AgentSession, AgentSession]> {
  const a = await new SessionEngine({ store: pair.stores[0], writerId: 'a', now }).startSession({ goal: 'g' });
  await a.addThought({ role: 'planner', content: 'root' });
  await a.fork({ from: 't0', branches: [{ name: 'x' }] });
  await a.transition('br0', 'user_input');
  const b = await new SessionEngine({ store: pair.stores[1], writerId: 'b', now }).restore(a.id);
  return [a, b];
}

/** What each of the two concurrent calls did: 'ok', or the code of the typed error it threw. */
async function both(calls: [() => Promise<unknown>, () => Promise<unknown>]): Promise<string[]> {
  const settled = await Promise.allSettled(calls.map((c) => c()));
  return settled.map((r) => {
    if (r.status === 'fulfilled') return 'ok';
    if (TotError.isInstance(r.reason)) return r.reason.code;
    throw r.reason;
  });
}

async function stored(store: EventStore, sessionId: string, type: string) {
  return (await collect(store.readStream(sessionId))).filter((e) => e.type === type);
}

for (const kind of kinds) {
  describe.skipIf(kind.skip)(`two writers on ${kind.name}, the same write at the same moment`, () => {
    const pairs: Pair[] = [];
    const open = async () => {
      const pair = await kind.open();
      pairs.push(pair);
      return pair;
    };
    afterAll(async () => {
      for (const p of pairs.splice(0)) await p.close();
    });

    it('a transition the second state refuses: one is stored, the other is ILLEGAL_STATE', async () => {
      const pair = await open();
      for (let trial = 0; trial < TRIALS; trial++) {
        const [a, b] = await twoWriters(pair);
        const outcomes = await both([() => a.transition('br0', 'race_lost'), () => b.transition('br0', 'race_lost')]);
        const moves = (await stored(pair.stores[0], a.id, 'branch.transitioned')).filter((e) => (e.data as { trigger: string }).trigger === 'race_lost');
        expect({ trial, outcomes: outcomes.sort(), moves: moves.length }).toEqual({ trial, outcomes: ['ILLEGAL_STATE', 'ok'], moves: 1 });
      }
    }, 120_000);

    it('a transition the second state accepts: both are stored, one after the other', async () => {
      const pair = await open();
      for (let trial = 0; trial < TRIALS; trial++) {
        const [a, b] = await twoWriters(pair);
        const outcomes = await both([() => a.transition('br0', 'user_input'), () => b.transition('br0', 'user_input')]);
        const moves = (await stored(pair.stores[0], a.id, 'branch.transitioned')).map((e) => e.data as { from: string; to: string });
        expect({ trial, outcomes }).toEqual({ trial, outcomes: ['ok', 'ok'] });
        expect(moves.slice(-2).map((m) => `${m.from}→${m.to}`)).toEqual(['planning→scoring', 'scoring→validating']);
        await b.refresh();
        expect(b.branch('br0')!.state).toBe('validating');
      }
    }, 120_000);

    it('the same plan: both are stored', async () => {
      const pair = await open();
      const plan = { rollback: { strategy: 'git_revert' }, limits: { max_changes: 10 }, capabilities_required: [], success_criteria: ['tests pass'] };
      for (let trial = 0; trial < TRIALS; trial++) {
        const [a, b] = await twoWriters(pair);
        expect(await both([() => a.setPlan('br0', plan), () => b.setPlan('br0', plan)])).toEqual(['ok', 'ok']);
        expect(await stored(pair.stores[0], a.id, 'branch.planned')).toHaveLength(2);
      }
    }, 120_000);

    it('the same fork: two branches each, under their own ids', async () => {
      const pair = await open();
      for (let trial = 0; trial < TRIALS; trial++) {
        const [a, b] = await twoWriters(pair);
        const made: string[] = [];
        const fork = (s: AgentSession) => async () => made.push(...(await s.fork({ from: 't0', branches: [{ name: 'y' }] })).map((x) => x.id));
        expect(await both([fork(a), fork(b)])).toEqual(['ok', 'ok']);
        expect(made.sort()).toEqual(['br1', 'br2']);
        // br0's fork, then one for each writer.
        expect(await stored(pair.stores[0], a.id, 'branch.forked')).toHaveLength(3);
      }
    }, 120_000);

    it('the same session started under one id: one is stored, the other is EXPECTED_VERSION_CONFLICT', async () => {
      const pair = await open();
      for (let trial = 0; trial < TRIALS; trial++) {
        const id = `sess_same_${Date.now().toString(36)}_${trial}`;
        const start = (store: EventStore, writerId: string) => () => new SessionEngine({ store, writerId, now }).startSession({ id, goal: 'g' });
        expect((await both([start(pair.stores[0], 'a'), start(pair.stores[1], 'b')])).sort()).toEqual(['EXPECTED_VERSION_CONFLICT', 'ok']);
        expect(await stored(pair.stores[0], id, 'session.started')).toHaveLength(1);
      }
    }, 120_000);

    it('the same pause: one is stored, the other is ILLEGAL_STATE', async () => {
      const pair = await open();
      for (let trial = 0; trial < TRIALS; trial++) {
        const [a, b] = await twoWriters(pair);
        expect((await both([() => a.pause('review'), () => b.pause('review')])).sort()).toEqual(['ILLEGAL_STATE', 'ok']);
        expect(await stored(pair.stores[0], a.id, 'session.state_changed')).toHaveLength(1);
      }
    }, 120_000);
  });
}
