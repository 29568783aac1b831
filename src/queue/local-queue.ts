import { z } from 'zod';
import { TotError } from '../errors/index.js';
import type { EventStore } from '../events/store/types.js';
import { InMemoryEventStore } from '../events/store/in-memory-event-store.js';
import { raceAbort, throwIfAborted, whenAborted } from '../internal/abort.js';
import { canonicalJson } from '../internal/canonical-json.js';
import { parseOptions } from '../internal/validate.js';
import { checkInput, isFlow, type Flow } from './flow.js';
import { listOptionsSchema, runIdSchema, signalOnlySchema, statusFilter, submitOptionsSchema } from './queue-options.js';
import { SETTLED, type QueuedRun, type RunQueue, type RunStatus, type SubmitOptions, type WorkOptions } from './queue-types.js';
import { QueueLifecycle, type ParsedWorkOptions } from './queue-lifecycle.js';
import { noSuchRun, queuedRunId } from './run-id.js';
import { ActiveJob, tell, type JobOutcome } from './run-job.js';
import { settledResult } from './settled-result.js';
import { answersArgSchema, checkAnswersAgainstLog, movedOn, notWaiting } from './waiting-run.js';
import type { Answers } from '../run/question.js';

/**
 * What {@link localQueue} takes.
 *
 * @example
 * ```ts
 * const queue = localQueue({ store: new SqliteEventStore({ path: './runs.db' }) });
 * ```
 */
export interface LocalQueueOptions {
  /** Where runs are recorded; default a new `InMemoryEventStore`. */
  store?: EventStore;
}

const optionsSchema = z.strictObject({
  store: z.custom<EventStore>((v) => typeof v === 'object' && v !== null && typeof (v as EventStore).append === 'function', 'expected an EventStore').optional(),
});

/** A run's info as a caller gets it: its own copy. */
const copyOf = (info: QueuedRun): QueuedRun => ({ ...info, ...(info.pending ? { pending: structuredClone(info.pending) } : {}) });

interface LocalRun {
  info: QueuedRun;
  input: unknown;
  inputKey: string;
  priority: number;
  seq: number;
  result?: unknown;
  active?: ActiveJob;
  waiters: Set<() => void>;
  /** The answers `answer` queued the run with, kept until the next ones (a worker drops those its log holds). */
  answers?: Answers;
  /** The log version a waiting run waits at. */
  waitingAt?: number;
}

/**
 * A queue of runs in one process, with the interface of the PostgreSQL one: for tests and for
 * a single machine. Its queue lives in memory (a restarted process forgets queued runs; their
 * recorded events stay in the store, and a run submitted again under its key resumes from them).
 *
 * @example
 * ```ts
 * import { localQueue } from '@tot/core/queue';
 *
 * const queue = localQueue();
 * const worker = queue.work({ flows: [game24], concurrency: 4 });
 * const runId = await queue.submit(game24, { numbers: '4 9 10 13' });
 * console.log(await queue.result(runId));
 * await queue.close();
 * ```
 */
export function localQueue(options: LocalQueueOptions = {}): RunQueue {
  const o = parseOptions(optionsSchema, options, 'localQueue');
  return new LocalQueue(o.store ?? new InMemoryEventStore());
}

class LocalQueue implements RunQueue {
  private readonly runs = new Map<string, LocalRun>();
  private seq = 0;
  private readonly wakers = new Set<() => void>();
  private readonly lifecycle = new QueueLifecycle();

  constructor(private readonly store: EventStore) {}

  async submit<I>(flow: Flow<I, unknown>, input: I, options: SubmitOptions = {}): Promise<string> {
    if (!isFlow(flow)) throw new TotError('INVALID_ARGUMENT', 'submit: flow: expected a flow from defineFlow', { details: { field: 'flow' } });
    const o = parseOptions(submitOptionsSchema, options, 'submit');
    throwIfAborted(o.signal, 'submit');
    this.lifecycle.checkOpen('submit');
    const checked = await checkInput(flow as Flow, input, 'submit');
    const runId = queuedRunId(flow.name, o.key);
    const inputKey = canonicalJson(checked);
    const existing = this.runs.get(runId);
    if (existing) {
      if (existing.inputKey !== inputKey || existing.info.flow.version !== flow.version) {
        throw new TotError('IDEMPOTENCY_CONFLICT', `submit: key "${o.key}" was used for run "${runId}" with another input or flow version.`, { details: { runId } as never });
      }
      return runId;
    }
    const info: QueuedRun = { runId, flow: { name: flow.name, version: flow.version }, status: 'queued', attempts: 0, createdAt: new Date(), ...(o.key === undefined ? {} : { key: o.key }) };
    this.runs.set(runId, { info, input: checked, inputKey, priority: o.priority ?? 0, seq: this.seq++, waiters: new Set() });
    this.wake();
    return runId;
  }

  async status(runId: string, options: { signal?: AbortSignal } = {}): Promise<QueuedRun> {
    parseOptions(signalOnlySchema, options, 'status');
    return copyOf(this.get(runId, 'status').info);
  }

  async result(runId: string, options: { signal?: AbortSignal } = {}): Promise<unknown> {
    const o = parseOptions(signalOnlySchema, options, 'result');
    const run = this.get(runId, 'result');
    throwIfAborted(o.signal, 'result');
    if (!SETTLED.has(run.info.status)) {
      let done!: () => void;
      const settled = new Promise<void>((resolve) => (done = resolve));
      run.waiters.add(done);
      try {
        await raceAbort(settled, o.signal, 'result');
      } finally {
        run.waiters.delete(done);
      }
    }
    return settledResult(runId, run.info.status, run.result, run.info.error);
  }

  async cancel(runId: string, options: { signal?: AbortSignal } = {}): Promise<boolean> {
    parseOptions(signalOnlySchema, options, 'cancel');
    const run = this.get(runId, 'cancel');
    if (SETTLED.has(run.info.status)) return false;
    if (run.active) run.active.cancel();
    else this.settle(run, { kind: 'cancelled' });
    return true;
  }

  async answer(runId: string, answers: Answers, options: { signal?: AbortSignal } = {}): Promise<void> {
    const o = parseOptions(signalOnlySchema, options, 'answer');
    const given = parseOptions(answersArgSchema, answers, 'answer', 'answers');
    throwIfAborted(o.signal, 'answer');
    this.lifecycle.checkOpen('answer');
    const run = this.get(runId, 'answer');
    if (run.info.status !== 'waiting') throw notWaiting(run.info.runId, run.info.status);
    const at = await checkAnswersAgainstLog(this.store, run.info.runId, given, o.signal);
    // Another answer queued the run meanwhile, or its log moved on: these answers were checked against another log.
    if (run.info.status !== 'waiting' || run.waitingAt !== at) throw movedOn(run.info.runId);
    run.answers = given;
    run.info.status = 'queued';
    // As on PostgreSQL: a wait counts as no attempt once the run goes on (attempts count crashes and hand-backs).
    run.info.attempts -= 1;
    delete run.info.settledAt;
    delete run.info.pending;
    delete run.waitingAt;
    this.wake();
  }

  async list(options: { status?: RunStatus | RunStatus[]; flow?: string; limit?: number; signal?: AbortSignal } = {}): Promise<QueuedRun[]> {
    const o = parseOptions(listOptionsSchema, options, 'list');
    const wanted = statusFilter(o.status);
    const out: QueuedRun[] = [];
    const all = [...this.runs.values()].sort((a, b) => b.seq - a.seq);
    for (const run of all) {
      if (wanted && !wanted.has(run.info.status)) continue;
      if (o.flow !== undefined && run.info.flow.name !== o.flow) continue;
      out.push(copyOf(run.info));
      if (out.length >= o.limit) break;
    }
    return out;
  }

  work(options: WorkOptions): Promise<void> {
    return this.lifecycle.work(options, (o) => this.workLoop(o));
  }

  async close(): Promise<void> {
    this.lifecycle.close();
    this.wake();
    await this.lifecycle.drained();
  }

  private async workLoop(o: ParsedWorkOptions): Promise<void> {
    const flows = new Map<string, Flow>(o.flows.map((f) => [f.name, f as Flow]));
    const active = new Set<Promise<void>>();
    const stopped = () => o.signal?.aborted === true || this.lifecycle.closing.aborted;
    const jobs = new Set<ActiveJob>();
    const stopAll = () => {
      for (const job of jobs) job.handBack();
      this.wake();
    };
    const unlisten = o.signal ? whenAborted(o.signal, stopAll) : undefined;
    const unlistenClose = whenAborted(this.lifecycle.closing, stopAll);
    try {
      while (!stopped()) {
        const next = active.size < o.concurrency ? this.take(flows) : undefined;
        if (next) {
          const spec = { runId: next.info.runId, flow: next.info.flow.name, version: next.info.flow.version, input: next.input, attempt: next.info.attempts, ...(next.answers ? { answers: next.answers } : {}) };
          const job = new ActiveJob(spec, flows.get(next.info.flow.name), this.store);
          next.active = job;
          next.info.status = 'running';
          jobs.add(job);
          tell(o.onRun, { runId: next.info.runId, flow: next.info.flow.name, outcome: 'started', resumed: false });
          const drive = job.run().then((outcome) => {
            jobs.delete(job);
            next.active = undefined;
            this.settle(next, outcome);
            tell(o.onRun, { runId: next.info.runId, flow: next.info.flow.name, outcome: outcome.kind, resumed: job.resumed });
          });
          const tracked: Promise<void> = drive.finally(() => {
            active.delete(tracked);
            this.wake();
          });
          active.add(tracked);
          continue;
        }
        await new Promise<void>((resolve) => {
          this.wakers.add(resolve);
        });
      }
    } finally {
      unlisten?.();
      unlistenClose();
      stopAll();
      await Promise.allSettled([...active]);
    }
  }

  /** The next queued run of one of `flows`: highest priority, then oldest. */
  private take(flows: ReadonlyMap<string, Flow>): LocalRun | undefined {
    let best: LocalRun | undefined;
    for (const run of this.runs.values()) {
      if (run.info.status !== 'queued' || !flows.has(run.info.flow.name)) continue;
      if (!best || run.priority > best.priority || (run.priority === best.priority && run.seq < best.seq)) best = run;
    }
    return best;
  }

  private settle(run: LocalRun, outcome: JobOutcome): void {
    switch (outcome.kind) {
      case 'handed-back':
        run.info.status = 'queued';
        run.info.attempts += 1;
        this.wake();
        return;
      case 'lost':
        // One process drives a local run at a time: a lost claim means another program shares the store and took the run.
        run.info.status = 'failed';
        run.info.error = { code: 'EXPECTED_VERSION_CONFLICT', message: `Run "${run.info.runId}" is driven by another program sharing the store.`, recoverable: true };
        break;
      case 'failed':
        run.info.status = 'failed';
        run.info.error = outcome.error;
        break;
      case 'cancelled':
        run.info.status = 'cancelled';
        break;
      case 'waiting':
        run.info.status = 'waiting';
        run.info.pending = outcome.pending;
        run.result = outcome.result;
        if (outcome.logVersion !== undefined) run.waitingAt = outcome.logVersion;
        break;
      default:
        run.info.status = outcome.kind;
        run.result = outcome.result;
    }
    run.info.attempts += 1;
    run.info.settledAt = new Date();
    for (const waiter of run.waiters) waiter();
  }

  private wake(): void {
    const wakers = [...this.wakers];
    this.wakers.clear();
    for (const w of wakers) w();
  }

  private get(runId: string, where: string): LocalRun {
    const id = parseOptions(runIdSchema, runId, where, 'runId');
    const run = this.runs.get(id);
    if (!run) throw noSuchRun(where, id);
    return run;
  }

}
