// A PostgreSQL connection of a test file's own, beside the stores under test: to find the event
// store's LISTEN connection (the newest of this user's) and end it, or to change a table.
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';

/** Opens the connection before the file's tests and ends it after them. */
export function usePgAdmin(url: string | undefined) {
  let admin: pg.Client | undefined;
  beforeAll(async () => {
    if (!url) return;
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
  });
  return {
    /** Runs a statement on the connection. */
    query: <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => admin!.query<R>(text, values),
    /** The pid of the newest event-store LISTEN connection, if one is listening. */
    async listenerPid(): Promise<number | undefined> {
      const { rows } = await admin!.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE application_name = 'tot-event-store-listener' AND pid <> pg_backend_pid() AND query LIKE 'LISTEN%' AND usename = current_user ORDER BY backend_start DESC`);
      return rows[0]?.pid;
    },
  };
}
