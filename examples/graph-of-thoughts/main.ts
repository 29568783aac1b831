/**
 * The Graph-of-Thoughts paper's sorting graph for 32 numbers, run by this library's
 * OperationGraph: split the list, sort each half 5 times, score each attempt by the paper's error
 * count and keep the best, merge the halves 10 times and keep the best, improve that 10 times and
 * keep the best.
 *
 *   npm run example:graph-of-thoughts                      a simulated model (no key needed)
 *   npm run example:graph-of-thoughts -- --list "[3, 1, …]" your own 32 digits
 *   npm run example:graph-of-thoughts -- --replay <example_prompts_*.md>   a recorded run, replayed
 *   npm run example:graph-of-thoughts -- --mermaid          also print the graph of thoughts
 *
 * With OPENAI_BASE_URL and OPENAI_API_KEY set (and optionally OPENAI_MODEL), the graph runs
 * against that model instead of the simulated one.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { composeModel, concurrencyMiddleware, retryMiddleware, timeoutMiddleware, type LanguageModel } from '@tot/core';
import { openAIModel } from '@tot/core/openai';
import OpenAI from 'openai';
import { parseGotRecording } from './recording.js';
import { replayRecording } from './replay.js';
import { simulatedSortingModel } from './simulated-model.js';
import { parseList, sortingGraph, sortingInput } from './sorting.js';

const { values } = parseArgs({ options: { list: { type: 'string' }, replay: { type: 'string' }, mermaid: { type: 'boolean', default: false } } });

if (values.replay) {
  const report = await replayRecording(parseGotRecording(readFileSync(values.replay, 'utf8')));
  console.log(`Replay of ${values.replay} (${report.task}):`);
  for (const c of report.checks) console.log(`  ${c.ok ? 'ok  ' : 'FAIL'} ${c.what}${c.ok ? '' : `\n       recorded ${c.expected}\n       replayed ${c.got}`}`);
  if (report.unusedSteps.length > 0) console.log(`  FAIL recorded steps no operation asked for: ${report.unusedSteps.join(', ')}`);
  for (const e of report.result.errors) console.log(`  dropped: ${e.message}`);
  console.log(`${report.ok ? 'Replayed' : 'Did not replay'}: ${report.result.stats.llmCalls} calls, ${report.result.stats.thoughts} thoughts, final result ${report.finalMatches ? 'as recorded' : 'different from the recording'}.`);
  if (values.mermaid) console.log(report.result.graph.toMermaid());
  process.exitCode = report.ok ? 0 : 1;
} else {
  const live = process.env.OPENAI_BASE_URL && process.env.OPENAI_API_KEY;
  const modelName = process.env.OPENAI_MODEL ?? 'gpt-4o-mini';
  const model: LanguageModel = live
    ? composeModel(openAIModel({ client: new OpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY }), model: modelName }), [
        retryMiddleware({ maxRetries: 3 }),
        concurrencyMiddleware({ limit: 8 }),
        timeoutMiddleware({ ms: 60_000 }),
      ])
    : simulatedSortingModel({ delayMs: 20 });
  console.log(live ? `Live mode: ${modelName} at ${process.env.OPENAI_BASE_URL}` : 'Simulated model (set OPENAI_BASE_URL and OPENAI_API_KEY for a live run)');
  // 32 digits from a fixed seed, unless given.
  let seed = 7;
  const list = values.list ? parseList(values.list) : Array.from({ length: 32 }, () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16) % 10);
  const graph = sortingGraph();
  graph.on('operation.completed', (e) => {
    if (e.operationId.startsWith('best')) {
      const kept = e.thoughts.find((t) => t.id === e.outputIds[0]) as { state: { current: number[] }; score?: number } | undefined;
      console.log(`  ${e.operationId.padEnd(12)} kept ${kept ? `[${kept.state.current.join(', ')}] (${kept.score} errors)` : 'nothing'}`);
    }
  });
  console.log(`Input: [${list.join(', ')}]`);
  const result = await graph.run({ model, input: sortingInput(list), concurrency: 8 });
  const best = result.thoughts[0];
  console.log(`Result: ${best ? `[${best.state.current.join(', ')}] — ${best.solved ? 'correctly sorted' : `${best.score} errors`}` : 'none'} (${result.stopReason})`);
  console.log(`${result.stats.llmCalls} model calls, ${result.stats.thoughts} thoughts, ${result.stats.droppedThoughts} dropped, ${Math.round(result.stats.wallMs)} ms`);
  if (values.mermaid) console.log(result.graph.toMermaid({ label: (t) => `[${t.state.current.join(',')}]${t.score === undefined ? '' : ` · ${t.score}`}` }));
}
