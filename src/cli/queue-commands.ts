import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Flow } from '../queue/flow.js';
import { DEFAULT_LIST_LIMIT } from '../queue/list-limit.js';
import type { RunStatus } from '../queue/queue-types.js';
import { CommandError } from './read-store.js';

export const WORKER_HELP = `tot worker: take runs from the PostgreSQL queue and drive them

Usage: tot worker --flows <module> --db <postgres://…> [options]

<module> is a JavaScript module (ESM or CommonJS) exporting its flows (made with defineFlow from
@tot/core/queue): as its default export or as "flows", a flow or a list of flows. Runs are
recorded to the PostgreSQL event store in the same database. SIGTERM or Ctrl-C stops the worker:
it hands the runs it drives back to the queue at once (another worker resumes them) and exits.

Options:
  --concurrency <n>    runs driven at once (default 4)
  --lease <seconds>    how long a run stays held without a renewal; a crashed worker's runs are
                       taken over after about this plus a third of it (default 30)
  --schema <name>      pg-boss's schema (default pgboss)
  --table-prefix <p>   the event store's table prefix (default tot_)
  --quiet              no line per run
  --help               this text

Needs pg and pg-boss 10 (npm install pg pg-boss@10).`;

export const QUEUE_RUNS_HELP = `tot runs --queue: the runs of the PostgreSQL queue

Usage: tot runs <postgres://…> --queue [--status <status>] [--flow <name>] [--limit <n>] [--json]

Lists runs newest first with their status: queued, running, waiting, finished, failed or cancelled.

Options:
  --status <status>   only runs with this status (repeat for several)
  --flow <name>       only runs of this flow
  --limit <n>         at most n runs (default ${DEFAULT_LIST_LIMIT})
  --schema <name>     pg-boss's schema (default pgboss)
  --json              one JSON object per run instead of the table
  --help              this text`;

const STATUSES: readonly RunStatus[] = ['queued', 'running', 'waiting', 'finished', 'failed', 'cancelled'];

function positiveInt(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new CommandError(`--${name} takes a positive whole number, not "${value}"`);
  return n;
}

function isPostgres(db: string | undefined): db is string {
  return db !== undefined && /^postgres(ql)?:\/\//.test(db);
}

/** The flows a module exports: its default export or `flows`, one flow or a list. */
async function loadFlows(path: string): Promise<Flow[]> {
  const { isFlow } = await import('../queue/flow.js');
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(resolve(path)).href)) as Record<string, unknown>;
  } catch (error) {
    throw new CommandError(`could not load the flows module ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const exported = mod.flows ?? mod.default;
  const nested = (exported as { flows?: unknown } | undefined)?.flows ?? (exported as { default?: unknown } | undefined)?.default;
  const candidates = [exported, nested].find((v) => isFlow(v) || (Array.isArray(v) && v.length > 0 && v.every(isFlow)));
  if (candidates === undefined) throw new CommandError(`${path} exports no flows: export a flow or a list of flows (defineFlow from @tot/core/queue) as "flows" or as its default export`);
  return Array.isArray(candidates) ? (candidates as Flow[]) : [candidates as Flow];
}

export async function workerCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      flows: { type: 'string' },
      db: { type: 'string' },
      concurrency: { type: 'string' },
      lease: { type: 'string' },
      schema: { type: 'string', default: 'pgboss' },
      'table-prefix': { type: 'string', default: 'tot_' },
      quiet: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${WORKER_HELP}\n`);
    return 0;
  }
  if (!values.flows || !isPostgres(values.db)) throw new CommandError(`give the flows and the database: tot worker --flows ./flows.js --db postgres://…\n\n${WORKER_HELP}`);
  const concurrency = positiveInt(values.concurrency, 'concurrency', 4);
  const leaseSeconds = positiveInt(values.lease, 'lease', 30);
  const flows = await loadFlows(values.flows);
  const { PostgresEventStore } = await import('../postgres/postgres-event-store.js');
  const { pgBossQueue } = await import('../queue/pg-boss-queue.js');
  const store = new PostgresEventStore({ connectionString: values.db, tablePrefix: values['table-prefix'] });
  await store.setup();
  const queue = pgBossQueue({
    connectionString: values.db,
    store,
    schema: values.schema,
    leaseSeconds,
    onError: (error) => process.stderr.write(`tot worker: ${error instanceof Error ? error.message : String(error)}\n`),
  });
  const stop = new AbortController();
  const onSignal = (signal: string) => {
    process.stderr.write(`tot worker: ${signal}: handing the runs back and stopping\n`);
    stop.abort();
  };
  process.once('SIGTERM', () => onSignal('SIGTERM'));
  process.once('SIGINT', () => onSignal('SIGINT'));
  const names = flows.map((f) => `${f.name}@${f.version}`).join(', ');
  process.stderr.write(`tot worker: ${names}, ${concurrency} at once; a crashed worker's runs are taken over within ${Math.round(queue.takeoverBoundMs / 1000)} s\n`);
  try {
    await queue.work({
      flows,
      concurrency,
      signal: stop.signal,
      ...(values.quiet ? {} : { onRun: (e) => process.stdout.write(`${new Date().toISOString()} ${e.runId} ${e.flow} ${e.outcome}${e.resumed ? ' (resumed)' : ''}\n`) }),
    });
  } finally {
    await queue.close();
    await store.close();
  }
  return 0;
}

export async function queueRunsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      queue: { type: 'boolean', default: false },
      status: { type: 'string', multiple: true },
      flow: { type: 'string' },
      limit: { type: 'string' },
      schema: { type: 'string', default: 'pgboss' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${QUEUE_RUNS_HELP}\n`);
    return 0;
  }
  const db = positionals[0];
  if (!isPostgres(db)) throw new CommandError(`give the database: tot runs postgres://… --queue\n\n${QUEUE_RUNS_HELP}`);
  const statuses = (values.status ?? []) as RunStatus[];
  const wrong = statuses.find((s) => !STATUSES.includes(s));
  if (wrong !== undefined) throw new CommandError(`--status takes one of ${STATUSES.join(', ')}, not "${wrong}"`);
  const limit = positiveInt(values.limit, 'limit', DEFAULT_LIST_LIMIT);
  const { InMemoryEventStore } = await import('../events/store/in-memory-event-store.js');
  const { pgBossQueue } = await import('../queue/pg-boss-queue.js');
  // Listing reads the queue only: the store is never touched.
  const queue = pgBossQueue({ connectionString: db, store: new InMemoryEventStore(), schema: values.schema, maxConnections: 2 });
  try {
    const runs = await queue.list({ ...(statuses.length > 0 ? { status: statuses } : {}), ...(values.flow ? { flow: values.flow } : {}), limit });
    if (values.json) {
      for (const r of runs) process.stdout.write(`${JSON.stringify(r)}\n`);
      return 0;
    }
    if (runs.length === 0) {
      process.stdout.write('No runs in the queue.\n');
      return 0;
    }
    const age = (d: Date) => `${Math.max(0, Math.round((Date.now() - d.getTime()) / 1000))} s ago`;
    const table = [['id', 'flow', 'status', 'attempts', 'submitted', 'error'], ...runs.map((r) => [r.runId, `${r.flow.name}@${r.flow.version}`, r.status, String(r.attempts), age(r.createdAt), r.error ? `${r.error.code}: ${r.error.message}` : ''])];
    const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
    for (const row of table) process.stdout.write(`${row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd()}\n`);
    return 0;
  } finally {
    await queue.close();
  }
}
