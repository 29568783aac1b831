/**
 * The four node states of the Tree-of-Thoughts agent protocol.
 *
 * @example
 * ```ts
 * import type { NodeStatus } from '@tot/core';
 *
 * const s: NodeStatus = 'pending';
 * ```
 */
export type NodeStatus = 'pending' | 'expanded' | 'pruned' | 'terminal';

/**
 * An evaluator's judgement of a node.
 *
 * @example
 * ```ts
 * import type { Evaluation } from '@tot/core';
 *
 * const e: Evaluation = { score: 7.5, confidence: 0.8, reasoning: 'leaves 4 and 6', dimensionScores: { progress: 5 } };
 * ```
 */
export interface Evaluation {
  /** 0–10. */
  score: number;
  /** 0–1. */
  confidence: number;
  reasoning: string;
  dimensionScores?: Record<string, number>;
}

/**
 * One thought in a {@link ThoughtTree}. Nodes are read-only views: change them through the tree,
 * which enforces the status machine and the parent/child links.
 *
 * @example
 * ```ts
 * import { ThoughtTree, type ThoughtNode } from '@tot/core';
 *
 * const tree = new ThoughtTree({ problem: '4 9 10 13' });
 * const node: ThoughtNode = tree.addChild(tree.rootId, { content: '13 - 9 = 4 (left: 4 4 10)' });
 * node.id; // 'node_1_1'
 * ```
 */
export interface ThoughtNode {
  readonly id: string;
  readonly parentId: string | null;
  readonly childrenIds: readonly string[];
  /** 0 for the root. */
  readonly depth: number;
  readonly content: string;
  readonly actionType?: string;
  readonly evaluation: Readonly<Evaluation> | null;
  readonly status: NodeStatus;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/**
 * How a tree is (to be) searched. `strategy` is a strategy name such as `bfs`, `dfs`, `best-first` or `mcts`.
 *
 * @example
 * ```ts
 * import type { SearchConfig } from '@tot/core';
 *
 * const config: SearchConfig = { strategy: 'bfs', maxDepth: 3, branchingFactor: 5, pruningThreshold: 3 };
 * ```
 */
export interface SearchConfig {
  strategy: string;
  maxDepth: number;
  branchingFactor: number;
  /** Score (0–10) under which a node may be pruned. */
  pruningThreshold: number;
}

/**
 * Where a search stands, as recorded in the tree.
 *
 * @example
 * ```ts
 * import type { SearchState } from '@tot/core';
 *
 * const state: SearchState = { currentDepth: 1, frontier: ['node_1_1'], bestPath: ['root', 'node_1_1'] };
 * ```
 */
export interface SearchState {
  currentDepth: number;
  frontier: string[];
  bestPath: string[];
}

/**
 * What is needed to add a node.
 *
 * @example
 * ```ts
 * import type { NewThought } from '@tot/core';
 *
 * const t: NewThought = { content: '10 + 4 = 14 (left: 9 13 14)', actionType: 'addition' };
 * ```
 */
export interface NewThought {
  content: string;
  actionType?: string;
  metadata?: Record<string, unknown>;
  evaluation?: Evaluation;
}

/**
 * The camelCase JSON form of a tree ({@link ThoughtTree.toJSON}).
 *
 * @example
 * ```ts
 * import { ThoughtTree, type ThoughtTreeJSON } from '@tot/core';
 *
 * const json: ThoughtTreeJSON = new ThoughtTree({ problem: 'p' }).toJSON();
 * json.nodes[json.rootId]?.depth; // 0
 * ```
 */
export interface ThoughtTreeJSON {
  version: 1;
  taskId: string;
  problem: string;
  taskType: string;
  searchConfig: SearchConfig;
  rootId: string;
  nodes: Record<string, ThoughtNode>;
  searchState: SearchState;
}
