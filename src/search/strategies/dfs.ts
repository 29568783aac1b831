import { z } from 'zod';
import { parseOptions } from '../../internal/validate.js';
import type { ThoughtNode } from '../../tree/types.js';
import type { SearchContext, SearchStrategy } from '../types.js';

/**
 * Options of {@link dfs}.
 *
 * @example
 * ```ts
 * import type { DfsOptions } from '@tot/core';
 *
 * const options: DfsOptions = { maxStates: 200 };
 * ```
 */
export interface DfsOptions {
  /** Expansions allowed before the search stops with `max_states`. Default 100. */
  maxStates?: number;
}

const optionsSchema = z.strictObject({ maxStates: z.number().int().positive().default(100) });

/**
 * Depth-first search: expands a node, evaluates its children, and descends into them best first
 * (ties in generation order); children under `pruningThreshold` are pruned, never visited. When
 * a subtree holds no solution the search backtracks (counted in `totalBacktracks`). Nodes at
 * `maxDepth` are marked terminal.
 *
 * @example
 * ```ts
 * import { dfs, Explorer } from '@tot/core';
 *
 * const explorer = new Explorer({ generator, evaluator, strategy: dfs({ maxStates: 50 }), maxDepth: 5, pruningThreshold: 4 });
 * ```
 */
export function dfs(options: DfsOptions = {}): SearchStrategy {
  const { maxStates } = parseOptions(optionsSchema, options, 'dfs');
  return {
    name: 'dfs',
    options: { maxStates },
    async run(ctx) {
      const roots = ctx.tree.frontier();
      if (roots.length === 0) return ctx.stop('search_exhausted');
      let expansions = 0;
      const visit = async (node: ThoughtNode): Promise<void> => {
        if (node.depth >= ctx.limits.maxDepth) return ctx.markTerminal(node);
        if (expansions >= maxStates) return ctx.stop('max_states');
        expansions += 1;
        const children = await ctx.evaluate(await ctx.expand([node]));
        for (const child of ctx.select(children, children.length)) {
          if (ctx.stopped) return;
          await visit(child);
          if (ctx.stopped) return;
          ctx.backtrack();
        }
      };
      for (const root of roots) {
        if (ctx.stopped) return;
        await visit(root);
      }
      finish(ctx);
    },
  };
}

function finish(ctx: SearchContext): void {
  ctx.stop(ctx.solutions.length > 0 ? 'solution_found' : 'search_exhausted');
}
