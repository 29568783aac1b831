import { afterEach, describe, expect, it, vi } from 'vitest';
import { InMemoryEventStore, type EventStore } from '../../src/index.js';
import { SessionEngine, type AgentSession, type SessionState } from '../../src/sessions/index.js';
import { SESSION_TRANSITIONS } from '../../src/sessions/session-state.js';
import { collect } from '../helpers/collect.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

const engine = (store: EventStore = new InMemoryEventStore(), extra: Partial<ConstructorParameters<typeof SessionEngine>[0]> = {}) => new SessionEngine({ store, writerId: 'w1', ...extra });

describe('SessionEngine sessions', () => {
  it('starts a session sess_<uuid>, active, with its first event and no checkpoint yet', async () => {
    const store = new InMemoryEventStore();
    const s = await engine(store).startSession({ goal: 'Plan the migration', successCriteria: ['no downtime'] });
    expect(s.id).toMatch(/^sess_[0-9a-f-]{36}$/);
    expect(s.state).toBe('active');
    expect((await collect(store.readStream(s.id))).map((e) => e.type)).toEqual(['session.started']);
    expect(await store.loadSnapshot(s.id)).toBeNull();
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

  it('stores one thought when two objects of one session write the same thought at once: the second is a retry', async () => {
    const store = new InMemoryEventStore();
    const e = new SessionEngine({ store, writerId: 'w', now: () => 5 });
    const s = await e.startSession({ goal: 'g' });
    const [x, y] = [await e.restore(s.id), await e.restore(s.id)];
    const [tx, ty] = await Promise.all([x.addThought({ role: 'planner', content: 'same' }), y.addThought({ role: 'planner', content: 'same' })]);
    expect([tx.id, ty.id]).toEqual(['t0', 't0']);
    expect((await collect(store.readStream(s.id))).filter((ev) => ev.type === 'thought.added')).toHaveLength(1);
  });
});

describe('default idempotency keys (seed 004: session:kind:index:hash of the content)', () => {
  const started = async () => {
    const store = new InMemoryEventStore();
    const s = await engine(store).startSession({ goal: 'g' });
    const root = await s.addThought({ role: 'planner', content: 'Config is parsed on every request.' });
    return { store, s, root };
  };
  const thoughtsIn = async (store: EventStore, id: string) => (await collect(store.readStream(id))).filter((e) => e.type === 'thought.added');

  it('derives the key from the request: the index after the latest parent, and a hash of what the thought is', async () => {
    const { store, s, root } = await started();
    await s.addThought({ role: 'critic', content: 'Only on a cold start.', parentIds: [root.id] });
    // Also after the root, though the stream holds t1 already: the index does not depend on what others wrote.
    const third = await s.addThought({ role: 'critic', content: 'And after each reload.', parentIds: [root.id] });
    await s.addThought({ role: 'decider', content: 'Cache it.', parentIds: [third.id, root.id] });
    const keys = (await thoughtsIn(store, s.id)).map((e) => e.idempotencyKey.replace(s.id, 'S'));
    expect(keys.map((k) => k.replace(/[0-9a-f]{12}$/, 'H'))).toEqual(['S:thought:0:H', 'S:thought:1:H', 'S:thought:1:H', 'S:thought:3:H']);
  });

  it('returns the stored thought to the same request from a restarted client (a second engine on the same store)', async () => {
    const { store, s, root } = await started();
    const request = { role: 'planner' as const, content: 'Parse once per process and cache it.', parentIds: [root.id], edge: 'refines' as const };
    const first = await s.addThought(request);
    // The client restarts: a new engine (another writer id) restores the session and sends the request again.
    const restarted = await new SessionEngine({ store, writerId: 'w-restarted' }).restore(s.id);
    expect((await restarted.addThought(request)).id).toBe(first.id);
    expect(await thoughtsIn(store, s.id)).toHaveLength(2);
  });

  it('returns the stored thought to a retry from a writer that had not seen it (its first reply lost)', async () => {
    const { store, s, root } = await started();
    // Restored before the first write: it learns of the thought only through the store's conflict.
    const stale = await new SessionEngine({ store, writerId: 'w-stale' }).restore(s.id);
    const request = { role: 'planner' as const, content: 'Parse once per process and cache it.', parentIds: [root.id] };
    const first = await s.addThought(request);
    expect((await stale.addThought(request)).id).toBe(first.id);
    expect(await thoughtsIn(store, s.id)).toHaveLength(2);
  });

  it('keeps apart different thoughts that open with the same 50 characters, or differ only in role, parent, edge or branch', async () => {
    const { store, s, root } = await started();
    const opening = 'Cache the parsed configuration in process memory, ';
    expect(opening).toHaveLength(50);
    const [a] = await s.fork({ from: root.id, branches: [{ name: 'a' }] });
    const ids = [
      (await s.addThought({ role: 'planner', content: `${opening}and drop it on SIGHUP.`, parentIds: [root.id] })).id,
      (await s.addThought({ role: 'planner', content: `${opening}and drop it when the file changes.`, parentIds: [root.id] })).id,
      (await s.addThought({ role: 'critic', content: `${opening}and drop it on SIGHUP.`, parentIds: [root.id] })).id,
      (await s.addThought({ role: 'planner', content: `${opening}and drop it on SIGHUP.`, parentIds: [root.id], edge: 'supports' })).id,
      (await s.addThought({ role: 'planner', content: `${opening}and drop it on SIGHUP.`, parentIds: [root.id], branchId: a!.id })).id,
      (await s.addThought({ role: 'planner', content: `${opening}and drop it on SIGHUP.` })).id,
    ];
    expect(new Set(ids).size).toBe(6);
    expect(await thoughtsIn(store, s.id)).toHaveLength(7);
  });

  it('records one thought twice when each write carries its own key', async () => {
    const { store, s, root } = await started();
    const again = { role: 'planner' as const, content: 'Try again.', parentIds: [root.id] };
    const [x, y] = [await s.addThought({ ...again, idempotencyKey: 'attempt-1' }), await s.addThought({ ...again, idempotencyKey: 'attempt-2' })];
    expect(x.id).not.toBe(y.id);
    expect(await thoughtsIn(store, s.id)).toHaveLength(3);
  });
});

describe('AgentSession branches', () => {
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

describe('AgentSession budgets and states', () => {
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

describe('the session state machine (seed 004), every state × every operation', () => {
  const STATES: SessionState[] = ['init', 'active', 'warning', 'paused', 'completed', 'failed', 'timeout', 'budget_exceeded'];
  type Operation = 'pause' | 'resume' | 'complete' | 'fail' | 'timeout' | 'budget exceeded';
  const OPERATIONS: Operation[] = ['pause', 'resume', 'complete', 'fail', 'timeout', 'budget exceeded'];
  const X = 'ILLEGAL_STATE' as const;
  const NONE: Record<Operation, typeof X> = { pause: X, resume: X, complete: X, fail: X, timeout: X, 'budget exceeded': X };
  // The state each operation leads to, or the refusal. `timeout` is a write after `maxMs`,
  // `budget exceeded` a thought past `maxTokens`: a paused session takes no write, so neither
  // happens to it (it stays paused); a final session takes nothing.
  const EXPECTED: Record<SessionState, Record<Operation, SessionState | typeof X>> = {
    init: NONE,
    active: { pause: 'paused', resume: X, complete: 'completed', fail: 'failed', timeout: 'timeout', 'budget exceeded': 'budget_exceeded' },
    warning: { pause: 'paused', resume: X, complete: 'completed', fail: 'failed', timeout: 'timeout', 'budget exceeded': 'budget_exceeded' },
    paused: { pause: X, resume: 'active', complete: 'completed', fail: 'failed', timeout: X, 'budget exceeded': X },
    completed: NONE,
    failed: NONE,
    timeout: NONE,
    budget_exceeded: NONE,
  };
  // What the operation itself answers when it is legal: the two budget ends throw their error.
  const THROWS: Partial<Record<Operation, string>> = { timeout: 'TIMEOUT', 'budget exceeded': 'BUDGET_EXCEEDED' };

  /** A session in `state` (budget 100 tokens, 60 s) and its clock. */
  async function sessionIn(state: SessionState): Promise<{ s: AgentSession; clock: { now: number } }> {
    const clock = { now: 1_000 };
    const store = new InMemoryEventStore();
    const e = engine(store, { now: () => clock.now });
    let s = await e.startSession({ goal: 'g', budget: { maxTokens: 100, maxMs: 60_000 } });
    const refused = (p: Promise<unknown>) => p.then(() => expect.fail('the write should have ended the session'), () => undefined);
    if (state === 'init') {
      // No operation leads to init (it is the session before session.started is stored): only a
      // checkpoint that says so, which the engine never writes, gives a handle in it.
      await store.saveSnapshot({ streamId: s.id, version: s.version, state: { ...s.snapshot(), state: 'init' } });
      s = await e.restore(s.id);
    } else if (state === 'warning') await s.addThought({ role: 'planner', content: 'most of the budget', tokens: 80 });
    else if (state === 'paused') await s.pause();
    else if (state === 'completed') await s.complete();
    else if (state === 'failed') await s.fail();
    else if (state === 'timeout') {
      clock.now += 60_001;
      await refused(s.addThought({ role: 'planner', content: 'late' }));
    } else if (state === 'budget_exceeded') await refused(s.addThought({ role: 'planner', content: 'too much', tokens: 101 }));
    expect(s.state).toBe(state);
    return { s, clock };
  }

  const operate = (s: AgentSession, clock: { now: number }, op: Operation): Promise<unknown> => {
    if (op === 'pause') return s.pause();
    if (op === 'resume') return s.resume();
    if (op === 'complete') return s.complete();
    if (op === 'fail') return s.fail();
    if (op === 'timeout') {
      clock.now += 60_001;
      return s.addThought({ role: 'planner', content: 'after the time budget' });
    }
    return s.addThought({ role: 'planner', content: 'past the token budget', tokens: 101 });
  };

  const cases = STATES.flatMap((state) => OPERATIONS.map((op) => [state, op, EXPECTED[state][op]] as const));

  it.each(cases)('%s, then %s → %s', async (state, op, expected) => {
    const { s, clock } = await sessionIn(state);
    const version = s.version;
    if (expected === X) {
      await catchTotError(() => operate(s, clock, op), 'ILLEGAL_STATE');
      expect(s.state).toBe(state);
      expect(s.version).toBe(version); // nothing written
      return;
    }
    const code = THROWS[op];
    if (code) await catchTotError(() => operate(s, clock, op), code as 'TIMEOUT');
    else await operate(s, clock, op);
    expect(s.state).toBe(expected);
    expect(s.version).toBe(version + 1);
    expect(SESSION_TRANSITIONS[state]).toContain(expected);
  });

  it('takes the table\'s other arrows: active → warning, paused → warning, paused → timeout', async () => {
    const toWarning = await sessionIn('active');
    await toWarning.s.addThought({ role: 'planner', content: 'most of it', tokens: 80 });
    expect(toWarning.s.state).toBe('warning');

    const resumedPast80 = await sessionIn('warning');
    await resumedPast80.s.pause();
    await resumedPast80.s.resume();
    expect(resumedPast80.s.state).toBe('warning');

    for (const end of ['resume', 'complete', 'fail'] as const) {
      const late = await sessionIn('paused');
      late.clock.now += 60_001;
      await catchTotError(() => late.s[end](), 'TIMEOUT');
      expect(late.s.state).toBe('timeout');
    }
  });

  it('has no arrow the operations do not take, and none into init', () => {
    const taken = new Set([...cases.filter(([, , to]) => to !== X).map(([from, , to]) => `${from}>${to}`), 'active>warning', 'paused>warning', 'paused>timeout']);
    const table = new Set(Object.entries(SESSION_TRANSITIONS).flatMap(([from, tos]) => tos.map((to) => `${from}>${to}`)));
    expect([...table].sort()).toEqual([...taken].sort());
    expect([...table].some((arrow) => arrow.endsWith('>init'))).toBe(false);
  });

  it('never shows a session in init: it is active once session.started is stored, live and restored', async () => {
    const store = new InMemoryEventStore();
    const s = await engine(store).startSession({ goal: 'g' });
    expect(s.state).toBe('active');
    expect((await engine(withoutCheckpoints(store)).restore(s.id)).state).toBe('active');
  });

  it('refuses a stream that moves a session along an arrow the machine does not have (into init, or paused → budget_exceeded)', async () => {
    for (const [from, to] of [['active', 'init'], ['warning', 'active'], ['paused', 'budget_exceeded']] as const) {
      const store = new InMemoryEventStore();
      const s = await engine(store).startSession({ goal: 'g' });
      if (from === 'warning') await store.append(s.id, [{ type: 'session.state_changed', data: { from: 'active', to: 'warning', at: 1 }, idempotencyKey: 'w' }], { expectedVersion: 0 });
      if (from === 'paused') await s.pause();
      await store.append(s.id, [{ type: 'session.state_changed', data: { from, to, at: 2 }, idempotencyKey: 'forged' }], { expectedVersion: 'any' });
      const error = await catchTotError(() => engine(withoutCheckpoints(store)).restore(s.id), 'INVALID_FORMAT');
      expect(error.message).toContain(`a session goes from ${from} to ${to} in no operation`);
    }
  });
});

describe('AgentSession fail, budget warnings and automatic checkpoints', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('ends a session failed with fail(reason): no more writes, and restored as failed with its reason', async () => {
    const store = new InMemoryEventStore();
    const e = engine(store);
    const s = await e.startSession({ goal: 'g' });
    await s.addThought({ role: 'planner', content: 'c' });
    await s.fail('no branch validated');
    expect(s.state).toBe('failed');
    expect(s.snapshot().stateReason).toBe('no branch validated');
    expect((await catchTotError(() => s.addThought({ role: 'planner', content: 'more' }), 'ILLEGAL_STATE')).message).toContain('failed (no branch validated)');
    expect((await e.restore(s.id)).snapshot()).toMatchObject({ state: 'failed', stateReason: 'no branch validated' });
  });

  it('moves to warning at 80% of maxMs, on the first write once that much time has passed', async () => {
    let now = 1_000;
    const s = await engine(new InMemoryEventStore(), { now: () => now }).startSession({ goal: 'g', budget: { maxMs: 10_000 } });
    now += 7_999;
    await s.addThought({ role: 'planner', content: 'at 79.99%' });
    expect(s.state).toBe('active');
    now += 1;
    await s.addThought({ role: 'planner', content: 'at 80%' });
    expect(s.state).toBe('warning');
  });

  it('moves to warning at 80% of maxBranches', async () => {
    const s = await engine().startSession({ goal: 'g', budget: { maxBranches: 5 } });
    const t = await s.addThought({ role: 'planner', content: 'c' });
    await s.fork({ from: t.id, branches: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] });
    expect(s.state).toBe('active');
    await s.fork({ from: t.id, branches: [{ name: 'd' }] });
    expect(s.state).toBe('warning');
    expect(s.snapshot().stateReason).toBe('a budget is 80% used');
  });

  it('checkpoints by itself on the first write 5 minutes after the last checkpoint (fake timers, no waiting)', async () => {
    vi.useFakeTimers({ now: new Date('2026-03-01T09:00:00Z') });
    const store = new InMemoryEventStore();
    // Built after the clock is faked: the engine's default clock is Date.now.
    const s = await engine(store).startSession({ goal: 'g' });
    const checkpoint = async () => (await store.loadSnapshot(s.id))?.version;
    expect(await checkpoint()).toBeUndefined();
    await s.addThought({ role: 'planner', content: 'one' });
    vi.advanceTimersByTime(5 * 60_000 - 1);
    await s.addThought({ role: 'planner', content: 'two, a millisecond short of 5 minutes' });
    expect(await checkpoint()).toBeUndefined();
    vi.advanceTimersByTime(1);
    await s.addThought({ role: 'planner', content: 'three, 5 minutes on' });
    expect(await checkpoint()).toBe(3);
    vi.advanceTimersByTime(60_000);
    await s.addThought({ role: 'planner', content: 'four, a minute after that checkpoint' });
    expect(await checkpoint()).toBe(3);
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
    // A long session checkpoints whenever it has doubled since its last checkpoint: 6,400 here.
    expect(snapshot!.version).toBe(6_400);
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
    const first = new SessionEngine({ store, writerId: 'w1' });
    const second = new SessionEngine({ store, writerId: 'w2' });
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

/** The store without its checkpoints: a restore folds every event. */
function withoutCheckpoints(store: EventStore): EventStore {
  return Object.assign(Object.create(store) as EventStore, { loadSnapshot: async () => null });
}
