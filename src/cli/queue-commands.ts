import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Flow } from '../queue/flow.js';
import { DEFAULT_LIST_LIMIT } from '../queue/list-limit.js';
import type { QueuedRun, RunStatus } from '../queue/queue-types.js';
import { extent } from '../internal/extent.js';
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

Needs pg and pg-boss 10, 11 or 12 (npm install pg pg-boss; pg-boss@10 on Node 20).`;

export const QUEUE_RUNS_HELP = `tot runs --queue: the runs of the PostgreSQL queue

Usage: tot runs <postgres://…> --queue [--status <status>] [--flow <name>] [--limit <n>] [--json]
       tot runs <postgres://…> --queue answer <run id> --answers '<json>'

Lists runs newest first with their status: queued, running, waiting, finished, failed or cancelled.
A waiting run asked a person: it is listed with the ids of the questions it waits for (--json
gives each question's words, answer schema and preview as "pending").

answer <run id> answers a waiting run's questions and queues it again: a worker goes on with it.
--answers is a JSON object of answers by question id, e.g. '{"operation/approve/plan#ok": true}';
some of the questions are enough (the run waits again for the others). The answers are checked
against the run's recorded log first: a wrong one is refused and nothing is written.

Options:
  --status <status>   only runs with this status (repeat for several)
  --flow <name>       only runs of this flow
  --limit <n>         at most n runs (default ${DEFAULT_LIST_LIMIT})
  --schema <name>     pg-boss's schema (default pgboss)
  --table-prefix <p>  the event store's table prefix, for answer (default tot_)
  --answers <json>    the answers, for answer
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
      'table-prefix': { type: 'string', default: 'tot_' },
      answers: { type: 'string' },
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
  if (positionals[1] === 'answer') return answerCommand(db, positionals.slice(2), values.answers, values.schema, values['table-prefix']);
  if (positionals.length > 1) throw new CommandError(`tot runs --queue takes the database, or the database, answer and a run id; not "${positionals.slice(1).join(' ')}"`);
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
    const detail = (r: QueuedRun) => (r.error ? `${r.error.code}: ${r.error.message}` : r.pending ? `waiting for ${r.pending.map((q) => q.id).join(', ')}` : '');
    const table = [['id', 'flow', 'status', 'attempts', 'submitted', 'detail'], ...runs.map((r) => [r.runId, `${r.flow.name}@${r.flow.version}`, r.status, String(r.attempts), age(r.createdAt), detail(r)])];
    const widths = table[0]!.map((_, i) => extent(table, (row) => row[i]!.length).max);
    for (const row of table) process.stdout.write(`${row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd()}\n`);
    return 0;
  } finally {
    await queue.close();
  }
}

/** `tot runs <db> --queue answer <run id> --answers '<json>'`: answers a waiting run and queues it again. */
async function answerCommand(db: string, rest: string[], answersJson: string | undefined, schema: string, tablePrefix: string): Promise<number> {
  const usage = `tot runs postgres://… --queue answer <run id> --answers '{"<question id>": <answer>}'`;
  if (rest.length !== 1) throw new CommandError(`give one run id: ${usage}`);
  if (answersJson === undefined) throw new CommandError(`give the answers: ${usage}`);
  let answers: unknown;
  try {
    answers = JSON.parse(answersJson);
  } catch (error) {
    throw new CommandError(`--answers is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof answers !== 'object' || answers === null || Array.isArray(answers)) throw new CommandError(`--answers takes a JSON object of answers by question id: ${usage}`);
  const runId = rest[0]!;
  const { PostgresEventStore } = await import('../postgres/postgres-event-store.js');
  const { pgBossQueue } = await import('../queue/pg-boss-queue.js');
  const { TotError } = await import('../errors/index.js');
  // Answering reads the run's log (to check the answers) and writes only the queue's job.
  const store = new PostgresEventStore({ connectionString: db, tablePrefix });
  const queue = pgBossQueue({ connectionString: db, store, schema, maxConnections: 2 });
  try {
    await queue.answer(runId, answers as Record<string, unknown>);
    const count = Object.keys(answers).length;
    process.stdout.write(`Answered ${count === 1 ? 'one question' : `${count} questions`} of run ${runId}: it is queued again, and a worker goes on with it.\n`);
    return 0;
  } catch (error) {
    // A refused answer is the user's to fix: its message alone.
    if (TotError.hasCode(error, 'INVALID_ARGUMENT') || TotError.hasCode(error, 'ILLEGAL_STATE')) throw new CommandError(error.message);
    throw error;
  } finally {
    await queue.close();
    await store.close();
  }
}
