// SessionTable, the MCP sessions (one transport each) `tot mcp --http` holds: which session gives
// way to a new one (the least recently used idle one, never one with a request in flight), the
// share of one client address, and what a refused client is told. A hand-driven clock.
import { describe, expect, it } from 'vitest';
import { SessionTable, type SessionTableLimits } from '../../src/mcp/http/session-table.js';

/** A session's resources that record being closed. */
const transport = (name: string) => ({ name, closed: false, async close() { this.closed = true; } });
type Transport = ReturnType<typeof transport>;

/** A table on a clock the test moves, limits over the defaults. */
function table(limits: Partial<SessionTableLimits>) {
  const clock = { now: 0 };
  const t = new SessionTable<Transport>({ maxSessions: 100, maxPerClient: 100, minIdleMs: 60_000, idleMs: 30 * 60_000, ...limits }, () => clock.now);
  /** Admits and binds a session `name` from `client`; fails the test if refused. */
  const open = (name: string, client = '127.0.0.1') => {
    const a = t.admit(client);
    if (!a.ok) throw new Error(`${name} refused: ${a.message}`);
    const value = transport(name);
    t.bind(a.slot, name, value);
    return { value, evicted: a.evicted };
  };
  return { t, clock, open };
}

describe('SessionTable', () => {
  it('makes room for a new session by closing the least recently used one idle for minIdleMs', () => {
    const { t, clock, open } = table({ maxSessions: 2 });
    const a = open('a');
    const b = open('b');
    clock.now = 120_000;
    // a is used again: b is now the least recently used.
    t.touch('a');
    clock.now = 200_000;
    const c = open('c');
    expect(c.evicted).toBe('b');
    expect([a.value.closed, b.value.closed]).toEqual([false, true]);
    expect(t.get('b')).toBeUndefined();
    expect(t.stats().sessions).toBe(2);
  });

  it('refuses a new session with 503, and the seconds until one may give way, while every session was used within minIdleMs', () => {
    const { t, clock, open } = table({ maxSessions: 2 });
    open('a');
    clock.now = 20_000;
    open('b');
    clock.now = 30_000;
    // a was used 30 s ago: it may give way in 30 s.
    expect(t.admit('127.0.0.1')).toEqual({ ok: false, status: 503, retryAfterS: 30, message: 'the server holds 2 MCP sessions, the most it may, and none has been idle for 60 s: retry later' });
    clock.now = 60_000;
    expect(t.admit('127.0.0.1')).toMatchObject({ ok: true, evicted: 'a' });
  });

  it('never closes a session with a request in flight, however long it runs; it may give way once idle for minIdleMs after its answer', () => {
    const { t, clock, open } = table({ maxSessions: 1 });
    const a = open('a');
    const end = t.begin('a');
    clock.now = 3_600_000;
    expect(t.admit('127.0.0.1')).toMatchObject({ ok: false, status: 503, retryAfterS: 60 });
    expect(a.value.closed).toBe(false);
    end();
    clock.now += 59_000;
    expect(t.admit('127.0.0.1')).toMatchObject({ ok: false, status: 503, retryAfterS: 1 });
    clock.now += 1_000;
    expect(t.admit('127.0.0.1')).toMatchObject({ ok: true, evicted: 'a' });
    expect(a.value.closed).toBe(true);
  });

  it('holds a client address to its share: over it, one of its own idle sessions gives way, never another address\'s', () => {
    const { t, clock, open } = table({ maxPerClient: 2 });
    // Another address's session, the least recently used of all.
    const other = open('other', '10.0.0.2');
    clock.now = 1_000;
    open('x1', '10.0.0.1');
    open('x2', '10.0.0.1');
    clock.now = 100_000;
    expect(open('x3', '10.0.0.1').evicted).toBe('x1');
    expect(other.value.closed).toBe(false);
    expect(t.stats().perClient).toEqual({ '10.0.0.2': 1, '10.0.0.1': 2 });
  });

  it('refuses a client address over its share with 429 while its sessions are in use; other addresses are still admitted', () => {
    const { t, clock, open } = table({ maxPerClient: 2 });
    open('x1', '10.0.0.1');
    open('x2', '10.0.0.1');
    clock.now = 10_000;
    expect(t.admit('10.0.0.1')).toEqual({
      ok: false,
      status: 429,
      retryAfterS: 50,
      message: 'this client address holds 2 MCP sessions, the most it may, and none has been idle for 60 s: close one (an HTTP DELETE), or retry later',
    });
    expect(t.admit('10.0.0.2')).toMatchObject({ ok: true });
  });

  it('counts a session that is starting against the limits, and gives its place back if it does not start', () => {
    const { t, clock } = table({ maxSessions: 1 });
    const first = t.admit('127.0.0.1');
    expect(first.ok).toBe(true);
    clock.now = 3_600_000;
    // The starting session is never evicted.
    expect(t.admit('127.0.0.1')).toMatchObject({ ok: false, status: 503 });
    if (first.ok) t.release(first.slot);
    expect(t.admit('127.0.0.1')).toMatchObject({ ok: true });
  });

  it('closes, on sweep, the sessions idle for idleMs, but not one with a request in flight', () => {
    const { t, clock, open } = table({ idleMs: 1_800_000 });
    const a = open('a');
    const b = open('b');
    const c = open('c');
    t.begin('c');
    clock.now = 1_000_000;
    t.touch('b');
    clock.now = 1_800_000;
    expect(t.sweep()).toEqual(['a']);
    expect([a.value.closed, b.value.closed, c.value.closed]).toEqual([true, false, false]);
    expect(t.stats()).toEqual({ sessions: 2, inFlight: 1, perClient: { '127.0.0.1': 2 } });
  });
});
