export type { RunEvent, RunEventBase, RunEventInput, RunEventMap, RunEventType } from './run-event.js';
export { RunEmitter, type RunEmitterOptions, type StreamOptions } from './run-emitter.js';
export * from './store/index.js';
export { VectorClock, compareClocks, EventDag, type ClockOrder } from './vector-clock.js';
export { foldRunEvents, isTreeEvent, replayRun, type ReplayedRun } from './replay-run.js';
export { RunRecorder, type RecordedRun, type RecordingOptions } from './run-recorder.js';
