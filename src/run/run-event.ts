import type { BudgetLimitName } from '../budget/budget.js';
import type { ErrorLocation, ProtocolErrorObject } from '../errors/index.js';
import type { ChatMessage, FinishReason, GenerateRequest, Usage } from '../model/types.js';
import type { StoredEvent } from '../events/store/types.js';
import type { StopDetail } from './stop-detail.js';

/**
 * The envelope every run event carries.
 *
 * @example
 * ```ts
 * import type { RunEventBase } from '@tot/core';
 *
 * const base: RunEventBase = { type: 'run.started', runId: 'run-1', seq: 0, at: 1_732_000_000_000 };
 * ```
 */
export interface RunEventBase {
  type: string;
  /** The run this event belongs to (one event stream per run). */
  runId: string;
  /** 0, 1, 2, … within the run, without gaps (also across a resume). */
  seq: number;
  /** Epoch milliseconds, from the runner's clock. */
  at: number;
}

/**
 * The first event of every run: which runner, the problem, and the configuration that a resume
 * must match (`RESUME_MISMATCH` otherwise).
 *
 * @example
 * ```ts
 * import type { RunStartedEvent } from '@tot/core';
 *
 * const strategyOf = (e: RunStartedEvent) => (e.config.strategy as { name: string }).name;
 * ```
 */
export interface RunStartedEvent extends RunEventBase {
  type: 'run.started';
  /** `search`, `solve`, `fractal` or `chain-of-thought`. */
  runner: string;
  problem: string;
  /** The runner's options that decide what the run does (strategy, limits, prompts, model ids). */
  config: Record<string, unknown>;
  /** Runner-specific starting data that a resume reads from the log (e.g. the tree's header). */
  input?: Record<string, unknown>;
  /**
   * The W3C trace context of the run's span, when telemetry traces the run (`@tot/core/otel`):
   * kept with the run so that a resume in another process continues the same trace.
   */
  trace?: { traceparent: string; tracestate?: string };
}

/**
 * What a run's listener may write into a new run's `run.started` through
 * {@link RunEventListener.runStarted}.
 *
 * @example
 * ```ts
 * import type { RunStartedFields } from '@tot/core';
 *
 * const fields: RunStartedFields = { trace: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' } };
 * ```
 */
export type RunStartedFields = Pick<RunStartedEvent, 'trace'>;

/**
 * A run's `onEvent` listener: called with every event of the run, in order. It may also have a
 * `runStarted` hook, through which it contributes fields to a new run's `run.started` before any
 * listener sees it or the store records it: this is how telemetry keeps the run span's trace
 * context with the run. A listener that wraps one with a hook must pass the hook on (as
 * `withTelemetry` does), or the fields are not written.
 *
 * @example
 * ```ts
 * import type { RunEventListener } from '@tot/core';
 *
 * const listener: RunEventListener = Object.assign((event: { type: string }) => console.log(event.type), {
 *   runStarted: () => ({ trace: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' } }),
 * });
 * ```
 */
export interface RunEventListener<E extends RunEventBase = RunEventBase> {
  /** Called with every event of the run, in order. */
  (event: E): void;
  /**
   * Called once, with a new run's `run.started` as stamped (id, seq, time), before it is published
   * or recorded; the fields returned are written into it. Not called for a resume, which reads
   * its `run.started` from the log. A hook that throws is a listener error of the run.
   */
  runStarted?(event: Readonly<RunStartedEvent>): RunStartedFields | undefined;
}

/**
 * A worker claimed an interrupted run and continues it (recorded runs only).
 *
 * @example
 * ```ts
 * import type { RunResumedEvent } from '@tot/core';
 *
 * const from = (e: RunResumedEvent) => e.fromSeq;
 * ```
 */
export interface RunResumedEvent extends RunEventBase {
  type: 'run.resumed';
  /** The store version of the log's last event when the run was claimed. */
  fromVersion: number;
  /** The `seq` of the log's last event. */
  fromSeq: number;
}

/**
 * The request of a model call as recorded: everything that was sent, and its `tags`.
 *
 * @example
 * ```ts
 * import type { RecordedRequest } from '@tot/core';
 *
 * const prompt = (r: RecordedRequest) => r.messages.at(-1)?.content;
 * ```
 */
export type RecordedRequest = Omit<GenerateRequest, 'messages'> & { messages: readonly ChatMessage[] };

/**
 * A model call of the run starts (after its budget admission).
 *
 * @example
 * ```ts
 * import type { LlmRequestedEvent } from '@tot/core';
 *
 * const role = (e: LlmRequestedEvent) => e.request.tags?.role;
 * ```
 */
export interface LlmRequestedEvent extends RunEventBase {
  type: 'llm.requested';
  /** Unique within the run: `c1`, `c2`, … */
  callId: string;
  modelId: string;
  /** What was sent. With `modelId` it is the call's key (`requestKey`): a resume serves a recorded call to an equal request. */
  request: RecordedRequest;
}

/**
 * A model call of the run completed.
 *
 * @example
 * ```ts
 * import type { LlmCompletedEvent } from '@tot/core';
 *
 * const tokens = (e: LlmCompletedEvent) => (e.usage.inputTokens ?? 0) + (e.usage.outputTokens ?? 0);
 * ```
 */
export interface LlmCompletedEvent extends RunEventBase {
  type: 'llm.completed';
  callId: string;
  outputs: string[];
  /** As reported by the model (a field is absent when it was not reported). */
  usage: Usage;
  /** The usage charged for the call: the reported figures, or estimates where a figure was missing. */
  charged: { inputTokens: number; outputTokens: number; estimated: boolean };
  finishReason?: FinishReason;
  cacheHit?: boolean;
  durationMs: number;
}

/**
 * A model call of the run failed (or was cancelled because the run stopped).
 *
 * @example
 * ```ts
 * import type { LlmFailedEvent } from '@tot/core';
 *
 * const rateLimited = (e: LlmFailedEvent) => e.error.code === 'GENERATION_FAILED' && e.status === 429;
 * ```
 */
export interface LlmFailedEvent extends RunEventBase {
  type: 'llm.failed';
  callId: string;
  error: ProtocolErrorObject;
  /** The provider's HTTP status, when its error carried one. */
  status?: number;
  durationMs: number;
}

/**
 * An attempt of a model call failed and `withRetry` tries again after `delayMs`.
 *
 * @example
 * ```ts
 * import type { LlmRetriedEvent } from '@tot/core';
 *
 * const waited = (e: LlmRetriedEvent) => e.delayMs;
 * ```
 */
export interface LlmRetriedEvent extends RunEventBase {
  type: 'llm.retried';
  callId: string;
  /** The attempt that failed: 1 for the first. */
  attempt: number;
  delayMs: number;
  error: ProtocolErrorObject;
  status?: number;
}

/**
 * A limit of the run's budget reached its warning ratio (80% by default).
 *
 * @example
 * ```ts
 * import type { BudgetWarningEvent } from '@tot/core';
 *
 * const percent = (e: BudgetWarningEvent) => Math.round(e.ratio * 100);
 * ```
 */
export interface BudgetWarningEvent extends RunEventBase {
  type: 'budget.warning';
  limit: BudgetLimitName;
  used: number;
  max: number;
  ratio: number;
}

/**
 * The run asked a person a question (`run.ask`): recorded whether an `onAsk` handler answers it
 * at once or the run ends `waiting` for an answer given to a resume.
 *
 * @example
 * ```ts
 * import type { RunAskedEvent } from '@tot/core';
 *
 * const line = (e: RunAskedEvent) => `${e.questionId}: ${e.question}`;
 * ```
 */
export interface RunAskedEvent extends RunEventBase {
  type: 'run.asked';
  /** Stable across resumes: answer the question by it. */
  questionId: string;
  key: string;
  question: string;
  where?: ErrorLocation;
  /** The JSON Schema of an acceptable answer, when the question's schema has one. */
  schema?: object;
  preview?: unknown;
}

/**
 * A question of the run was answered: by the run's `onAsk` handler, or by the answers given to a
 * resume. An answered question never asks again: a resumed program gets this answer.
 *
 * @example
 * ```ts
 * import type { RunAnsweredEvent } from '@tot/core';
 *
 * const fromPerson = (e: RunAnsweredEvent) => e.by === 'resume';
 * ```
 */
export interface RunAnsweredEvent extends RunEventBase {
  type: 'run.answered';
  questionId: string;
  /** The answer as given (before the schema's transforms, which run again when it is read). */
  answer: unknown;
  /** `handler`: the run's `onAsk`; `resume`: the answers given to `resume`. */
  by: 'handler' | 'resume';
}

/**
 * An error recorded during a run, as written to its log.
 *
 * @example
 * ```ts
 * import type { RecordedRunError } from '@tot/core';
 *
 * const e: RecordedRunError = { code: 'INVALID_FORMAT', message: 'not JSON', recoverable: true, where: { kind: 'node', nodeId: 'node_1_1', role: 'evaluator' } };
 * ```
 */
export interface RecordedRunError extends ProtocolErrorObject {
  where?: ErrorLocation;
}

/**
 * The last event of every run.
 *
 * @example
 * ```ts
 * import type { RunFinishedEvent } from '@tot/core';
 *
 * const ok = (e: RunFinishedEvent) => e.error === undefined;
 * ```
 */
export interface RunFinishedEvent extends RunEventBase {
  type: 'run.finished';
  /** The result's `stopReason`. */
  stopReason: string;
  /** Why, as data (the limit that stopped the run, …). */
  detail?: StopDetail;
  stats: Record<string, unknown>;
  errors: RecordedRunError[];
  /** Set when the run rejected (a failure that is not a stop): the error it rejected with. */
  error?: ProtocolErrorObject;
  /**
   * A run that ended `waiting`: the `seq` of the first event its program emitted as it concluded
   * (a search's last state). A resume replays the log before it and goes on from the questions.
   */
  conclusionFrom?: number;
}

/**
 * The events every runner emits, whatever it does in between.
 *
 * @example
 * ```ts
 * import type { RunEvent } from '@tot/core';
 *
 * function describe(e: RunEvent): string {
 *   switch (e.type) {
 *     case 'llm.completed': return `call ${e.callId} took ${e.durationMs} ms`;
 *     case 'run.finished': return `done: ${e.stopReason}`;
 *     default: return e.type;
 *   }
 * }
 * ```
 */
export type RunEvent = RunStartedEvent | RunResumedEvent | LlmRequestedEvent | LlmCompletedEvent | LlmFailedEvent | LlmRetriedEvent | BudgetWarningEvent | RunAskedEvent | RunAnsweredEvent | RunFinishedEvent;

/**
 * The `type` of an event.
 *
 * @example
 * ```ts
 * import type { RunEventType } from '@tot/core';
 *
 * const t: RunEventType = 'llm.retried';
 * ```
 */
export type RunEventType = RunEvent['type'];

/**
 * An event as a runner writes it: the kernel stamps `runId`, `seq` and `at`.
 *
 * @example
 * ```ts
 * import type { RunEvent, RunEventInput } from '@tot/core';
 *
 * const input: RunEventInput<RunEvent> = { type: 'budget.warning', limit: 'calls', used: 8, max: 10, ratio: 0.8 };
 * ```
 */
export type RunEventInput<E extends RunEventBase> = E extends unknown ? Omit<E, 'runId' | 'seq' | 'at'> : never;

/**
 * The listener map of a runner: one entry per event type, plus `event` for every event.
 *
 * @example
 * ```ts
 * import type { RunEvent, RunEventMap } from '@tot/core';
 *
 * type OnFinished = RunEventMap<RunEvent>['run.finished']; // [event]
 * ```
 */
export type RunEventMap<E extends RunEventBase> = { [K in E['type']]: [Extract<E, { type: K }>] } & { event: [E] };

const SHARED = new Set<string>(['run.started', 'run.resumed', 'llm.requested', 'llm.completed', 'llm.failed', 'llm.retried', 'budget.warning', 'run.asked', 'run.answered', 'run.finished']);

/**
 * Whether an event is one of the shared events every runner emits (as opposed to a runner's own
 * events: a node created, a frame returned, a thought completed).
 *
 * @example
 * ```ts
 * import { isSharedRunEvent } from '@tot/core';
 *
 * isSharedRunEvent({ type: 'llm.completed' }); // true
 * isSharedRunEvent({ type: 'node.created' }); // false
 * ```
 */
export function isSharedRunEvent(event: { type: string }): boolean {
  return SHARED.has(event.type);
}

/**
 * A run event as its runner emitted it, whether it is given as it is or as an event store returns
 * it (`StoredEvent`, the event in its `data`): every fold of a run's log reads both.
 */
export function runEventOf(raw: RunEventBase | StoredEvent): RunEventBase {
  return (typeof raw === 'object' && raw !== null && 'data' in raw && 'streamId' in raw ? raw.data : raw) as RunEventBase;
}
