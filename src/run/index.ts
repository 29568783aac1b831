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
  RunFinishedEvent,
  RunResumedEvent,
  RunStartedEvent,
} from './run-event.js';
export { isSharedRunEvent } from './run-event.js';
export { RunEmitter, type StreamOptions } from './run-emitter.js';
export type { ResumeOptions, RunBudget, RunOptions } from './run-options.js';
export type { RunError, RunResult, RunStats } from './run-result.js';
export type { SharedStopReason, StopDetail } from './stop-detail.js';
export { readRecordedRun, type LoggedCall, type RecordedRun } from './recorded-run.js';
export { createRunId } from './run-id.js';
