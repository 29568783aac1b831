import type pg from 'pg';
import { whenAborted } from '../internal/abort.js';

/** A notification's payload; `undefined` after a reconnection, when notifications may have been lost. */
export type ListenerHandler = (payload: string | undefined) => void;

/** Reconnection delays: doubling from the first to the longest, each drawn from its upper half. */
const FIRST_RETRY_MS = 100;
const LONGEST_RETRY_MS = 5000;

/**
 * PostgreSQL notifications between the queue's processes, so that nobody waits for a poll: a
 * submit wakes the idle workers of its flow, a settled run wakes whoever waits for its result.
 * One connection per queue instance, opened when first needed. A lost connection (the server
 * restarted, the backend was terminated, the network failed) is opened again, after a delay that
 * doubles up to 5 s while attempts fail, and listens to its channels again; then every handler
 * is called with `undefined`, since notifications sent in between are lost. Until then polling
 * stands in. Closing (`close()`, or the `signal` given) stops it for good.
 */
export class QueueListener {
  /** The connection, from its creation (connecting) until it is lost or closed. */
  private client: pg.Client | undefined;
  /** Whether `client` is connected. */
  private ready = false;
  /** Channels the connection listens to (once connected). */
  private listening = new Set<string>();
  private readonly handlers = new Map<string, Set<ListenerHandler>>();
  private retry: ReturnType<typeof setTimeout> | undefined;
  private failures = 0;
  private connectedBefore = false;
  private closed = false;
  /** Settles once the connection ended by closing is closed. */
  private ended: Promise<void> = Promise.resolve();

  constructor(
    private readonly connectionString: string,
    private readonly onError: (error: unknown) => void,
    signal?: AbortSignal,
  ) {
    if (signal) whenAborted(signal, () => this.stop());
  }

  /** Calls `handler` with each notification on `channel` until the returned function is called. */
  listen(channel: string, handler: ListenerHandler): () => void {
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
    }
    set.add(handler);
    // A connection still connecting listens to every channel once connected.
    if (this.client === undefined) this.open();
    else if (this.ready) void this.subscribe(this.client);
    return () => set.delete(handler);
  }

  /** Opens the connection unless one is open, opening, or waiting for its retry. */
  private open(): void {
    if (this.closed || this.client !== undefined || this.retry !== undefined) return;
    void (async () => {
      let client: pg.Client | undefined;
      try {
        const { default: pgModule } = (await import('pg')) as unknown as { default: typeof pg };
        if (this.closed || this.client !== undefined) return;
        const created = new pgModule.Client({ connectionString: this.connectionString, application_name: 'tot-queue-listener' });
        client = created;
        this.client = client;
        this.ready = false;
        this.listening = new Set();
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
      await client.query(fresh.map((c) => `LISTEN ${c}`).join('; '));
    } catch (error) {
      this.lost(client, error);
    }
  }

  /** The connection `client` failed or ended: report it once, and connect again unless closed. */
  private lost(client: pg.Client, error: unknown): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.ready = false;
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
    // Polling keeps the queue going meanwhile: a pending retry alone does not keep a process alive.
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
