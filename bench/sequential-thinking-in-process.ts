/**
 * The parts of `bench:sequential-thinking` that run in the benchmark's own process, where CPU time
 * can be read per call: on a loaded machine the wall-clock medians of the spawned servers carry
 * other processes' turns, and these figures do not.
 *
 * - {@link serverCpuPerCall}: each server's side of a `tools/call` (the SDK's request handling, the
 *   input and output schemas, the tool) through a transport that hands the request straight to
 *   the server and serialises its reply, the servers called in turn, a round at a time.
 * - {@link sqliteCommitFloor}: what one committed single-row INSERT costs better-sqlite3 on this
 *   machine, with the SQLite store's own settings (WAL, `synchronous=NORMAL`): the least a call
 *   that stores its thought durably on SQLite can cost, whatever the code around it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { SqliteEventStore } from '../src/sqlite/index.js';
import { median } from './harness.js';

/** What {@link serverCpuPerCall} needs of a server: the SDK's `McpServer` (or its `Server`) `connect`. */
export interface Connectable {
  connect(transport: Transport): Promise<void>;
}

type Call = (args: Record<string, unknown>) => Promise<Record<string, unknown>>;

/**
 * A transport with nothing behind it: a request is handed to the server as a parsed message, as a
 * stdio transport hands it, and the reply is serialised as one would be sent.
 */
async function direct(server: Connectable): Promise<Call> {
  const waiting = new Map<number, (message: Record<string, unknown>) => void>();
  const transport: Transport = {
    async start() {},
    async close() {},
    async send(message: JSONRPCMessage) {
      const reply = JSON.parse(JSON.stringify(message)) as Record<string, unknown> & { id: number };
      waiting.get(reply.id)?.(reply);
      waiting.delete(reply.id);
    },
  };
  await server.connect(transport);
  let id = 0;
  return (args) =>
    new Promise((resolve, reject) => {
      const request = JSON.parse(JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: 'sequentialthinking', arguments: args } })) as JSONRPCMessage & { id: number };
      waiting.set(request.id, (reply) => {
        const result = reply.result as { isError?: boolean; structuredContent?: Record<string, unknown>; content?: unknown } | undefined;
        if (!result || result.isError) reject(new Error(`sequentialthinking failed: ${JSON.stringify(reply)}`));
        else resolve(result.structuredContent ?? {});
      });
      transport.onmessage?.(request);
    });
}

const cpuMicros = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** Per server: the median over rounds of the CPU per call (µs), and the mean over all calls. */
export interface CpuPerCall {
  sessionsOf10: { medianUs: number; meanUs: number; rounds: number };
  longSequence: { medianUs: number; meanUs: number; chunks: number };
}

/**
 * Each server's CPU per call in this process, the servers called in turn (the order rotating):
 * `sessions` lines of 10 thoughts (after `warm` untimed), then one sequence of `long` thoughts,
 * `chunk` calls at a time. The medians leave out the rounds a garbage collection fell in, whoever's
 * garbage it was (the servers share a heap); the means keep them.
 */
export async function serverCpuPerCall(
  servers: { name: string; server: Connectable }[],
  options: { sessions: number; warm: number; long: number; chunk: number; thought: (line: string, n: number) => string },
): Promise<Record<string, CpuPerCall>> {
  const calls = await Promise.all(servers.map(async (s) => ({ name: s.name, call: await direct(s.server) })));
  const rounds = new Map<string, number[]>(calls.map((c) => [c.name, []]));
  for (let r = 0; r < options.warm + options.sessions; r++) {
    for (let k = 0; k < calls.length; k++) {
      const { name, call } = calls[(r + k) % calls.length]!;
      const started = cpuMicros();
      for (let n = 1; n <= 10; n++) await call({ thought: options.thought(`in-process line ${r}`, n), thoughtNumber: n, totalThoughts: 10, nextThoughtNeeded: n < 10 });
      if (r >= options.warm) rounds.get(name)!.push((cpuMicros() - started) / 10);
    }
  }
  const chunks = new Map<string, number[]>(calls.map((c) => [c.name, []]));
  const sessions = new Map<string, unknown>();
  for (let from = 1, c = 0; from <= options.long; from += options.chunk, c++) {
    for (let k = 0; k < calls.length; k++) {
      const { name, call } = calls[(c + k) % calls.length]!;
      const started = cpuMicros();
      let n = from;
      for (; n < from + options.chunk && n <= options.long; n++) {
        const session_id = sessions.get(name);
        const out = await call({ thought: options.thought('the in-process line', n), thoughtNumber: n, totalThoughts: options.long, nextThoughtNeeded: n < options.long, ...(session_id ? { session_id } : {}) });
        if (n === 1 && out.session_id) sessions.set(name, out.session_id);
      }
      chunks.get(name)!.push((cpuMicros() - started) / (n - from));
    }
  }
  const round = (x: number) => Math.round(x * 10) / 10;
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  return Object.fromEntries(
    calls.map(({ name }) => [
      name,
      {
        sessionsOf10: { medianUs: round(median(rounds.get(name)!)), meanUs: round(mean(rounds.get(name)!)), rounds: rounds.get(name)!.length },
        longSequence: { medianUs: round(median(chunks.get(name)!)), meanUs: round(mean(chunks.get(name)!)), chunks: chunks.get(name)!.length },
      },
    ]),
  );
}

/**
 * The CPU (µs) of one committed single-row INSERT through better-sqlite3, in WAL mode with
 * `synchronous=NORMAL` and the store's autocheckpoint, each in its own `BEGIN IMMEDIATE`
 * transaction: into a table of one text column and no index (the floor of any durable write), and
 * into the table the SQLite store makes (its unique indexes on event id, idempotency key and stream
 * version, and its rowid position), with a row of a thought's size.
 */
export async function sqliteCommitFloor(rows = 20_000): Promise<{ bareInsertCommitUs: number; storeTableInsertCommitUs: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'tot-seq-floor-'));
  const data = 'x'.repeat(400);
  const stream = 'sess_0190abcd-0000-7000-8000-000000000000';
  const measure = (file: string, schema: string, insert: string, values: (i: number) => unknown[]) => {
    const db = new Database(join(dir, file));
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('wal_autocheckpoint = 16384');
      db.exec(schema);
      const statement = db.prepare(insert);
      const begin = db.prepare('BEGIN IMMEDIATE');
      const commit = db.prepare('COMMIT');
      const write = (i: number) => {
        begin.run();
        statement.run(...values(i));
        commit.run();
      };
      for (let i = 0; i < 1000; i++) write(i);
      const started = cpuMicros();
      for (let i = 1000; i < 1000 + rows; i++) write(i);
      return Math.round(((cpuMicros() - started) / rows) * 10) / 10;
    } finally {
      db.close();
    }
  };
  try {
    const bareInsertCommitUs = measure('bare.db', 'CREATE TABLE t (id INTEGER PRIMARY KEY, data TEXT NOT NULL)', 'INSERT INTO t (data) VALUES (?)', () => [data]);
    // The store makes its table (and closes the file): the rows go into its layout as it is.
    const storeFile = join(dir, 'store.db');
    await new SqliteEventStore({ path: storeFile }).close();
    const storeTableInsertCommitUs = measure(
      'store.db',
      'SELECT 1',
      'INSERT INTO tot_events (event_id, stream_id, version, type, data, idempotency_key, own_event_id, parent_ids, clock, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      (i) => [`0190abcd-${(i >>> 16).toString(16).padStart(4, '0')}-7000-8000-00000000${(i & 0xffff).toString(16).padStart(4, '0')}`, stream, i, 'thought.added', data, `${stream}:key:seq::${i}:0123456789ab:0`, 0, `["t${i}"]`, '{"w":1}', '{}', new Date().toISOString()],
    );
    return { bareInsertCommitUs, storeTableInsertCommitUs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
