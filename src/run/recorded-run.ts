import { z } from 'zod';
import { TotError } from '../errors/index.js';
import type { EventStore, StoredEvent } from '../events/store/types.js';
import { parseOptions, signalSchema } from '../internal/validate.js';
import { requestKey } from '../model/request-key.js';
import type { GenerateRequest, GenerateResult } from '../model/types.js';
import { checkRunLog } from './run-log-check.js';
import type { Question } from './question.js';
import { isSharedRunEvent, type LlmCompletedEvent, type LlmRequestedEvent, type RunAnsweredEvent, type RunAskedEvent, type RunEventBase, type RunFinishedEvent, type RunStartedEvent } from './run-event.js';

const readOptionsSchema = z.strictObject({ signal: signalSchema });

/**
 * A run read back from its stream: what a resume replays and what a runner's `replay…` folds.
 *
 * @example
 * ```ts
 * import { readRecordedRun } from '@tot/core';
 *
 * const log = await readRecordedRun(store, 'run-42');
 * log.finished?.stopReason; // undefined for an interrupted run
 * ```
 */
export interface RecordedRun {
  runId: string;
  /** Every event, in order. */
  events: RunEventBase[];
  started: RunStartedEvent;
  /** The last event when it is `run.finished`: `undefined` for an interrupted run. A run waiting for answers has one with `stopReason: 'waiting'`. */
  finished: RunFinishedEvent | undefined;
  /** The store version of the last event. */
  lastVersion: number;
  /** The `seq` of the last event. */
  lastSeq: number;
  /** Model calls started in the log (`llm.requested`), so that new call ids continue after them. */
  requestedCalls: number;
  /** Completed model results by `requestKey`, in the order they completed. */
  modelResults: Map<string, { callId: string; result: GenerateResult; charged: LlmCompletedEvent['charged'] }[]>;
  /** Every call the log started, in order, with how it ended (`open`: the log stops before it ended). */
  calls: LoggedCall[];
  /** The runner's own events (everything but the shared ones), in order: what a deterministic re-run emits again. */
  runnerEvents: RunEventBase[];
  /** The questions the run asked (`run.asked`), by id, in the order asked, with their answers once answered. */
  questions: Map<string, LoggedQuestion>;
}

/**
 * The questions a run's log asked and holds no answer to, in the order asked: what a waiting run
 * waits for.
 *
 * @example
 * ```ts
 * import { pendingQuestions, readRecordedRun } from '@tot/core';
 *
 * const ids = pendingQuestions(await readRecordedRun(store, 'run-42')).map((q) => q.id);
 * ```
 */
export function pendingQuestions(log: RecordedRun): Question[] {
  const pending: Question[] = [];
  for (const q of log.questions.values()) if (q.answer === undefined) pending.push(questionOf(q.asked));
  return pending;
}

/** A logged question as a handler receives it and a result lists it. */
export function questionOf(asked: RunAskedEvent): Question {
  const { questionId: id, key, question, where, schema, preview } = asked;
  return { id, key, question, ...(where ? { where } : {}), ...(schema ? { schema } : {}), ...(preview === undefined ? {} : { preview }) };
}

/**
 * A question as a run's log holds it.
 *
 * @example
 * ```ts
 * import { readRecordedRun } from '@tot/core';
 *
 * const { questions } = await readRecordedRun(store, 'run-42');
 * const pending = [...questions.values()].filter((q) => q.answer === undefined).map((q) => q.asked.questionId);
 * ```
 */
export interface LoggedQuestion {
  asked: RunAskedEvent;
  /** Set once the question was answered (`run.answered`). */
  answer?: { value: unknown; by: RunAnsweredEvent['by']; seq: number };
}

/**
 * A model call as a run's log holds it.
 *
 * @example
 * ```ts
 * import { readRecordedRun } from '@tot/core';
 *
 * const { calls } = await readRecordedRun(store, 'run-42');
 * const unfinished = calls.filter((c) => c.outcome === 'open').map((c) => c.callId);
 * ```
 */
export interface LoggedCall {
  callId: string;
  request: GenerateRequest;
  outcome: 'completed' | 'failed' | 'open';
  /** Attempts `withRetry` repeated within the call (`llm.retried`): each one a request to the provider. */
  retries: number;
  /** The usage charged for a completed call. */
  charged?: LlmCompletedEvent['charged'];
}

/**
 * Reads a recorded run's stream. `INVALID_ARGUMENT` when the store holds no such run,
 * `INVALID_FORMAT` (naming the event's position) when the stream is not a sound run log: an
 * event of the wrong shape, `run.started` not first, events after `run.finished`, another run's
 * event, or a gap in `seq`.
 *
 * @example
 * ```ts
 * import { readRecordedRun } from '@tot/core';
 *
 * const { events, finished } = await readRecordedRun(store, 'run-42');
 * ```
 */
export async function readRecordedRun(store: EventStore, runId: string, options: { signal?: AbortSignal } = {}): Promise<RecordedRun> {
  parseOptions(readOptionsSchema, options, 'readRecordedRun');
  const stored: StoredEvent[] = [];
  for await (const e of store.readStream(runId)) {
    if (options.signal?.aborted) break;
    stored.push(e);
  }
  if (stored.length === 0) throw new TotError('INVALID_ARGUMENT', `No recorded run "${runId}" in the store.`, { details: { field: 'runId' } });
  return foldLog(runId, stored.map((e) => e.data as RunEventBase), stored.at(-1)!.version);
}

/** Indexes a run's events (as read from a store, or kept in memory). */
export function foldLog(runId: string, events: RunEventBase[], lastVersion = events.length - 1): RecordedRun {
  checkRunLog(runId, events);
  const started = events[0] as RunStartedEvent;
  const keys = new Map<string, string>();
  const modelResults: RecordedRun['modelResults'] = new Map();
  const runnerEvents: RunEventBase[] = [];
  let finished: RunFinishedEvent | undefined;
  let requestedCalls = 0;
  const calls = new Map<string, LoggedCall>();
  const questions = new Map<string, LoggedQuestion>();
  for (const e of events) {
    switch (e.type) {
      case 'llm.requested': {
        const r = e as LlmRequestedEvent;
        requestedCalls += 1;
        keys.set(r.callId, requestKey(r.modelId, r.request as GenerateRequest));
        calls.set(r.callId, { callId: r.callId, request: r.request as GenerateRequest, outcome: 'open', retries: 0 });
        break;
      }
      case 'llm.completed': {
        const c = e as LlmCompletedEvent;
        const key = keys.get(c.callId);
        if (key === undefined) break;
        const list = modelResults.get(key) ?? [];
        list.push({ callId: c.callId, result: { outputs: c.outputs, usage: c.usage, ...(c.finishReason ? { finishReason: c.finishReason } : {}) }, charged: c.charged });
        modelResults.set(key, list);
        const call = calls.get(c.callId)!;
        call.outcome = 'completed';
        call.charged = c.charged;
        break;
      }
      case 'llm.retried': {
        const call = calls.get((e as unknown as { callId: string }).callId);
        if (call) call.retries += 1;
        break;
      }
      case 'llm.failed': {
        const call = calls.get((e as unknown as { callId: string }).callId);
        if (call) call.outcome = 'failed';
        break;
      }
      case 'run.finished': {
        finished = e as RunFinishedEvent;
        const from = finished.conclusionFrom;
        // A waiting run's conclusion is not work a resumed program does again.
        if (finished.stopReason === 'waiting' && typeof from === 'number') while (runnerEvents.length > 0 && runnerEvents.at(-1)!.seq >= from) runnerEvents.pop();
        break;
      }
      case 'run.resumed':
        // A run that was waiting goes on: it has not finished.
        finished = undefined;
        break;
      case 'run.asked': {
        const a = e as RunAskedEvent;
        if (!questions.has(a.questionId)) questions.set(a.questionId, { asked: a });
        break;
      }
      case 'run.answered': {
        const a = e as RunAnsweredEvent;
        const q = questions.get(a.questionId);
        if (q && q.answer === undefined) q.answer = { value: a.answer, by: a.by, seq: a.seq };
        break;
      }
      default:
        if (!isSharedRunEvent(e)) runnerEvents.push(e);
    }
  }
  return { runId, events, started, finished, lastVersion, lastSeq: events.at(-1)!.seq, requestedCalls, modelResults, calls: [...calls.values()], runnerEvents, questions };
}
