import type { ProtocolErrorObject } from '../errors/index.js';
import type { Answers, Question } from '../run/question.js';
import type { Flow } from './flow.js';

/**
 * Where a run stands in a queue. `queued`: waiting for a worker (new, or handed back by a worker
 * that stopped or crashed); `running`: a worker drives it; `waiting`: it ended waiting for a
 * person's answer (`stopReason: 'waiting'`) until `answer` queues it again; `finished`: it ended with a result; `failed`: it
 * ended with an error; `cancelled`: `cancel` stopped it.
 *
 * @example
 * ```ts
 * import type { RunStatus } from '@tot/core/queue';
 *
 * const done = (s: RunStatus) => s !== 'queued' && s !== 'running';
 * ```
 */
export type RunStatus = 'queued' | 'running' | 'waiting' | 'finished' | 'failed' | 'cancelled';

/** The statuses `result` resolves at: the run ended (a `waiting` one only leaves through `answer`). */
export const SETTLED: ReadonlySet<RunStatus> = new Set(['waiting', 'finished', 'failed', 'cancelled']);

/**
 * One run as a queue knows it.
 *
 * @example
 * ```ts
 * const info = await queue.status(runId);
 * if (info.status === 'failed') console.error(info.error?.code, info.error?.message);
 * ```
 */
export interface QueuedRun {
  runId: string;
  flow: { name: string; version: number };
  status: RunStatus;
  /** The caller's idempotency key, when it gave one. */
  key?: string;
  /** How many times a worker took the run before this one (crashes, hand-backs). */
  attempts: number;
  createdAt: Date;
  /** When it settled (waiting, finished, failed, cancelled). */
  settledAt?: Date;
  /** Why it failed. */
  error?: ProtocolErrorObject;
  /** A `waiting` run's questions nobody answered yet (id, words, answer schema, preview): answer them with `answer`. */
  pending?: Question[];
}

/**
 * What `submit` takes besides the flow and its input.
 *
 * @example
 * ```ts
 * const runId = await queue.submit(game24, { numbers: '4 9 10 13' }, { key: 'request-81' });
 * ```
 */
export interface SubmitOptions {
  /** An idempotency key: submitting the same flow with the same key again returns the first run's id (with a different input: `IDEMPOTENCY_CONFLICT`). */
  key?: string;
  /** Larger runs are taken first; default 0. */
  priority?: number;
  signal?: AbortSignal;
}

/**
 * What `work` takes.
 *
 * @example
 * ```ts
 * const stop = new AbortController();
 * process.once('SIGTERM', () => stop.abort());
 * await queue.work({ flows: [game24], concurrency: 8, signal: stop.signal });
 * ```
 */
export interface WorkOptions {
  /** The flows this worker runs; it takes runs of these flows only. */
  flows: Flow[];
  /** Runs driven at once by this worker; default 4. */
  concurrency?: number;
  /** Stops the worker: it takes no more runs, hands the runs it drives back to the queue at once, and `work` resolves. */
  signal?: AbortSignal;
  /** Called when a run of this worker settles or is handed back (for logs and metrics). */
  onRun?: (event: WorkerRunEvent) => void;
}

/**
 * What a worker did with a run, for `work`'s `onRun`.
 *
 * @example
 * ```ts
 * await queue.work({ flows, onRun: (e) => console.log(e.runId, e.outcome) });
 * ```
 */
export interface WorkerRunEvent {
  runId: string;
  flow: string;
  /** `started`: the worker took the run; `lost`: another worker drives it now (its lease passed); `handed-back`: the worker stopped. */
  outcome: 'started' | RunStatus | 'lost' | 'handed-back';
  resumed: boolean;
}

/**
 * A queue of runs: `submit` on any process, `work` on each worker, `status`, `result`, `cancel`
 * and `list` anywhere. {@link localQueue} keeps it in one process; `pgBossQueue` shares it
 * across machines through PostgreSQL.
 *
 * @example
 * ```ts
 * const runId = await queue.submit(game24, { numbers: '4 9 10 13' });
 * const result = await queue.result(runId, { signal: AbortSignal.timeout(60_000) });
 * ```
 */
export interface RunQueue {
  /** Queues a run of `flow`; returns its run id (the stream id of its events in the store). */
  submit<I>(flow: Flow<I, unknown>, input: I, options?: SubmitOptions): Promise<string>;
  /** Where the run stands; `INVALID_ARGUMENT` for an id the queue does not know. */
  status(runId: string, options?: { signal?: AbortSignal }): Promise<QueuedRun>;
  /**
   * Waits until the run settles and gives its result as JSON data (what `JSON.stringify` makes of
   * the flow's result). A failed run rejects with its error's code, a cancelled one with `ABORTED`.
   */
  result(runId: string, options?: { signal?: AbortSignal }): Promise<unknown>;
  /** Stops the run wherever it is: a queued run never starts, a running one is aborted (within a second) and recorded as aborted. Returns whether it was stopped. */
  cancel(runId: string, options?: { signal?: AbortSignal }): Promise<boolean>;
  /**
   * Answers questions of a `waiting` run, by question id, and queues the run again: a worker
   * resumes it with the answers. Each answer is checked against the run's log first (a question
   * it waits for, plain JSON, fitting the question's schema): `INVALID_ARGUMENT` otherwise, and
   * nothing is written, the run still waits. A run that is not waiting: `ILLEGAL_STATE`. Answering
   * some of its questions is fine: the run goes on as far as it can and waits again for the rest.
   */
  answer(runId: string, answers: Answers, options?: { signal?: AbortSignal }): Promise<void>;
  /** Runs, newest first: the newest 50 unless `limit` asks for another number (at most 10,000). */
  list(options?: { status?: RunStatus | RunStatus[]; flow?: string; limit?: number; signal?: AbortSignal }): Promise<QueuedRun[]>;
  /** Takes runs of `flows` and drives them until `signal` aborts; resolves once its runs are handed back. */
  work(options: WorkOptions): Promise<void>;
  /** Releases the queue's connections (a `work` still running is stopped first). */
  close(): Promise<void>;
}
