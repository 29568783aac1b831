/**
 * Defaults for one task type, from the Tree-of-Thoughts agent protocol's task table.
 *
 * @example
 * ```ts
 * import type { TaskPreset } from '@tot/core';
 *
 * const custom: TaskPreset = { taskType: 'proof', granularity: 'lemma', depth: [3, 5], strategy: 'dfs', evaluation: 'independent_scoring' };
 * ```
 */
export interface TaskPreset {
  taskType: string;
  /** What one thought is (seed: 思维粒度). */
  granularity: string;
  /** Recommended depth range; `null` where the protocol says it varies. */
  depth: [number, number] | null;
  strategy: 'bfs' | 'dfs';
  evaluation: 'independent_scoring' | 'comparative_voting';
}

/**
 * The Tree-of-Thoughts agent protocol's task table: granularity, recommended depth, strategy and evaluation per task type.
 *
 * @example
 * ```ts
 * import { TASK_PRESETS } from '@tot/core';
 *
 * TASK_PRESETS.creative_writing.evaluation; // 'comparative_voting'
 * ```
 */
export const TASK_PRESETS = {
  math_reasoning: { taskType: 'math_reasoning', granularity: 'equation', depth: [3, 4], strategy: 'bfs', evaluation: 'independent_scoring' },
  creative_writing: { taskType: 'creative_writing', granularity: 'paragraph', depth: [2, 3], strategy: 'bfs', evaluation: 'comparative_voting' },
  planning: { taskType: 'planning', granularity: 'action_step', depth: [3, 5], strategy: 'dfs', evaluation: 'independent_scoring' },
  debugging: { taskType: 'debugging', granularity: 'hypothesis', depth: null, strategy: 'dfs', evaluation: 'independent_scoring' },
  architecture_design: { taskType: 'architecture_design', granularity: 'component', depth: [2, 3], strategy: 'bfs', evaluation: 'comparative_voting' },
} as const satisfies Record<string, TaskPreset>;

/**
 * The task types of the Tree-of-Thoughts agent protocol's table.
 *
 * @example
 * ```ts
 * import type { TaskType } from '@tot/core';
 *
 * const t: TaskType = 'planning';
 * ```
 */
export type TaskType = keyof typeof TASK_PRESETS;

/**
 * The preset of a task type, or `undefined` for a type outside the protocol's table.
 *
 * @example
 * ```ts
 * import { taskPreset } from '@tot/core';
 *
 * taskPreset('planning')?.strategy; // 'dfs'
 * ```
 */
export function taskPreset(taskType: string): TaskPreset | undefined {
  return (TASK_PRESETS as Record<string, TaskPreset>)[taskType];
}
