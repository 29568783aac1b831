/**
 * `@tot/core/graph`: operation graphs, after the Graph-of-Thoughts paper: operations (generate,
 * score, keep the best, aggregate, improve, …) wired into a graph you draw before the run.
 *
 * @packageDocumentation
 */
export type { GraphThought, ThoughtMarks } from './thought.js';
export type { Operation, OperationContext, OperationKind, Prompt } from './operation.js';
export type { GraphEvent, ThoughtRecord } from './graph-events.js';
export { ThoughtGraph, foldGraphEvents, type OperationInfo, type ThoughtGraphJSON, type ThoughtGraphMermaidOptions } from './thought-graph.js';
export type { GraphStats, GraphStopReason, OperationGraphResult } from './graph-program.js';
export {
  OperationGraph,
  type AddOperationOptions,
  type OperationGraphOptions,
  type OperationGraphResumeOptions,
  type OperationGraphRunOptions,
  type OperationRef,
} from './operation-graph.js';
export { generate, type GenerateOptions } from './operations/generate.js';
export { score, type LocalScoreOptions, type ModelScoreOptions, type ScoreOptions } from './operations/score.js';
export { keepBest, type KeepBestOptions } from './operations/keep-best.js';
export { aggregate, type AggregateOptions } from './operations/aggregate.js';
export { improve, type ImproveOptions } from './operations/improve.js';
export { validateAndImprove, type ValidateAndImproveOptions } from './operations/validate-and-improve.js';
export { select } from './operations/select.js';
export { groundTruth } from './operations/ground-truth.js';
export type { SamplingOptions } from './operations/model-step.js';
