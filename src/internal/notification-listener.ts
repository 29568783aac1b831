import type pg from 'pg';
import { whenAborted } from './abort.js';

/** A notification's payload; `undefined` after a reconnection, when notifications may have been lost. */
export type ListenerHandler = (payload: string | undefined) => void;

/** Reconnection delays: doubling from the first to the longest, each drawn from its upper half. */
const FIRST_RETRY_MS = 100;
const LONGEST_RETRY_MS = 5000;

/** A channel name as an identifier: quoted unless plain, since `LISTEN` folds an unquoted one to lower case and `pg_notify` does not. */
const quoted = (channel: string) => (/^[a-z_][a-z0-9_]*$/.test(channel) ? channel : `"${channel.replace(/"/g, '""')}"`);

/**
 * PostgreSQL notifications (`LISTEN`), so that nobody waits for a poll: the queue's processes wake
 * each other with them, and the event store's followers hear of appends. One connection per
 * instance, opened when first needed. A lost connection (the server restarted, the backend was
 * terminated, the network failed) is opened again, after a delay that doubles up to 5 s while
 * attempts fail, and listens to its channels again; then every handler is called with
 * `undefined`, since notifications sent in between are lost. Until then polling stands in.
 * Closing (`close()`, or the `signal` given) stops it for good.
 */
export class NotificationListener {
  /** The connection, from its creation (connecting) until it is lost or closed. */
  private client: pg.Client | undefined;
  /** Whether `client` is connected. */
  private ready = false;
  /** Channels the connection listens to, or is being told to (once connected). */
  private listening = new Set<string>();
  /** Channels whose LISTEN is done on the current connection. */
  private active = new Set<string>();
  private readonly handlers = new Map<string, Set<ListenerHandler>>();
  /** Called each time the connection starts listening to a channel (the first time, and after each reconnection). */
  private readonly onListening = new Map<string, Set<() => void>>();
  private retry: ReturnType<typeof setTimeout> | undefined;
  private failures = 0;
  private connectedBefore = false;
  private closed = false;
  /** Settles once the connection ended by closing is closed. */
  private ended: Promise<void> = Promise.resolve();
  private readonly config: pg.ClientConfig;

  /**
   * @param connection a connection string, or a client configuration (a pool's `options`)
   * @param onError told of each connection lost or refused (it is opened again anyway)
   * @param signal stops the listener for good
   * @param applicationName how the connection is named in `pg_stat_activity`
   */
  constructor(
    connection: string | pg.ClientConfig,
    private readonly onError: (error: unknown) => void,
    signal?: AbortSignal,
    applicationName = 'tot-queue-listener',
  ) {
    this.config = { ...(typeof connection === 'string' ? { connectionString: connection } : connection), application_name: applicationName };
    if (signal) whenAborted(signal, () => this.stop());
  }

  /**
   * Calls `handler` with each notification on `channel` until the returned function is called;
   * `listening`, when given, each time the connection starts listening to the channel (so that
   * a caller who reads after it misses nothing).
   */
  listen(channel: string, handler: ListenerHandler, listening?: () => void): () => void {
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
    }
    set.add(handler);
    if (listening) {
      let waiting = this.onListening.get(channel);
      if (!waiting) {
        waiting = new Set();
        this.onListening.set(channel, waiting);
      }
      waiting.add(listening);
    }
    // A connection still connecting listens to every channel once connected.
    if (this.client === undefined) this.open();
    else if (this.active.has(channel)) listening?.();
    // Not listened to yet: the LISTEN sent (now, or by an earlier caller) calls `listening` once done.
    else if (this.ready) void this.subscribe(this.client);
    return () => {
      set.delete(handler);
      if (listening) this.onListening.get(channel)?.delete(listening);
    };
  }

  /** Opens the connection unless one is open, opening, or waiting for its retry. */
  private open(): void {
    if (this.closed || this.client !== undefined || this.retry !== undefined) return;
    void (async () => {
      let client: pg.Client | undefined;
      try {
        const { default: pgModule } = (await import('pg')) as unknown as { default: typeof pg };
        if (this.closed || this.client !== undefined) return;
        const created = new pgModule.Client(this.config);
        client = created;
        this.client = client;
        this.ready = false;
        this.listening = new Set();
        this.active = new Set();
        // A listener that loses its server must not crash the host: it reports, and connects again.
        client.on('error', (error) => this.lost(created, error));
        client.on('end', () => this.lost(created, undefined));
        client.on('notification', (n) => {
          for (const handler of this.handlers.get(n.channel) ?? []) handler(n.payload ?? '');
        });
        await client.connect();
        if (this.client !== client) return;
        this.ready = true;
        await this.subscribe(client);
        if (this.client !== client) return;
        this.failures = 0;
        if (this.connectedBefore) for (const set of this.handlers.values()) for (const handler of set) handler(undefined);
        this.connectedBefore = true;
      } catch (error) {
        if (client) this.lost(client, error);
        else this.onError(error);
      }
    })();
  }

  /** Listens to the channels the connection does not listen to yet. */
  private async subscribe(client: pg.Client): Promise<void> {
    const fresh = [...this.handlers.keys()].filter((c) => !this.listening.has(c));
    if (fresh.length === 0) return;
    for (const c of fresh) this.listening.add(c);
    try {
      await client.query(fresh.map((c) => `LISTEN ${quoted(c)}`).join('; '));
    } catch (error) {
      this.lost(client, error);
      return;
    }
    if (this.client !== client) return;
    for (const c of fresh) this.active.add(c);
    for (const c of fresh) for (const listening of this.onListening.get(c) ?? []) listening();
  }

  /** The connection `client` failed or ended: report it once, and connect again unless closed. */
  private lost(client: pg.Client, error: unknown): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.ready = false;
    this.active = new Set();
    if (error !== undefined && !this.closed) this.onError(error);
    client.end().catch(() => undefined);
    if (this.closed) return;
    const ceiling = Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * 2 ** this.failures);
    this.failures += 1;
    this.retry = setTimeout(
      () => {
        this.retry = undefined;
        this.open();
      },
      Math.round(ceiling / 2 + (Math.random() * ceiling) / 2),
    );
    // Polling keeps things going meanwhile: a pending retry alone does not keep a process alive.
    (this.retry as { unref?: () => void }).unref?.();
  }

  /** Stops for good: no retry, no new connection; the open one is ended. */
  private stop(): void {
    this.closed = true;
    clearTimeout(this.retry);
    this.retry = undefined;
    const client = this.client;
    this.client = undefined;
    this.ready = false;
    if (client) this.ended = client.end().catch(() => undefined);
  }

  /** Stops listening for good; resolves once the connection is closed. */
  async close(): Promise<void> {
    this.stop();
    await this.ended;
  }
}
