import { z } from 'zod';
import { parseOptions } from '../../internal/validate.js';
import type { ThoughtNode } from '../../tree/types.js';
import type { SearchContext, SearchStrategy } from '../types.js';
import { UCBScheduler } from '../../scheduler/index.js';

/**
 * Options of {@link mcts}.
 *
 * @example
 * ```ts
 * import type { MctsOptions } from '@tot/core';
 *
 * const options: MctsOptions = { iterations: 100, explorationConstant: 1, finalAnswer: 'best-mean' };
 * ```
 */
export interface MctsOptions {
  /** Selection–expansion–evaluation–backpropagation rounds. Default 50. */
  iterations?: number;
  /** UCT exploration constant. Default √2. */
  explorationConstant?: number;
  /** How the reported path is chosen from the root: the most visited child (default) or the best mean reward. */
  finalAnswer?: 'most-visited' | 'best-mean';
}

const optionsSchema = z.strictObject({
  iterations: z.number().int().positive().default(50),
  explorationConstant: z.number().min(0).default(Math.SQRT2),
  finalAnswer: z.enum(['most-visited', 'best-mean']).default('most-visited'),
});

/**
 * Monte Carlo tree search. Each iteration selects a path from the root by UCT (through
 * {@link UCBScheduler}: unvisited children first, then mean reward + c·√(ln N / n)), expands the
 * leaf it reaches, takes the evaluation of the first new child as the reward (score / 10; a
 * solution is worth 1), and backpropagates it along the path. Dead ends are pruned. The reported
 * path follows the most visited (or best mean) child from the root.
 *
 * @example
 * ```ts
 * import { Explorer, mcts } from '@tot/core';
 *
 * const explorer = new Explorer({ generator, evaluator, strategy: mcts({ iterations: 40 }), maxDepth: 4, branchingFactor: 3 });
 * ```
 */
export function mcts(options: MctsOptions = {}): SearchStrategy {
  const o = parseOptions(optionsSchema, options, 'mcts');
  return {
    name: 'mcts',
    options: { ...o },
    async run(ctx) {
      const schedulers = new Map<string, UCBScheduler>();
      const schedulerOf = (id: string) => {
        let s = schedulers.get(id);
        if (!s) schedulers.set(id, (s = new UCBScheduler({ c: o.explorationConstant })));
        return s;
      };
      const liveChildren = (node: ThoughtNode) => ctx.tree.children(node.id).filter((c) => c.status !== 'pruned');
      const root = ctx.tree.root;
      for (let i = 0; i < o.iterations && !ctx.stopped; i++) {
        if (root.status === 'pruned' || root.status === 'terminal') return ctx.stop('search_exhausted');
        const path: ThoughtNode[] = [root];
        let node = root;
        // Selection: descend through expanded nodes by UCT.
        while (node.status === 'expanded') {
          const live = liveChildren(node);
          if (live.length === 0) break;
          node = ctx.tree.node(schedulerOf(node.id).select(live.map((c) => c.id)));
          path.push(node);
        }
        // Expansion.
        if (node.status === 'pending') {
          if (node.depth >= ctx.limits.maxDepth) ctx.markTerminal(node);
          else {
            const children = (await ctx.evaluate(await ctx.expand([node]))).filter((c) => c.status !== 'pruned');
            if (ctx.stopped && ctx.stopped !== 'solution_found') break;
            if (children.length > 0) {
              node = ctx.tree.node(schedulerOf(node.id).select(children.map((c) => c.id)));
              path.push(node);
            }
          }
        }
        if (node.status === 'expanded' && liveChildren(node).length === 0) {
          // Nothing below can ever pay off: take it out of selection.
          ctx.prune(node, 'dead end');
          ctx.backtrack();
          continue;
        }
        // Evaluation and backpropagation.
        const reward = node.metadata.solution === true ? 1 : (node.evaluation?.score ?? 0) / 10;
        for (let j = 1; j < path.length; j++) schedulerOf(path[j - 1]!.id).update(path[j]!.id, reward);
      }
      const solution = ctx.solutions[0];
      ctx.setBestPath(solution ? ctx.tree.path(solution.id) : finalPath(ctx, root, schedulers, o.finalAnswer));
      ctx.stop(ctx.solutions.length > 0 ? 'solution_found' : 'iterations');
    },
  };
}

function finalPath(ctx: SearchContext, root: ThoughtNode, schedulers: Map<string, UCBScheduler>, rule: 'most-visited' | 'best-mean'): ThoughtNode[] {
  const path = [root];
  let node = root;
  for (;;) {
    const scheduler = schedulers.get(node.id);
    const visited = ctx.tree
      .children(node.id)
      .filter((c) => c.status !== 'pruned' && (scheduler?.stats(c.id).pulls ?? 0) > 0);
    if (!scheduler || visited.length === 0) return path;
    let best = visited[0]!;
    for (const child of visited.slice(1)) {
      const a = scheduler.stats(child.id);
      const b = scheduler.stats(best.id);
      const better = rule === 'most-visited' ? a.pulls > b.pulls || (a.pulls === b.pulls && a.meanReward > b.meanReward) : a.meanReward > b.meanReward || (a.meanReward === b.meanReward && a.pulls > b.pulls);
      if (better) best = child;
    }
    path.push(best);
    node = best;
  }
}
