import { z } from 'zod';

/**
 * The Tree-of-Thoughts agent protocol's node evaluation on the wire: `{ score 0–10, confidence 0–1, reasoning, dimension_scores? }`.
 *
 * @example
 * ```ts
 * import { protocolEvaluationSchema } from '@tot/core';
 *
 * protocolEvaluationSchema.parse({ score: 7.5, confidence: 0.8, reasoning: 'a multiple of 4 remains' });
 * ```
 */
export const protocolEvaluationSchema = z.object({
  score: z.number().min(0).max(10),
  confidence: z.number().min(0).max(1),
  reasoning: z.string(),
  dimension_scores: z.record(z.string(), z.number()).optional(),
});

/**
 * The four node states of the Tree-of-Thoughts agent protocol.
 *
 * @example
 * ```ts
 * import { nodeStatusSchema } from '@tot/core';
 *
 * nodeStatusSchema.options; // ['pending', 'expanded', 'pruned', 'terminal']
 * ```
 */
export const nodeStatusSchema = z.enum(['pending', 'expanded', 'pruned', 'terminal']);

/**
 * The Tree-of-Thoughts agent protocol's ThoughtNode, snake_case, field for field.
 *
 * @example
 * ```ts
 * import { protocolThoughtNodeSchema } from '@tot/core';
 *
 * protocolThoughtNodeSchema.parse({
 *   id: 'node_1_1', parent_id: 'root', children_ids: [], depth: 1,
 *   content: '13 - 9 = 4, 剩余: 4, 4, 10', action_type: 'subtraction',
 *   evaluation: null, status: 'pending', metadata: {},
 * });
 * ```
 */
export const protocolThoughtNodeSchema = z.object({
  id: z.string().min(1),
  parent_id: z.string().min(1).nullable(),
  children_ids: z.array(z.string().min(1)),
  depth: z.number().int().nonnegative(),
  content: z.string(),
  action_type: z.string().optional(),
  evaluation: protocolEvaluationSchema.nullable(),
  status: nodeStatusSchema,
  metadata: z.record(z.string(), z.unknown()),
});

/**
 * The Tree-of-Thoughts agent protocol's search_config. `strategy` is `BFS` or `DFS` in the protocol; this library also writes
 * `BEST_FIRST`, `MCTS` and the names of custom strategies.
 *
 * @example
 * ```ts
 * import { protocolSearchConfigSchema } from '@tot/core';
 *
 * protocolSearchConfigSchema.parse({ strategy: 'BFS', max_depth: 3, branching_factor: 5, pruning_threshold: 3 });
 * ```
 */
export const protocolSearchConfigSchema = z.object({
  strategy: z.string().min(1),
  max_depth: z.number().int().nonnegative(),
  branching_factor: z.number().int().positive(),
  pruning_threshold: z.number().min(0).max(10),
});

/**
 * The Tree-of-Thoughts agent protocol's ThoughtTree, snake_case, field for field.
 *
 * @example
 * ```ts
 * import { protocolThoughtTreeSchema, ThoughtTree } from '@tot/core';
 *
 * const wire = protocolThoughtTreeSchema.parse(new ThoughtTree({ problem: '4 9 10 13' }).toProtocol());
 * ```
 */
export const protocolThoughtTreeSchema = z.object({
  task_id: z.string().min(1),
  problem: z.string(),
  task_type: z.string(),
  search_config: protocolSearchConfigSchema,
  nodes: z.record(z.string(), protocolThoughtNodeSchema),
  root_id: z.string().min(1),
  search_state: z.object({
    current_depth: z.number().int().nonnegative(),
    frontier: z.array(z.string()),
    best_path: z.array(z.string()),
  }),
});

/**
 * A protocol ThoughtNode on the wire.
 *
 * @example
 * ```ts
 * import type { ProtocolThoughtNode } from '@tot/core';
 *
 * const isRoot = (node: ProtocolThoughtNode) => node.parent_id === null;
 * ```
 */
export type ProtocolThoughtNode = z.infer<typeof protocolThoughtNodeSchema>;

/**
 * A protocol ThoughtTree on the wire.
 *
 * @example
 * ```ts
 * import type { ProtocolThoughtTree } from '@tot/core';
 *
 * const size = (tree: ProtocolThoughtTree) => Object.keys(tree.nodes).length;
 * ```
 */
export type ProtocolThoughtTree = z.infer<typeof protocolThoughtTreeSchema>;
