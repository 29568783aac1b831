import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { raceAbort } from '../internal/abort.js';
import { parseOptions, signalSchema } from '../internal/validate.js';
import type { SessionEngine } from '../sessions/session-engine.js';
import type { AgentSession } from '../sessions/agent-session.js';

const optionsSchema = z.strictObject({ maxOpen: z.number().optional() });
const getOptionsSchema = z.strictObject({ signal: signalSchema });
const isSignalOnly = (o: unknown): boolean => {
  if (typeof o !== 'object' || o === null) return false;
  for (const key in o) if (key !== 'signal') return false;
  const signal = (o as { signal?: unknown }).signal;
  return signal === undefined || signal instanceof AbortSignal;
};

/**
 * The sessions a server holds open: an LRU over the engine's store. A session not held is restored
 * from the store (its latest checkpoint and the events after it) when a tool asks for it, so the
 * server's memory stays flat however many sessions it has served; the least recently used is let
 * go when more than `maxOpen` are held.
 *
 * @example
 * ```ts
 * import { SessionCache } from '@tot/core/mcp';
 *
 * const sessions = new SessionCache(engine, { maxOpen: 64 });
 * const s = await sessions.get('sess_0190…');
 * ```
 */
export class SessionCache {
  private readonly open = new Map<string, AgentSession>();
  /** The id last in `open`'s order: asked for again (a client's every call), it is not moved. */
  private newest: string | undefined;
  private readonly restoring = new Map<string, Promise<AgentSession>>();
  private counts = { hits: 0, restores: 0, evictions: 0 };
  /** How many sessions are held at most. */
  readonly maxOpen: number;

  /**
   * @example
   * ```ts
   * const sessions = new SessionCache(engine, { maxOpen: 16 });
   * ```
   */
  constructor(
    private readonly engine: SessionEngine,
    options: { maxOpen?: number } = {},
  ) {
    parseOptions(optionsSchema, options, 'SessionCache');
    this.maxOpen = Math.max(1, Math.floor(options.maxOpen ?? 64));
  }

  /**
   * The session, held or restored from the store (`INVALID_ARGUMENT` when the store has none).
   *
   * @example
   * ```ts
   * const s = await sessions.get(id, { signal });
   * ```
   */
  async get(id: string, options: { signal?: AbortSignal } = {}): Promise<AgentSession> {
    // Checked inline when plain (every tool call asks), through the schema otherwise, which names what is wrong.
    if (!isSignalOnly(options)) parseOptions(getOptionsSchema, options, 'SessionCache.get');
    const held = this.open.get(id);
    if (held) {
      this.counts.hits += 1;
      // Most recently used last: the Map's order is the LRU order. Moving the entry that is last
      // already left a deleted slot in the Map each call, and a rehash every few calls.
      if (this.newest !== id) {
        this.open.delete(id);
        this.open.set(id, held);
        this.newest = id;
      }
      // Another server (or process) on the same store may have written since: catch up first,
      // so that parents and branches it made are known to this one's checks.
      await held.refresh(options.signal ? { signal: options.signal } : {});
      return held;
    }
    let pending = this.restoring.get(id);
    if (!pending) {
      this.counts.restores += 1;
      // Shared by every caller waiting for this session: it runs to its end whoever gives up.
      pending = this.engine
        .restore(id)
        .catch((error: unknown) => {
          if (TotError.hasCode(error, 'INVALID_ARGUMENT')) {
            throw new TotError('INVALID_ARGUMENT', `session_id: no session "${id}" in this server's store: send an id think_session_start returned, or start a session.`, { details: { field: 'session_id' }, cause: error });
          }
          throw error;
        })
        .finally(() => this.restoring.delete(id));
      this.restoring.set(id, pending);
    }
    const session = await raceAbort(pending, options.signal, 'session restore');
    this.add(session);
    return session;
  }

  /**
   * Holds a session (one just started).
   *
   * @example
   * ```ts
   * sessions.add(await engine.startSession({ goal }));
   * ```
   */
  add(session: AgentSession): void {
    this.open.delete(session.id);
    this.open.set(session.id, session);
    this.newest = session.id;
    while (this.open.size > this.maxOpen) {
      const oldest = this.open.keys().next().value as string;
      this.open.delete(oldest);
      this.counts.evictions += 1;
    }
  }

  /**
   * Lets a session go: the next `get` restores it from the store.
   *
   * @example
   * ```ts
   * sessions.forget(id);
   * ```
   */
  forget(id: string): void {
    this.open.delete(id);
    if (this.newest === id) this.newest = undefined;
  }

  /**
   * Sessions held, and how `get` was answered so far.
   *
   * @example
   * ```ts
   * const { open, hits, restores } = sessions.stats();
   * ```
   */
  stats(): { open: number; hits: number; restores: number; evictions: number } {
    return { open: this.open.size, ...this.counts };
  }
}
