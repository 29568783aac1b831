import { z } from 'zod';
import { abortable } from '../../internal/abort.js';
import { parseOptions } from '../../internal/validate.js';
import type { ThoughtTree } from '../../tree/thought-tree.js';
import type { Evaluation, ThoughtNode } from '../../tree/types.js';
import type { SearchContext, SearchStrategy } from '../types.js';

/**
 * Options of {@link dfs}. The defaults are a plain best-first-child depth-first search; the other
 * settings express the Tree-of-Thoughts paper's crossword search (children in the order of the
 * generator's confidence, each evaluated when the search steps into it, at most a few valid ones
 * per state, pruned when a clue is judged impossible, and a limit on the steps taken).
 *
 * @example
 * ```ts
 * import type { DfsOptions } from '@tot/core';
 *
 * const options: DfsOptions = { order: 'proposal', evaluate: 'on-visit', maxPerState: 3, maxSteps: 100 };
 * ```
 */
export interface DfsOptions {
  /** Expansions allowed before the search stops with `max_states`. Default 100. */
  maxStates?: number;
  /**
   * The order in which a state's children are tried, best first, ties in generation order (scores
   * compared exactly, never rounded):
   * - `evaluation` (default): the evaluator's score.
   * - `proposal`: the number the generator put in the candidate's `metadata.proposalScore`
   *   (children without one come last).
   */
  order?: 'evaluation' | 'proposal';
  /**
   * When children are evaluated:
   * - `upfront` (default): all valid children of a state at once, before any is tried.
   * - `on-visit`: each child when the search steps into it, so children never tried are never
   *   evaluated. Needs `order: 'proposal'`.
   */
  evaluate?: 'upfront' | 'on-visit';
  /** Valid children tried per state, at most; the others are pruned untried. Default: all. */
  maxPerState?: number;
  /**
   * Whether a child may be tried at all (a programmatic check, such as a crossword answer that
   * contradicts a filled letter). An invalid child is pruned unevaluated and does not count
   * toward `maxPerState`.
   */
  isValid?: (node: ThoughtNode, tree: ThoughtTree, options: { signal: AbortSignal }) => boolean | Promise<boolean>;
  /**
   * Prunes a child on its evaluation, besides `pruningThreshold`: the search does not descend
   * into it. With `on-visit` evaluation the child still counts as a step (it was stepped into).
   */
  pruneWhen?: (evaluation: Evaluation, node: ThoughtNode) => boolean;
  /**
   * Steps allowed, a step being a child the search steps into (with `on-visit` evaluation, one
   * evaluation each); the search then stops with `max_states`. Default: no limit.
   */
  maxSteps?: number;
}

type Check<T> = z.ZodType<T>;
const fn = <T>(name: string): Check<T> => z.custom<T>((v) => typeof v === 'function', { message: `${name} must be a function` });

const optionsSchema = z
  .strictObject({
    maxStates: z.number().int().positive().default(100),
    order: z.enum(['evaluation', 'proposal']).default('evaluation'),
    evaluate: z.enum(['upfront', 'on-visit']).default('upfront'),
    maxPerState: z.number().int().positive().optional(),
    isValid: fn<NonNullable<DfsOptions['isValid']>>('isValid').optional(),
    pruneWhen: fn<NonNullable<DfsOptions['pruneWhen']>>('pruneWhen').optional(),
    maxSteps: z.number().int().positive().optional(),
  })
  .superRefine((o, issues) => {
    if (o.evaluate === 'on-visit' && o.order === 'evaluation') {
      issues.addIssue({ code: 'custom', path: ['order'], message: "must be 'proposal' with evaluate: 'on-visit' (children are tried before they are evaluated)" });
    }
  });

const proposalScore = (node: ThoughtNode): number => {
  const score = node.metadata.proposalScore;
  return typeof score === 'number' && !Number.isNaN(score) ? score : Number.NEGATIVE_INFINITY;
};

/** Highest proposal score first; a stable sort on the exact numbers, so ties keep generation order. */
function byProposal(nodes: readonly ThoughtNode[]): ThoughtNode[] {
  return nodes
    .map((node, index) => ({ node, index, score: proposalScore(node) }))
    .sort((a, b) => (a.score > b.score ? -1 : a.score < b.score ? 1 : a.index - b.index))
    .map(({ node }) => node);
}

/**
 * Depth-first search: expands a node and descends into its children best first (ties in
 * generation order); children under `pruningThreshold` are pruned, never descended into. When a
 * subtree holds no solution the search backtracks (counted in `totalBacktracks`). Nodes at
 * `maxDepth` are marked terminal.
 *
 * By default it evaluates all children of a state up front and orders them by the evaluator's
 * score. The options order children by the generator's proposal score instead, evaluate each
 * child only when the search steps into it, try at most `maxPerState` valid children per state,
 * skip children `isValid` rejects, prune on a rule of the evaluation (`pruneWhen`) and stop
 * after `maxSteps` steps: the search of the Tree-of-Thoughts paper's mini crosswords.
 *
 * @example
 * ```ts
 * import { dfs, Explorer } from '@tot/core';
 *
 * const explorer = new Explorer({ generator, evaluator, strategy: dfs({ maxStates: 50 }), maxDepth: 5, pruningThreshold: 4 });
 *
 * // The paper's crossword search: the generator puts its confidence in metadata.proposalScore
 * // and the evaluator its clue counts in dimensionScores.
 * const paper = dfs({
 *   order: 'proposal',
 *   evaluate: 'on-visit',
 *   maxPerState: 3,
 *   maxSteps: 100,
 *   maxStates: 1000,
 *   pruneWhen: (evaluation) => (evaluation.dimensionScores?.impossible ?? 0) >= 1,
 * });
 * ```
 */
export function dfs(options: DfsOptions = {}): SearchStrategy {
  const o = parseOptions(optionsSchema, options, 'dfs');
  const { maxStates, order, evaluate, isValid, pruneWhen } = o;
  const maxPerState = o.maxPerState ?? Number.POSITIVE_INFINITY;
  const maxSteps = o.maxSteps ?? Number.POSITIVE_INFINITY;
  const onVisit = evaluate === 'on-visit';
  return {
    name: 'dfs',
    // Only the settings given are recorded, so that a run recorded before they existed still resumes.
    options: {
      maxStates,
      ...(order === 'evaluation' ? {} : { order }),
      ...(onVisit ? { evaluate } : {}),
      ...(o.maxPerState === undefined ? {} : { maxPerState: o.maxPerState }),
      ...(isValid === undefined ? {} : { isValid: true }),
      ...(pruneWhen === undefined ? {} : { pruneWhen: true }),
      ...(o.maxSteps === undefined ? {} : { maxSteps: o.maxSteps }),
    },
    async run(ctx) {
      const roots = ctx.tree.frontier();
      if (roots.length === 0) return ctx.stop('search_exhausted');
      let expansions = 0;
      let steps = 0;
      const valid = async (node: ThoughtNode): Promise<boolean> => {
        // The user's check settles with the search: a check that ignores its signal cannot hold a stopped run.
        if (!isValid || (await abortable(ctx.signal, () => isValid(node, ctx.tree, { signal: ctx.signal }), 'dfs isValid'))) return true;
        ctx.prune(node, 'not valid');
        return false;
      };
      const applyPruneRule = (node: ThoughtNode): ThoughtNode => {
        const current = ctx.tree.node(node.id);
        if (pruneWhen && current.status === 'pending' && current.evaluation !== null && pruneWhen(current.evaluation, current)) {
          ctx.prune(current, 'pruned by the evaluation rule');
        }
        return ctx.tree.node(node.id);
      };
      /** The children to try, in order: evaluated and filtered already unless evaluation is on visit. */
      const candidates = async (children: ThoughtNode[]): Promise<ThoughtNode[]> => {
        if (onVisit) return byProposal(children);
        const kept: ThoughtNode[] = [];
        for (const child of children) if (await valid(child)) kept.push(child);
        const evaluated = (await ctx.evaluate(kept)).map(applyPruneRule);
        return order === 'evaluation' ? ctx.select(evaluated, evaluated.length) : byProposal(evaluated.filter((n) => n.status === 'pending'));
      };
      const visit = async (node: ThoughtNode): Promise<void> => {
        if (node.depth >= ctx.limits.maxDepth) return ctx.markTerminal(node);
        if (expansions >= maxStates) return ctx.stop('max_states');
        expansions += 1;
        const ordered = await candidates(await ctx.expand([node]));
        let tried = 0;
        for (let i = 0; i < ordered.length; i++) {
          if (ctx.stopped) return;
          const child = ordered[i]!;
          if (tried >= maxPerState) {
            for (const rest of ordered.slice(i)) ctx.prune(rest, `not tried: ${maxPerState} children per state`);
            return;
          }
          if (onVisit && !(await valid(child))) continue;
          if (steps >= maxSteps) return ctx.stop('max_states');
          tried += 1;
          steps += 1;
          const stepped = onVisit ? applyPruneRule((await ctx.evaluate([child]))[0] ?? child) : child;
          if (ctx.stopped) return;
          if (stepped.status === 'pending') await visit(stepped);
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
