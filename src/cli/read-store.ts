import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import type { StoredEvent } from '../events/store/types.js';

/** A command's failure the user can act on: its message is printed, the exit code is 1. */
export class CommandError extends Error {}

/**
 * A recorded store, opened read-only: a SQLite file the library wrote, or a PostgreSQL URL. A
 * file that is not one is refused before anything opens it for writing, so it is left as it was.
 */
export async function openRecorded(db: string): Promise<{ readAll(): AsyncIterable<StoredEvent>; readStream(id: string): AsyncIterable<StoredEvent>; close(): Promise<void> }> {
  if (/^postgres(ql)?:\/\//i.test(db)) {
    const { PostgresEventStore } = await import('../postgres/index.js');
    return new PostgresEventStore({ connectionString: db });
  }
  if (!existsSync(db)) throw new CommandError(`${db}: no such file.`);
  const header = Buffer.alloc(16);
  const fd = openSync(db, 'r');
  try {
    readSync(fd, header, 0, 16, 0);
  } finally {
    closeSync(fd);
  }
  if (header.toString('latin1') !== 'SQLite format 3\0') throw new CommandError(`${db} is not a SQLite database, so not a store of recorded runs; it was left untouched.`);
  const { default: Database } = await import('better-sqlite3');
  const database = new Database(db, { readonly: true, fileMustExist: true });
  const table = database.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'tot_events'").get();
  if (!table) {
    database.close();
    throw new CommandError(`${db} is a SQLite database without recorded runs (no tot_events table); it was left untouched.`);
  }
  const { SqliteEventStore } = await import('../sqlite/index.js');
  const store = new SqliteEventStore({ database });
  return { readAll: () => store.readAll(), readStream: (id) => store.readStream(id), close: async () => void database.close() };
}

/** One recorded run or session, as `tot runs` lists it. */
export interface RunRow {
  id: string;
  runner: string;
  stopReason: string;
  calls: number;
  tokens: number;
  ms: number;
  problem: string;
  /** A run waiting for a person (`stopReason: 'waiting'`): the ids of the questions it waits for. */
  waitingFor?: string[];
}

const UNDER_WAY = '(running or interrupted)';

/** Every run and agent session of a store, in the order they started. */
export async function listRuns(store: { readAll(): AsyncIterable<StoredEvent> }): Promise<RunRow[]> {
  const rows = new Map<string, RunRow>();
  const startedAt = new Map<string, number>();
  for await (const e of store.readAll()) {
    const d = e.data as Record<string, unknown>;
    if (e.type === 'run.started') rows.set(e.streamId, { id: e.streamId, runner: String(d.runner ?? '?'), stopReason: UNDER_WAY, calls: 0, tokens: 0, ms: 0, problem: String(d.problem ?? '') });
    else if (e.type === 'session.started') {
      rows.set(e.streamId, { id: e.streamId, runner: 'agent-session', stopReason: 'active', calls: 0, tokens: 0, ms: 0, problem: String(d.goal ?? '') });
      if (typeof d.at === 'number') startedAt.set(e.streamId, d.at);
    }
    if (e.type === 'run.started' && typeof d.at === 'number' && !startedAt.has(e.streamId)) startedAt.set(e.streamId, d.at);
    const row = rows.get(e.streamId);
    if (!row) continue;
    // The span from the first start to the latest event: a resumed run's stats.wallMs counts only
    // the process that finished it.
    const t0 = startedAt.get(e.streamId);
    if (typeof d.at === 'number' && t0 !== undefined) row.ms = Math.max(row.ms, d.at - t0);
    if (e.type === 'run.finished') {
      const stats = (d.stats ?? {}) as Record<string, number>;
      row.stopReason = String(d.stopReason);
      const questions = (d.detail as { questions?: unknown } | undefined)?.questions;
      if (d.stopReason === 'waiting') row.waitingFor = Array.isArray(questions) ? questions.map(String) : [];
      row.calls = stats.llmCalls ?? 0;
      row.tokens = (stats.inputTokens ?? 0) + (stats.outputTokens ?? 0);
      if (t0 === undefined) row.ms = stats.wallMs ?? 0;
    } else if (row.runner !== 'agent-session' && row.stopReason !== UNDER_WAY) {
      // Only a run.finished that is the run's last event says how it ended: a run that waited for
      // answers and was resumed goes on, and finishes again.
      row.stopReason = UNDER_WAY;
      delete row.waitingFor;
    } else if (row.runner === 'agent-session') {
      if (e.type === 'thought.added') row.tokens += Number(d.tokens ?? 0);
      if (e.type === 'session.state_changed') row.stopReason = String(d.to ?? row.stopReason);
    }
  }
  return [...rows.values()];
}
