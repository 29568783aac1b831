import type { ThoughtTree } from '../tree/thought-tree.js';
import type { ThoughtNode } from '../tree/types.js';
import type { TaskContext } from './types.js';

/** The variables every default prompt can use. */
export function contextVariables(context: TaskContext): Record<string, string> {
  const constraints = context.constraints ?? [];
  return {
    problem: context.problem,
    taskType: context.taskType,
    goal: context.goal ?? 'solve the problem',
    constraints: constraints.length === 0 ? '(none)' : constraints.map((c) => `- ${c}`).join('\n'),
    maxDepth: String(context.maxDepth),
    granularity: context.granularity ?? 'step',
  };
}

/** The steps from the root (excluded) down to `node`, numbered, or `(none yet)`. */
export function pathVariable(tree: ThoughtTree, node: ThoughtNode): string {
  const steps = tree.path(node.id).slice(1);
  return steps.length === 0 ? '(none yet)' : steps.map((n, i) => `${i + 1}. ${n.content}`).join('\n');
}
