import { z } from 'zod';
import { protocolSearchConfigSchema, protocolThoughtNodeSchema, protocolThoughtTreeSchema } from './thought-node.js';

/**
 * The roles that exchange Tree-of-Thoughts protocol messages.
 *
 * @example
 * ```ts
 * import { agentRoleSchema } from '@tot/core';
 *
 * agentRoleSchema.parse('evaluator');
 * ```
 */
export const agentRoleSchema = z.enum(['orchestrator', 'decomposer', 'generator', 'evaluator', 'explorer', 'synthesizer']);

/**
 * The error object any Tree-of-Thoughts protocol message may carry.
 *
 * @example
 * ```ts
 * import { protocolErrorSchema } from '@tot/core';
 *
 * protocolErrorSchema.parse({ code: 'EVALUATION_TIMEOUT', message: 'timed out', recoverable: true });
 * ```
 */
export const protocolErrorSchema = z.object({
  code: z.string().min(1),
  message: z.string(),
  recoverable: z.boolean(),
});

/**
 * decompose_task payload.
 *
 * @example
 * ```ts
 * import { decomposeTaskPayloadSchema } from '@tot/core';
 *
 * decomposeTaskPayloadSchema.parse({ problem: '用4、9、10、13得到24', task_type: 'math_reasoning' });
 * ```
 */
export const decomposeTaskPayloadSchema = z.object({ problem: z.string(), task_type: z.string() });

/**
 * decomposition_result payload.
 *
 * @example
 * ```ts
 * import { decompositionResultPayloadSchema } from '@tot/core';
 *
 * decompositionResultPayloadSchema.parse({
 *   thought_granularity: 'equation', intermediate_steps: ['pick two numbers'], depth_estimate: 3,
 *   constraints: ['use every number once'], success_criteria: 'the result is 24',
 * });
 * ```
 */
export const decompositionResultPayloadSchema = z.object({
  thought_granularity: z.string(),
  intermediate_steps: z.array(z.string()),
  depth_estimate: z.number().int().nonnegative(),
  constraints: z.array(z.string()),
  success_criteria: z.string(),
});

/**
 * generate_thoughts payload.
 *
 * @example
 * ```ts
 * import { generateThoughtsPayloadSchema } from '@tot/core';
 *
 * const strategies = generateThoughtsPayloadSchema.shape.generation_strategy.options;
 * ```
 */
export const generateThoughtsPayloadSchema = z.object({
  parent_node: protocolThoughtNodeSchema,
  generation_strategy: z.enum(['independent_sampling', 'sequential_proposal']),
  num_candidates: z.number().int().positive(),
  context: z.object({
    problem: z.string(),
    goal: z.string(),
    constraints: z.array(z.string()),
  }),
});

/**
 * One candidate in generated_thoughts.
 *
 * @example
 * ```ts
 * import { protocolCandidateSchema } from '@tot/core';
 *
 * protocolCandidateSchema.parse({ temp_id: 'cand_1', content: '13 - 9 = 4, 剩余: 4, 4, 10', action_type: 'subtraction' });
 * ```
 */
export const protocolCandidateSchema = z.object({
  temp_id: z.string().min(1),
  content: z.string(),
  action_type: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

/**
 * generated_thoughts payload.
 *
 * @example
 * ```ts
 * import { generatedThoughtsPayloadSchema } from '@tot/core';
 *
 * generatedThoughtsPayloadSchema.parse({ candidates: [{ temp_id: 'cand_1', content: '10 + 4 = 14' }] });
 * ```
 */
export const generatedThoughtsPayloadSchema = z.object({ candidates: z.array(protocolCandidateSchema) });

/**
 * evaluate_thoughts payload.
 *
 * @example
 * ```ts
 * import { evaluateThoughtsPayloadSchema } from '@tot/core';
 *
 * const strategies = evaluateThoughtsPayloadSchema.shape.evaluation_strategy.options;
 * ```
 */
export const evaluateThoughtsPayloadSchema = z.object({
  candidates: z.array(protocolThoughtNodeSchema),
  evaluation_strategy: z.enum(['independent_scoring', 'comparative_voting']),
  evaluation_criteria: z.array(z.string()),
  context: z.object({
    problem: z.string(),
    goal: z.string(),
    current_depth: z.number().int().nonnegative(),
    max_depth: z.number().int().nonnegative(),
  }),
});

/**
 * One evaluation in evaluation_results.
 *
 * @example
 * ```ts
 * import { protocolNodeEvaluationSchema } from '@tot/core';
 *
 * protocolNodeEvaluationSchema.parse({ node_id: 'node_1_1', score: 7.5, confidence: 0.8, reasoning: '…' });
 * ```
 */
export const protocolNodeEvaluationSchema = z.object({
  node_id: z.string().min(1),
  score: z.number().min(0).max(10),
  confidence: z.number().min(0).max(1),
  reasoning: z.string(),
  dimension_scores: z.record(z.string(), z.number()).optional(),
});

/**
 * evaluation_results payload.
 *
 * @example
 * ```ts
 * import { evaluationResultsPayloadSchema } from '@tot/core';
 *
 * evaluationResultsPayloadSchema.parse({ evaluations: [], ranking: [], pruning_suggestions: [] });
 * ```
 */
export const evaluationResultsPayloadSchema = z.object({
  evaluations: z.array(protocolNodeEvaluationSchema),
  ranking: z.array(z.string()),
  pruning_suggestions: z.array(z.string()),
});

/**
 * initialize_search payload.
 *
 * @example
 * ```ts
 * import { initializeSearchPayloadSchema } from '@tot/core';
 *
 * initializeSearchPayloadSchema.parse({
 *   problem: '4 9 10 13', task_type: 'math_reasoning',
 *   search_config: { strategy: 'BFS', max_depth: 3, branching_factor: 5, pruning_threshold: 3 },
 *   decomposition_result: {},
 * });
 * ```
 */
export const initializeSearchPayloadSchema = z.object({
  problem: z.string(),
  task_type: z.string(),
  search_config: protocolSearchConfigSchema,
  // The seed shows `{}` here: a full decomposition_result when there is one, otherwise empty.
  decomposition_result: z.union([decompositionResultPayloadSchema, z.object({}).strict()]),
});

/**
 * search_complete payload. `stats` keeps any extra counters beside the protocol's three.
 *
 * @example
 * ```ts
 * import { searchCompletePayloadSchema } from '@tot/core';
 *
 * const statsShape = searchCompletePayloadSchema.shape.stats;
 * ```
 */
export const searchCompletePayloadSchema = z.object({
  best_path: z.array(protocolThoughtNodeSchema),
  tree: protocolThoughtTreeSchema,
  stats: z.looseObject({
    total_nodes: z.number().int().nonnegative(),
    total_backtracks: z.number().int().nonnegative(),
    llm_calls: z.number().int().nonnegative(),
  }),
});

/**
 * synthesize_solution payload.
 *
 * @example
 * ```ts
 * import { synthesizeSolutionPayloadSchema } from '@tot/core';
 *
 * synthesizeSolutionPayloadSchema.parse({ best_path: [], problem: '4 9 10 13', task_type: 'math_reasoning' });
 * ```
 */
export const synthesizeSolutionPayloadSchema = z.object({
  best_path: z.array(protocolThoughtNodeSchema),
  problem: z.string(),
  task_type: z.string(),
});

/**
 * final_solution payload. The protocol's own example omits `validation_errors` and
 * `alternative_solutions`, so both are optional.
 *
 * @example
 * ```ts
 * import { finalSolutionPayloadSchema } from '@tot/core';
 *
 * finalSolutionPayloadSchema.parse({
 *   answer: '(10 - (13 - 9)) × 4 = 24', reasoning_trace: ['13 - 9 = 4'], confidence: 1,
 *   verification: { is_valid: true },
 * });
 * ```
 */
export const finalSolutionPayloadSchema = z.object({
  answer: z.string(),
  reasoning_trace: z.array(z.string()),
  confidence: z.number().min(0).max(1),
  verification: z.object({
    is_valid: z.boolean(),
    validation_errors: z.array(z.string()).optional(),
  }),
  alternative_solutions: z.array(z.string()).optional(),
});

const envelope = {
  from: agentRoleSchema,
  to: z.string().min(1),
  task_id: z.string().min(1),
  error: protocolErrorSchema.optional(),
};

function message<T extends string, P extends z.ZodType>(type: T, payload: P) {
  return z.object({ ...envelope, type: z.literal(type), payload });
}

/**
 * Every Tree-of-Thoughts protocol message type with its payload schema.
 *
 * @example
 * ```ts
 * import { protocolPayloadSchemas } from '@tot/core';
 *
 * protocolPayloadSchemas.final_solution.parse({ answer: '24', reasoning_trace: [], confidence: 1, verification: { is_valid: true } });
 * ```
 */
export const protocolPayloadSchemas = {
  decompose_task: decomposeTaskPayloadSchema,
  decomposition_result: decompositionResultPayloadSchema,
  generate_thoughts: generateThoughtsPayloadSchema,
  generated_thoughts: generatedThoughtsPayloadSchema,
  evaluate_thoughts: evaluateThoughtsPayloadSchema,
  evaluation_results: evaluationResultsPayloadSchema,
  initialize_search: initializeSearchPayloadSchema,
  search_complete: searchCompletePayloadSchema,
  synthesize_solution: synthesizeSolutionPayloadSchema,
  final_solution: finalSolutionPayloadSchema,
} as const;

/**
 * A Tree-of-Thoughts protocol message: the envelope `{ from, to, type, payload, task_id, error? }` with the payload
 * matching `type`.
 *
 * @example
 * ```ts
 * import { protocolMessageSchema } from '@tot/core';
 *
 * const msg = protocolMessageSchema.parse({
 *   from: 'orchestrator', to: 'decomposer', task_id: 't1',
 *   type: 'decompose_task', payload: { problem: '用4、9、10、13得到24', task_type: 'math_reasoning' },
 * });
 * ```
 */
export const protocolMessageSchema = z.discriminatedUnion('type', [
  message('decompose_task', decomposeTaskPayloadSchema),
  message('decomposition_result', decompositionResultPayloadSchema),
  message('generate_thoughts', generateThoughtsPayloadSchema),
  message('generated_thoughts', generatedThoughtsPayloadSchema),
  message('evaluate_thoughts', evaluateThoughtsPayloadSchema),
  message('evaluation_results', evaluationResultsPayloadSchema),
  message('initialize_search', initializeSearchPayloadSchema),
  message('search_complete', searchCompletePayloadSchema),
  message('synthesize_solution', synthesizeSolutionPayloadSchema),
  message('final_solution', finalSolutionPayloadSchema),
]);

/**
 * Any Tree-of-Thoughts protocol message.
 *
 * @example
 * ```ts
 * import type { ProtocolMessage } from '@tot/core';
 *
 * const route = (m: ProtocolMessage) => (m.type === 'final_solution' ? m.payload.answer : undefined);
 * ```
 */
export type ProtocolMessage = z.infer<typeof protocolMessageSchema>;

/**
 * The Tree-of-Thoughts protocol message types.
 *
 * @example
 * ```ts
 * import type { ProtocolMessageType } from '@tot/core';
 *
 * const t: ProtocolMessageType = 'evaluation_results';
 * ```
 */
export type ProtocolMessageType = ProtocolMessage['type'];

/**
 * The payload of a Tree-of-Thoughts protocol message type.
 *
 * @example
 * ```ts
 * import type { ProtocolPayload } from '@tot/core';
 *
 * const p: ProtocolPayload<'decompose_task'> = { problem: '4 9 10 13', task_type: 'math_reasoning' };
 * ```
 */
export type ProtocolPayload<T extends ProtocolMessageType> = Extract<ProtocolMessage, { type: T }>['payload'];
