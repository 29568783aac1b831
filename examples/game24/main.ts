/**
 * Game of 24 with Tree-of-Thoughts BFS (beam 5, depth 4).
 *
 * Default: solves the first puzzles of the recorded GPT-4 run offline, replaying the logged
 * proposals and values through Explorer, and prints each winning path and the first tree as
 * Mermaid. With OPENAI_BASE_URL and OPENAI_API_KEY set (and optionally OPENAI_MODEL), solves the
 * same puzzles live against that endpoint instead.
 *
 * Run: npm run demo [-- --puzzles 3]
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bfs, Budget, composeModel, concurrencyMiddleware, Explorer, retryMiddleware, ThoughtTree, timeoutMiddleware, type ExplorationResult, type LanguageModel } from '@tot/core';
import { openAIModel } from '@tot/core/openai';
import OpenAI from 'openai';
import { game24Evaluator, game24Generator, isGame24Solution } from './prompts.js';
import { loadReplayLog, replayEvaluator, replayGenerator, stateOf } from './replay.js';
import { checkAnswer } from './verifier.js';

const { values } = parseArgs({ options: { puzzles: { type: 'string', default: '3' }, log: { type: 'string' } } });
const count = Number(values.puzzles);
const log = loadReplayLog(values.log ?? fileURLToPath(new URL('../../bench/fixtures/game24-gpt4-bfs.json', import.meta.url)));
const live = process.env.OPENAI_BASE_URL && process.env.OPENAI_API_KEY;
const modelName = process.env.OPENAI_MODEL ?? 'gpt-4o-mini';

console.log(live ? `Live mode: ${modelName} at ${process.env.OPENAI_BASE_URL}` : 'Replay mode: the recorded GPT-4 run (set OPENAI_BASE_URL and OPENAI_API_KEY for a live run)');

// Any OpenAI-compatible server through the official client; retries, a concurrency cap and a
// time limit per attempt from the library's middleware (the client's own retries stay off).
const model: LanguageModel | undefined = live
  ? composeModel(openAIModel({ client: new OpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY }), model: modelName }), [
      retryMiddleware({ maxRetries: 3 }),
      concurrencyMiddleware({ limit: 8 }),
      timeoutMiddleware({ ms: 60_000 }),
    ])
  : undefined;

let solved = 0;
let first: ExplorationResult | undefined;
for (const puzzle of log.slice(0, count)) {
  const numbers = puzzle.steps[0]!.x;
  let explorer: Explorer;
  if (model) {
    explorer = new Explorer({
      generator: game24Generator(model),
      evaluator: game24Evaluator(model),
      strategy: bfs({ beamWidth: 5 }),
      maxDepth: 4,
      branchingFactor: 8,
      pruningThreshold: 0,
      isSolution: isGame24Solution(numbers),
      budget: new Budget({ maxCalls: 400 }),
      taskType: 'math_reasoning',
    });
  } else {
    explorer = new Explorer({
      generator: replayGenerator(puzzle),
      evaluator: replayEvaluator(puzzle),
      strategy: bfs({ beamWidth: 5 }),
      maxDepth: 4,
      branchingFactor: 1000,
      pruningThreshold: 0,
      taskType: 'math_reasoning',
    });
  }
  const tree = new ThoughtTree({ problem: numbers, taskId: `game24-${puzzle.idx}`, taskType: 'math_reasoning' });
  const result = await explorer.run(tree);
  first ??= result;
  const finals = live ? result.solutions : [...tree.all()].filter((n) => n.status === 'terminal');
  const winner = finals.find((n) => checkAnswer(numbers, stateOf(tree, n)).valid);
  if (winner) solved += 1;
  console.log(`\nPuzzle ${puzzle.idx}: ${numbers} — ${winner ? 'solved' : 'not solved'} (${result.stats.totalNodes} nodes, stop: ${result.stopReason})`);
  const path = winner ? tree.path(winner.id) : result.bestPath;
  for (const node of path.slice(1)) console.log(`  ${'  '.repeat(node.depth - 1)}${node.content}${node.evaluation ? `   [score ${node.evaluation.score.toFixed(2)}]` : ''}`);
}

console.log(`\nSolved ${solved} of ${Math.min(count, log.length)}.`);
if (first) {
  const kept = first.tree;
  console.log(`\nThe tree of puzzle ${kept.problem} (pruned branches dashed, best path bold):\n`);
  console.log(kept.toMermaid({ maxLabelLength: 40, highlight: first.bestPath.map((n) => n.id) }));
}
