import { z } from 'zod';
import { TotError } from '../errors/index.js';
import type { EventStore } from '../events/store/types.js';
import { raceAbort } from '../internal/abort.js';
import { checkedAnswers } from '../run/answers.js';
import type { Answers, Question } from '../run/question.js';
import { pendingQuestions, readRecordedRun } from '../run/recorded-run.js';

/** Where a waiting run's log stands: its pending questions, and the log version it waits at. */
export interface WaitingAt {
  pending: Question[];
  /** The version of the log's `run.finished`: answers checked against this log are only queued while the run still waits here. */
  logVersion: number;
}

/** What `answer` takes: at least one answer, by question id. */
export const answersArgSchema = z
  .record(z.string().min(1).max(1000), z.unknown())
  .refine((answers) => Object.keys(answers).length > 0, 'expected at least one answer, by question id');


/**
 * Whether the run's log ends waiting for answers, read from the store (the only journal: a flow
 * may return a summary of its runner's result without its stop reason). `undefined` when the log
 * does not end with a `run.finished` that says `waiting`, or when the store holds no such run.
 */
export async function waitingAt(store: EventStore, runId: string, signal?: AbortSignal): Promise<WaitingAt | undefined> {
  const version = await store.streamVersion(runId);
  if (version === null) return undefined;
  let last: { type: string; data: unknown } | undefined;
  for await (const event of store.readStream(runId, { fromVersion: version })) last = event;
  if (last?.type !== 'run.finished' || (last.data as { stopReason?: unknown }).stopReason !== 'waiting') return undefined;
  const log = await readRecordedRun(store, runId, signal ? { signal } : {});
  if (log.finished?.stopReason !== 'waiting') return undefined;
  return { pending: pendingQuestions(log), logVersion: log.lastVersion };
}

/**
 * Answers for a waiting run, checked against its log exactly as a runner's resume checks them
 * (a question it waits for, plain JSON, fitting the recorded schema): `INVALID_ARGUMENT` naming
 * the question otherwise. Returns the log version the answers were checked at.
 */
export async function checkAnswersAgainstLog(store: EventStore, runId: string, answers: Answers, signal: AbortSignal | undefined): Promise<number> {
  const log = await raceAbort(readRecordedRun(store, runId, signal ? { signal } : {}), signal, 'answer');
  if (log.finished?.stopReason !== 'waiting') {
    throw new TotError('ILLEGAL_STATE', `answer: run "${runId}" is not waiting for answers (its log ${log.finished ? `ended ${log.finished.stopReason}` : 'is under way'}); nothing was written.`, {
      details: { runId } as never,
    });
  }
  checkedAnswers(log, answers);
  return log.lastVersion;
}

/**
 * The answers a worker gives the run's resume: those to questions its log still waits for. A job
 * keeps its answers until the next ones replace them, so that a run handed back before it
 * recorded them gets them again; a later delivery after they were recorded drops them (the log
 * holds them, and the resumed program gets them from there).
 */
export async function answersStillPending(store: EventStore, runId: string, answers: Answers, signal: AbortSignal): Promise<Answers | undefined> {
  const log = await readRecordedRun(store, runId, { signal });
  const open = Object.entries(answers).filter(([id]) => {
    const question = log.questions.get(id);
    return question !== undefined && question.answer === undefined;
  });
  return open.length === 0 ? undefined : Object.fromEntries(open);
}

/** `ILLEGAL_STATE` for an answer to a run that is not waiting. */
export function notWaiting(runId: string, status: string): TotError {
  const hint = status === 'queued' || status === 'running' ? ': answer it once it waits again (`result` resolves then)' : '';
  return new TotError('ILLEGAL_STATE', `answer: run "${runId}" is ${status}, not waiting for answers${hint}; nothing was written.`, { details: { runId } as never });
}

/** `ILLEGAL_STATE` for answers checked against a log the run no longer waits at (another answer queued it meanwhile). */
export function movedOn(runId: string): TotError {
  return new TotError('ILLEGAL_STATE', `answer: run "${runId}" went on while its answers were checked (another answer queued it); nothing was written. Answer it once it waits again.`, {
    details: { runId } as never,
  });
}
