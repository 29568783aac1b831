export type { RunEvent, RunEventBase, RunEventInput, RunEventMap, RunEventType } from './run-event.js';
export { RunEmitter, type RunEmitterOptions, type StreamOptions } from './run-emitter.js';
