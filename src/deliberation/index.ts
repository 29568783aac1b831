/**
 * `@tot/core/deliberation`: several agents debate a question in rounds, a host decides; debates,
 * planning debates, society of mind, consensus analysis.
 *
 * @packageDocumentation
 */
export type { DeliberationEvent } from './deliberation-events.js';
export {
  Deliberation,
  type DeliberationOptions,
  type DeliberationResumeOptions,
  type DeliberationRunOptions,
} from './deliberation.js';
export type { ContentFilter, DeliberationResult, DeliberationStats, DeliberationStopReason } from './deliberation-program.js';
export { llmAgent, type LlmAgentOptions } from './llm-agent.js';
export { llmHost, parseHostReply, type LlmHostOptions, type ModeratorVerdict } from './llm-host.js';
export type {
  AgentContext,
  AgentReply,
  DeliberationAgent,
  DeliberationContext,
  DeliberationHost,
  DeliberationReporter,
  HostContext,
  ReporterContext,
} from './participant.js';
export type { OutputTruncation } from './output-cap.js';
export { positionChanges } from './position-changes.js';
export { decisionToProtocol, outputToProtocol, toProtocol } from './protocol.js';
export { parseLooseObject, parsePythonLiteral } from './python-literal.js';
export * from './presets/index.js';
export * from './roles/index.js';
export { HOST_REQUIREMENTS, similarityHost, type ConsensusThresholds, type SimilarityHostOptions } from './similarity-host.js';
export * from './similarity/index.js';
export { toSSE } from './to-sse.js';
export * from './tools/index.js';
export type {
  AgentDirective,
  AgentOutput,
  ConsensusAnalysis,
  DeliberationRound,
  Exchange,
  HostAction,
  HostDecision,
  OutputType,
  PositionChanges,
  PositionSummary,
  SkipReason,
} from './types.js';
