import type { EventStore } from '../events/store/types.js';

/** An event store for a `--db` argument: PostgreSQL for a `postgres://` URL, `memory` for one that keeps nothing, else a SQLite file. */
export async function openStore(db: string): Promise<EventStore & { close(): Promise<void> }> {
  if (db === 'memory') {
    const { InMemoryEventStore } = await import('../events/index.js');
    return Object.assign(new InMemoryEventStore(), { close: async () => undefined });
  }
  if (/^postgres(ql)?:\/\//i.test(db)) {
    const { PostgresEventStore } = await import('../postgres/index.js');
    const store = new PostgresEventStore({ connectionString: db });
    await store.setup();
    return store;
  }
  const { SqliteEventStore } = await import('../sqlite/index.js');
  return new SqliteEventStore({ path: db });
}
