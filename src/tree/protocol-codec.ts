import type { ProtocolThoughtNode, ProtocolThoughtTree } from '../protocol/thought-node.js';
import type { ThoughtNode, ThoughtTreeJSON } from './types.js';

// Seed 000 spells strategies in capitals; unknown (custom) names pass through unchanged both ways.
const TO_WIRE: Record<string, string> = { bfs: 'BFS', dfs: 'DFS', 'best-first': 'BEST_FIRST', mcts: 'MCTS' };
const FROM_WIRE: Record<string, string> = Object.fromEntries(Object.entries(TO_WIRE).map(([k, v]) => [v, k]));

/**
 * A node in the Tree-of-Thoughts agent protocol's snake_case wire format.
 *
 * @example
 * ```ts
 * import { ThoughtTree, nodeToProtocol } from '@tot/core';
 *
 * nodeToProtocol(new ThoughtTree({ problem: 'p' }).root).parent_id; // null
 * ```
 */
export function nodeToProtocol(node: ThoughtNode): ProtocolThoughtNode {
  const e = node.evaluation;
  return {
    id: node.id,
    parent_id: node.parentId,
    children_ids: [...node.childrenIds],
    depth: node.depth,
    content: node.content,
    ...(node.actionType === undefined ? {} : { action_type: node.actionType }),
    evaluation:
      e === null
        ? null
        : {
            score: e.score,
            confidence: e.confidence,
            reasoning: e.reasoning,
            ...(e.dimensionScores === undefined ? {} : { dimension_scores: { ...e.dimensionScores } }),
          },
    status: node.status,
    metadata: structuredClone(node.metadata) as Record<string, unknown>,
  };
}

/**
 * A node from the Tree-of-Thoughts agent protocol's snake_case wire format.
 *
 * @example
 * ```ts
 * import { nodeFromProtocol } from '@tot/core';
 *
 * nodeFromProtocol({ id: 'root', parent_id: null, children_ids: [], depth: 0, content: 'p', evaluation: null, status: 'pending', metadata: {} }).parentId; // null
 * ```
 */
export function nodeFromProtocol(node: ProtocolThoughtNode): ThoughtNode {
  const e = node.evaluation;
  return {
    id: node.id,
    parentId: node.parent_id,
    childrenIds: [...node.children_ids],
    depth: node.depth,
    content: node.content,
    ...(node.action_type === undefined ? {} : { actionType: node.action_type }),
    evaluation:
      e === null
        ? null
        : {
            score: e.score,
            confidence: e.confidence,
            reasoning: e.reasoning,
            ...(e.dimension_scores === undefined ? {} : { dimensionScores: { ...e.dimension_scores } }),
          },
    status: node.status,
    metadata: structuredClone(node.metadata),
  };
}

export function toProtocolTree(json: ThoughtTreeJSON): ProtocolThoughtTree {
  const nodes: Record<string, ProtocolThoughtNode> = {};
  for (const [id, node] of Object.entries(json.nodes)) nodes[id] = nodeToProtocol(node);
  const c = json.searchConfig;
  return {
    task_id: json.taskId,
    problem: json.problem,
    task_type: json.taskType,
    search_config: {
      strategy: TO_WIRE[c.strategy] ?? c.strategy,
      max_depth: c.maxDepth,
      branching_factor: c.branchingFactor,
      pruning_threshold: c.pruningThreshold,
    },
    nodes,
    root_id: json.rootId,
    search_state: {
      current_depth: json.searchState.currentDepth,
      frontier: [...json.searchState.frontier],
      best_path: [...json.searchState.bestPath],
    },
  };
}

export function fromProtocolTree(wire: ProtocolThoughtTree): ThoughtTreeJSON {
  const nodes: Record<string, ThoughtNode> = {};
  for (const [id, node] of Object.entries(wire.nodes)) nodes[id] = nodeFromProtocol(node);
  const c = wire.search_config;
  return {
    version: 1,
    taskId: wire.task_id,
    problem: wire.problem,
    taskType: wire.task_type,
    searchConfig: {
      strategy: FROM_WIRE[c.strategy] ?? c.strategy,
      maxDepth: c.max_depth,
      branchingFactor: c.branching_factor,
      pruningThreshold: c.pruning_threshold,
    },
    rootId: wire.root_id,
    nodes,
    searchState: {
      currentDepth: wire.search_state.current_depth,
      frontier: [...wire.search_state.frontier],
      bestPath: [...wire.search_state.best_path],
    },
  };
}
