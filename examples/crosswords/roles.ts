/**
 * The crossword task on the library's roles: a generator whose candidates are answers
 * (`h2. motor`) carrying their summed confidence as `metadata.proposalScore`, an evaluator that
 * counts the clue verdicts of a board (`dimensionScores: { sure, maybe, impossible }`), and the
 * paper's depth-first search over them. Where proposals and verdicts come from is a parameter:
 * a model (live) or a recording (replay) — the search sees the same roles either way.
 */
import { callModel, dfs, type DfsOptions, type LanguageModel, type RoleCallOptions, type SearchStrategy, type ThoughtEvaluator, type ThoughtGenerator, type ThoughtNode, type ThoughtTree } from '@tot/core';
import { CrosswordBoard, type Crossword } from './board.js';
import { parseClueVerdict, parseProposals, proposePrompt, valuePrompt } from './prompts.js';

/** How many clues of a board were judged sure, maybe and impossible. */
export interface ClueCounts {
  sure: number;
  maybe: number;
  impossible: number;
}

/** Answers proposed for a board, each with its summed confidence, in the order first proposed. */
export type ProposeFn = (board: CrosswordBoard, options: RoleCallOptions) => Promise<ReadonlyMap<string, number>>;
/** The verdicts on a board's constrained clues, counted. */
export type JudgeFn = (board: CrosswordBoard, options: RoleCallOptions) => Promise<ClueCounts>;

const boards = new WeakMap<Crossword, WeakMap<ThoughtTree, Map<string, CrosswordBoard>>>();

/** The board of a node: the root's empty board with the answers on the path down to it filled in. */
export function boardOf(puzzle: Crossword, tree: ThoughtTree, node: ThoughtNode): CrosswordBoard {
  let byTree = boards.get(puzzle);
  if (!byTree) boards.set(puzzle, (byTree = new WeakMap()));
  let known = byTree.get(tree);
  if (!known) byTree.set(tree, (known = new Map()));
  let board = known.get(node.id);
  if (!board) {
    board = node.parentId === null ? CrosswordBoard.empty(puzzle) : boardOf(puzzle, tree, tree.node(node.parentId)).fill(node.content);
    known.set(node.id, board);
  }
  return board;
}

/** A generator that proposes answers for a node's board; all of them (set `branchingFactor` high enough). */
export function crosswordGenerator(puzzle: Crossword, propose: ProposeFn): ThoughtGenerator {
  return {
    async generate({ tree, parent }, options = {}) {
      const proposals = await propose(boardOf(puzzle, tree, parent), options);
      return [...proposals].map(([content, proposalScore]) => ({ content, metadata: { proposalScore } }));
    },
  };
}

/**
 * Counts as an evaluation: the counts in `dimensionScores`, and a score of 0–10 for readers (the
 * share of judged clues that are sure, a maybe counting half; 5 when none was judged).
 */
export function countsToEvaluation(counts: ClueCounts) {
  const judged = counts.sure + counts.maybe + counts.impossible;
  const score = judged === 0 ? 5 : (10 * (counts.sure + counts.maybe / 2)) / judged;
  return { score, confidence: 1, reasoning: `sure ${counts.sure}, maybe ${counts.maybe}, impossible ${counts.impossible}`, dimensionScores: { ...counts } };
}

/** The clue counts of an evaluated node, as the evaluator recorded them. */
export function countsOf(node: ThoughtNode): ClueCounts {
  const d = node.evaluation?.dimensionScores ?? {};
  return { sure: d.sure ?? 0, maybe: d.maybe ?? 0, impossible: d.impossible ?? 0 };
}

/** An evaluator that judges each candidate's board. */
export function crosswordEvaluator(puzzle: Crossword, judge: JudgeFn): ThoughtEvaluator {
  return {
    async evaluate({ tree, candidates }, options = {}) {
      const evaluations = await Promise.all(candidates.map(async (node) => ({ nodeId: node.id, ...countsToEvaluation(await judge(boardOf(puzzle, tree, node), options)) })));
      return { evaluations, ranking: [], pruningSuggestions: [] };
    },
  };
}

/** Settings of {@link paperSearch}; the defaults are the paper's. */
export interface PaperSearchOptions {
  /** Prune a board on which some clue is judged impossible. Default true. */
  prune?: boolean;
  /** Valid answers tried per board. Default 3. */
  maxPerState?: number;
  /** Steps (boards stepped into) before the search stops. Default 100. */
  maxSteps?: number;
}

/**
 * The paper's depth-first search: answers in the order of their summed confidence, each board
 * judged when the search steps into it, at most three valid answers per board (an answer that
 * changes a filled letter is not valid), a board with an impossible clue pruned, 100 steps. Use
 * it with `maxDepth: 9` (the paper fills at most nine answers) and `pruningThreshold: 0`.
 */
export function paperSearch(puzzle: Crossword, options: PaperSearchOptions = {}): SearchStrategy {
  const maxSteps = options.maxSteps ?? 100;
  const settings: DfsOptions = {
    order: 'proposal',
    evaluate: 'on-visit',
    maxPerState: options.maxPerState ?? 3,
    maxSteps,
    maxStates: maxSteps + 1,
    isValid: (node, tree) => !boardOf(puzzle, tree, node).hasConflict(),
  };
  if (options.prune ?? true) settings.pruneWhen = (evaluation) => (evaluation.dimensionScores?.impossible ?? 0) >= 1;
  return dfs(settings);
}

/** The Explorer settings that go with {@link paperSearch}. */
export const PAPER_LIMITS = { maxDepth: 9, branchingFactor: 1000, pruningThreshold: 0 } as const;

const through = (model: LanguageModel, options: RoleCallOptions) => (options.runModel ? options.runModel(model) : model);

/**
 * Proposals from a model: the propose prompt sampled `samples` times (the paper: 8), each
 * answer's confidences summed. Equal boards are asked once per proposer.
 */
export function modelProposals(model: LanguageModel, { samples = 8, temperature = 0.7 } = {}): ProposeFn {
  const cache = new Map<string, ReadonlyMap<string, number>>();
  return async (board, options) => {
    const key = board.render();
    const known = cache.get(key);
    if (known) return known;
    const request = { messages: [{ role: 'user' as const, content: proposePrompt(key) }], n: samples, temperature, tags: { role: 'generator' } };
    const { outputs } = await callModel(through(model, options), request, options.signal ? { signal: options.signal } : {});
    const proposals = parseProposals(outputs);
    cache.set(key, proposals);
    return proposals;
  };
}

/** Verdicts from a model: one value prompt per constrained clue, each clue asked once per judge. */
export function modelJudge(model: LanguageModel): JudgeFn {
  const verdicts = new Map<string, Promise<ReturnType<typeof parseClueVerdict>>>();
  return async (board, options) => {
    const ask = async (clue: string) => {
      const { outputs } = await callModel(through(model, options), { messages: [{ role: 'user', content: valuePrompt(clue) }], tags: { role: 'evaluator' } }, options.signal ? { signal: options.signal } : {});
      return parseClueVerdict(outputs[0] ?? '');
    };
    const counts: ClueCounts = { sure: 0, maybe: 0, impossible: 0 };
    const clues = board.constrainedClues();
    const results = await Promise.all(
      clues.map((clue) => {
        let verdict = verdicts.get(clue);
        if (!verdict) {
          verdict = ask(clue);
          // A failed call is not remembered: the next board asks again.
          verdict.catch(() => verdicts.delete(clue));
          verdicts.set(clue, verdict);
        }
        return verdict;
      }),
    );
    for (const v of results) if (v) counts[v] += 1;
    return counts;
  };
}
