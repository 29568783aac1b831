/** The limits of a {@link SessionTable}. */
export interface SessionTableLimits {
  /** Sessions held at once, from every client together. */
  maxSessions: number;
  /** Sessions held at once for one client address. */
  maxPerClient: number;
  /** How long a session must have been idle (no request in flight) before a new session may take its place. */
  minIdleMs: number;
  /** A session idle this long is closed by {@link SessionTable.sweep}, room needed or not. */
  idleMs: number;
}

/** The defaults of `tot mcp --http`: 256 sessions, 64 per client address, idle a minute before one may be evicted, closed after 30 minutes idle. */
export const DEFAULT_SESSION_TABLE_LIMITS: SessionTableLimits = { maxSessions: 256, maxPerClient: 64, minIdleMs: 60_000, idleMs: 30 * 60_000 };

/** A session's resources: closing them ends the session (its transport's `onclose` then calls {@link SessionTable.delete}). */
export interface Closable {
  close(): Promise<void>;
}

/**
 * Whether a new session may start. `slot` holds its place in the table until the session has its
 * id ({@link SessionTable.bind}) or failed to start ({@link SessionTable.release}); a refusal says
 * what to answer: 429 when the client's own address holds its share, 503 when the server is full,
 * each with the seconds after which a session may have become idle enough to give way.
 */
export type Admission =
  | { ok: true; slot: string; evicted?: string }
  | { ok: false; status: 429 | 503; retryAfterS: number; message: string };

interface Entry<T> {
  value: T | undefined;
  client: string;
  lastUsed: number;
  inFlight: number;
}

/**
 * The MCP sessions an HTTP server holds (one transport and one server each), bounded in number in
 * all and per client address. A new session takes the place of the least recently used session
 * that has no request in flight and has been idle for `minIdleMs`, first among its own address's
 * sessions when that address holds its share, else among all. When no session has been idle that
 * long, the new session is refused (429 or 503 with Retry-After): sessions in use are never closed
 * to make room, so a client that floods the server with initializations cannot take the sessions
 * of clients that are working.
 *
 * @example
 * ```ts
 * const table = new SessionTable<StreamableHTTPServerTransport>({ ...DEFAULT_SESSION_TABLE_LIMITS, maxPerClient: 8 });
 * const admission = table.admit(req.socket.remoteAddress ?? '');
 * if (!admission.ok) return refuse(res, admission.status, admission.message, admission.retryAfterS);
 * // … once the transport has its session id:
 * table.bind(admission.slot, sessionId, transport);
 * ```
 */
export class SessionTable<T extends Closable> {
  /** Least recently used first: a Map keeps the order entries were (re)inserted in. */
  private readonly entries = new Map<string, Entry<T>>();
  private readonly perClient = new Map<string, number>();
  private slots = 0;
  readonly limits: SessionTableLimits;

  /**
   * @example
   * ```ts
   * const table = new SessionTable(DEFAULT_SESSION_TABLE_LIMITS);
   * ```
   */
  constructor(
    limits: Partial<SessionTableLimits> = {},
    private readonly now: () => number = Date.now,
  ) {
    this.limits = { ...DEFAULT_SESSION_TABLE_LIMITS, ...limits };
  }

  /**
   * Makes room for one more session from `client` (closing an idle session if it must), and holds
   * a slot for it; or says why not.
   *
   * @example
   * ```ts
   * const a = table.admit('127.0.0.1');
   * if (a.ok) table.bind(a.slot, sessionId, transport);
   * ```
   */
  admit(client: string): Admission {
    const { maxSessions, maxPerClient } = this.limits;
    let evicted: string | undefined;
    if ((this.perClient.get(client) ?? 0) >= maxPerClient) {
      const victim = this.evictable((e) => e.client === client);
      if (victim === undefined) return this.refusal(429, (e) => e.client === client, `this client address holds ${maxPerClient} MCP sessions, the most it may, and none has been idle for ${this.limits.minIdleMs / 1000} s: close one (an HTTP DELETE), or retry later`);
      evicted = this.evict(victim);
    } else if (this.entries.size >= maxSessions) {
      const victim = this.evictable(() => true);
      if (victim === undefined) return this.refusal(503, () => true, `the server holds ${maxSessions} MCP sessions, the most it may, and none has been idle for ${this.limits.minIdleMs / 1000} s: retry later`);
      evicted = this.evict(victim);
    }
    const slot = `slot:${this.slots++}`;
    // A slot counts as a session with a request in flight (its initialize): never evicted, and
    // counted against the limits while the session starts.
    this.entries.set(slot, { value: undefined, client, lastUsed: this.now(), inFlight: 1 });
    this.count(client, 1);
    return { ok: true, slot, ...(evicted === undefined ? {} : { evicted }) };
  }

  /**
   * Puts the session that started in `slot` in its place, under its id.
   *
   * @example
   * ```ts
   * table.bind(admission.slot, transport.sessionId!, transport);
   * ```
   */
  bind(slot: string, id: string, value: T): void {
    const entry = this.entries.get(slot);
    if (!entry) return;
    this.entries.delete(slot);
    this.entries.set(id, { value, client: entry.client, lastUsed: this.now(), inFlight: 0 });
  }

  /**
   * Gives up a slot whose session did not start (its initialize failed).
   *
   * @example
   * ```ts
   * if (!transport.sessionId) table.release(admission.slot);
   * ```
   */
  release(slot: string): void {
    this.delete(slot);
  }

  /**
   * The session with this id, if the table holds it.
   *
   * @example
   * ```ts
   * const transport = table.get(req.headers['mcp-session-id']);
   * ```
   */
  get(id: string): T | undefined {
    return this.entries.get(id)?.value;
  }

  /**
   * Marks a request of the session as started: the session is in use until the returned function
   * is called (when the response has ended), and the most recently used.
   *
   * @example
   * ```ts
   * const end = table.begin(sessionId);
   * res.once('close', end);
   * ```
   */
  begin(id: string): () => void {
    const entry = this.use(id);
    if (!entry) return () => undefined;
    entry.inFlight += 1;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      entry.inFlight -= 1;
      // Used until its answer was complete: the idle time counts from then.
      if (this.entries.get(id) === entry) this.use(id);
    };
  }

  /**
   * Removes a session (closed by its client, or by the table).
   *
   * @example
   * ```ts
   * transport.onclose = () => table.delete(transport.sessionId!);
   * ```
   */
  delete(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    this.count(entry.client, -1);
  }

  /**
   * Closes the sessions idle for `idleMs` or more (clients often go without a DELETE).
   *
   * @example
   * ```ts
   * setInterval(() => table.sweep(), 60_000).unref();
   * ```
   */
  sweep(): string[] {
    const now = this.now();
    const closed: string[] = [];
    for (const [id, e] of [...this.entries]) if (e.value && e.inFlight === 0 && now - e.lastUsed >= this.limits.idleMs) closed.push(this.evict(id));
    return closed;
  }

  /**
   * Every session held (to close them all when the server stops).
   *
   * @example
   * ```ts
   * for (const t of table.values()) await t.close();
   * ```
   */
  values(): T[] {
    return [...this.entries.values()].flatMap((e) => (e.value ? [e.value] : []));
  }

  /**
   * How many sessions are held, in all and per client address, and how many have a request in flight.
   *
   * @example
   * ```ts
   * const { sessions, inFlight } = table.stats();
   * ```
   */
  stats(): { sessions: number; inFlight: number; perClient: Record<string, number> } {
    let inFlight = 0;
    for (const e of this.entries.values()) if (e.inFlight > 0) inFlight += 1;
    return { sessions: this.entries.size, inFlight, perClient: Object.fromEntries(this.perClient) };
  }

  /**
   * Marks the session as the most recently used (a request that is not in flight for long, such
   * as the GET of its event stream).
   *
   * @example
   * ```ts
   * table.touch(sessionId);
   * ```
   */
  touch(id: string): void {
    this.use(id);
  }

  private use(id: string): Entry<T> | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    entry.lastUsed = this.now();
    this.entries.delete(id);
    this.entries.set(id, entry);
    return entry;
  }

  /** The least recently used session of those `which` picks that may give way: none in flight, idle long enough. */
  private evictable(which: (e: Entry<T>) => boolean): string | undefined {
    const now = this.now();
    for (const [id, e] of this.entries) if (which(e) && e.value && e.inFlight === 0 && now - e.lastUsed >= this.limits.minIdleMs) return id;
    return undefined;
  }

  private evict(id: string): string {
    const value = this.entries.get(id)?.value;
    this.delete(id);
    void value?.close().catch(() => undefined);
    return id;
  }

  /** A refusal, with the seconds until the first session of those `which` picks may give way. */
  private refusal(status: 429 | 503, which: (e: Entry<T>) => boolean, message: string): Admission {
    const { minIdleMs } = this.limits;
    const now = this.now();
    let waitMs = minIdleMs;
    for (const e of this.entries.values()) if (which(e) && e.value && e.inFlight === 0) waitMs = Math.min(waitMs, e.lastUsed + minIdleMs - now);
    return { ok: false, status, retryAfterS: Math.max(1, Math.ceil(waitMs / 1000)), message };
  }

  private count(client: string, by: number): void {
    const n = (this.perClient.get(client) ?? 0) + by;
    if (n > 0) this.perClient.set(client, n);
    else this.perClient.delete(client);
  }
}
