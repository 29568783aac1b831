/**
 * 5×5 mini crosswords with the Tree-of-Thoughts paper's depth-first search.
 *
 * Default: replays the recorded GPT-4 run offline (proposals and clue counts from the recording).
 * With OPENAI_BASE_URL and OPENAI_API_KEY set (and optionally OPENAI_MODEL), solves the same
 * puzzles live against that endpoint instead: 8 propose samples per board, one value call per
 * constrained clue. Prints each puzzle's answer (its deepest board, the first one if several) and
 * the paper's figures.
 *
 * Run: npx tsx examples/crosswords/main.ts [--puzzles 2] [--data ../shared/data/tot-reference/crosswords/]
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { composeModel, concurrencyMiddleware, Explorer, retryMiddleware, ThoughtTree, timeoutMiddleware, type LanguageModel, type ThoughtNode } from '@tot/core';
import { openAIModel } from '@tot/core/openai';
import OpenAI from 'openai';
import { loadProposals, loadPuzzles, loadSteps, recordedProposals, recordedVerdicts } from './replay.js';
import { paperMetrics, recordedPuzzleIndices } from './reproduce.js';
import { boardOf, crosswordEvaluator, crosswordGenerator, modelJudge, modelProposals, PAPER_LIMITS, paperSearch } from './roles.js';

const defaultData = fileURLToPath(new URL('../../../shared/data/tot-reference/crosswords/', import.meta.url));
const { values } = parseArgs({ options: { puzzles: { type: 'string', default: '2' }, data: { type: 'string', default: defaultData } } });
const dir = resolve(values.data!);
const puzzles = loadPuzzles(`${dir}/mini0505.json`);
const proposals = loadProposals(`${dir}/env_cache_0-45.json`);
const log = loadSteps(`${dir}/infoss_dfs_prune_0-45.json`);
const indices = recordedPuzzleIndices(puzzles, proposals).slice(0, Number(values.puzzles));

const live = process.env.OPENAI_BASE_URL && process.env.OPENAI_API_KEY;
const model: LanguageModel | undefined = live
  ? composeModel(openAIModel({ client: new OpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY }), model: process.env.OPENAI_MODEL ?? 'gpt-4o-mini' }), [
      retryMiddleware({ maxRetries: 3 }),
      concurrencyMiddleware({ limit: 8 }),
      timeoutMiddleware({ ms: 60_000 }),
    ])
  : undefined;
console.log(model ? `Live mode at ${process.env.OPENAI_BASE_URL}` : 'Replay mode: the recorded GPT-4 run (set OPENAI_BASE_URL and OPENAI_API_KEY for a live run)');

const results: { env_step: number; info: { r_letter: number; r_word: number; r_game: boolean } }[][] = [];
for (const [i, index] of indices.entries()) {
  const puzzle = puzzles[index]!;
  const propose = model ? modelProposals(model) : recordedProposals(proposals);
  const judge = model ? modelJudge(model) : recordedVerdicts(log[i]!);
  const explorer = new Explorer({ generator: crosswordGenerator(puzzle, propose), evaluator: crosswordEvaluator(puzzle, judge), strategy: paperSearch(puzzle), ...PAPER_LIMITS, taskType: 'crossword' });
  const tree = new ThoughtTree({ problem: puzzle.clues.join('\n'), taskType: 'crossword' });
  // The boards the search stepped into, in order: it judges each one as it steps into it.
  const stepped: ThoughtNode[] = [];
  explorer.on('node.evaluated', (event) => stepped.push(tree.node(event.nodeId)));
  const result = await explorer.run(tree);
  const steps = stepped.map((node) => {
    const score = boardOf(puzzle, tree, node).score();
    return { node, env_step: node.depth, info: { r_letter: score.letters, r_word: score.words, r_game: score.solved } };
  });
  results.push(steps);
  const deepest = steps.reduce((a, b) => (b.env_step > a.env_step ? b : a), steps[0]!);
  const board = boardOf(puzzle, tree, deepest.node);
  console.log(`\nPuzzle ${index}: ${steps.length} steps (stop: ${result.stopReason}), answer after ${board.answers.join(', ')}`);
  console.log(board.render().split('\n').slice(1, 6).join('\n'));
  const percent = (x: number) => `${Math.round(x * 100)}%`;
  console.log(`letters ${percent(deepest.info.r_letter)}, words ${percent(deepest.info.r_word)}${deepest.info.r_game ? ', solved' : ''}`);
}
console.log(`\n${JSON.stringify({ puzzles: results.length, ...paperMetrics(results) })}`);
