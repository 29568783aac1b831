/**
 * A diversity-aware beam search, written against the published API only: it uses nothing of
 * SearchContext that the built-in strategies do not also use.
 *
 * Plain beam search keeps the k best states; when several of them are the same position reached
 * in different ways (4 + 6 and 6 + 4), the beam spends slots on copies. This beam first takes the
 * best state of each distinct `key`, and only then fills the remaining slots by score.
 */
import type { SearchContext, SearchStrategy, ThoughtNode } from '@tot/core';

export interface DiverseBeamOptions {
  beamWidth: number;
  /** States with equal keys count as the same position. */
  key: (node: ThoughtNode, ctx: SearchContext) => string;
}

export function diverseBeam(options: DiverseBeamOptions): SearchStrategy {
  return {
    name: 'diverse-beam',
    async run(ctx) {
      let beam: ThoughtNode[] = [ctx.tree.root];
      for (let depth = 0; depth < ctx.limits.maxDepth; depth++) {
        const children = await ctx.evaluate(await ctx.expand(beam));
        if (ctx.stopped) return;
        const ranked = ctx.select(children, children.length);
        const chosen: ThoughtNode[] = [];
        const keys = new Set<string>();
        for (const node of ranked) {
          if (chosen.length === options.beamWidth) break;
          const key = options.key(node, ctx);
          if (!keys.has(key)) {
            keys.add(key);
            chosen.push(node);
          }
        }
        for (const node of ranked) {
          if (chosen.length === options.beamWidth) break;
          if (!chosen.includes(node)) chosen.push(node);
        }
        for (const node of ranked) if (!chosen.includes(node)) ctx.prune(node, 'not selected for the diverse beam');
        ctx.emit({ type: 'search.step', depth: depth + 1, frontier: chosen.map((n) => n.id) });
        if (chosen.length === 0) return ctx.stop('search_exhausted');
        beam = chosen;
      }
      for (const node of beam) ctx.markTerminal(node);
      ctx.stop('max_depth');
    },
  };
}
