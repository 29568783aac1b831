/**
 * Graph of Operations (issue #12):
 * 1. Replays of recorded Graph-of-Thoughts runs (the paper repository's `example_prompts_*.md`
 *    format): each must end in the recording's final result with every keep-the-best choosing
 *    what the recorded next step used. Any recording of that format can be given.
 * 2. The paper's sorting graph on the 100 lists of `sorting_032.csv`, as one run (a batch graph: the
 *    sorting operations once per list), on a simulated model that answers after 20 ms: wall time at
 *    concurrency 64 against the critical path at concurrency 64, and against concurrency 1.
 *    And each list on its own at concurrency 64, against its chain (4 × latency).
 * 3. Framework overhead per thought: the same batch on a model that answers at once from a table.
 *
 * npm run bench:got -- [--recording <file.md>]… [--csv <sorting_032.csv>] [--latency <ms>] [--repeats <n>]
 */
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { GenerateRequest, GenerateResult, LanguageModel } from '../src/index.js';
import { OperationGraph, type Operation } from '../src/graph/index.js';
import { parseGotRecording } from '../examples/graph-of-thoughts/recording.js';
import { replayRecording } from '../examples/graph-of-thoughts/replay.js';
import { simulatedSortingModel } from '../examples/graph-of-thoughts/simulated-model.js';
import { addSortingOps, type SortState } from '../examples/graph-of-thoughts/sorting.js';
import { benchDir, figure, median, passRounds, pooled, report, ROUNDS } from './harness.js';

const { values } = parseArgs({ options: { recording: { type: 'string', multiple: true }, csv: { type: 'string' }, latency: { type: 'string' }, repeats: { type: 'string' } } });
const shared = `${benchDir}/../../shared/data/got-reference`;
const recordings = values.recording ?? [`${shared}/example_prompts_sorting_032.md`, `${shared}/example_prompts_keyword_counting.md`].filter((p) => existsSync(p));
const latencyMs = Number(values.latency ?? 20);
const repeats = Number(values.repeats ?? ROUNDS);

// 1. Replays.
const replays = [];
if (recordings.length === 0) console.warn(`[got] no recordings given and none in ${shared}: replays skipped`);
for (const path of recordings) {
  const r = await replayRecording(parseGotRecording(readFileSync(path, 'utf8')));
  replays.push({ file: path.split('/').pop(), task: r.task, ok: r.ok, finalMatches: r.finalMatches, checks: r.checks.length, failedChecks: r.checks.filter((c) => !c.ok), unusedSteps: r.unusedSteps, llmCalls: r.result.stats.llmCalls, thoughts: r.result.stats.thoughts, droppedThoughts: r.result.stats.droppedThoughts });
}

// 2. The 100 lists.
function lists(): { source: string; lists: number[][] } {
  const path = values.csv ?? `${shared}/sorting_032.csv`;
  if (existsSync(path)) {
    const rows = readFileSync(path, 'utf8').trim().split('\n').slice(1);
    return { source: path.split('/').pop()!, lists: rows.map((row) => JSON.parse(/"(\[[^\]]*\])"/.exec(row)![1]!) as number[]) };
  }
  // Without the file: 100 lists of 32 digits from a fixed seed, so the figures stay comparable.
  let seed = 12;
  const next = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16) % 10;
  console.warn(`[got] ${path} not found: 100 seeded lists instead`);
  return { source: 'seeded', lists: Array.from({ length: 100 }, () => Array.from({ length: 32 }, next)) };
}
const { source, lists: inputs } = lists();

/** One run over every list: an item operation per list (no call), then the sorting operations. */
function batchGraph(count: number): OperationGraph<SortState> {
  const g = new OperationGraph<SortState>();
  for (let i = 0; i < count; i++) {
    const item: Operation<SortState> = {
      kind: 'item',
      describe: () => ({ index: i }),
      execute: async (input, ctx) => {
        const list = (input[0]!.state as unknown as { lists: number[][] }).lists[i]!;
        return [ctx.thought({ input: list, current: list }, input)];
      },
    };
    addSortingOps(g, { after: g.add(item, { id: `item-${i}`, after: [] }), prefix: `l${i}-` });
  }
  return g;
}
const graph = batchGraph(inputs.length);
const batchInput = { lists: inputs } as unknown as SortState;
const CALLS_PER_LIST = 5; // split, two sorts, merge, improve (each one call with n responses)
const CHAIN = 4; // split → sort → merge → improve

async function timed(model: LanguageModel, concurrency: number) {
  const started = performance.now();
  const r = await graph.run({ model, input: batchInput, concurrency });
  const ms = performance.now() - started;
  if (r.stopReason !== 'completed' || r.errors.length > 0) throw new Error(`batch run: ${r.stopReason}, ${r.errors.length} errors`);
  return { ms, thoughts: r.stats.thoughts, calls: r.stats.llmCalls, solved: r.thoughts.filter((t) => t.solved).length };
}

// The stand-in's answers are computed once and served from a table, after `latency` ms: the
// figures time the graph, not the stand-in's own work.
const answers = new Map<string, GenerateResult>();
const key = (r: GenerateRequest) => `${r.n ?? 1}|${r.messages.at(-1)!.content}`;
const recorder = simulatedSortingModel();
await graph.run({ model: { ...recorder, generate: async (r: GenerateRequest) => { const out = await recorder.generate(r); answers.set(key(r), out); return out; } } as LanguageModel, input: batchInput, concurrency: 64 });
function tableModel(delayMs: number): LanguageModel {
  return {
    modelId: 'simulated-sorting',
    capabilities: { multipleOutputs: true },
    generate: (r) => (delayMs === 0 ? Promise.resolve(answers.get(key(r))!) : new Promise((resolve) => setTimeout(() => resolve(answers.get(key(r))!), delayMs))),
  };
}

/**
 * The same 500 calls with nothing but the waiting: each list's split → two sorts → merge → improve,
 * on `concurrency` slots (longest chain first), each call a timer of `latency` ms. What the
 * schedule costs with timers as they really fire, and no framework at all.
 */
async function idealSchedule(concurrency: number): Promise<number> {
  type Job = { list: number; level: number };
  const ready: Job[] = inputs.map((_, list) => ({ list, level: 4 }));
  const sorts = new Array<number>(inputs.length).fill(0);
  let running = 0;
  let left = inputs.length * CALLS_PER_LIST;
  const started = performance.now();
  await new Promise<void>((resolve) => {
    const pump = () => {
      while (running < concurrency && ready.length > 0) {
        let at = 0;
        for (let i = 1; i < ready.length; i++) if (ready[i]!.level > ready[at]!.level) at = i;
        const job = ready.splice(at, 1)[0]!;
        running += 1;
        setTimeout(() => {
          running -= 1;
          left -= 1;
          if (job.level === 4) ready.push({ list: job.list, level: 3 }, { list: job.list, level: 3 });
          else if (job.level === 3 && ++sorts[job.list]! === 2) ready.push({ list: job.list, level: 2 });
          else if (job.level === 2) ready.push({ list: job.list, level: 1 });
          if (left === 0) resolve();
          else pump();
        }, latencyMs);
      }
    };
    pump();
  });
  return performance.now() - started;
}

const calls = inputs.length * CALLS_PER_LIST;
const criticalPath = (c: number) => Math.max(CHAIN, Math.ceil(calls / c)) * latencyMs;
// Each loop below measures this pass's share of its rounds (bench/run.ts runs the list in passes);
// the figures are of every pass's rounds.
const passWide: number[] = [];
let solved = 0;
for (const _ of passRounds(repeats)) {
  const r = await timed(tableModel(latencyMs), 64);
  passWide.push(r.ms);
  solved = r.solved;
}
const wide = pooled('wide', passWide);
const passIdeal: number[] = [];
for (const _ of passRounds(repeats)) passIdeal.push(await idealSchedule(64));
const ideal = pooled('ideal', passIdeal);
// One list at a time, as a user sorting one list runs it: the critical path is then the chain
// itself (split → sort → merge → improve, 4 × latency), with nothing to queue behind.
const singleGraph = batchGraph(1);
const passPerList: number[] = [];
for (const list of passRounds(inputs.length).map((i) => inputs[i]!)) {
  const started = performance.now();
  const r = await singleGraph.run({ model: tableModel(latencyMs), input: { lists: [list] } as unknown as SortState, concurrency: 64 });
  passPerList.push(performance.now() - started);
  if (r.stopReason !== 'completed' || r.errors.length > 0) throw new Error(`single-list run: ${r.stopReason}, ${r.errors.length} errors`);
}
const perList = pooled('perList', passPerList);
// Concurrency 1 takes calls × latency (10 s for 500 calls at 20 ms): one sample a pass.
const narrow = pooled('narrow', [(await timed(tableModel(latencyMs), 1)).ms]);

// 3. Overhead with an instant model: the same table, answering at once.
const table = tableModel(0);
const passOverhead: { perThought: number; perCall: number }[] = [];
let thoughts = 0;
let callsPerRun = 0;
for (let i = -3; i < passRounds(repeats * 2).length; i++) {
  const r = await timed(table, 64);
  thoughts = r.thoughts;
  callsPerRun = r.calls;
  if (i >= 0) passOverhead.push({ perThought: (r.ms * 1000) / r.thoughts, perCall: (r.ms * 1000) / r.calls });
}
const overheadRounds = pooled('overhead', passOverhead);
const perThought = overheadRounds.map((r) => r.perThought);
const perCall = overheadRounds.map((r) => r.perCall);

const round = (x: number) => Math.round(x * 100) / 100;
report('got', {
  replays,
  sortingBatch: {
    source,
    lists: inputs.length,
    calls,
    latencyMs,
    solved,
    criticalPathMs: { chain: CHAIN * latencyMs, atConcurrency64: criticalPath(64), atConcurrency1: criticalPath(1) },
    idealSchedule64: { ms: figure(ideal), runs: ideal.map(round) },
    concurrency64: { ms: figure(wide), runs: wide.map(round), ratioToCriticalPath: round(median(wide) / criticalPath(64)), ratioToIdealSchedule: round(median(wide) / median(ideal)), target: 1.15 },
    concurrency1: { ms: round(median(narrow)), samples: narrow.length },
    singleList64: { lists: perList.length, ms: figure(perList), maxMs: round(Math.max(...perList)), chainMs: CHAIN * latencyMs, ratioToChain: round(median(perList) / (CHAIN * latencyMs)), maxRatioToChain: round(Math.max(...perList) / (CHAIN * latencyMs)), target: 1.15 },
    speedup: round(median(narrow) / median(wide)),
    speedupTarget: 10,
  },
  overhead: { thoughtsPerRun: thoughts, callsPerRun, microsPerThought: figure(perThought), microsPerCall: figure(perCall), runs: perThought.map(round), target: 20, note: 'Per thought counts every thought the run makes, the copies that score, keepBest and select make included (38 of the 70 per list); per call is the same time over the model calls.' },
});
