import { TotError, type ProtocolErrorObject } from '../errors/index.js';
import type { EventStore } from '../events/store/types.js';
import { FencedStore } from './fenced-store.js';
import { checkInput, FlowRun, type Flow } from './flow.js';
import type { Answers, Question } from '../run/question.js';
import type { WorkerRunEvent } from './queue-types.js';
import { answersStillPending, waitingAt } from './waiting-run.js';

/** One run as a queue hands it to a worker. */
export interface JobSpec {
  runId: string;
  flow: string;
  version: number;
  input: unknown;
  /** Times a worker took it before. */
  attempt: number;
  /** A person's answers `answer` queued the run with: given to the runner's resume. */
  answers?: Answers;
}

/** How a worker's drive of a run ended. */
export type JobOutcome =
  | { kind: 'finished'; result: unknown }
  /** The run ended waiting for answers: its pending questions, and the log version it waits at (`undefined` when the store holds no log of it). */
  | { kind: 'waiting'; result: unknown; pending: Question[]; logVersion?: number }
  | { kind: 'failed'; error: ProtocolErrorObject }
  | { kind: 'cancelled' }
  /** Another driver holds the run's log now (this worker's lease passed): the job is not this worker's to settle. */
  | { kind: 'lost' }
  /** The worker stopped and gave the run back, its log left open. */
  | { kind: 'handed-back' };

/**
 * Tells a worker's `onRun` what happened: a listener that throws is reported as a process warning,
 * never lets a run's bookkeeping fail.
 */
export function tell(onRun: ((event: WorkerRunEvent) => void) | undefined, event: WorkerRunEvent): void {
  if (!onRun) return;
  try {
    onRun(event);
  } catch (error) {
    process.emitWarning(`A worker's onRun listener threw: ${error instanceof Error ? error.message : String(error)}`, { type: 'TotListenerWarning', code: 'TOT_ON_RUN_ERROR' });
  }
}

const CANCELLED = new TotError('ABORTED', 'The run was cancelled.');
const HANDED_BACK = new TotError('ABORTED', 'The worker stopped; the run was handed back to the queue.');

function protocolError(error: unknown): ProtocolErrorObject {
  if (TotError.isInstance(error)) return error.toProtocolError();
  return { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error), recoverable: false };
}

/** The flow's result as JSON data: what crosses processes, the same for every queue. */
function asJson(result: unknown): unknown {
  if (result === undefined) return null;
  const text = JSON.stringify(result);
  return text === undefined ? null : (JSON.parse(text) as unknown);
}

/**
 * One run driven by a worker: fresh when the store holds no run with its id, resumed when it
 * does (the runner's `resume` continues an interrupted run, or returns a finished one's result
 * without a model call), refused when the worker's flow has another version. It can be
 * cancelled (the run is aborted and its log records it) or handed back (its store is fenced
 * first, so that its log stays open for the next worker).
 */
export class ActiveJob {
  private readonly controller = new AbortController();
  private readonly store: FencedStore;
  private why: 'cancelled' | 'handed-back' | undefined;

  constructor(
    readonly spec: JobSpec,
    private readonly flow: Flow | undefined,
    store: EventStore,
  ) {
    this.store = new FencedStore(store);
  }

  get stopping(): boolean {
    return this.why !== undefined;
  }

  cancel(): void {
    if (this.why) return;
    this.why = 'cancelled';
    this.controller.abort(CANCELLED);
  }

  handBack(): void {
    if (this.why) return;
    this.why = 'handed-back';
    this.store.fence();
    this.controller.abort(HANDED_BACK);
  }

  /** Whether the run was resumed (known once `run` has looked at the store). */
  resumed = false;

  async run(): Promise<JobOutcome> {
    const { spec, flow } = this;
    if (!flow) {
      return { kind: 'failed', error: { code: 'INVALID_ARGUMENT', message: `This worker has no flow named "${spec.flow}".`, recoverable: false } };
    }
    if (flow.version !== spec.version) {
      return {
        kind: 'failed',
        error: {
          code: 'RESUME_MISMATCH',
          message: `Run "${spec.runId}" belongs to version ${spec.version} of flow "${spec.flow}"; this worker runs version ${flow.version}. Run it with a worker of version ${spec.version}, or submit it again.`,
          recoverable: false,
        },
      };
    }
    try {
      const input = await checkInput(flow, spec.input, 'worker');
      const signal = this.controller.signal;
      this.resumed = (await this.store.streamVersion(spec.runId)) !== null;
      const answers = this.resumed && spec.answers !== undefined ? await answersStillPending(this.store, spec.runId, spec.answers, signal) : undefined;
      if (signal.aborted) throw signal.reason;
      const result = await flow.run(input, new FlowRun({ store: this.store, runId: spec.runId, signal, resuming: this.resumed, attempt: spec.attempt, ...(answers ? { answers } : {}) }));
      if (this.why === 'handed-back') return { kind: 'handed-back' };
      // The log says whether the run waits (a flow may return its own summary of the runner's
      // result): its last event, as this job appended it, or read back when the job appended none.
      const last = this.store.lastAppended(spec.runId);
      const mayWait = last === undefined || (last.type === 'run.finished' && (last.data as { stopReason?: unknown } | null)?.stopReason === 'waiting');
      const waiting = mayWait ? await waitingAt(this.store, spec.runId, signal) : undefined;
      if (waiting) return { kind: 'waiting', result: asJson(result), pending: waiting.pending, logVersion: waiting.logVersion };
      const r = result as { stopReason?: unknown; pending?: unknown } | null;
      if (r?.stopReason === 'waiting') return { kind: 'waiting', result: asJson(result), pending: Array.isArray(r.pending) ? (asJson(r.pending) as Question[]) : [] };
      return { kind: 'finished', result: asJson(result) };
    } catch (error) {
      if (this.why === 'handed-back') return { kind: 'handed-back' };
      if (this.why === 'cancelled') return { kind: 'cancelled' };
      if (TotError.hasCode(error, 'EXPECTED_VERSION_CONFLICT')) return { kind: 'lost' };
      return { kind: 'failed', error: protocolError(error) };
    }
  }
}
