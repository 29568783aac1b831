/**
 * Game of 24 with Tree-of-Thoughts BFS (beam 5, depth 4).
 *
 * Default: solves the first puzzles of the recorded GPT-4 run offline, replaying the logged
 * proposals and values through Explorer (each replayed call takes 5 ms, so the page's timeline
 * shows the search's concurrent calls). With OPENAI_BASE_URL and OPENAI_API_KEY set (and
 * optionally OPENAI_MODEL), solves the same puzzles live against that endpoint instead. Prints one
 * line per puzzle and writes the first run as a self-contained page, game24-run.html.
 *
 * Run: npm run demo [-- --puzzles 3] [--out game24-run.html] [--db runs.db] [--mermaid]
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bfs, Budget, composeModel, concurrencyMiddleware, Explorer, fromFunction, InMemoryEventStore, retryMiddleware, ThoughtTree, timeoutMiddleware, type EventStore, type ExplorationResult, type LanguageModel, type StoredEvent } from '@tot/core';
import { openAIModel } from '@tot/core/openai';
import { SqliteEventStore } from '@tot/core/sqlite';
import { withLatency } from '@tot/core/testing';
import { renderRunHtml } from '@tot/core/viewer';
import OpenAI from 'openai';
import { game24Evaluator, game24Generator, isGame24Solution } from './prompts.js';
import { loadReplayLog, replayEvaluator, replayGenerator, stateOf } from './replay.js';
import { checkAnswer } from './verifier.js';

const { values } = parseArgs({ options: { puzzles: { type: 'string', default: '3' }, log: { type: 'string' }, out: { type: 'string', default: 'game24-run.html' }, db: { type: 'string' }, mermaid: { type: 'boolean', default: false } } });
const count = Number(values.puzzles);
const log = loadReplayLog(values.log ?? fileURLToPath(new URL('../../bench/fixtures/game24-gpt4-bfs.json', import.meta.url)));
const live = process.env.OPENAI_BASE_URL && process.env.OPENAI_API_KEY;
const modelName = process.env.OPENAI_MODEL ?? 'gpt-4o-mini';
// Runs are recorded: to a SQLite file with --db (list them with `tot runs <file>`), else in memory.
const store: EventStore & { close?: () => Promise<void> } = values.db ? new SqliteEventStore({ path: values.db }) : new InMemoryEventStore();
// The replay's stand-in for a model call: 5 ms, so the timeline shows what ran at once.
const transport = withLatency(fromFunction(() => 'ok', { modelId: 'replay' }), 5);

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

/** A run that rejected: the library's message, then what the provider (or the code below it) said. */
function failureText(error: unknown): string {
  const lines = [error instanceof Error ? error.message : String(error)];
  for (let cause = (error as { cause?: unknown }).cause, depth = 0; cause !== undefined && depth < 3; cause = (cause as { cause?: unknown }).cause, depth++) {
    lines.push(`  cause: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
  return lines.join('\n');
}

let solved = 0;
let failed = false;
let first: { result: ExplorationResult; runId: string } | undefined;
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
      generator: replayGenerator(puzzle, { transport }),
      evaluator: replayEvaluator(puzzle, { transport }),
      strategy: bfs({ beamWidth: 5 }),
      maxDepth: 4,
      branchingFactor: 1000,
      pruningThreshold: 0,
      taskType: 'math_reasoning',
    });
  }
  const tree = new ThoughtTree({ problem: numbers, taskId: `game24-${puzzle.idx}`, taskType: 'math_reasoning' });
  const runId = `game24-${puzzle.idx}-${Date.now().toString(36)}`;
  let result: ExplorationResult;
  try {
    result = await explorer.run(tree, { store, runId });
  } catch (error) {
    // A provider error after which no call can succeed (a wrong key, an unknown model, no server):
    // the other puzzles would fail the same way.
    console.error(`Puzzle ${puzzle.idx}: ${numbers} — the run failed: ${failureText(error)}`);
    failed = true;
    break;
  }
  first ??= { result, runId };
  const finals = live ? result.solutions : [...tree.all()].filter((n) => n.status === 'terminal');
  const winner = finals.find((n) => checkAnswer(numbers, stateOf(tree, n)).valid);
  if (winner) solved += 1;
  const answer = winner ? `: ${winner.content.replace(/^Answer:\s*/, '')}` : '';
  console.log(`Puzzle ${puzzle.idx}: ${numbers} — ${winner ? 'solved' : 'not solved'}${answer} (${result.stats.totalNodes} nodes, ${result.stats.llmCalls} calls, stop: ${result.stopReason})`);
  if (result.stopReason === 'error') {
    // Every call failed: not an unsolvable puzzle, a run that could not work.
    failed = true;
    console.error(`  ${result.detail?.kind === 'error' ? `${result.detail.code}: ${result.detail.message}` : 'every call failed'}`);
  }
}

if (!failed) console.log(`\nSolved ${solved} of ${Math.min(count, log.length)}.`);
if (failed) process.exitCode = 1;
if (first) {
  const events: StoredEvent[] = [];
  for await (const e of store.readStream(first.runId)) events.push(e);
  const out = resolve(values.out!);
  writeFileSync(out, renderRunHtml(events, { title: `Game of 24: ${first.result.tree.problem}` }));
  console.log(`The first puzzle's search, to open in a browser: ${out}`);
  if (values.mermaid) {
    const kept = first.result.tree;
    console.log(`\nThe tree of puzzle ${kept.problem} (pruned branches dashed, best path bold):\n`);
    console.log(kept.toMermaid({ maxLabelLength: 40, highlight: first.result.bestPath.map((n) => n.id) }));
  }
}
await store.close?.();
