import type { LanguageModel } from '../model/types.js';
import type { ThoughtNode } from '../tree/types.js';
import type { ThoughtTree } from '../tree/thought-tree.js';

/**
 * Per-call options of every role. A runner passes them to each role call; a role that calls a
 * model should call it through `runModel`, so that the call is admitted by the run's budget,
 * limited by its concurrency, logged (`llm.*` events), recorded and served on resume.
 *
 * @example
 * ```ts
 * import { callModel, type RoleCallOptions, type ThoughtGenerator } from '@tot/core';
 *
 * const generator: ThoughtGenerator = {
 *   async generate({ parent, k }, options: RoleCallOptions = {}) {
 *     const model = options.runModel?.(myModel) ?? myModel;
 *     const { outputs } = await callModel(model, { messages: [{ role: 'user', content: parent.content }], n: k }, { signal: options.signal });
 *     return outputs.map((content) => ({ content }));
 *   },
 * };
 * ```
 */
export interface RoleCallOptions {
  signal?: AbortSignal;
  /** The model as the run sees it. Absent outside a run: use the model as it is. */
  runModel?: (model: LanguageModel) => LanguageModel;
}

/**
 * What a role reports about itself for a run's configuration (JSON): a resume with a role whose
 * description differs (another model, prompt or strategy) is refused with `RESUME_MISMATCH`.
 *
 * @example
 * ```ts
 * import type { RoleDescription } from '@tot/core';
 *
 * const d: RoleDescription = { kind: 'llm-generator', modelId: 'gpt-4o', strategy: 'sequential_proposal' };
 * ```
 */
export type RoleDescription = Readonly<Record<string, unknown>>;

/**
 * What roles know about the task (the Tree-of-Thoughts agent protocol's `context`).
 *
 * @example
 * ```ts
 * import type { TaskContext } from '@tot/core';
 *
 * const context: TaskContext = { problem: '4 9 10 13', taskType: 'math_reasoning', goal: 'reach 24', constraints: ['use each number once'], maxDepth: 4 };
 * ```
 */
export interface TaskContext {
  problem: string;
  taskType: string;
  goal?: string;
  constraints?: string[];
  /** The depth the search may reach. */
  maxDepth: number;
  /** Score under which the explorer prunes; evaluators suggest pruning below it. */
  pruningThreshold?: number;
  /** What one thought is (`equation`, `paragraph`, …). */
  granularity?: string;
  /** Free-form data a host passes to its own roles. */
  data?: Record<string, unknown>;
}

/**
 * A proposed thought, before the explorer gives it an id (the Tree-of-Thoughts agent protocol's generated_thoughts candidate).
 *
 * @example
 * ```ts
 * import type { Candidate } from '@tot/core';
 *
 * const c: Candidate = { content: '13 - 9 = 4 (left: 4 4 10)', actionType: 'subtraction', metadata: { left: [4, 4, 10] } };
 * ```
 */
export interface Candidate {
  content: string;
  actionType?: string;
  metadata?: Record<string, unknown>;
}

/**
 * One node's evaluation in an {@link EvaluationBatch}.
 *
 * @example
 * ```ts
 * import type { NodeEvaluation } from '@tot/core';
 *
 * const e: NodeEvaluation = { nodeId: 'node_1_1', score: 7.5, confidence: 0.8, reasoning: 'a multiple of 4 remains' };
 * ```
 */
export interface NodeEvaluation {
  nodeId: string;
  /** 0–10. */
  score: number;
  /** 0–1. */
  confidence: number;
  reasoning: string;
  dimensionScores?: Record<string, number>;
}

/**
 * An evaluator's answer for a batch of candidates (the Tree-of-Thoughts agent protocol's evaluation_results).
 *
 * @example
 * ```ts
 * import type { EvaluationBatch } from '@tot/core';
 *
 * const batch: EvaluationBatch = {
 *   evaluations: [{ nodeId: 'node_1_1', score: 8, confidence: 0.9, reasoning: 'close' }],
 *   ranking: ['node_1_1'],
 *   pruningSuggestions: [],
 * };
 * ```
 */
export interface EvaluationBatch {
  evaluations: NodeEvaluation[];
  /** Node ids, best first. */
  ranking: string[];
  /** Node ids the evaluator thinks should be pruned. */
  pruningSuggestions: string[];
}

/**
 * Input of {@link ThoughtGenerator.generate}.
 *
 * @example
 * ```ts
 * import type { GenerateThoughtsInput } from '@tot/core';
 *
 * const depthOf = (input: GenerateThoughtsInput) => input.parent.depth;
 * ```
 */
export interface GenerateThoughtsInput {
  tree: ThoughtTree;
  parent: ThoughtNode;
  /** How many candidates are wanted. */
  k: number;
  context: TaskContext;
}

/**
 * Proposes the next thoughts from a node (the Tree-of-Thoughts agent protocol's generator).
 *
 * @example
 * ```ts
 * import type { ThoughtGenerator } from '@tot/core';
 *
 * const counter: ThoughtGenerator = {
 *   async generate({ parent, k }) {
 *     return Array.from({ length: k }, (_, i) => ({ content: `${parent.content}.${i + 1}` }));
 *   },
 * };
 * ```
 */
export interface ThoughtGenerator {
  /** What the role is (its model, strategy, prompt), recorded with a run; see {@link RoleDescription}. */
  readonly config?: RoleDescription;
  /** Up to `k` candidates that follow from `parent`. May return fewer (none is a dead end). */
  generate(input: GenerateThoughtsInput, options?: RoleCallOptions): Promise<Candidate[]>;
}

/**
 * Input of {@link ThoughtEvaluator.evaluate}.
 *
 * @example
 * ```ts
 * import type { EvaluateThoughtsInput } from '@tot/core';
 *
 * const ids = (input: EvaluateThoughtsInput) => input.candidates.map((c) => c.id);
 * ```
 */
export interface EvaluateThoughtsInput {
  tree: ThoughtTree;
  /** Nodes already in the tree (status `pending`), to be scored. */
  candidates: ThoughtNode[];
  context: TaskContext;
}

/**
 * Scores candidate nodes (the Tree-of-Thoughts agent protocol's evaluator).
 *
 * @example
 * ```ts
 * import type { ThoughtEvaluator } from '@tot/core';
 *
 * const byLength: ThoughtEvaluator = {
 *   async evaluate({ candidates }) {
 *     const evaluations = candidates.map((c) => ({ nodeId: c.id, score: Math.min(10, c.content.length), confidence: 1, reasoning: 'length' }));
 *     return { evaluations, ranking: evaluations.map((e) => e.nodeId), pruningSuggestions: [] };
 *   },
 * };
 * ```
 */
export interface ThoughtEvaluator {
  /** What the role is (its model, strategy, prompt), recorded with a run; see {@link RoleDescription}. */
  readonly config?: RoleDescription;
  /** One evaluation per candidate, by `nodeId` (score 0–10, confidence 0–1). */
  evaluate(input: EvaluateThoughtsInput, options?: RoleCallOptions): Promise<EvaluationBatch>;
}

/**
 * A decomposer's analysis of a problem (the Tree-of-Thoughts agent protocol's decomposition_result).
 *
 * @example
 * ```ts
 * import type { Decomposition } from '@tot/core';
 *
 * const d: Decomposition = {
 *   thoughtGranularity: 'equation',
 *   intermediateSteps: ['combine two numbers', 'combine the result with a third', 'reach 24'],
 *   depthEstimate: 3,
 *   constraints: ['use each number exactly once'],
 *   successCriteria: 'the expression equals 24',
 * };
 * ```
 */
export interface Decomposition {
  thoughtGranularity: string;
  intermediateSteps: string[];
  depthEstimate: number;
  constraints: string[];
  successCriteria: string;
}

/**
 * Analyses a problem before the search (the Tree-of-Thoughts agent protocol's decomposer).
 *
 * @example
 * ```ts
 * import type { Decomposer } from '@tot/core';
 *
 * const fixed: Decomposer = {
 *   async decompose() {
 *     return { thoughtGranularity: 'equation', intermediateSteps: [], depthEstimate: 3, constraints: [], successCriteria: '24' };
 *   },
 * };
 * ```
 */
export interface Decomposer {
  /** What the role is (its model, strategy, prompt), recorded with a run; see {@link RoleDescription}. */
  readonly config?: RoleDescription;
  /** The Tree-of-Thoughts agent protocol's decomposition_result for the problem. */
  decompose(input: { problem: string; taskType: string }, options?: RoleCallOptions): Promise<Decomposition>;
}

/**
 * The answer built from the best path (the Tree-of-Thoughts agent protocol's final_solution).
 *
 * @example
 * ```ts
 * import type { FinalSolution } from '@tot/core';
 *
 * const s: FinalSolution = {
 *   answer: '(10 - (13 - 9)) * 4 = 24',
 *   reasoningTrace: ['13 - 9 = 4', '10 - 4 = 6', '6 * 4 = 24'],
 *   confidence: 1,
 *   verification: { isValid: true },
 * };
 * ```
 */
export interface FinalSolution {
  answer: string;
  reasoningTrace: string[];
  /** 0–1. */
  confidence: number;
  verification: { isValid: boolean; validationErrors?: string[] };
  alternativeSolutions?: string[];
}

/**
 * Input of {@link Synthesizer.synthesize}.
 *
 * @example
 * ```ts
 * import type { SynthesizeInput } from '@tot/core';
 *
 * const steps = (input: SynthesizeInput) => input.bestPath.slice(1).map((n) => n.content);
 * ```
 */
export interface SynthesizeInput {
  /** Root first. */
  bestPath: ThoughtNode[];
  problem: string;
  taskType: string;
  tree?: ThoughtTree;
}

/**
 * Turns the best path into an answer (the Tree-of-Thoughts agent protocol's synthesizer).
 *
 * @example
 * ```ts
 * import type { Synthesizer } from '@tot/core';
 *
 * const lastStep: Synthesizer = {
 *   async synthesize({ bestPath }) {
 *     const steps = bestPath.slice(1).map((n) => n.content);
 *     return { answer: steps.at(-1) ?? '', reasoningTrace: steps, confidence: 0.5, verification: { isValid: false } };
 *   },
 * };
 * ```
 */
export interface Synthesizer {
  /** What the role is (its model, strategy, prompt), recorded with a run; see {@link RoleDescription}. */
  readonly config?: RoleDescription;
  /** The Tree-of-Thoughts agent protocol's final_solution from the best path. */
  synthesize(input: SynthesizeInput, options?: RoleCallOptions): Promise<FinalSolution>;
}
