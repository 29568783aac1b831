import { z } from 'zod';
import { parseOptions } from '../../internal/validate.js';
import type { ThoughtNode } from '../../tree/types.js';
import type { SearchStrategy } from '../types.js';

/**
 * Options of {@link bestFirst}.
 *
 * @example
 * ```ts
 * import type { BestFirstOptions } from '@tot/core';
 *
 * const options: BestFirstOptions = { maxStates: 100 };
 * ```
 */
export interface BestFirstOptions {
  /** Expansions allowed before the search stops with `max_states`. Default 100. */
  maxStates?: number;
}

const optionsSchema = z.strictObject({ maxStates: z.number().int().positive().default(100) });

/**
 * Best-first search: always expands the highest-scoring pending node anywhere in the tree (ties
 * go to the node created first). Nodes at `maxDepth` are marked terminal when their turn comes.
 *
 * @example
 * ```ts
 * import { bestFirst, Explorer } from '@tot/core';
 *
 * const explorer = new Explorer({ generator, evaluator, strategy: bestFirst({ maxStates: 40 }), maxDepth: 6 });
 * ```
 */
export function bestFirst(options: BestFirstOptions = {}): SearchStrategy {
  const { maxStates } = parseOptions(optionsSchema, options, 'bestFirst');
  return {
    name: 'best-first',
    options: { maxStates },
    async run(ctx) {
      // Creation order breaks ties, so the queue keeps a sequence number next to each node.
      const queue: { node: ThoughtNode; seq: number }[] = [];
      let seq = 0;
      const push = (nodes: readonly ThoughtNode[]) => {
        for (const node of nodes) if (node.status === 'pending') queue.push({ node, seq: seq++ });
      };
      push(ctx.tree.frontier());
      let expansions = 0;
      while (!ctx.stopped) {
        let best = -1;
        for (let i = 0; i < queue.length; i++) {
          const a = queue[i]!;
          if (a.node.status !== 'pending') continue;
          if (best === -1) {
            best = i;
            continue;
          }
          const b = queue[best]!;
          const sa = a.node.evaluation?.score ?? Number.POSITIVE_INFINITY;
          const sb = b.node.evaluation?.score ?? Number.POSITIVE_INFINITY;
          if (sa > sb || (sa === sb && a.seq < b.seq)) best = i;
        }
        if (best === -1) return ctx.stop(ctx.solutions.length > 0 ? 'solution_found' : 'search_exhausted');
        const [{ node }] = queue.splice(best, 1) as [{ node: ThoughtNode; seq: number }];
        if (node.depth >= ctx.limits.maxDepth) {
          ctx.markTerminal(node);
          continue;
        }
        if (expansions >= maxStates) return ctx.stop('max_states');
        expansions += 1;
        push(await ctx.evaluate(await ctx.expand([node])));
      }
    },
  };
}
