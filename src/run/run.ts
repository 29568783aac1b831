import { Budget, LIMIT_OF, type BudgetLimitName, type BudgetWarning } from '../budget/budget.js';
import { z } from 'zod';
import { chargedUsage } from '../budget/estimate-tokens.js';
import { TotError, type ErrorLocation, type ProtocolErrorObject } from '../errors/index.js';
import type { EventStore } from '../events/store/types.js';
import { abortedError, linkSignals, raceAbort, throwIfAborted, whenAborted } from '../internal/abort.js';
import { jsonSchemaOf, validatorOf, issueSentences, type StandardSchemaV1 } from '../internal/standard-schema.js';
import { parseOptions } from '../internal/validate.js';
import { canonicalJson } from '../internal/canonical-json.js';
import { callError, checkedResult } from '../model/call-model.js';
import { requestKey } from '../model/request-key.js';
import type { CallOptions, GenerateRequest, GenerateResult, LanguageModel, RetryNotice } from '../model/types.js';
import { admitCall, type Admission } from '../model/with-budget.js';
import { ADMITTED_BY, admittingBudgets, CHECKED_CALL, SETTLES_ON_ABORT, wrapModel } from '../model/wrap-model.js';
import { configDifferences } from './config-diff.js';
import { pendingQuestions, questionOf, readRecordedRun, type RecordedRun } from './recorded-run.js';
import { publishEvent, type RunEmitter } from './run-emitter.js';
import { isSharedRunEvent, type LlmCompletedEvent, type LlmFailedEvent, type RunEventBase, type RunEventInput, type RunEventListener, type RunFinishedEvent, type RunStartedEvent, type RunStartedFields, type RecordedRunError } from './run-event.js';
import { CALL_PRIORITY, CallGate, type GateEntry } from './call-gate.js';
import { createRunId } from './run-id.js';
import { fatalReason } from './fatal-error.js';
import { budgetForRun, type RunnerOptions } from './run-options.js';
import { RunRecorder } from './run-recorder.js';
import type { RunError, RunResult, RunStats } from './run-result.js';
import type { SharedStopReason, StopDetail } from './stop-detail.js';
import { askRequestSchema, questionId, type Answers, type AskAnswer, type AskHandler, type AskRequest, type Question } from './question.js';
import { checkedAnswers, jsonText } from './answers.js';

/** How a runner runs: fixed for the runner, the same for every run. */
export interface RunSettings<E extends RunEventBase> {
  /** Recorded in `run.started` (`search`, `solve`, `fractal`, `chain-of-thought`); a resume must match it. */
  runner: string;
  /** For messages: `The <what> was aborted`. */
  what: string;
  emitter: RunEmitter<E>;
  /** The runner's parsed options: budget, time limit, strict mode and clock (default `Date.now`). */
  options: RunnerOptions;
  /** Model calls in flight at once; default no limit. */
  concurrency?: number;
  /** What the run does: recorded in `run.started`, compared by a resume. */
  config: Record<string, unknown>;
  /** An event the recording must refuse (e.g. a thought over a length cap). */
  checkEvent?: (event: E) => TotError | undefined;
  /**
   * The runner's fold (its replay): run over a recorded log before a resume writes anything, so
   * that a log which would not replay is refused with `INVALID_FORMAT` instead of being extended.
   */
  replayLog?: (events: readonly RunEventBase[]) => unknown;
  /**
   * How a resumed program catches up with its log. `'rerun'` (the default): it runs again from
   * the start, with recorded calls served, and must emit the log's own events again in the same
   * order (the kernel swallows them and fails the run with `RESUME_MISMATCH` where they differ).
   * `'fold'`: it rebuilds its state from the log itself and emits only what is new — for runners
   * whose event order depends on timing (an operation graph's independent operations finish in
   * whatever order their calls return), so that no replay of that order can be demanded.
   */
  resumeBy?: 'rerun' | 'fold';
  /** `false` for a runner without `resume`: its questions must be answered in process (`onAsk`). */
  resumable?: boolean;
}

/** Per-run options, validated by the runner. */
export interface RunInvocation<E extends RunEventBase> {
  signal?: AbortSignal | undefined;
  runId?: string | undefined;
  store?: EventStore | undefined;
  onEvent?: ((event: E) => void) | undefined;
  /** Answers the run's questions in process; without it, a recorded run ends `waiting` for them. */
  onAsk?: AskHandler | undefined;
  /** For a resume: answers to the questions the run is waiting for, by question id. */
  answers?: Answers | undefined;
}

/** How a run ended, for the runner's result. */
export interface RunEnd {
  runId: string;
  /** Set when the kernel decides the stop reason (budget, timeout, abort, error); else the runner's own applies. */
  halted: { reason: SharedStopReason; detail?: StopDetail } | undefined;
  errors: RunError[];
  stats: RunStats;
}

/** A runner's program: the work, and its result as things stand when the work ends (however it ends). */
export interface RunProgram<R extends RunResult> {
  main(): Promise<void>;
  result(end: RunEnd): R;
}

type SetMaxListeners = (n: number, ...targets: EventTarget[]) => void;
const setMaxListeners: SetMaxListeners | undefined = (() => {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => { setMaxListeners?: SetMaxListeners } | undefined } }).process;
  return proc?.getBuiltinModule?.('node:events')?.setMaxListeners;
})();

// What a call still under way when its run ends is aborted with. One error for all runs: an Error
// costs microseconds to make (its stack), and a run ends in a few.
const RUN_OVER = new TotError('ABORTED', 'The run is over.');

const NO_OPTIONS: CallOptions = Object.freeze({});

/** The same answer for a served call as for the live one: a copy, so that callers can never change the log. */
type Served = { callId: string; result: GenerateResult; charged: { inputTokens: number; outputTokens: number; estimated: boolean } };

const emptyStats = (): RunStats => ({ llmCalls: 0, failedCalls: 0, retries: 0, resumedCalls: 0, inputTokens: 0, outputTokens: 0, estimatedCalls: 0, cacheHits: 0, wallMs: 0 });

function protocolError(error: unknown): ProtocolErrorObject {
  return TotError.isInstance(error) ? error.toProtocolError() : { code: 'GENERATION_FAILED', message: error instanceof Error ? error.message : String(error), recoverable: true };
}

function statusOf(error: unknown): number | undefined {
  for (let e: unknown = error, depth = 0; typeof e === 'object' && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const status = (e as { status?: unknown; statusCode?: unknown }).status ?? (e as { statusCode?: unknown }).statusCode;
    if (typeof status === 'number') return status;
  }
  return undefined;
}

function reasonText(reason: unknown): string {
  if (reason === undefined) return '';
  if (reason instanceof Error) return reason.message;
  return typeof reason === 'string' ? reason : JSON.stringify(reason) ?? String(reason);
}

/** Where an error happened, in words, for the message of a strict run's rejection. */
function describeLocation(where: ErrorLocation | undefined): string {
  if (!where) return 'run';
  switch (where.kind) {
    case 'node':
      return `${where.role} at ${where.nodeId}`;
    case 'frame':
      return `${where.operator} of frame ${where.frameId}`;
    case 'thought':
      return `thought ${where.thoughtNumber}`;
    case 'branch':
      return `branch ${where.branchId}`;
    case 'agent':
      return `${where.agentId} in round ${where.round}`;
    case 'operation':
      return `${where.operation} operation ${where.operationId}${where.parentIds && where.parentIds.length > 0 ? ` on ${where.parentIds.join(', ')}` : ''}`;
    case 'phase':
      return where.phase;
    case 'strategy':
      return `strategy "${where.name}"`;
    case 'model':
      return `model call ${where.callId} (${where.modelId})`;
    case 'recording':
      return `recording of run ${where.runId}`;
    case 'listener':
      return `a listener of ${where.event}`;
  }
}

interface CallHost {
  completeCall(call: LiveCall, raw: GenerateResult): GenerateResult | Promise<GenerateResult>;
  failCall(call: LiveCall, error: unknown): never;
  endCall(call: LiveCall): void;
  admitQueued(call: LiveCall): void;
  dropCall(call: LiveCall): void;
  retriedCall(call: LiveCall, notice: RetryNotice): void;
}

/**
 * One model call of a run: its state, and the promise its caller waits on. It races the provider
 * against the run's signal itself (the run aborts every live call at once), rather than through
 * `raceAbort`: a race per call cost about 870 bytes of closures and promises, and the call path
 * runs once per node of a search (the Game of 24 replay benchmark). A call that must wait for a
 * slot of the run's gate is made at once, queued in the gate, and started when admitted.
 */
class LiveCall implements GateEntry {
  callId = '';
  request: GenerateRequest;
  admission: Admission | undefined;
  // Set when the call starts; no number until then, so that the field holds the clock's reading as
  // it is rather than a box of its own (a double field gets one per call).
  started!: number;
  /** Attempts `withRetry` made after the first. */
  retries = 0;
  /** Stops following a signal of the caller's own (not the run's) when the call ends. */
  unlisten: (() => void) | undefined;
  // The run's calls are a list through the calls themselves: a Set's add and delete were a
  // measurable share of a call (the Game of 24 replay benchmark).
  prev: LiveCall | undefined;
  next: LiveCall | undefined;
  linked = false;
  /** Passed over by the gate: the call settled before it was admitted. */
  gone = false;
  /** Whether the provider was asked (`llm.requested` emitted); until then the call holds no slot of its own to give back. */
  live = false;
  private ended = false;
  private settled = false;
  private resolve!: (result: GenerateResult | Promise<GenerateResult>) => void;
  private reject!: (error: unknown) => void;
  readonly promise: Promise<GenerateResult>;

  constructor(
    private readonly host: CallHost,
    readonly model: LanguageModel,
    /** The request as the caller asked it. */
    readonly asked: GenerateRequest,
    readonly callOptions: CallOptions,
    readonly signal: AbortSignal,
    readonly admits: boolean,
    readonly gate: CallGate | undefined,
    /** The caller's options when the call came through `callModel`: its failure is then typed as `callModel` types it. */
    readonly checkedFor: CallOptions | undefined,
  ) {
    this.request = asked;
    this.promise = new Promise<GenerateResult>(capture);
    this.resolve = captured.resolve!;
    this.reject = captured.reject!;
  }

  get modelId(): string {
    return this.model.modelId;
  }

  /** The gate gave the call a slot: it starts in a microtask, where a freed slot's waiter always started. */
  admit(): void {
    this.host.admitQueued(this);
  }

  /** The `onRetry` the provider gets: the caller's own hears of each retry too. */
  readonly onRetry = (notice: RetryNotice): void => {
    this.callOptions.onRetry?.(notice);
    this.retries += 1;
    this.host.retriedCall(this, notice);
  };

  /** Follows the provider's promise; `abort` may settle the call first. */
  follow(pending: Promise<GenerateResult>): void {
    pending.then(this.onValue, this.onError);
  }

  /** The run stopped: the caller is released now, whatever the provider does. */
  abort(): void {
    if (this.settled) return;
    if (this.live) this.onError(abortedError(this.signal, 'model call'));
    else this.refuse(abortedError(this.signal, 'model call'));
  }

  /** A call that never reached the provider (stopped while it waited, or refused by the budget): no call event, no slot to give back. */
  refuse(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.gone = true;
    this.host.dropCall(this);
    this.reject(error);
  }

  /** Whether the call was settled before it started (the gate admitted a call the run had already stopped). */
  get isSettled(): boolean {
    return this.settled;
  }

  private readonly onValue = (raw: GenerateResult): void => {
    if (this.settled) return;
    this.settled = true;
    let outcome: GenerateResult | Promise<GenerateResult>;
    try {
      outcome = this.host.completeCall(this, raw);
    } catch (error) {
      // A malformed result is a failed call.
      try {
        this.host.failCall(this, error);
      } catch (thrown) {
        this.reject(thrown);
      }
      return;
    }
    this.resolve(outcome);
  };

  private readonly onError = (error: unknown): void => {
    if (this.settled) return;
    this.settled = true;
    try {
      this.host.failCall(this, error);
    } catch (thrown) {
      this.reject(thrown);
    }
  };

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.host.endCall(this);
  }
}

const RESOLVED = Promise.resolve();

/**
 * Work of the run's program raced against the run's signal ({@link Run.guard}). The run lists what
 * is under way and rejects all of it at once when it stops, rather than each piece listening on
 * the signal: a race per role call (`raceAbort`) cost about 600 bytes of closures and promises.
 */
class Guarded {
  prev: Guarded | undefined;
  next: Guarded | undefined;
  private settled = false;
  private resolve!: (value: unknown) => void;
  private reject!: (error: unknown) => void;
  readonly promise: Promise<unknown>;

  constructor(
    private readonly list: { unlistGuard(guarded: Guarded): void },
    private readonly what: string,
  ) {
    this.promise = new Promise<unknown>(capture as never);
    this.resolve = captured.resolve as never;
    this.reject = captured.reject!;
  }

  readonly onValue = (value: unknown): void => {
    if (this.settled) return;
    this.settled = true;
    this.list.unlistGuard(this);
    this.resolve(value);
  };

  readonly onError = (error: unknown): void => {
    if (this.settled) return;
    this.settled = true;
    this.list.unlistGuard(this);
    this.reject(error);
  };

  /** The run stopped: the program is released now, whatever its work does (a late outcome is dropped). */
  abort(signal: AbortSignal): void {
    if (this.settled) return;
    this.settled = true;
    this.reject(abortedError(signal, this.what));
  }
}

/**
 * The default clock of a run: `Date.now()`, read at most once per pass of the microtask queue. A
 * reading serves the events of the work that was already queued when it was taken (microseconds
 * apart, on a clock that counts milliseconds); work queued after that reads the clock again.
 * Reading the system clock cost about 0.1 µs on the machines the benchmarks ran on, and a search
 * read it five times per node, once per event (0.4 times with this).
 */
let clockReading: number | undefined;
const forgetReading = (): void => {
  clockReading = undefined;
};
function stretchNow(): number {
  if (clockReading === undefined) {
    clockReading = Date.now();
    void RESOLVED.then(forgetReading);
  }
  return clockReading;
}

// A promise's resolving functions without a closure per promise: the executor runs synchronously.
const captured: { resolve?: (value: GenerateResult | Promise<GenerateResult>) => void; reject?: (error: unknown) => void } = {};
function capture(resolve: (value: GenerateResult | Promise<GenerateResult>) => void, reject: (error: unknown) => void): void {
  captured.resolve = resolve;
  captured.reject = reject;
}

/**
 * One run of any runner: its id, clock and signal; its budget; its model calls, logged, admitted
 * and served from the log on resume; its events, published, streamed and recorded; its errors.
 * A runner is a small program on top of it (see the Runs guide).
 */
export class Run<E extends RunEventBase = RunEventBase> {
  readonly runId: string;
  readonly budget: Budget | undefined;
  readonly strict: boolean;
  readonly now: () => number;
  readonly errors: RunError[] = [];
  readonly stats: RunStats = emptyStats();

  private readonly settings: RunSettings<E>;
  private readonly controller = new AbortController();
  // The controller's signal, read once: AbortController's getter was a measurable share of a call, which compares signals with it.
  private readonly runSignal = this.controller.signal;
  private readonly callerSignal: AbortSignal | undefined;
  private readonly onEvent: ((event: E) => void) | undefined;
  private readonly gate: CallGate | undefined;
  // Live calls under way (released at once when the run aborts), and who waits for the last one to end.
  private live: LiveCall | undefined;
  // Guarded work under way, in the order it started (rejected in that order when the run stops).
  private guardedHead: Guarded | undefined;
  private guardedTail: Guarded | undefined;
  // Calls the gate admitted, in order, each started by the microtask queued when it was admitted:
  // one function of the run's rather than a closure per call.
  private readonly admitted: LiveCall[] = [];
  private admittedHead = 0;
  private readonly startAdmitted = (): void => {
    const queue = this.admitted;
    const call = queue[this.admittedHead]!;
    queue[this.admittedHead++] = undefined as unknown as LiveCall;
    if (this.admittedHead === queue.length) queue.length = this.admittedHead = 0;
    this.startQueued(call);
  };
  private active = 0;
  private drained: (() => void) | undefined;
  private readonly models = new WeakMap<LanguageModel, LanguageModel>();
  private readonly cleanups: (() => void)[] = [];
  private readonly ownsBudget: boolean;
  private readonly admittedBy: ReadonlySet<object>;
  private recorder: RunRecorder | undefined;
  private haltedWith: { reason: SharedStopReason; detail?: StopDetail } | undefined;
  private failure: TotError | undefined;
  private nextSeq = 0;
  private calls = 0;
  private succeededCalls = 0;
  private lastCallError: unknown;
  private closed = false;
  private closing = false;
  // Resume: the log's runner events the re-run must emit again, its served calls, and the claim.
  private replay: { events: RunEventBase[]; index: number } | undefined;
  private served: Map<string, Served[]> | undefined;
  private resumeFrom: { version: number; seq: number } | undefined;
  private claim: Promise<void> | undefined;
  // The log a resumed run continues.
  private log: RecordedRun | undefined;
  // When the run's own time limit passes (performance.now() time), if it has one.
  private timeoutAt: number | undefined;
  // Questions: those of the log and those asked here, by id; how many wait for an answer here.
  private readonly onAsk: AskHandler | undefined;
  private readonly questions = new Map<string, AskState>();
  private waitingFor = 0;
  // Recorded answers a re-run holds back until it reaches where its log gave them (answerTurn).
  private parked: { seq: number; resolve: () => void }[] = [];
  // Budget questions under way (onExhausted: 'ask'), by limit: a call the limit refuses waits for the answer.
  private readonly grants = new Map<BudgetLimitName, Promise<void>>();
  // Budget questions that got no usable answer in this process: not asked again.
  private readonly unanswerable = new Set<string>();
  // The resume's claim under way: work the run can see besides model calls.
  private claimPending = false;
  // Turns of the event loop left before a run with only questions left is checked (0: no check scheduled).
  private quietCheck = 0;
  // The seq of the first event the program emits once it ended waiting: its conclusion.
  private concludedFrom: number | undefined;

  constructor(settings: RunSettings<E>, invocation: RunInvocation<E>, runId: string) {
    this.settings = settings;
    this.runId = runId;
    this.strict = settings.options.strict;
    this.now = settings.options.now ?? stretchNow;
    this.callerSignal = invocation.signal;
    this.onEvent = invocation.onEvent;
    this.onAsk = invocation.onAsk;
    // Every call of the run (and the provider under it) listens on the run's signal: Node's leak
    // warning at 11 listeners would be a false alarm here.
    setMaxListeners?.(0, this.runSignal);
    // One listener releases every live call when the run stops.
    this.runSignal.addEventListener('abort', () => {
      const calls: LiveCall[] = [];
      for (let call = this.live; call !== undefined; call = call.next) calls.push(call);
      for (const call of calls) call.abort();
      const guarded: Guarded[] = [];
      for (let g = this.guardedHead; g !== undefined; g = g.next) guarded.push(g);
      this.guardedHead = this.guardedTail = undefined;
      for (const g of guarded) {
        g.prev = g.next = undefined;
        g.abort(this.runSignal);
      }
    });
    this.budget = budgetForRun(settings.options.budget);
    this.ownsBudget = this.budget !== undefined && !(settings.options.budget instanceof Budget);
    this.admittedBy = new Set(this.budget ? [this.budget] : []);
    if (settings.concurrency !== undefined && Number.isFinite(settings.concurrency)) this.gate = new CallGate(settings.concurrency);
  }

  /** Aborts when the caller aborts, when the run halts (budget, timeout, failure) and when it ends. */
  get signal(): AbortSignal {
    return this.runSignal;
  }

  /**
   * Whether the run's budget refused a call and no person is being asked for more of that limit
   * (`onExhausted: 'ask'`): a runner that checks the budget before it starts work stops then.
   */
  get budgetExhausted(): { limit: BudgetLimitName } | undefined {
    const snapshot = this.budget?.snapshot();
    if (!snapshot?.exhausted) return undefined;
    const limit = snapshot.exhaustedLimit ?? 'calls';
    return this.grants.has(limit) ? undefined : { limit };
  }

  /** Why the kernel stopped the run, if it did. */
  get halted(): { reason: SharedStopReason; detail?: StopDetail } | undefined {
    return this.haltedWith;
  }

  /** Whether the run is stopping (halted, aborted, failed or over): errors from here on are consequences, not findings. */
  get stopping(): boolean {
    return this.runSignal.aborted;
  }

  /** Stamps and publishes an event of the run (and records it, when the run is recorded). */
  emit(input: RunEventInput<E>): void {
    this.emitAt(input, undefined);
  }

  /**
   * Emits a new run's `run.started`, with the fields its listener's `runStarted` hook contributes
   * (RunEventListener) written in before anyone sees it or it is recorded.
   */
  start(input: RunEventInput<E>): void {
    const event = input as unknown as E & RunStartedFields;
    this.stamp(event);
    const hook = (this.onEvent as RunEventListener<E> | undefined)?.runStarted;
    if (hook) {
      try {
        const trace = hook.call(this.onEvent, event as unknown as RunStartedEvent)?.trace;
        if (trace !== undefined) event.trace = trace;
      } catch (error) {
        this.listenerFailed(error, 'run.started');
      }
    }
    this.publish(event, true);
  }

  /** {@link emit} at a time the caller has just read from the run's clock (a call's start or end): one read, not two. */
  private emitAt(input: RunEventInput<E>, at: number | undefined): void {
    if (this.closed) return;
    const event = input as unknown as E;
    if (this.replay !== undefined && !isSharedRunEvent(event)) {
      if (this.replayed(event)) return;
    }
    this.claimIfResuming();
    this.stamp(event, at);
    this.publish(event, true);
  }

  /**
   * The model as the run sees it: each call is admitted by the run's budget (unless the model
   * already admits through it), limited by the run's concurrency, logged as `llm.*` events,
   * made durable before its result is used when the run is recorded, served from the log when
   * the run resumes, and cancelled when the run stops.
   */
  runModel(model: LanguageModel): LanguageModel {
    let wrapped = this.models.get(model);
    if (wrapped === undefined) {
      wrapped = this.wrap(model);
      this.models.set(model, wrapped);
    }
    return wrapped;
  }

  /** Runs user code (a role, a callback) so that the run never waits on it past an abort. */
  guard<T>(work: () => T | Promise<T>, what: string): Promise<T> {
    let value: T | Promise<T>;
    try {
      value = work();
    } catch (error) {
      return raceAbort(Promise.reject(error), this.runSignal, what);
    }
    // A value already there has nothing to wait for: no race, no listener on the run's signal
    // (an operation graph guards every local score and check, one per thought).
    if (typeof (value as { then?: unknown } | null)?.then !== 'function') {
      return this.runSignal.aborted ? raceAbort(Promise.resolve(value), this.runSignal, what) : Promise.resolve(value);
    }
    if (this.runSignal.aborted) return raceAbort(Promise.resolve(value), this.runSignal, what);
    const guarded = new Guarded(this, what);
    const tail = this.guardedTail;
    guarded.prev = tail;
    if (tail === undefined) this.guardedHead = guarded;
    else tail.next = guarded;
    this.guardedTail = guarded;
    Promise.resolve(value).then(guarded.onValue, guarded.onError);
    return guarded.promise as Promise<T>;
  }

  /** @internal Guarded work settled: it leaves the run's list. */
  unlistGuard(guarded: Guarded): void {
    const { prev, next } = guarded;
    // Already off the list (the run stopped and took them all).
    if (prev === undefined && next === undefined && this.guardedHead !== guarded) return;
    if (prev === undefined) this.guardedHead = next;
    else prev.next = next;
    if (next === undefined) this.guardedTail = prev;
    else next.prev = prev;
    guarded.prev = guarded.next = undefined;
  }

  // ── questions ─────────────────────────────────────────────────────────────────────────────

  /**
   * Asks a person. Answered by the run's `onAsk` handler when it has one; otherwise the question
   * is recorded (`run.asked`), the work that does not wait for it goes on, and once nothing but
   * questions is left the run ends `waiting`, its questions in the result. A resume given the
   * answers records them (`run.answered`), and the program, asking again, gets its answer. A
   * question already answered (in this process or in the log) returns its answer without asking.
   */
  async ask<S extends StandardSchemaV1 | undefined = undefined>(request: AskRequest<NonNullable<S>> & { schema?: S }, where?: ErrorLocation): Promise<AskAnswer<S>> {
    const r = parseOptions(askRequestSchema, request, 'ask');
    throwIfAborted(this.runSignal, 'question');
    const id = questionId(r.key, where);
    let state = this.questions.get(id);
    if (state?.answer !== undefined) {
      await this.answerTurn(state.answer.seq);
      return (await this.accepted(id, state.answer.value, r.schema, state.answer.by)) as AskAnswer<S>;
    }
    if (state === undefined) {
      const schema = r.schema === undefined ? undefined : jsonSchemaOf(r.schema, 'input');
      if (r.preview !== undefined) jsonText(r.preview, `ask "${id}": preview`);
      const question: Question = { id, key: r.key, question: r.question, ...(where ? { where } : {}), ...(schema ? { schema } : {}), ...(r.preview === undefined ? {} : { preview: r.preview }) };
      state = { question };
      this.questions.set(id, state);
      this.emit({ type: 'run.asked', questionId: id, key: r.key, question: r.question, ...(where ? { where } : {}), ...(schema ? { schema } : {}), ...(r.preview === undefined ? {} : { preview: r.preview }) } as unknown as RunEventInput<E>);
    }
    if (this.onAsk !== undefined) {
      if (state.handled === undefined) {
        const handled = this.handle(state, r.schema);
        state.handled = handled;
        // An answer that did not fit is not the question's answer: asked again, the handler is asked again.
        handled.catch(() => {
          if (state.handled === handled) state.handled = undefined;
        });
      }
      return (await state.handled) as AskAnswer<S>;
    }
    if (this.settings.resumable === false) {
      throw new TotError('ILLEGAL_STATE', `ask "${id}": a ${this.settings.what} cannot wait for an answer and be resumed: give it an onAsk handler.`);
    }
    if (!this.recorder) {
      throw new TotError('ILLEGAL_STATE', `ask "${id}": nobody can answer: give the run an onAsk handler, or a store so that it can wait for answers and be resumed with them.`);
    }
    if (state.waiting === undefined) {
      // Answered only by a resume, in this process or another: the run ends waiting, and the program unwinds.
      state.waiting = new Promise<unknown>(noop);
      this.waitingFor += 1;
    }
    this.scheduleQuietCheck();
    return (await raceAbort(state.waiting, this.runSignal, 'question')) as AskAnswer<S>;
  }

  /** The questions asked and not answered, in the order asked. */
  pendingQuestions(): Question[] {
    const pending: Question[] = [];
    for (const state of this.questions.values()) if (state.answer === undefined) pending.push(state.question);
    return pending;
  }

  private async handle(state: AskState, schema: StandardSchemaV1 | undefined): Promise<unknown> {
    const id = state.question.id;
    const handler = this.onAsk!;
    const given = await this.guard(() => handler(state.question, { signal: this.runSignal }), 'question');
    const value = await this.accepted(id, given, schema, 'handler');
    jsonText(given, `the answer to "${id}"`);
    this.emit({ type: 'run.answered', questionId: id, answer: given, by: 'handler' } as unknown as RunEventInput<E>);
    state.answer = { value: given, by: 'handler', seq: this.nextSeq - 1 };
    return value;
  }

  /** An answer as the program gets it: checked against the question's schema (and transformed by it). */
  private async accepted(id: string, answer: unknown, schema: StandardSchemaV1 | undefined, by: 'handler' | 'resume'): Promise<unknown> {
    if (schema === undefined) return answer;
    const checked = await validatorOf(schema)(answer);
    if (checked.ok) return checked.value;
    throw new TotError('INVALID_ARGUMENT', `The answer to "${id}" (from ${by === 'handler' ? 'the onAsk handler' : 'the resume'}) does not fit the question's schema: ${issueSentences(checked.issues, 3).join('; ')}.`, {
      details: { field: id, issues: issueSentences(checked.issues) },
    });
  }

  /** @internal A resume's answers, already checked against the log: recorded, and given to the questions. */
  answer(answers: Answers): void {
    for (const [id, value] of Object.entries(answers)) {
      const state = this.questions.get(id);
      if (state === undefined || state.answer !== undefined) continue;
      this.emit({ type: 'run.answered', questionId: id, answer: value, by: 'resume' } as unknown as RunEventInput<E>);
      state.answer = { value, by: 'resume', seq: this.nextSeq - 1 };
      this.applyGrant(id, value);
    }
  }

  /**
   * `onExhausted: 'ask'`: a limit reached its warning ratio, and a person is asked for more. The
   * question is named by the limit and its value (`budget-calls-10`), so that a resumed run, whose
   * budget already holds every grant of its log (see begin), asks only what is still open.
   */
  private askForMore(budget: Budget, w: BudgetWarning): void {
    const key = `budget-${w.limit}-${w.max}`;
    // Nobody could answer (no onAsk, and no store to wait with): the limit stops the run, as 'stop' does.
    if (this.onAsk === undefined && (!this.recorder || this.settings.resumable === false)) return;
    if (this.questions.get(key)?.answer !== undefined || this.grants.has(w.limit) || this.unanswerable.has(key)) return;
    const asked = this.ask({
      key,
      question: `The run has used ${w.used} of its ${w.max} ${LIMIT_WORDS[w.limit]}. How many more may it use? (0: none; it stops at ${w.max}.)`,
      schema: w.limit === 'cost' ? costGrantSchema : countGrantSchema,
      preview: { limit: w.limit, used: w.used, max: w.max },
    }).then(
      (answer) => {
        this.grants.delete(w.limit);
        this.applyGrant(key, answer);
      },
      () => {
        // No answer (the run stops, or the handler's answer did not fit): the limit stands, and is not asked of again.
        this.grants.delete(w.limit);
        this.unanswerable.add(key);
      },
    );
    this.grants.set(w.limit, asked);
  }

  /**
   * Asks for more once what calls hold and have used of a limit reaches its warning ratio: the
   * budget's own warning counts settled calls only, and calls in flight would reach the limit first.
   */
  private askIfNearLimit(budget: Budget): void {
    const { used, reserved, limits } = budget.snapshot();
    for (const [option, limit] of Object.entries(LIMIT_OF) as [keyof typeof LIMIT_OF, Exclude<BudgetLimitName, 'deadline'>][]) {
      const max = limits[option];
      if (max === undefined || max === 0 || this.grants.has(limit)) continue;
      const committed = used[limit] + reserved[limit];
      if (committed / max >= budget.warnAt) this.askForMore(budget, { type: 'budget.warning', limit, used: committed, max, ratio: committed / max });
    }
  }

  /** A budget question's answer raises its limit: once, when it is given or when a resume begins. */
  private applyGrant(id: string, answer: unknown): void {
    const m = /^budget-(calls|inputTokens|outputTokens|totalTokens|cost)-/.exec(id);
    const more = (answer as { more?: unknown } | null)?.more;
    if (!m || !this.budget || typeof more !== 'number' || !(more > 0)) return;
    try {
      this.budget.extend({ [OPTION_OF[m[1] as keyof typeof OPTION_OF]]: more });
    } catch (error) {
      // A grant the budget cannot take (the schema let it through): the limit stands, and the run says why.
      this.recordError(error, undefined);
    }
  }

  /**
   * A resumed program gets a recorded answer where its log says it came: once the re-run has
   * emitted again every event the log holds before the answer. Branches that wait for answers
   * given at different times (three parallel questions answered one by one) then go on in the
   * order they did, and the re-run meets its log event for event.
   */
  private answerTurn(seq: number): Promise<void> | undefined {
    const replay = this.replay;
    if (replay === undefined) return undefined;
    const next = replay.events[replay.index];
    if (next === undefined || next.seq > seq) return undefined;
    return raceAbort(new Promise<void>((resolve) => this.parked.push({ seq, resolve })), this.runSignal, 'question');
  }

  /** Gives parked answers whose turn has come (all of them once the replay is over). */
  private releaseAnswers(): void {
    const replay = this.replay;
    const next = replay?.events[replay.index]?.seq ?? Infinity;
    const due = this.parked.filter((p) => p.seq < next);
    if (due.length === 0) return;
    this.parked = this.parked.filter((p) => p.seq >= next);
    for (const p of due) p.resolve();
  }

  private scheduleQuietCheck(): void {
    if (this.quietCheck > 0) return;
    this.quietCheck = QUIET_TURNS;
    this.nextQuietTurn(this.nextSeq);
  }

  // A turn of the event loop (after its microtasks and I/O callbacks): a program still moving emits or calls.
  private nextQuietTurn(seq: number): void {
    nextTurn(() => {
      if (--this.quietCheck > 0 && this.nextSeq === seq && this.active === 0) this.nextQuietTurn(seq);
      else {
        this.quietCheck = 0;
        this.settleIfQuiet(seq);
      }
    });
  }

  /**
   * Ends a run that can do nothing but wait for answers: questions pending here, no model call
   * or claim under way, and nothing emitted for a few turns of the event loop. Work the run cannot
   * see (user code awaiting I/O of its own besides the run's model) may be cut short by it; the
   * resume, which runs the program again, does that work then.
   */
  private settleIfQuiet(seq: number): void {
    if ((this.waitingFor === 0 && this.parked.length === 0) || this.runSignal.aborted) return;
    if (this.active > 0 || this.claimPending) return;
    if (this.nextSeq !== seq) {
      this.scheduleQuietCheck();
      return;
    }
    if (this.parked.length > 0) {
      // The re-run does not reach the log's events before its answers: it no longer does what its
      // log says. The answers go out, and the replay finds where it differs.
      const parked = this.parked;
      this.parked = [];
      for (const p of parked) p.resolve();
      this.scheduleQuietCheck();
      return;
    }
    const ids = this.pendingQuestions().map((q) => q.id);
    // What the program emits from here on is its conclusion (a search's last state), not work.
    this.concludedFrom = this.nextSeq;
    this.halt('waiting', { kind: 'waiting', questions: ids }, new TotError('ABORTED', `The ${this.settings.what} is waiting for answers to ${ids.map((id) => `"${id}"`).join(', ')}.`));
  }

  /**
   * Records an error where it happened: a `TotError` with its own code, anything else (user code
   * that threw an untyped error) as `INTERNAL` with the original as its cause. With `strict`, the
   * first one fails the run, which then rejects with it (its cause chain intact). Returns the
   * recorded error.
   */
  recordError(error: unknown, where: ErrorLocation | undefined): RunError {
    const typed = TotError.isInstance(error) ? error : new TotError('INTERNAL', error instanceof Error ? error.message : String(error), { cause: error });
    const entry: RunError = { code: typed.code, message: typed.message, ...(where ? { where } : {}), cause: error };
    this.errors.push(entry);
    if (this.strict) {
      this.fail(new TotError(typed.code, `${describeLocation(where)}: ${typed.message}`, { recoverable: typed.recoverable, cause: error, details: { ...typed.details, ...(where ? { where } : {}) } }));
    }
    return entry;
  }

  /** Stops the run for a shared reason (budget, timeout): calls in flight are cancelled; the first reason wins. */
  halt(reason: SharedStopReason, detail?: StopDetail, error?: TotError): void {
    if (this.haltedWith !== undefined || this.closing) return;
    this.haltedWith = detail === undefined ? { reason } : { reason, detail };
    this.controller.abort(error ?? new TotError('ABORTED', `The ${this.settings.what} stopped: ${reason}.`));
  }

  /** Fails the run: it stops and rejects with `error` (the first failure wins). */
  fail(error: TotError): void {
    if (this.failure !== undefined || this.closing) return;
    this.failure = error;
    this.halt('error', { kind: 'error', code: error.code, message: error.message }, error);
  }

  // ── events ────────────────────────────────────────────────────────────────────────────────

  private stamp(event: E, at?: number): void {
    const e = event as { runId: string; seq: number; at: number };
    e.runId = this.runId;
    e.seq = this.nextSeq++;
    e.at = at ?? this.now();
  }

  private publish(event: E, record: boolean): void {
    // Listeners see an event before it is recorded; what a listener adds to run.started goes
    // through its declared hook instead (start).
    const failures = this.settings.emitter[publishEvent](event);
    if (failures) for (const f of failures) this.listenerFailed(f, event.type);
    if (this.onEvent) {
      try {
        this.onEvent(event);
      } catch (error) {
        this.listenerFailed(error, event.type);
      }
    }
    if (record && this.recorder) {
      const refused = this.settings.checkEvent?.(event);
      if (refused) this.recorder.refuse(refused);
      else this.recorder.record(event);
    }
  }

  private listenerFailed(error: unknown, eventType: string): void {
    // After run.finished the run's errors are fixed (the result and the log hold the same list).
    if (this.closed) warnLateListenerError(error, eventType);
    else this.recordError(error, { kind: 'listener', event: eventType });
  }

  /**
   * A resumed run claims its log before its first new event or live call: `run.resumed`,
   * appended at the log's last version, so that of two resumers exactly one proceeds.
   */
  private claimIfResuming(): void {
    const from = this.resumeFrom;
    if (from === undefined || this.claim !== undefined || !this.recorder) return;
    this.claim = Promise.resolve();
    const resumed = { type: 'run.resumed', fromVersion: from.version, fromSeq: from.seq } as unknown as E;
    this.stamp(resumed);
    this.publish(resumed, true);
    this.claim = this.recorder.durable();
    this.claimPending = true;
    const claimed = () => {
      this.claimPending = false;
      if (this.waitingFor > 0) this.scheduleQuietCheck();
    };
    this.claim.then(claimed, claimed);
  }

  /** During a resume, a runner event the log holds is swallowed; one that differs fails the run. */
  private replayed(event: E): boolean {
    const replay = this.replay!;
    const expected = replay.events[replay.index];
    if (expected === undefined) {
      this.replay = undefined;
      this.releaseAnswers();
      return false;
    }
    const strip = ({ runId: _r, seq: _s, at: _a, ...rest }: RunEventBase) => canonicalJson(rest);
    if (strip(expected) !== strip(event)) {
      this.replay = undefined;
      this.releaseAnswers();
      const claimed = this.claim !== undefined;
      // Not claimed yet: the log stays exactly as it was; nothing of this run is written.
      if (!claimed) this.recorder = undefined;
      this.fail(
        new TotError('RESUME_MISMATCH', `Resuming run "${this.runId}": the run no longer does what its log says: at seq ${expected.seq} the log has ${expected.type}, the run produced ${event.type === expected.type ? `a different ${event.type}` : event.type}${claimed ? '' : '; nothing was written'}.`, {
          details: { runId: this.runId, differences: [], seq: expected.seq },
        }),
      );
      return true;
    }
    replay.index += 1;
    if (replay.index === replay.events.length) this.replay = undefined;
    if (this.parked.length > 0) this.releaseAnswers();
    return true;
  }

  // ── model calls ───────────────────────────────────────────────────────────────────────────

  private wrap(model: LanguageModel): LanguageModel {
    const budget = this.budget;
    // One admission per call: the run admits only through a model that does not already admit through its budget.
    const admits = budget !== undefined && !admittingBudgets(model).has(budget);
    // `checked`: the call comes through callModel, which takes the result as the run checked it and every failure typed.
    const call = (request: GenerateRequest, callOptions: CallOptions, checked: boolean): Promise<GenerateResult> => {
      const caller = callOptions.signal;
      const checkedFor = checked ? callOptions : undefined;
      if (caller === undefined || caller === this.runSignal) return this.modelCall(model, request, callOptions, this.runSignal, admits, checkedFor);
      // A signal of the caller's own may outlive the run (a server's): the call's link to it ends with the call.
      const { signal, unlink } = linkSignals(this.runSignal, caller);
      let pending: Promise<GenerateResult>;
      try {
        pending = this.modelCall(model, request, callOptions, signal, admits, checkedFor);
      } catch (error) {
        unlink();
        throw error;
      }
      pending.then(unlink, unlink);
      return pending;
    };
    const wrapped = wrapModel(model, (request, callOptions = NO_OPTIONS) => call(request, callOptions, false));
    Object.defineProperty(wrapped, SETTLES_ON_ABORT, { value: true });
    const checkedCall = (request: GenerateRequest, callOptions: CallOptions): Promise<GenerateResult> => {
      try {
        return call(request, callOptions, true);
      } catch (error) {
        return Promise.reject(callError(model.modelId, error, callOptions.signal));
      }
    };
    Object.defineProperty(wrapped, CHECKED_CALL, { value: checkedCall });
    return wrapped;
  }

  /** One call of a model the run wrapped: served from the log on a resume, else made live (through the run's gate). */
  private modelCall(model: LanguageModel, request: GenerateRequest, callOptions: CallOptions, signal: AbortSignal, admits: boolean, checkedFor: CallOptions | undefined): Promise<GenerateResult> {
    if (signal.aborted) return Promise.reject(abortedError(signal, 'model call'));
    if (this.served) {
      const key = requestKey(model.modelId, request);
      const hit = this.served.get(key)?.shift();
      if (hit) {
        // A served call counts against the budget as it did when it was made, so that a resumed
        // run stops where the uninterrupted run would have.
        if (this.budget) {
          try {
            admitCall(this.budget, request).settle(hit.result);
          } catch (error) {
            if (TotError.hasCode(error, 'BUDGET_EXCEEDED') && error.details) this.halt('budget_exceeded', { kind: 'budget', limit: error.details.limit }, error);
            return Promise.reject(error);
          }
        }
        if (checkedFor === undefined) return Promise.resolve(this.serve(hit));
        try {
          // Read back from a store: checked as a live result is.
          return Promise.resolve(checkedResult(model.modelId, this.serve(hit), request.n ?? 1));
        } catch (error) {
          return Promise.reject(error);
        }
      }
    }
    const gate = this.gate;
    const call = new LiveCall(this, model, request, callOptions, signal, admits, gate, checkedFor);
    if (gate === undefined || gate.tryAcquire()) return this.liveCall(call);
    // A queued call whose run stops never starts: it rejects with ABORTED (the run aborts the calls it lists).
    this.link(call);
    if (signal !== this.runSignal) call.unlisten = whenAborted(signal, () => call.abort());
    gate.enqueue(call, (callOptions as { [CALL_PRIORITY]?: number })[CALL_PRIORITY] ?? 0);
    return call.promise;
  }

  /** @internal The gate admitted a queued call: it starts in a microtask of its own, as it would in `await`. */
  admitQueued(call: LiveCall): void {
    this.admitted.push(call);
    // A promise reaction rather than queueMicrotask, which in Node makes an async resource per call.
    void RESOLVED.then(this.startAdmitted);
  }

  private startQueued(call: LiveCall): void {
    // Stopped after the gate admitted it: the slot goes back unused.
    if (call.isSettled) call.gate?.release();
    else void this.liveCall(call);
  }

  /** @internal A call that never started leaves the run's list. */
  dropCall(call: LiveCall): void {
    this.unlink(call);
    call.unlisten?.();
    call.unlisten = undefined;
  }

  private link(call: LiveCall): void {
    if (call.linked) return;
    call.next = this.live;
    if (this.live !== undefined) this.live.prev = call;
    this.live = call;
    call.linked = true;
  }

  private unlink(call: LiveCall): void {
    if (!call.linked) return;
    call.linked = false;
    if (call.prev === undefined) this.live = call.next;
    else call.prev.next = call.next;
    if (call.next !== undefined) call.next.prev = call.prev;
    call.prev = call.next = undefined;
  }

  private serve(hit: Served): GenerateResult {
    this.countServed(hit);
    return copyOf(hit.result);
  }

  private countServed(hit: Served): void {
    const s = this.stats;
    s.llmCalls += 1;
    s.resumedCalls += 1;
    s.inputTokens += hit.charged.inputTokens;
    s.outputTokens += hit.charged.outputTokens;
    if (hit.charged.estimated) s.estimatedCalls += 1;
  }

  /**
   * For a program that resumes by folding: the logged calls whose requests `taken` accepts belong
   * to work the program takes from its log as it was, and will never ask for again. They count
   * now, in the stats and against the budget, as they did when they were made, and are no longer
   * served (a later call with the same request is a call of its own). The other logged calls are
   * served as usual when asked for.
   */
  adoptLoggedCalls(taken: (request: GenerateRequest) => boolean): void {
    const log = this.log;
    if (!log) return;
    const s = this.stats;
    let charging = this.budget !== undefined && !this.stopping;
    for (const call of log.calls) {
      // The calls without a result were charged when the run resumed (chargeUnfinishedCalls).
      if (call.outcome !== 'completed' || !taken(call.request)) continue;
      s.llmCalls += 1;
      const charged = call.charged ?? { inputTokens: 0, outputTokens: 0, estimated: false };
      s.resumedCalls += 1;
      s.inputTokens += charged.inputTokens;
      s.outputTokens += charged.outputTokens;
      if (charged.estimated) s.estimatedCalls += 1;
      for (const hits of this.served!.values()) {
        const at = hits.findIndex((h) => h.callId === call.callId);
        if (at !== -1) {
          hits.splice(at, 1);
          break;
        }
      }
      if (!charging) continue;
      try {
        this.budget!.reserve({ calls: 1 }).settle({ calls: 1, inputTokens: charged.inputTokens, outputTokens: charged.outputTokens });
      } catch (error) {
        // The stats still count every adopted call; the budget stops the run at the first it refuses.
        charging = false;
        if (TotError.hasCode(error, 'BUDGET_EXCEEDED') && error.details) this.halt('budget_exceeded', { kind: 'budget', limit: error.details.limit }, error);
        else throw error;
      }
    }
  }

  /**
   * What the log says the provider was asked for and the log holds no result of: calls cut off by
   * a crash (`llm.requested` without an outcome), calls that failed, and the attempts `withRetry`
   * repeated. The provider may have billed each, and none is served, so a resumed run counts them
   * in its stats and charges them to its budget before it makes a call: however many crashes and
   * resumes, the provider is never asked for more than `maxCalls`. (A completed call is charged
   * when it is served, so that a resume stops where the uninterrupted run would have.)
   */
  private chargeUnfinishedCalls(log: RecordedRun): void {
    const s = this.stats;
    let attempts = 0;
    for (const call of log.calls) {
      attempts += call.retries;
      s.retries += call.retries;
      if (call.outcome === 'completed') continue;
      attempts += 1;
      s.llmCalls += 1;
      s.failedCalls += 1;
    }
    if (!this.budget) return;
    for (let i = 0; i < attempts; i++) {
      try {
        this.budget.reserve({ calls: 1 }).settle({ calls: 1, inputTokens: 0, outputTokens: 0 });
      } catch (error) {
        if (TotError.hasCode(error, 'BUDGET_EXCEEDED') && error.details) {
          this.halt('budget_exceeded', { kind: 'budget', limit: error.details.limit }, error);
          return;
        }
        throw error;
      }
    }
  }

  /**
   * One live call; it holds a slot of `gate` (when there is one) and gives it back however it
   * ends. Written as a synchronous start and promise callbacks rather than one async function:
   * the call path runs once per node of a search, and an async frame holding every local across
   * its awaits was most of what a call allocated (the Game of 24 replay benchmark).
   */
  private liveCall(call: LiveCall): Promise<GenerateResult> {
    if (this.resumeFrom !== undefined) {
      // A resumed run makes no live call before it holds the log: of two resumers, the loser calls nothing.
      this.claimIfResuming();
      raceAbort(this.claim ?? Promise.resolve(), call.signal, 'model call').then(
        () => {
          // Its outcome is the call's own promise, which the caller holds.
          void this.startCall(call);
        },
        (error: unknown) => {
          call.gate?.release();
          call.refuse(error);
        },
      );
      return call.promise;
    }
    return this.startCall(call);
  }

  private startCall(call: LiveCall): Promise<GenerateResult> {
    const { model, asked, signal, gate, admits } = call;
    let admission: Admission | undefined;
    try {
      if (admits) admission = admitCall(this.budget!, asked);
      if (signal.aborted) {
        // Stopped while it waited for its turn or its claim: the call never starts.
        admission?.release();
        throw abortedError(signal, 'model call');
      }
    } catch (error) {
      let grant: Promise<void> | undefined;
      if (TotError.hasCode(error, 'BUDGET_EXCEEDED') && error.details && this.budget?.onExhausted === 'ask') {
        const { limit, committed, max } = error.details as { limit: BudgetLimitName; committed: number; max: number };
        // Calls in flight can reach the limit before the settled ones reach its warning: ask now.
        if (limit !== 'deadline' && !this.grants.has(limit)) this.askForMore(this.budget, { type: 'budget.warning', limit, used: committed, max, ratio: committed / max });
        grant = this.grants.get(limit);
      }
      if (grant !== undefined) {
        // A person is asked for more of this limit: the call waits for the answer, then tries again
        // (and is refused, stopping the run, when the answer is no).
        void grant.then(() => {
          if (!signal.aborted) return void this.startCall(call);
          gate?.release();
          call.refuse(abortedError(signal, 'model call'));
        });
        return call.promise;
      }
      gate?.release();
      // A refused call never happened: no call event, and the run stops on its budget.
      if (TotError.hasCode(error, 'BUDGET_EXCEEDED') && error.details) this.halt('budget_exceeded', { kind: 'budget', limit: error.details.limit }, error);
      call.refuse(error);
      return call.promise;
    }
    if (admission && this.budget!.onExhausted === 'ask') this.askIfNearLimit(this.budget!);
    const request = admission?.request ?? asked;
    call.request = request;
    call.admission = admission;
    call.callId = `c${++this.calls}`;
    // The request as the caller asked it (before the budget capped its output): it is the call's
    // key, and a resume, which serves recorded calls before any admission, looks it up as asked.
    // The event refers to the caller's request object, no copy: requests are not changed after a call.
    call.started = this.now();
    // The envelope's fields in the literal, so that stamping them grows no property store; `at: null`
    // rather than 0, so that the field takes the clock's reading as it is instead of a box per event.
    this.emitAt({ type: 'llm.requested', callId: call.callId, modelId: model.modelId, request: asked, runId: '', seq: 0, at: null } as unknown as RunEventInput<E>, call.started);
    this.stats.llmCalls += 1;
    this.active += 1;
    // Started: from here on, however it ends (an abort before the provider answers included), it ends through endCall.
    call.live = true;
    const options: CallOptions = { signal, onRetry: call.onRetry };
    // A withBudget of the same budget further in (behind a wrapper that hid it) must not charge the call again.
    if (admission) (options as { [ADMITTED_BY]?: ReadonlySet<object> })[ADMITTED_BY] = this.admittedBy;
    let pending: Promise<GenerateResult>;
    const recorder = this.recorder;
    if (recorder) {
      // Write-ahead: the provider is asked only once the log holds the request, so that no crash
      // can hide a call the provider may have billed (a resume charges the calls the log left open).
      pending = recorder.durable().then(() => {
        if (signal.aborted) throw abortedError(signal, 'model call');
        return model.generate(request, options);
      });
    } else {
      // Called in this tick: the signal it gets is the one just checked, never one aborted meanwhile.
      try {
        pending = Promise.resolve(model.generate(request, options));
      } catch (error) {
        pending = Promise.reject(error);
      }
    }
    this.link(call);
    if (signal !== this.runSignal && call.unlisten === undefined) call.unlisten = whenAborted(signal, () => call.abort());
    call.follow(pending);
    return call.promise;
  }

  /** @internal A completed call: charged, logged, made durable when the run is recorded. */
  completeCall(call: LiveCall, raw: GenerateResult): GenerateResult | Promise<GenerateResult> {
    call.admission?.settle(raw);
    call.admission = undefined;
    // Charged as the budget charged it, before the result is checked: a result refused for its
    // malformed usage still cost what the budget counted, and the run's stats say so.
    const charged = chargedUsage(call.request, raw);
    const s = this.stats;
    s.inputTokens += charged.inputTokens;
    s.outputTokens += charged.outputTokens;
    if (charged.estimated) s.estimatedCalls += 1;
    const result = checkedResult(call.modelId, raw, call.request.n ?? 1);
    if (result.cacheHit === true) s.cacheHits += 1;
    this.succeededCalls += 1;
    const at = this.now();
    let completed: Omit<LlmCompletedEvent, 'runId' | 'seq' | 'at'>;
    if (result.finishReason === undefined && result.cacheHit === undefined) {
      // The envelope's fields in the literal, so that stamping them grows no property store.
      completed = { type: 'llm.completed', callId: call.callId, outputs: result.outputs.slice(), usage: { ...result.usage }, charged, durationMs: at - call.started, runId: '', seq: 0, at: null } as unknown as LlmCompletedEvent;
    } else {
      completed = { type: 'llm.completed', callId: call.callId, outputs: result.outputs.slice(), usage: { ...result.usage }, charged, durationMs: at - call.started };
      if (result.finishReason !== undefined) completed.finishReason = result.finishReason;
      if (result.cacheHit !== undefined) completed.cacheHit = result.cacheHit;
    }
    this.emitAt(completed as unknown as RunEventInput<E>, at);
    if (!this.recorder) {
      call.end();
      return result;
    }
    // The result is used only once it is stored: a crash can never lose a call that was made.
    return raceAbort(this.recorder.durable(), this.runSignal, 'model call').then(
      () => {
        call.end();
        return result;
      },
      (error: unknown) => {
        call.end();
        throw error;
      },
    );
  }

  /** @internal A failed (or cancelled) call: logged, and the run stops if a budget refused it. */
  failCall(call: LiveCall, error: unknown): never {
    call.admission?.settle(undefined);
    call.admission = undefined;
    if (TotError.hasCode(error, 'BUDGET_EXCEEDED') && error.details?.limit !== 'deadline' && call.retries === 0 && !call.signal.aborted) {
      // Refused by a budget in the model stack before the provider was asked: not a call made.
      // (A call the run cancels when its budget stops it fails with the same code once the signal
      // has aborted; a deadline may pass during a call, so a deadline refusal still counts.)
      this.stats.llmCalls -= 1;
    } else this.stats.failedCalls += 1;
    // A failure after which no later call can succeed stops the run, which rejects with it
    // (docs/runs.md, "Provider errors that stop a run"): the log first records the call's failure.
    const fatal = !this.stopping && fatalReason(error) !== undefined;
    if (!this.stopping) this.lastCallError = error;
    const status = statusOf(error);
    const failed: Omit<LlmFailedEvent, 'runId' | 'seq' | 'at'> = { type: 'llm.failed', callId: call.callId, error: protocolError(error), durationMs: this.now() - call.started };
    if (status !== undefined) failed.status = status;
    this.emit(failed as unknown as RunEventInput<E>);
    if (TotError.hasCode(error, 'BUDGET_EXCEEDED') && error.details) this.halt('budget_exceeded', { kind: 'budget', limit: error.details.limit }, error);
    else if (fatal) {
      const typed = error as TotError;
      this.errors.push({ code: typed.code, message: typed.message, where: { kind: 'model', callId: call.callId, modelId: call.modelId }, cause: error });
      this.fail(typed);
    }
    call.end();
    throw call.checkedFor === undefined ? error : callError(call.modelId, error, call.checkedFor.signal);
  }

  /** @internal A call has ended: its gate slot and the count a closing run waits on. */
  endCall(call: LiveCall): void {
    this.unlink(call);
    call.unlisten?.();
    call.gate?.release();
    if (--this.active === 0) {
      this.drained?.();
      if (this.waitingFor > 0) this.scheduleQuietCheck();
    }
  }

  /** @internal The model stack retried a call: logged, and the attempt admitted by the budget. */
  retriedCall(call: LiveCall, notice: RetryNotice): void {
    this.retried(call.callId, notice, call.admits);
  }

  private retried(callId: string, notice: RetryNotice, admits: boolean): void {
    this.stats.retries += 1;
    const status = statusOf(notice.error);
    this.emit({ type: 'llm.retried', callId, attempt: notice.attempt, delayMs: notice.delayMs, error: protocolError(notice.error), ...(status === undefined ? {} : { status }) } as unknown as RunEventInput<E>);
    // Each further attempt is a call the budget must admit (a refusal ends the retries).
    if (admits && this.budget) {
      try {
        this.budget.reserve({ calls: 1 }).settle({ calls: 1, inputTokens: 0, outputTokens: 0 });
      } catch (error) {
        if (TotError.hasCode(error, 'BUDGET_EXCEEDED') && error.details) this.halt('budget_exceeded', { kind: 'budget', limit: error.details.limit }, error);
        throw error;
      }
    }
  }

  // ── lifecycle (used by startRun / resumeRun) ──────────────────────────────────────────────

  /** @internal */
  begin(store: EventStore | undefined, log: RecordedRun | undefined): void {
    const caller = this.callerSignal;
    if (caller) {
      if (caller.aborted) this.controller.abort(abortedError(caller, this.settings.what));
      else this.cleanups.push(whenAborted(caller, () => this.controller.abort(abortedError(caller, this.settings.what))));
    }
    const { timeoutMs } = this.settings.options;
    if (timeoutMs !== undefined) {
      this.timeoutAt = performance.now() + timeoutMs;
      const timer = setTimeout(() => this.halt('timeout', { kind: 'time', limitMs: timeoutMs }, new TotError('ABORTED', `The ${this.settings.what} reached its time limit of ${timeoutMs} ms.`)), timeoutMs);
      this.cleanups.push(() => clearTimeout(timer));
    }
    const budget = this.budget;
    if (budget) {
      budget.start();
      const onWarning = (w: BudgetWarning) => {
        this.emit({ type: 'budget.warning', limit: w.limit, used: w.used, max: w.max, ratio: w.ratio } as unknown as RunEventInput<E>);
        if (budget.onExhausted === 'ask' && w.limit !== 'deadline') this.askForMore(budget, w);
      };
      budget.on('budget.warning', onWarning);
      this.cleanups.push(() => budget.off('budget.warning', onWarning));
      if (budget.deadline !== undefined) {
        const deadline = budget.signal;
        this.cleanups.push(whenAborted(deadline, () => this.halt('budget_exceeded', { kind: 'budget', limit: 'deadline' }, deadline.reason as TotError)));
      }
      if (this.ownsBudget) this.cleanups.push(() => budget.dispose());
    }
    if (store) {
      this.recorder = new RunRecorder(store, this.runId, log ? log.lastVersion : -1);
      // A lost claim or a refused event stops the run at once.
      this.recorder.onFailure((error) => this.fail(error));
    }
    if (log) {
      this.resumeFrom = { version: log.lastVersion, seq: log.lastSeq };
      this.nextSeq = log.lastSeq + 1;
      this.calls = log.requestedCalls;
      this.served = new Map([...log.modelResults].map(([k, v]) => [k, [...v]]));
      this.log = log;
      for (const [id, q] of log.questions) {
        this.questions.set(id, { question: questionOf(q.asked), ...(q.answer ? { answer: q.answer } : {}) });
        if (q.answer) this.applyGrant(id, q.answer.value);
      }
      if (log.runnerEvents.length > 0 && this.settings.resumeBy !== 'fold') this.replay = { events: log.runnerEvents, index: 0 };
      // The stream of a resumed run is its whole log, then what the run adds.
      for (const event of log.events) this.publish(event as E, false);
      this.chargeUnfinishedCalls(log);
    }
  }

  /** @internal Ends the run's work: stragglers are cancelled and awaited. */
  async close(): Promise<void> {
    this.closing = true;
    if (!this.runSignal.aborted) this.controller.abort(RUN_OVER);
    // Live calls are raced against the signal just aborted: they end within a few microtasks.
    if (this.active > 0) await new Promise<void>((resolve) => (this.drained = resolve));
  }

  /** @internal */
  end(wallMs: number): RunEnd {
    const s = this.stats;
    s.wallMs = Math.round(wallMs * 1000) / 1000;
    const pricing = this.budget?.snapshot().limits.pricing;
    if (pricing) s.costUsd = (s.inputTokens * pricing.inputPerMillionTokens + s.outputTokens * pricing.outputPerMillionTokens) / 1e6;
    let halted = this.haltedWith;
    if (this.callerSignal?.aborted) halted = { reason: 'aborted', detail: { kind: 'aborted', reason: reasonText(this.callerSignal.reason) } };
    else if (halted === undefined && this.succeededCalls === 0 && s.resumedCalls === 0 && this.lastCallError !== undefined) {
      // A run whose every call failed did not find the problem unsolvable: it could not work.
      const e = protocolError(this.lastCallError);
      halted = { reason: 'error', detail: { kind: 'error', code: e.code, message: e.message } };
    }
    return { runId: this.runId, halted, errors: this.errors.slice(), stats: s };
  }

  /**
   * Waits until the store holds every event, as long as the caller has not aborted and the run's
   * time limit (plus the unwind grace) has not passed: a store that stops answering cannot hold a
   * run that must settle. Returns the recording's error, or why the wait was cut short.
   */
  private async confirmRecording(recorder: RunRecorder): Promise<TotError | 'aborted' | 'timeout' | undefined> {
    const caller = this.callerSignal;
    // A timer of its own rather than AbortSignal.timeout: Node holds a timeout signal with a
    // listener on it until it fires, and with a long time limit each run's would stay that long.
    let limit: AbortController | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (this.timeoutAt !== undefined) {
      const own = new AbortController();
      limit = own;
      timer = setTimeout(() => own.abort(new TotError('TIMEOUT', 'The recording was not confirmed in time.')), Math.ceil(Math.max(0, this.timeoutAt - performance.now())) + UNWIND_GRACE_MS);
      // Like AbortSignal.timeout's: the wait alone does not keep the process alive.
      (timer as { unref?: () => void }).unref?.();
    }
    const { signal, unlink } = linkSignals(caller, limit?.signal);
    try {
      await (signal ? raceAbort(recorder.durable(), signal, 'recording') : recorder.durable());
      return undefined;
    } catch (error) {
      if (caller?.aborted) return 'aborted';
      if (limit?.signal.aborted) return 'timeout';
      return error as TotError;
    } finally {
      clearTimeout(timer);
      unlink();
    }
  }

  /** @internal Emits `run.finished` and settles the recording; returns the error the run must reject with, if any. */
  async finish<R extends RunResult>(result: R, what: string): Promise<TotError | undefined> {
    const caller = this.callerSignal;
    const aborted = caller?.aborted === true;
    const failure = aborted ? undefined : this.failure;
    const errors: RecordedRunError[] = result.errors.map((e) => ({ code: e.code, message: e.message, recoverable: TotError.isInstance(e.cause) ? e.cause.recoverable : false, ...(e.where ? { where: e.where } : {}) }));
    const finished = {
      type: 'run.finished',
      stopReason: result.stopReason,
      ...(result.detail === undefined ? {} : { detail: result.detail }),
      stats: { ...result.stats },
      errors,
      ...(failure ? { error: failure.toProtocolError() } : {}),
    } as unknown as RunFinishedEvent;
    // What the program reported as it concluded a waiting run (a search's last state) is where a
    // resume must not meet it: the resume goes on from the questions (see foldLog).
    if (result.stopReason === 'waiting' && this.concludedFrom !== undefined && this.concludedFrom < this.nextSeq) finished.conclusionFrom = this.concludedFrom;
    // run.finished is the one event after the run's work: publish it past the closed gate.
    this.claimIfResuming();
    this.stamp(finished as unknown as E);
    this.closed = true;
    this.publish(finished as unknown as E, true);
    for (const cleanup of this.cleanups.splice(0)) cleanup();
    const partial = { result: result as never };
    if (aborted) {
      // An abort settles at once: the store gets run.finished when it can, nobody waits for it.
      this.recorder?.durable().catch(() => undefined);
      const reason = reasonText(caller!.reason);
      return new TotError('ABORTED', `The ${what} was aborted${reason ? `: ${reason}` : ''}.`, { cause: caller!.reason, details: partial });
    }
    const recordingFailed = failure !== undefined && failure === this.recorder?.failure;
    if (this.recorder && !recordingFailed) {
      const outcome = await this.confirmRecording(this.recorder);
      if (outcome === 'aborted') {
        const reason = reasonText(caller!.reason);
        return new TotError('ABORTED', `The ${what} was aborted while its recording was being confirmed${reason ? `: ${reason}` : ''}.`, { cause: caller!.reason, details: partial });
      }
      if (outcome === 'timeout') {
        return new TotError('TIMEOUT', `The ${what} reached its time limit of ${this.settings.options.timeoutMs} ms and the store has not confirmed its recording.`, { details: { ...partial, ms: this.settings.options.timeoutMs ?? 0, where: { kind: 'recording', runId: this.runId } } });
      }
      if (outcome !== undefined && !failure) return withResult(outcome, partial.result);
    }
    return failure ? withResult(failure, partial.result) : undefined;
  }
}

const noop = () => undefined;

/** A question of the run in this process: asked (here or in the log), waited for, answered. */
interface AskState {
  question: Question;
  /** The answer and the `seq` of its `run.answered`. */
  answer?: { value: unknown; by: 'handler' | 'resume'; seq: number };
  /** This process waits for an answer from a resume (no handler): it never settles here. */
  waiting?: Promise<unknown>;
  /** The handler's answer, once asked for: several asks of one question share it. */
  handled?: Promise<unknown>;
}


/** A served result, copied so that callers can never change the log. */
const copyOf = (result: GenerateResult): GenerateResult => ({ ...result, outputs: [...result.outputs], usage: { ...result.usage } });

/**
 * A listener of `run.finished` that throws cannot add to its run's errors, which the result and
 * the log already hold: it is reported as a process warning instead of being lost.
 */
function warnLateListenerError(error: unknown, eventType: string): void {
  const proc = (globalThis as { process?: { emitWarning?: (warning: string | Error, options?: { type?: string; code?: string }) => void } }).process;
  const message = error instanceof Error ? error.message : String(error);
  proc?.emitWarning?.(`A listener of ${eventType} threw after its run ended: ${message}`, { type: 'TotListenerWarning', code: 'TOT_LATE_LISTENER_ERROR' });
}

function withResult(error: TotError, result: unknown): TotError {
  return new TotError(error.code, error.message, { recoverable: error.recoverable, cause: error.cause ?? error, details: { ...error.details, result: result as never } });
}

/** What a person answers when a budget asks for more (`onExhausted: 'ask'`): whole calls and tokens, any cost. */
const countGrantSchema = z.strictObject({ more: z.number().int().nonnegative() });
const costGrantSchema = z.strictObject({ more: z.number().nonnegative() });

const LIMIT_WORDS: Record<BudgetLimitName, string> = { calls: 'model calls', inputTokens: 'input tokens', outputTokens: 'output tokens', totalTokens: 'tokens', cost: 'cost', deadline: 'ms' };
const OPTION_OF = Object.fromEntries(Object.entries(LIMIT_OF).map(([option, limit]) => [limit, option])) as { [K in (typeof LIMIT_OF)[keyof typeof LIMIT_OF]]: keyof typeof LIMIT_OF };

/** A turn of the event loop, after its I/O callbacks: `setImmediate` where there is one (Node, Bun, Deno). */
const nextTurn: (fn: () => void) => void = typeof setImmediate === 'function' ? (fn) => void setImmediate(fn) : (fn) => void setTimeout(fn, 0);

/** Turns of the event loop without an event or a model call before a run with only questions left ends waiting. */
const QUIET_TURNS = 3;

/** How long a stopping run waits for its program to unwind before it settles without it. */
const UNWIND_GRACE_MS = 500;

async function execute<E extends RunEventBase, R extends RunResult>(run: Run<E>, settings: RunSettings<E>, program: RunProgram<R>, started: number): Promise<R> {
  const main = Promise.resolve().then(() => program.main());
  try {
    await raceAbort(main, run.signal, settings.what);
  } catch (error) {
    // Once the run is stopping, the program's rejection is a consequence; before that, it failed.
    if (!run.stopping) {
      run.fail(
        TotError.isInstance(error)
          ? error
          : new TotError('INTERNAL', `The ${settings.what} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error }),
      );
    }
  }
  if (run.stopping) {
    // Our programs unwind at once on abort; user code that ignores its signal gets a bounded wait.
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([main.then(noop, noop), new Promise<void>((resolve) => (timer = setTimeout(resolve, UNWIND_GRACE_MS)))]);
    clearTimeout(timer);
  }
  await run.close();
  const result = program.result(run.end(run.now() - started));
  if (run.halted?.reason === 'waiting') (result as RunResult).pending = run.pendingQuestions();
  const failure = await run.finish(result, settings.what);
  if (failure) throw failure;
  return result;
}

/** Starts a new run of a runner's program. */
export async function startRun<E extends RunEventBase, R extends RunResult>(
  settings: RunSettings<E>,
  invocation: RunInvocation<E>,
  start: { problem: string; input?: Record<string, unknown> },
  program: (run: Run<E>) => RunProgram<R>,
): Promise<R> {
  const run = new Run(settings, invocation, invocation.runId ?? createRunId());
  const started = run.now();
  run.begin(invocation.store, undefined);
  run.start({ type: 'run.started', runner: settings.runner, problem: start.problem, config: settings.config, ...(start.input ? { input: start.input } : {}) } as unknown as RunEventInput<E>);
  return execute(run, settings, program(run), started);
}

/**
 * Continues a recorded run. The configuration must equal the recorded one (`RESUME_MISMATCH`,
 * nothing written, otherwise); a finished run is rebuilt from its log with `fromLog`.
 */
export async function resumeRun<E extends RunEventBase, R extends RunResult>(
  settings: RunSettings<E>,
  invocation: RunInvocation<E> & { store: EventStore; runId: string },
  restore: { fromLog(log: RecordedRun): R; program(run: Run<E>, log: RecordedRun): RunProgram<R> },
): Promise<R> {
  throwIfAborted(invocation.signal, settings.what);
  const log = await raceAbort(readRecordedRun(invocation.store, invocation.runId, invocation.signal ? { signal: invocation.signal } : {}), invocation.signal, settings.what);
  checkResumable(settings, log);
  settings.replayLog?.(log.events);
  // Checked before anything is written: a refused answer leaves the run waiting as it was.
  const checked = invocation.answers === undefined ? undefined : checkedAnswers(log, invocation.answers);
  // Answers the log already holds (a retry of the resume that gave them) leave nothing to do.
  const answers = checked === undefined || Object.keys(checked).length === 0 ? undefined : checked;
  const waiting = log.finished?.stopReason === 'waiting';
  if (log.finished && (!waiting || (answers === undefined && invocation.onAsk === undefined))) {
    const result = restore.fromLog(log);
    if (waiting) (result as RunResult).pending = pendingQuestions(log);
    return result;
  }
  const run = new Run(settings, invocation, invocation.runId);
  const started = run.now();
  run.begin(invocation.store, log);
  if (answers !== undefined) run.answer(answers);
  return execute(run, settings, restore.program(run, log), started);
}

/** The log of `runId` folded for a runner, or a `RESUME_MISMATCH` naming what differs. */
function checkResumable(settings: { runner: string; config: Record<string, unknown> }, log: RecordedRun): void {
  if (log.started.runner !== settings.runner) {
    throw new TotError('RESUME_MISMATCH', `Run "${log.runId}" was recorded by a ${log.started.runner} runner, not a ${settings.runner} runner; nothing was written.`, {
      details: { runId: log.runId, differences: [{ path: 'runner', recorded: log.started.runner, current: settings.runner }] },
    });
  }
  const differences = configDifferences(log.started.config, settings.config);
  if (differences.length > 0) {
    const list = differences.slice(0, 5).map((d) => `${d.path} (recorded ${JSON.stringify(d.recorded)}, now ${JSON.stringify(d.current)})`).join(', ');
    throw new TotError('RESUME_MISMATCH', `Run "${log.runId}" was recorded with a different configuration: ${list}${differences.length > 5 ? ', …' : ''}. Resume it with the options it was recorded with; nothing was written.`, {
      details: { runId: log.runId, differences },
    });
  }
}
