import { describe, expect, it } from 'vitest';
import { GotEngine, InMemoryEventStore, type EventStore } from '../../src/index.js';
import { collect } from '../helpers/collect.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

const engine = (store: EventStore = new InMemoryEventStore(), extra: Partial<ConstructorParameters<typeof GotEngine>[0]> = {}) => new GotEngine({ store, writerId: 'w1', ...extra });

describe('GotEngine sessions', () => {
  it('starts a session sess_<uuid>, active, with its first event and a checkpoint', async () => {
    const store = new InMemoryEventStore();
    const s = await engine(store).startSession({ goal: 'Plan the migration', successCriteria: ['no downtime'] });
    expect(s.id).toMatch(/^sess_[0-9a-f-]{36}$/);
    expect(s.state).toBe('active');
    expect((await collect(store.readStream(s.id))).map((e) => e.type)).toEqual(['session.started']);
    expect((await store.loadSnapshot(s.id))?.version).toBe(0);
  });

  it('adds thoughts with deterministic ids, their parents and edges, and each writer\'s vector clock', async () => {
    const s = await engine().startSession({ goal: 'g' });
    const a = await s.addThought({ role: 'planner', content: 'Move the reads first.' });
    const b = await s.addThought({ role: 'critic', content: 'Reads lag behind writes.', parentIds: [a.id], edge: 'contradicts' });
    expect([a.id, b.id]).toEqual(['t0', 't1']);
    expect(b).toMatchObject({ role: 'critic', parentIds: ['t0'], edge: 'contradicts', writer: 'w1', clock: { w1: 2 } });
    expect(s.snapshot().tokensUsed).toBe(a.tokens + b.tokens);
  });

  it('refuses a thought over 400 characters with INVALID_ARGUMENT and writes nothing', async () => {
    const s = await engine().startSession({ goal: 'g' });
    const error = await catchTotError(() => s.addThought({ role: 'planner', content: 'x'.repeat(401) }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('401 characters, over the limit of 400');
    expect(s.version).toBe(0);
    await s.addThought({ role: 'planner', content: 'x'.repeat(400) });
  });

  it('takes another thought length limit from the engine', async () => {
    const s = await engine(new InMemoryEventStore(), { limits: { maxThoughtChars: 10 } }).startSession({ goal: 'g' });
    await catchTotError(() => s.addThought({ role: 'planner', content: 'eleven char' }), 'INVALID_ARGUMENT');
  });

  it('refuses a parent that does not exist, naming it', async () => {
    const s = await engine().startSession({ goal: 'g' });
    const error = await catchTotError(() => s.addThought({ role: 'planner', content: 'c', parentIds: ['t9'] }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('options.parentIds[0]: no thought t9');
  });

  it('gives a thought the seed\'s idempotency key, and returns the stored thought for a repeated key', async () => {
    const store = new InMemoryEventStore();
    const s = await engine(store).startSession({ goal: 'g' });
    await s.addThought({ role: 'planner', content: 'c' });
    const [stored] = (await collect(store.readStream(s.id))).slice(1);
    expect(stored!.idempotencyKey).toMatch(new RegExp(`^${s.id}:thought:0:[0-9a-f]{12}$`));
    const first = await s.addThought({ role: 'tester', content: 'run it', idempotencyKey: 'k-1' });
    const again = await s.addThought({ role: 'tester', content: 'run it', idempotencyKey: 'k-1' });
    expect(again).toEqual(first);
    expect((await collect(store.readStream(s.id))).filter((e) => e.idempotencyKey === `${s.id}:key:k-1`)).toHaveLength(1);
    await catchTotError(() => s.addThought({ role: 'tester', content: 'something else', idempotencyKey: 'k-1' }), 'IDEMPOTENCY_CONFLICT');
  });

  it('returns a keyed thought to its retry even once the session is over', async () => {
    const s = await engine().startSession({ goal: 'g' });
    const first = await s.addThought({ role: 'tester', content: 'run it', idempotencyKey: 'k' });
    await s.complete();
    expect(await s.addThought({ role: 'tester', content: 'run it', idempotencyKey: 'k' })).toEqual(first);
  });

  it('keeps a caller\'s key to its session: the same key in another session is another thought', async () => {
    const store = new InMemoryEventStore();
    const a = await engine(store).startSession({ goal: 'a' });
    const b = await engine(store).startSession({ goal: 'b' });
    await a.addThought({ role: 'planner', content: 'x', idempotencyKey: 'same' });
    expect((await b.addThought({ role: 'planner', content: 'y', idempotencyKey: 'same' })).content).toBe('y');
  });

  it('stores both of two identical thoughts written at once by two objects of one writer', async () => {
    const store = new InMemoryEventStore();
    const e = new GotEngine({ store, writerId: 'w', now: () => 5 });
    const s = await e.startSession({ goal: 'g' });
    const [x, y] = [await e.restore(s.id), await e.restore(s.id)];
    const [tx, ty] = await Promise.all([x.addThought({ role: 'planner', content: 'same' }), y.addThought({ role: 'planner', content: 'same' })]);
    expect(new Set([tx.id, ty.id])).toEqual(new Set(['t0', 't1']));
    expect((await collect(store.readStream(s.id))).filter((ev) => ev.type === 'thought.added')).toHaveLength(2);
  });
});

describe('GotSession branches', () => {
  it('forks branches in state init from a thought, and moves them along the seed\'s machine', async () => {
    const s = await engine().startSession({ goal: 'g' });
    const t = await s.addThought({ role: 'planner', content: 'c' });
    const [a, b] = await s.fork({ from: t.id, branches: [{ name: 'plan_a' }, { name: 'plan_b' }] });
    expect([a!.id, a!.state, b!.id, b!.from]).toEqual(['br0', 'init', 'br1', 't0']);
    await s.transition('br0', 'user_input');
    const lost = await s.transition('br0', 'race_lost', { reason: 'br1 validated first' });
    expect(lost).toMatchObject({ state: 'early_stopped', earlyStopReason: 'br1 validated first' });
    expect(lost.history.map((h) => `${h.from}>${h.to}`)).toEqual(['init>planning', 'planning>early_stopped']);
  });

  it('merges branches into a decider\'s thought whose parents are the branches\' latest thoughts', async () => {
    const s = await engine().startSession({ goal: 'g' });
    const t = await s.addThought({ role: 'planner', content: 'c' });
    const [a, b] = await s.fork({ from: t.id, branches: [{ name: 'a' }, { name: 'b' }] });
    const onA = await s.addThought({ role: 'planner', content: 'a1', parentIds: [t.id], branchId: a!.id });
    const merged = await s.merge({ branchIds: [a!.id, b!.id], content: 'both' });
    expect(merged).toMatchObject({ role: 'decider', parentIds: [onA.id, t.id], edge: 'supports' });
    await catchTotError(() => s.merge({ branchIds: [a!.id], content: 'one' }), 'INVALID_ARGUMENT');
    await catchTotError(() => s.merge({ branchIds: [a!.id, 'br9'], content: 'x' }), 'INVALID_ARGUMENT');
  });

  it('refuses an illegal transition with ILLEGAL_STATE and writes nothing', async () => {
    const s = await engine().startSession({ goal: 'g' });
    await s.fork({ from: (await s.addThought({ role: 'planner', content: 'c' })).id, branches: [{ name: 'a' }] });
    const before = s.version;
    await catchTotError(() => s.transition('br0', 'validate_pass'), 'ILLEGAL_STATE');
    expect(s.version).toBe(before);
  });

  it('refuses branches past the branch budget with BUDGET_EXCEEDED', async () => {
    const s = await engine().startSession({ goal: 'g', budget: { maxBranches: 3 } });
    const t = await s.addThought({ role: 'planner', content: 'c' });
    await s.fork({ from: t.id, branches: [{ name: 'a' }, { name: 'b' }] });
    const error = await catchTotError(() => s.fork({ from: t.id, branches: [{ name: 'c' }, { name: 'd' }] }), 'BUDGET_EXCEEDED');
    expect(error.details).toMatchObject({ limit: 'branches', committed: 2, requested: 2, max: 3 });
  });
});

describe('GotSession budgets and states', () => {
  it('moves to warning once 80% of the token budget is used, and ends budget_exceeded past it', async () => {
    const s = await engine().startSession({ goal: 'g', budget: { maxTokens: 100 } });
    await s.addThought({ role: 'planner', content: 'a', tokens: 79 });
    expect(s.state).toBe('active');
    await s.addThought({ role: 'planner', content: 'b', tokens: 1 });
    expect(s.state).toBe('warning');
    const error = await catchTotError(() => s.addThought({ role: 'planner', content: 'c', tokens: 21 }), 'BUDGET_EXCEEDED');
    expect(error.details).toMatchObject({ committed: 80, requested: 21, max: 100 });
    expect(s.state).toBe('budget_exceeded');
    expect(s.snapshot().thoughts).toHaveLength(2);
    await catchTotError(() => s.addThought({ role: 'planner', content: 'd', tokens: 1 }), 'ILLEGAL_STATE');
  });

  it('times out on the first write past its time budget', async () => {
    let now = 1_000;
    const s = await engine(new InMemoryEventStore(), { now: () => now }).startSession({ goal: 'g', budget: { maxMs: 60_000 } });
    now += 60_001;
    await catchTotError(() => s.addThought({ role: 'planner', content: 'late' }), 'TIMEOUT');
    expect(s.state).toBe('timeout');
  });

  it('refuses writes while paused, and resumes', async () => {
    const s = await engine().startSession({ goal: 'g' });
    await s.pause('review');
    expect(s.state).toBe('paused');
    expect((await catchTotError(() => s.addThought({ role: 'planner', content: 'c' }), 'ILLEGAL_STATE')).message).toContain('resume() it first');
    await s.resume();
    expect(s.state).toBe('active');
    await s.addThought({ role: 'planner', content: 'c' });
    await s.complete('done');
    expect(s.state).toBe('completed');
    await catchTotError(() => s.resume(), 'ILLEGAL_STATE');
  });
});

describe('restoring a session', () => {
  it('rebuilds, from the latest checkpoint and the events after it, the live session after 10,000 events', async () => {
    const store = new InMemoryEventStore();
    const e = engine(store);
    const s = await e.startSession({ goal: 'a long session' });
    await s.fork({ from: (await s.addThought({ role: 'planner', content: 'root' })).id, branches: [{ name: 'a' }, { name: 'b' }] });
    for (let i = 0; s.version < 10_000; i++) {
      await s.addThought({ role: i % 2 ? 'critic' : 'planner', content: `step ${i}`, parentIds: [`t${i}`], branchId: i % 3 === 0 ? 'br0' : 'br1', edge: 'refines' });
    }
    const snapshot = await store.loadSnapshot(s.id);
    expect(snapshot!.version).toBeGreaterThan(9_800); // checkpoints every 100 events
    const again = await e.restore(s.id);
    expect(again.version).toBe(s.version);
    expect(again.snapshot()).toEqual(s.snapshot());
  }, 60_000);

  it('rebuilds a session from its events alone when it has no checkpoint', async () => {
    const store = new InMemoryEventStore();
    const s = await engine(store).startSession({ goal: 'g' });
    await s.addThought({ role: 'planner', content: 'c' });
    const events = await collect(store.readStream(s.id));
    const bare = new InMemoryEventStore();
    await bare.append(s.id, events.map((ev) => ({ type: ev.type, data: ev.data, idempotencyKey: ev.idempotencyKey })), { expectedVersion: 'no_stream' });
    expect((await engine(bare).restore(s.id)).snapshot()).toEqual(s.snapshot());
  });

  it('ignores a checkpoint that is not whole, or is another session\'s, and folds the stream instead', async () => {
    const store = new InMemoryEventStore();
    const e = engine(store);
    const s = await e.startSession({ goal: 'mine' });
    await s.addThought({ role: 'planner', content: 'c' });
    const other = await e.startSession({ goal: 'other' });
    await store.saveSnapshot({ streamId: s.id, version: s.version, state: { ...other.snapshot(), version: s.version } });
    expect((await e.restore(s.id)).snapshot()).toEqual(s.snapshot());
    await store.saveSnapshot({ streamId: s.id, version: s.version, state: { id: s.id, version: s.version } });
    expect((await e.restore(s.id)).snapshot()).toEqual(s.snapshot());
  });

  it('refuses an unknown session with INVALID_ARGUMENT and a corrupt stream with INVALID_FORMAT', async () => {
    const store = new InMemoryEventStore();
    await catchTotError(() => engine(store).restore('sess_nope'), 'INVALID_ARGUMENT');
    await store.append('sess_bad', [{ type: 'session.started', data: { sessionId: 'sess_bad', goal: 'g', successCriteria: [], budget: {}, maxThoughtChars: 400, at: 0 }, idempotencyKey: 'a' }, { type: 'thought.added', data: { thoughtId: 't0', role: 'planner', content: 'c', parentIds: ['t7'], tokens: 1, writer: 'w', clock: {}, at: 0 }, idempotencyKey: 'b' }], { expectedVersion: 'no_stream' });
    expect((await catchTotError(() => engine(store).restore('sess_bad'), 'INVALID_FORMAT')).message).toContain('at version 1: thought t0 names a parent t7');
  });
});

describe('two writers on one session', () => {
  it('resolve their conflicts: every thought present once, versions contiguous, each writer\'s clock', async () => {
    const store = new InMemoryEventStore();
    const first = new GotEngine({ store, writerId: 'w1' });
    const second = new GotEngine({ store, writerId: 'w2' });
    const s1 = await first.startSession({ goal: 'g' });
    const s2 = await second.restore(s1.id);
    const writes = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? s2 : s1).addThought({ role: 'planner', content: `from ${i % 2 ? 'w2' : 'w1'} #${i}` })));
    const events = await collect(store.readStream(s1.id));
    expect(events.map((e) => e.version)).toEqual(events.map((_, i) => i));
    const contents = events.filter((e) => e.type === 'thought.added').map((e) => (e.data as { content: string }).content);
    expect(contents.sort()).toEqual(writes.map((t) => t.content).sort());
    await s1.refresh();
    expect(s1.snapshot().clock).toEqual({ w1: 10, w2: 10 });
  });
});
