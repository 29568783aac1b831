import { z } from 'zod';
import { TotError, type ProtocolErrorObject } from '../errors/index.js';
import type { EventStore } from '../events/store/types.js';
import { raceAbort, throwIfAborted, whenAborted } from '../internal/abort.js';
import { canonicalJson } from '../internal/canonical-json.js';
import { fnSchema, parseOptions } from '../internal/validate.js';
import { checkInput, isFlow, type Flow } from './flow.js';
import { listOptionsSchema, runIdSchema, signalOnlySchema, statusFilter, submitOptionsSchema } from './queue-options.js';
import { SETTLED, type QueuedRun, type RunQueue, type RunStatus, type SubmitOptions, type WorkOptions } from './queue-types.js';
import { QueueLifecycle, type ParsedWorkOptions } from './queue-lifecycle.js';
import { isQueuedRunIdForm, noSuchRun, queuedRunId } from './run-id.js';
import { NotificationListener } from '../internal/notification-listener.js';
import { ActiveJob, tell, type JobOutcome } from './run-job.js';
import { settledResult } from './settled-result.js';
import { PgBossAdapter, sweepMs, type FetchedJob } from './pg-boss-adapter.js';
import { answersArgSchema, checkAnswersAgainstLog, movedOn, notWaiting } from './waiting-run.js';
import type { Answers, Question } from '../run/question.js';
import { seal, unseal } from './sealed-announcement.js';

/**
 * What {@link pgBossQueue} takes.
 *
 * @example
 * ```ts
 * const queue = pgBossQueue({ connectionString: process.env.DATABASE_URL, store, leaseSeconds: 30 });
 * ```
 */
export interface PgBossQueueOptions {
  /** The PostgreSQL database (the event store's, or another). */
  connectionString: string;
  /** Where runs are recorded: a `PostgresEventStore` shared by every worker. */
  store: EventStore;
  /** The schema of pg-boss's tables; default `pgboss`. */
  schema?: string;
  /**
   * How long a worker's hold on a run lasts without being renewed, in seconds; default 30. A
   * worker renews its runs every fifth of it (so a live worker keeps its runs through four missed
   * renewals); a crashed worker's runs are offered again once it passes (see `takeoverBoundMs`).
   * On pg-boss 12, a lease of 10 s or more is a pg-boss job heartbeat, and a run one worker holds
   * for more than 24 hours in one go is offered again (pg-boss's longest expiry).
   */
  leaseSeconds?: number;
  /** How often an idle worker asks for runs, in ms; default 1000 (a worker with a free slot asks again at once after each run). */
  pollIntervalMs?: number;
  /** How often a worker checks whether its runs were cancelled, in ms, in case it missed `cancel`'s notification (which it acts on at once); default 250. */
  cancelCheckMs?: number;
  /** How often `result` looks whether a run settled, in ms; default 250. */
  resultPollMs?: number;
  /** How many times a run may be handed back or taken over before it is failed; default 25. */
  maxAttempts?: number;
  /** Connections of the queue's own pool; default 4. */
  maxConnections?: number;
  /** Errors of the background work (lease renewal, expiry sweep, pg-boss maintenance, a lost notification connection, which is opened again); default ignored. */
  onError?: (error: unknown) => void;
}

const optionsSchema = z.strictObject({
  connectionString: z.string().min(1),
  store: z.custom<EventStore>((v) => typeof v === 'object' && v !== null && typeof (v as EventStore).append === 'function', 'expected an EventStore'),
  schema: z.string().regex(/^[a-z_][a-z0-9_]{0,50}$/, 'expected a lower-case SQL identifier').default('pgboss'),
  leaseSeconds: z.number().int().min(2).max(3600).default(30),
  pollIntervalMs: z.number().int().min(50).max(60_000).default(1000),
  cancelCheckMs: z.number().int().min(50).max(10_000).default(250),
  resultPollMs: z.number().int().min(20).max(60_000).default(250),
  maxAttempts: z.number().int().min(1).max(1000).default(25),
  maxConnections: z.number().int().min(2).max(100).default(4),
  onError: fnSchema<(error: unknown) => void>().optional(),
});

type Options = z.output<typeof optionsSchema>;

/** The job data of a run. */
interface RunData {
  flow: string;
  version: number;
  input: unknown;
  key?: string;
  /** The answers `answer` queued the run with, kept until the next ones (a worker drops those its log holds). */
  answers?: Answers;
}

/** What a worker completes a job with. */
interface RunOutput {
  status?: 'finished' | 'waiting' | 'failed';
  result?: unknown;
  error?: ProtocolErrorObject;
  handedBack?: boolean;
  /** A waiting run's pending questions, and the log version it waits at. */
  pending?: Question[];
  logVersion?: number;
}

interface JobRow {
  id: string;
  name: string;
  state: 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed';
  data: RunData;
  output: (RunOutput & { value?: { message?: string } }) | null;
  retry_count: number;
  created_on: Date;
  completed_on: Date | null;
}

/** The longest announcement sent in full (PostgreSQL's limit is 8000 bytes; a sealed one is ASCII). */
const NOTIFY_PAYLOAD_CHARS = 7900;

/** PostgreSQL's code of a transaction it failed to break a deadlock. */
const DEADLOCK = '40P01';

/** The columns of a job the queue reads. */
const COLUMNS = 'id, name, state, data, output, retry_count, created_on, completed_on';

const QUEUE_PREFIX = 'tot.';
const queueOf = (flow: string) => `${QUEUE_PREFIX}${flow}`;

/** The PostgreSQL conditions of each status, on pg-boss's job columns and the output a worker writes. */
const STATUS_SQL: Record<RunStatus, string> = {
  queued: `state IN ('created', 'retry')`,
  running: `state = 'active'`,
  cancelled: `state = 'cancelled'`,
  failed: `(state = 'failed' OR (state = 'completed' AND output->>'status' = 'failed'))`,
  finished: `(state = 'completed' AND output->>'status' = 'finished')`,
  waiting: `(state = 'completed' AND output->>'status' = 'waiting')`,
};

/** A settled (or not yet settled) run as `result()` reads it: from its job, or from a worker's announcement. */
interface Outcome {
  runId: string;
  status: RunStatus;
  result?: unknown;
  error?: ProtocolErrorObject;
}

function outcomeOf(row: JobRow, maxAttempts: number): Outcome {
  const info = toQueuedRun(row, maxAttempts);
  return { runId: info.runId, status: info.status, result: row.output?.result, ...(info.error ? { error: info.error } : {}) };
}

function toQueuedRun(row: JobRow, maxAttempts: number): QueuedRun {
  let status: RunStatus;
  let error: ProtocolErrorObject | undefined;
  switch (row.state) {
    case 'created':
    case 'retry':
      status = 'queued';
      break;
    case 'active':
      status = 'running';
      break;
    case 'cancelled':
      status = 'cancelled';
      break;
    case 'failed':
      status = 'failed';
      error = row.output?.error ?? {
        code: 'INTERNAL',
        message: row.output?.handedBack
          ? `The run was handed back ${maxAttempts} times (the queue's maxAttempts) without finishing.`
          : `No worker finished the run in ${maxAttempts} attempts: each worker that took it crashed or lost it (${row.output?.value?.message ?? 'lease expired'}).`,
        recoverable: false,
      };
      break;
    default:
      status = row.output?.status ?? 'finished';
      if (status === 'failed') error = row.output?.error;
  }
  const info: QueuedRun = {
    runId: row.id,
    flow: { name: row.data.flow, version: row.data.version },
    status,
    attempts: row.retry_count + (row.state === 'completed' || row.state === 'failed' ? 1 : 0),
    createdAt: new Date(row.created_on),
  };
  if (row.data.key !== undefined) info.key = row.data.key;
  if (SETTLED.has(status) && row.completed_on) info.settledAt = new Date(row.completed_on);
  if (error) info.error = error;
  if (status === 'waiting') info.pending = row.output?.pending ?? [];
  return info;
}

/**
 * A queue of runs on PostgreSQL, through pg-boss (an optional peer: `npm install pg-boss@12` on
 * Node 22.12 and later, `pg-boss@11` on Node 22.0 to 22.11, `pg-boss@10` on Node 20; the queue
 * tells the major from the instance): any process submits, every worker takes runs with `SKIP LOCKED`, and the event store
 * stays the runs' only journal (the queue hands out run ids). A worker holds each run on a lease it
 * renews (pg-boss 12's job heartbeat for leases of 10 s or more, the job's expiry otherwise); a
 * worker that stops gracefully hands its runs back at once, and a crashed worker's runs are offered
 * again once its lease passes: within `leaseSeconds` + a third of it (at least 1.5 s) +
 * `pollIntervalMs` (about 41 s with the defaults, on every major). A run driven twice is harmless:
 * the run kernel's resume claim lets exactly one driver write, and no model call it recorded is
 * made again.
 *
 * @example
 * ```ts
 * import { PostgresEventStore } from '@tot/core/postgres';
 * import { pgBossQueue } from '@tot/core/queue';
 *
 * const store = new PostgresEventStore({ connectionString: process.env.DATABASE_URL! });
 * await store.setup();
 * const queue = pgBossQueue({ connectionString: process.env.DATABASE_URL!, store });
 * const runId = await queue.submit(game24, { numbers: '4 9 10 13' }, { key: 'request-81' });
 * console.log(await queue.result(runId, { signal: AbortSignal.timeout(120_000) }));
 * ```
 */
export function pgBossQueue(options: PgBossQueueOptions): RunQueue & { readonly takeoverBoundMs: number } {
  return new PgBossQueue(parseOptions(optionsSchema, options, 'pgBossQueue'));
}

class PgBossQueue implements RunQueue {
  private boss: Promise<PgBossAdapter> | undefined;
  private readonly queues = new Map<string, Promise<void>>();
  /** The queue creation under way, which the next one waits for. */
  private creating: Promise<void> = Promise.resolve();
  private readonly lifecycle = new QueueLifecycle();

  private readonly listener: NotificationListener;
  /** Notified with a flow's name when a run of it is submitted, and when a run settles with its sealed outcome or its id (see `complete` in workLoop). */
  private readonly channels: { submitted: string; settled: string };

  constructor(private readonly o: Options) {
    this.listener = new NotificationListener(o.connectionString, (error) => o.onError?.(error), this.lifecycle.closing);
    this.channels = { submitted: `tot_submitted_${o.schema}`, settled: `tot_settled_${o.schema}` };
  }

  private notify(channel: string, payload: string): Promise<void> {
    return this.sql('SELECT pg_notify($1, $2)', [channel, payload]).then(
      () => undefined,
      (error: unknown) => this.o.onError?.(error),
    );
  }

  /** The longest a crashed worker's runs wait before another worker can take them, in ms (the same on every pg-boss major). */
  get takeoverBoundMs(): number {
    return this.o.leaseSeconds * 1000 + sweepMs(this.o.leaseSeconds) + this.o.pollIntervalMs;
  }

  /** The schema's announcement key, once pg-boss has started. */
  private announceKey: Buffer | undefined;

  private start(): Promise<PgBossAdapter> {
    // A closed queue opens no new connection (a late poll would otherwise leak a pool).
    if (this.lifecycle.closing.aborted && this.boss === undefined) return Promise.reject(new TotError('ILLEGAL_STATE', 'The queue is closed.'));
    this.boss ??= PgBossAdapter.open({ ...this.o, onError: (error) => this.o.onError?.(error) }).then((adapter) => {
      this.announceKey = adapter.announceKey;
      return adapter;
    });
    this.boss.catch(() => undefined);
    return this.boss;
  }

  private async sql<T>(text: string, values: unknown[]): Promise<T[]> {
    const { boss } = await this.start();
    const { rows } = await boss.getDb().executeSql(text, values);
    return rows as T[];
  }

  /** `SELECT columns` of the jobs matching `where`, live or settled, from each table pg-boss keeps them in. */
  private async jobs<T>(columns: string, where: string, values: unknown[]): Promise<T[]> {
    const { tables } = await this.start();
    return this.sql<T>(tables.map((table) => `SELECT ${columns} FROM ${this.o.schema}.${table} WHERE ${where}`).join(' UNION ALL '), values);
  }

  private ensureQueue(pgBoss: PgBossAdapter, flow: string): Promise<void> {
    let ready = this.queues.get(flow);
    if (!ready) {
      // One at a time: pg-boss 10 gives each queue a partition of its own, and two partitions
      // created at once deadlock. Another process creating one at the same time may still
      // deadlock with this one: PostgreSQL then fails one of the two, which tries again.
      const create = async () => {
        for (let attempt = 1; ; attempt++) {
          try {
            return await pgBoss.boss.createQueue(queueOf(flow), { name: queueOf(flow), ...pgBoss.jobOptions() });
          } catch (error) {
            if ((error as { code?: unknown }).code !== DEADLOCK || attempt === 5) throw error;
          }
        }
      };
      ready = this.creating.then(create, create);
      this.creating = ready.catch(() => undefined);
      this.queues.set(flow, ready);
      ready.catch(() => this.queues.delete(flow));
    }
    return ready;
  }

  async submit<I>(flow: Flow<I, unknown>, input: I, options: SubmitOptions = {}): Promise<string> {
    if (!isFlow(flow)) throw new TotError('INVALID_ARGUMENT', 'submit: flow: expected a flow from defineFlow', { details: { field: 'flow' } });
    const o = parseOptions(submitOptionsSchema, options, 'submit');
    throwIfAborted(o.signal, 'submit');
    this.lifecycle.checkOpen('submit');
    const checked = await checkInput(flow as Flow, input, 'submit');
    const runId = queuedRunId(flow.name, o.key);
    const data: RunData = { flow: flow.name, version: flow.version, input: checked, ...(o.key === undefined ? {} : { key: o.key }) };
    return raceAbort(
      (async () => {
        const pgBoss = await this.start();
        await this.ensureQueue(pgBoss, flow.name);
        const sent = await pgBoss.boss.send(queueOf(flow.name), data as unknown as object, { id: runId, priority: o.priority ?? 0, ...pgBoss.jobOptions() });
        if (sent !== null) {
          await this.notify(this.channels.submitted, flow.name);
          return runId;
        }
        // The key was used before: the same run, unless its flow version or input differ.
        const existing = await this.find(runId);
        if (existing && (existing.data.version !== flow.version || canonicalJson(existing.data.input) !== canonicalJson(checked))) {
          throw new TotError('IDEMPOTENCY_CONFLICT', `submit: key "${o.key}" was used for run "${runId}" with another input or flow version.`, { details: { runId } as never });
        }
        return runId;
      })(),
      o.signal,
      'submit',
    );
  }

  /** The job of a run, live or settled (in pg-boss 10's archive too); `undefined` when unknown. */
  private async find(runId: string): Promise<JobRow | undefined> {
    const rows = await this.jobs<JobRow>(COLUMNS, `name IN (SELECT name FROM ${this.o.schema}.queue WHERE name LIKE 'tot.%') AND id = $1::uuid`, [runId]);
    return rows[0];
  }

  private async get(runId: unknown, where: string, signal: AbortSignal | undefined): Promise<JobRow> {
    const id = parseOptions(runIdSchema, runId, where, 'runId');
    const row = isQueuedRunIdForm(id) ? await raceAbort(this.find(id), signal, where) : undefined;
    if (!row) throw noSuchRun(where, id);
    return row;
  }

  async status(runId: string, options: { signal?: AbortSignal } = {}): Promise<QueuedRun> {
    const o = parseOptions(signalOnlySchema, options, 'status');
    return toQueuedRun(await this.get(runId, 'status', o.signal), this.o.maxAttempts);
  }

  async result(runId: string, options: { signal?: AbortSignal } = {}): Promise<unknown> {
    const o = parseOptions(signalOnlySchema, options, 'result');
    const given = parseOptions(runIdSchema, runId, 'result', 'runId');
    throwIfAborted(o.signal, 'result');
    // Not a run id this queue hands out: no run to wait for.
    if (!isQueuedRunIdForm(given)) throw noSuchRun('result', given);
    const id = given.toLowerCase();
    // Waited for before the job is read, so that a settle announced meanwhile is not missed; one
    // poll and one listener for every run waited on in this process, not one per waiter.
    let waiter!: (settled: Outcome) => void;
    const settled = new Promise<Outcome>((resolve) => (waiter = resolve));
    const list = this.waiting.get(id) ?? new Set();
    list.add(waiter);
    this.waiting.set(id, list);
    this.pollResults();
    let outcome: Outcome;
    try {
      const row = await this.get(given, 'result', o.signal);
      outcome = outcomeOf(row, this.o.maxAttempts);
      if (!SETTLED.has(outcome.status)) outcome = await raceAbort(settled, o.signal, 'result');
    } finally {
      list.delete(waiter);
      if (list.size === 0 && this.waiting.get(id) === list) this.waiting.delete(id);
      // Nobody waits any more: the poll ends now rather than at its next turn.
      if (this.waiting.size === 0) this.wakePoll?.();
    }
    return settledResult(outcome.runId, outcome.status, outcome.result ?? null, outcome.error);
  }

  private readonly waiting = new Map<string, Set<(outcome: Outcome) => void>>();
  private polling = false;
  /** Ends the poll's wait: a look now (or the poll's end, when nobody waits). */
  private wakePoll: (() => void) | undefined;

  /**
   * Waits for the runs waited on to settle: told by the workers' notifications, and looking every
   * `resultPollMs` in one query in case one was missed (sent before this process listened, or
   * while its connection was down). Stops when nobody waits.
   */
  private pollResults(): void {
    if (this.polling) return;
    this.polling = true;
    // A look at once when the listener starts listening (a run may have settled before), not when
    // it already listened: a waiter is registered before its job is read.
    let look = false;
    let registering = true;
    // `undefined` after the listener reconnected: a run may have settled unnoticed meanwhile.
    // A finished or failed run's announcement carries its outcome, sealed with the schema's key;
    // any other (a cancel's, a waiting run's, one too large for a notification) is its run id,
    // and the poll reads the job. A payload that is neither (sealed with another key, forged) is
    // no outcome; it only makes the poll look.
    const unlisten = this.listener.listen(
      this.channels.settled,
      (payload) => {
        const key = this.announceKey;
        const announced = payload === undefined || key === undefined ? undefined : unseal(key, payload);
        if (announced === undefined) {
          if (payload === undefined || !isQueuedRunIdForm(payload) || this.waiting.has(payload)) {
            look = true;
            this.wakePoll?.();
          }
          return;
        }
        for (const waiter of [...(this.waiting.get(announced.runId) ?? [])]) waiter(announced);
      },
      () => {
        if (registering) return;
        look = true;
        this.wakePoll?.();
      },
    );
    registering = false;
    void (async () => {
      try {
        while (this.waiting.size > 0 && !this.lifecycle.closing.aborted) {
          if (!look) {
            await new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, this.o.resultPollMs);
              this.wakePoll = () => {
                clearTimeout(timer);
                resolve();
              };
            });
          }
          this.wakePoll = undefined;
          look = false;
          if (this.waiting.size === 0 || this.lifecycle.closing.aborted) break;
          const ids = [...this.waiting.keys()];
          let rows: JobRow[] = [];
          try {
            rows = await this.jobs<JobRow>(COLUMNS, `name LIKE 'tot.%' AND id = ANY($1::uuid[]) AND state IN ('completed', 'cancelled', 'failed')`, [ids]);
          } catch (error) {
            this.o.onError?.(error);
          }
          for (const row of rows) for (const waiter of [...(this.waiting.get(row.id) ?? [])]) waiter(outcomeOf(row, this.o.maxAttempts));
        }
      } finally {
        this.wakePoll = undefined;
        unlisten();
        this.polling = false;
      }
    })();
  }

  async cancel(runId: string, options: { signal?: AbortSignal } = {}): Promise<boolean> {
    const o = parseOptions(signalOnlySchema, options, 'cancel');
    const row = await this.get(runId, 'cancel', o.signal);
    const { boss } = await this.start();
    // The worker driving it hears of it at once (or sees the state within cancelCheckMs) and aborts the run.
    const done = await raceAbort(boss.cancel(row.name, row.id), o.signal, 'cancel');
    await this.notify(this.channels.settled, row.id);
    return (done?.affected ?? 0) > 0;
  }

  async answer(runId: string, answers: Answers, options: { signal?: AbortSignal } = {}): Promise<void> {
    const o = parseOptions(signalOnlySchema, options, 'answer');
    const given = parseOptions(answersArgSchema, answers, 'answer', 'answers');
    throwIfAborted(o.signal, 'answer');
    this.lifecycle.checkOpen('answer');
    const row = await this.get(runId, 'answer', o.signal);
    const info = toQueuedRun(row, this.o.maxAttempts);
    if (info.status !== 'waiting') throw notWaiting(row.id, info.status);
    const at = await checkAnswersAgainstLog(this.o.store, row.id, given, o.signal);
    if (row.output?.logVersion !== at) throw movedOn(row.id);
    // Queued again only while it still waits where its answers were checked: of two answers, one wins.
    const pgBoss = await this.start();
    const queued = await raceAbort(this.sql<{ id: string }>(pgBoss.requeueSql(), [row.name, row.id, at, JSON.stringify(given)]), o.signal, 'answer');
    if (queued.length === 0) throw movedOn(row.id);
    await this.notify(this.channels.submitted, row.data.flow);
  }

  async list(options: { status?: RunStatus | RunStatus[]; flow?: string; limit?: number; signal?: AbortSignal } = {}): Promise<QueuedRun[]> {
    const o = parseOptions(listOptionsSchema, options, 'list');
    const wanted = statusFilter(o.status);
    const where = [o.flow === undefined ? `name LIKE 'tot.%'` : 'name = $2', ...(wanted ? [`(${[...wanted].map((w) => STATUS_SQL[w]).join(' OR ')})`] : [])].join(' AND ');
    const values: unknown[] = [o.limit, ...(o.flow === undefined ? [] : [queueOf(o.flow)])];
    const { tables } = await raceAbort(this.start(), o.signal, 'list');
    const runs = tables.map((table) => `SELECT ${COLUMNS} FROM ${this.o.schema}.${table} WHERE ${where}`).join(' UNION ALL ');
    const rows = await raceAbort(this.sql<JobRow>(`SELECT * FROM (${runs}) runs ORDER BY created_on DESC, id LIMIT $1`, values), o.signal, 'list');
    return rows.map((row) => toQueuedRun(row, this.o.maxAttempts));
  }

  work(options: WorkOptions): Promise<void> {
    return this.lifecycle.work(options, (o) => this.workLoop(o));
  }

  async close(): Promise<void> {
    this.lifecycle.close();
    await this.lifecycle.drained();
    await this.listener.close();
    const boss = this.boss;
    this.boss = undefined;
    if (boss) await (await boss.catch(() => undefined))?.boss.stop({ graceful: false, close: true, wait: true });
  }

  private async workLoop(o: ParsedWorkOptions): Promise<void> {
    const pgBoss = await this.start();
    const { boss } = pgBoss;
    const flows = new Map<string, Flow>(o.flows.map((f) => [f.name, f as Flow]));
    await Promise.all([...flows.keys()].map((name) => this.ensureQueue(pgBoss, name)));
    const stop = new AbortController();
    const stopNow = () => stop.abort();
    const unlisten = o.signal ? whenAborted(o.signal, stopNow) : undefined;
    const unlistenClose = whenAborted(this.lifecycle.closing, stopNow);
    // Jobs this worker drives, by run id, and their queue.
    const jobs = new Map<string, { job: ActiveJob; queue: string; done: Promise<void> }>();
    let wake: (() => void) | undefined;
    // Set by a nudge that came while the loop was not waiting (during a fetch): the loop does not wait then.
    let nudged = false;
    const nudge = () => {
      nudged = true;
      wake?.();
    };
    // `undefined` after the listener reconnected: a run may have been submitted unnoticed meanwhile.
    const unlistenSubmitted = this.listener.listen(this.channels.submitted, (flow) => {
      if (flow === undefined || flows.has(flow)) nudge();
    });
    // The worker's own controller: it and the listener go when the worker ends.
    whenAborted(stop.signal, () => {
      for (const { job } of jobs.values()) job.handBack();
      nudge();
    });

    const report = (error: unknown) => this.o.onError?.(error);
    const timers: ReturnType<typeof setInterval>[] = [];
    // Renews the lease of every run this worker drives (a job heartbeat or its expiry, by major).
    timers.push(
      setInterval(() => {
        if (jobs.size === 0) return;
        const held = new Map<string, string[]>();
        for (const [id, { queue }] of jobs) held.set(queue, [...(held.get(queue) ?? []), id]);
        pgBoss.renew(held).catch(report);
      }, Math.ceil((this.o.leaseSeconds * 1000) / 5)),
    );
    // Offers again the runs of workers whose lease passed.
    timers.push(setInterval(() => void pgBoss.sweep().catch(report), sweepMs(this.o.leaseSeconds)));
    // Aborts the runs cancelled elsewhere: at once when `cancel` announces one of this worker's
    // runs (its run id on the settled channel), and every cancelCheckMs in case an announcement
    // was missed.
    const checkCancelled = () => {
      const ids = [...jobs.keys()];
      if (ids.length === 0) return;
      const names = [...new Set([...jobs.values()].map((j) => j.queue))];
      this.sql<{ id: string }>(`SELECT id FROM ${this.o.schema}.job WHERE name = ANY($1::text[]) AND id = ANY($2::uuid[]) AND state = 'cancelled'`, [names, ids])
        .then((rows) => {
          for (const { id } of rows) jobs.get(id)?.job.cancel();
        })
        .catch(report);
    };
    timers.push(setInterval(checkCancelled, this.o.cancelCheckMs));
    // `undefined` after the listener reconnected: a cancel may have been announced unnoticed meanwhile.
    const unlistenSettled = this.listener.listen(this.channels.settled, (payload) => {
      if (payload === undefined || jobs.has(payload)) checkCancelled();
    });
    for (const t of timers) (t as { unref?: () => void }).unref?.();

    const settle = async (queue: string, job: ActiveJob, outcome: JobOutcome): Promise<void> => {
      const id = job.spec.runId;
      switch (outcome.kind) {
        case 'handed-back':
          // Offered again at once (a hand-back counts as an attempt).
          await boss.fail(queue, id, { handedBack: true } satisfies RunOutput);
          return;
        case 'lost':
        case 'cancelled':
          // Another worker holds it now, or it is cancelled already: not this worker's to settle.
          return;
        case 'failed':
          // Settled without a retry: a flow that fails fails the same way again.
          return complete(queue, id, { status: 'failed', error: outcome.error });
        case 'waiting':
          return complete(queue, id, { status: 'waiting', result: outcome.result, pending: outcome.pending, ...(outcome.logVersion === undefined ? {} : { logVersion: outcome.logVersion }) });
        default:
          return complete(queue, id, { status: outcome.kind, result: outcome.result });
      }
    };
    // A finished or failed run's announcement carries its outcome, sealed, so that a waiting
    // result() reads nothing more (from the worker settling to result() returning took 1.6–2.2 ms
    // with a read, the queue benchmark); one too large for a notification, and a waiting run's
    // (which `answer` may queue again, so that a late one could be out of date), carry the run id,
    // and the waiter reads the job.
    const complete = async (queue: string, id: string, output: RunOutput): Promise<void> => {
      let announced = id;
      if (output.status === 'finished' || output.status === 'failed') {
        const sealed = seal(pgBoss.announceKey, { runId: id, status: output.status, ...(output.status === 'finished' ? { result: output.result } : { error: output.error }) });
        if (sealed.length <= NOTIFY_PAYLOAD_CHARS) announced = sealed;
      }
      await boss.getDb().executeSql(pgBoss.completeSql(), [queue, id, JSON.stringify(output), this.channels.settled, announced]);
    };

    const drive = (queue: string, row: FetchedJob<RunData>) => {
      const data = row.data;
      const spec = { runId: row.id, flow: data.flow, version: data.version, input: data.input, attempt: row.retryCount, ...(data.answers ? { answers: data.answers } : {}) };
      const job = new ActiveJob(spec, flows.get(data.flow), this.o.store);
      if (stop.signal.aborted) job.handBack();
      tell(o.onRun, { runId: row.id, flow: data.flow, outcome: 'started', resumed: false });
      const done = job
        .run()
        .then(async (outcome) => {
          await settle(queue, job, outcome).catch(report);
          tell(o.onRun, { runId: row.id, flow: data.flow, outcome: outcome.kind, resumed: job.resumed });
        })
        .finally(() => {
          jobs.delete(row.id);
          nudge();
        });
      jobs.set(row.id, { job, queue, done });
    };

    const names = [...flows.keys()];
    let turn = 0;
    try {
      while (!stop.signal.aborted) {
        nudged = false;
        let fetched = 0;
        for (let i = 0; i < names.length && jobs.size < o.concurrency && !stop.signal.aborted; i++) {
          const queue = queueOf(names[(turn + i) % names.length]!);
          let rows: FetchedJob<RunData>[] = [];
          try {
            rows = ((await boss.fetch(queue, { batchSize: o.concurrency - jobs.size, includeMetadata: true })) ?? []) as FetchedJob<RunData>[];
          } catch (error) {
            report(error);
          }
          fetched += rows.length;
          for (const row of rows) drive(queue, row);
        }
        turn += 1;
        if (stop.signal.aborted) break;
        // Full, or nothing to take: wait for a free slot, a stop, or the next poll.
        if ((jobs.size >= o.concurrency || fetched === 0) && !nudged) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, jobs.size >= o.concurrency ? 60_000 : this.o.pollIntervalMs);
            wake = () => {
              clearTimeout(timer);
              wake = undefined;
              resolve();
            };
          });
        }
      }
    } finally {
      for (const t of timers) clearInterval(t);
      unlistenSubmitted();
      unlistenSettled();
      unlisten?.();
      unlistenClose();
      for (const { job } of jobs.values()) job.handBack();
      await Promise.allSettled([...jobs.values()].map((j) => j.done));
    }
  }

}
