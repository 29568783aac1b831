export type {
  BudgetWarningEvent,
  LlmCompletedEvent,
  LlmFailedEvent,
  LlmRequestedEvent,
  LlmRetriedEvent,
  RecordedRequest,
  RecordedRunError,
  RunEvent,
  RunEventBase,
  RunEventInput,
  RunEventMap,
  RunEventType,
  RunAnsweredEvent,
  RunAskedEvent,
  RunFinishedEvent,
  RunResumedEvent,
  RunStartedEvent,
  RunEventListener,
  RunStartedFields,
} from './run-event.js';
export { isSharedRunEvent } from './run-event.js';
export { RunEmitter, type StreamOptions } from './run-emitter.js';
export type { ResumeOptions, RunBudget, RunOptions } from './run-options.js';
export type { RunError, RunResult, RunStats } from './run-result.js';
export type { SharedStopReason, StopDetail } from './stop-detail.js';
export { pendingQuestions, readRecordedRun, type LoggedCall, type LoggedQuestion, type RecordedRun } from './recorded-run.js';
export type { Answers, AskAnswer, AskHandler, AskRequest, Question } from './question.js';
export { createRunId } from './run-id.js';
