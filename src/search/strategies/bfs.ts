import { z } from 'zod';
import { extent } from '../../internal/extent.js';
import { parseOptions } from '../../internal/validate.js';
import type { ThoughtNode } from '../../tree/types.js';
import type { SearchStrategy } from '../types.js';

/**
 * Options of {@link bfs}.
 *
 * @example
 * ```ts
 * import type { BfsOptions } from '@tot/core';
 *
 * const options: BfsOptions = { beamWidth: 5, selection: 'greedy' };
 * ```
 */
export interface BfsOptions {
  /** States kept per level (b). Default 5. */
  beamWidth?: number;
  /** `greedy` (default; ties keep generation order) or `sample` (seeded, in proportion to score). */
  selection?: 'greedy' | 'sample';
}

const optionsSchema = z.strictObject({
  beamWidth: z.number().int().positive().default(5),
  selection: z.enum(['greedy', 'sample']).default('greedy'),
});

/** @internal The widest beam looked up by a scan; a wider one by a set of its ids. */
export const SCANNED_BEAM = 16;

/**
 * Whether `beam` holds the node `id`, as a function built once per level: a scan for a beam of a
 * few nodes (Tree of Thoughts keeps 5; a set of their ids costs more than the scans), a set for a
 * wide one, where a scan per candidate made a level quadratic (`bench:overhead`, beam 10,000:
 * 60–130 µs per node with the scan, about 6 with the set).
 */
function membership(beam: readonly ThoughtNode[]): (id: string) => boolean {
  if (beam.length <= SCANNED_BEAM) {
    return (id) => {
      for (const node of beam) if (node.id === id) return true;
      return false;
    };
  }
  const ids = new Set(beam.map((n) => n.id));
  return (id) => ids.has(id);
}

/**
 * Breadth-first beam search, as in Tree of Thoughts: every level expands the whole beam at once
 * (generation and evaluation run concurrently), keeps the best `beamWidth` states and prunes the
 * rest. States left at `maxDepth` are marked terminal.
 *
 * @example
 * ```ts
 * import { bfs, Explorer } from '@tot/core';
 *
 * const explorer = new Explorer({ generator, evaluator, strategy: bfs({ beamWidth: 5 }), maxDepth: 4 });
 * ```
 */
export function bfs(options: BfsOptions = {}): SearchStrategy {
  const { beamWidth, selection } = parseOptions(optionsSchema, options, 'bfs');
  return {
    name: 'bfs',
    options: { beamWidth, selection },
    async run(ctx) {
      let beam: ThoughtNode[] = ctx.tree.frontier().filter((n) => n.depth < ctx.limits.maxDepth);
      if (beam.length === 0) return ctx.stop('search_exhausted');
      const minDepth = extent(beam, (n) => n.depth).min;
      beam = beam.filter((n) => n.depth === minDepth);
      for (let depth = minDepth; depth < ctx.limits.maxDepth; depth++) {
        const children = await ctx.evaluate(await ctx.expand(beam));
        if (ctx.stopped) return;
        const live = children.filter((n) => n.status === 'pending');
        beam = ctx.select(live, beamWidth, { mode: selection });
        const inBeam = membership(beam);
        for (const node of live) if (!inBeam(node.id)) ctx.prune(node, 'not selected for the beam');
        ctx.emit({ type: 'search.step', depth: depth + 1, frontier: beam.map((n) => n.id) });
        if (beam.length === 0) return ctx.stop(ctx.solutions.length > 0 ? 'solution_found' : 'search_exhausted');
      }
      for (const node of beam) ctx.markTerminal(node);
      ctx.stop('max_depth');
    },
  };
}
