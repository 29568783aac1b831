import type pg from 'pg';

/**
 * PostgreSQL notifications between the queue's processes, so that nobody waits for a poll: a
 * submit wakes the idle workers of its flow, a settled run wakes whoever waits for its result.
 * One connection per queue instance, opened when first needed. Polling stays the fallback: a lost
 * connection (or a notification lost with it) only brings back the poll's latency.
 */
export class QueueListener {
  private client: Promise<pg.Client | undefined> | undefined;
  private readonly handlers = new Map<string, Set<(payload: string) => void>>();
  private closed = false;

  constructor(
    private readonly connectionString: string,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Calls `handler` with each notification on `channel` until the returned function is called. */
  listen(channel: string, handler: (payload: string) => void): () => void {
    let set = this.handlers.get(channel);
    const fresh = set === undefined;
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
    }
    set.add(handler);
    if (fresh) void this.connect().then((client) => client?.query(`LISTEN ${channel}`).catch(this.onError));
    return () => set.delete(handler);
  }

  private connect(): Promise<pg.Client | undefined> {
    this.client ??= (async () => {
      try {
        const { default: pgModule } = (await import('pg')) as unknown as { default: typeof pg };
        const client = new pgModule.Client({ connectionString: this.connectionString, application_name: 'tot-queue-listener' });
        // A listener that loses its server must not crash the host: the queue falls back to polling.
        client.on('error', (error) => {
          this.onError(error);
          this.client = undefined;
        });
        client.on('notification', (n) => {
          for (const handler of this.handlers.get(n.channel) ?? []) handler(n.payload ?? '');
        });
        await client.connect();
        if (this.closed) {
          await client.end();
          return undefined;
        }
        return client;
      } catch (error) {
        this.onError(error);
        this.client = undefined;
        return undefined;
      }
    })();
    return this.client;
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = await this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
