/**
 * `@tot/core/testing`: a model that answers by role, mock and scripted models, latency, and
 * record/replay cassettes for testing reasoning flows without a provider.
 *
 * @packageDocumentation
 */
export { mockModel, type MockModel, type MockModelOptions } from './mock-model.js';
export { scriptedModel, type ScriptedModel, type ScriptedModelOptions, type ScriptRule } from './scripted-model.js';
export type { MockCall, MockResponder, MockResponse, MockUsage } from './mock-response.js';
export {
  roleModel,
  type CandidateReply,
  type RoleCall,
  type RoleModel,
  type RoleModelOptions,
  type RoleReplies,
  type RoleReplyValues,
} from './role-model.js';
export { withLatency, type Latency } from './with-latency.js';
export {
  recordCassette,
  replayCassette,
  type CassetteFile,
  type CassetteInteraction,
  type CassettePlayer,
  type CassetteRecorder,
  type RecordCassetteOptions,
  type ReplayCassetteOptions,
} from './cassette.js';
export {
  eventStoreConformanceCases,
  registerEventStoreConformance,
  type ConformanceCase,
  type EventStoreFactory,
  type TestRegistrar,
} from './event-store-conformance.js';
