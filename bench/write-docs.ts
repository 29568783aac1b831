/** Renders docs/benchmarks.md from bench/results/*.json, so the document always shows measured figures. */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { summarise, type FigureComparison } from './compare-runs.js';
import { chanceOutside, median, ROUNDS, type Figure } from './harness.js';
import { RECORDS } from './yardstick.js';

const results = (name: string) => JSON.parse(readFileSync(fileURLToPath(new URL(`./results/${name}.json`, import.meta.url)), 'utf8'));
/** The results of a benchmark that may not have run here (it needs a browser, PostgreSQL, or a whole run), or undefined. */
const resultsIfAny = (name: string) => (existsSync(fileURLToPath(new URL(`./results/${name}.json`, import.meta.url))) ? results(name) : undefined);
const n = (x: number) => x.toLocaleString('en-US');
const t = results('tree');
const o = results('overhead');
const g = results('game24-replay');
const l = results('latency');
const s = results('event-store');
const r = results('reasoning-loops');
const rec = results('recording');
const met = (ok: boolean) => (ok ? '' : ' (not met)');

/** `median unit (min–max)`, the median in bold when it is the figure a target is judged on. */
const fig = (x: Figure, unit = '', bold = false) => `${bold ? '**' : ''}${x.median}${unit}${bold ? '**' : ''} (${x.min}–${x.max}${unit})`;
/** The range of a benchmark's rounds, ` (min–max unit)`, when its result lists them (else nothing). */
const range = (rounds: readonly number[] | undefined, unit = '') => {
  if (!rounds || rounds.length === 0) return '';
  const r = (x: number) => Math.round(x * 1000) / 1000;
  return ` (${r(Math.min(...rounds))}–${r(Math.max(...rounds))}${unit})`;
};
/**
 * A figure as a benchmark reports it (\`figure()\`: median and range), or as a result from before
 * it did reported it (a bare median, with its rounds when it listed them), until the next run.
 */
const figOr = (f: Figure | undefined, median: number, rounds?: readonly number[], unit = '', bold = false) =>
  f ? fig(f, unit, bold) : `${bold ? '**' : ''}${median}${unit}${bold ? '**' : ''}${range(rounds, unit)}`;
/** The median of a figure, or a result's bare median from before. */
const med = (f: Figure | undefined, median: number) => f?.median ?? median;
/** A target judged on the median: says so when the median misses it. */
const missed = (ok: boolean) => (ok ? '' : ' (missed)');

// How busy the machine was over the run: the load average when the first benchmark started and when the last ended.
const all = readdirSync(fileURLToPath(new URL('./results/', import.meta.url)))
  // machine.json is the run's yardstick (below), not a benchmark.
  .filter((f) => f.endsWith('.json') && f !== 'machine.json')
  .map((f) => ({ benchmark: f.replace(/\.json$/, ''), ...results(f.replace(/\.json$/, '')) }) as { benchmark: string; date?: string; loadAverage1m?: { atStart: number; atEnd: number }; benchRun?: string; quietBefore?: { quiet: boolean | null; waitedMs: number }; machineDuring?: { seconds: number; busyShare: number; stealShare: number }; passes?: { done: number; of: number } });
// The page shows one \`npm run bench\` run (the one most results come from): results from another are named.
const runs = new Map<string, number>();
for (const r of all) if (r.benchRun) runs.set(r.benchRun, (runs.get(r.benchRun) ?? 0) + 1);
const mainRun = [...runs].sort((a, b) => b[1] - a[1])[0]?.[0];
const otherRuns = mainRun ? all.filter((r) => r.benchRun !== mainRun).map((r) => r.benchmark).sort() : [];
const mainMembers = all.filter((r) => r.benchRun === mainRun).map((r) => r.benchmark).sort();
const ofMainRun = all.filter((r) => r.benchRun === mainRun && r.loadAverage1m && r.date).sort((a, b) => a.date!.localeCompare(b.date!));
const load = ofMainRun.length > 0 ? { atStart: ofMainRun[0]!.loadAverage1m!.atStart, atEnd: ofMainRun.at(-1)!.loadAverage1m!.atEnd, highest: Math.max(...ofMainRun.flatMap((r) => [r.loadAverage1m!.atStart, r.loadAverage1m!.atEnd])) } : undefined;

// The machine's own speed over the run: the CPU time of one fixed piece of work, timed every few seconds (bench/yardstick.ts).
const machine = resultsIfAny('machine') as { benchRun?: string; machineDuring?: { yardstickCpuMs?: Figure; yardstickEverySeconds?: number } } | undefined;
const yardstick = machine?.benchRun === mainRun ? machine?.machineDuring?.yardstickCpuMs : undefined;
const yardstickText = yardstick
  ? ` The machine's own speed moved too, which steal time does not show. A yardstick (\`bench/yardstick.ts\`) timed one fixed piece of work, sorting ${n(RECORDS)} small records, in CPU time every ${machine!.machineDuring!.yardstickEverySeconds ?? 2} s through the run: ${n(yardstick.rounds)} samples, ${yardstick.median} ms at the median, from ${yardstick.min} to ${yardstick.max} ms. Its samples include the slowing that the benchmarks' own work on both cores causes, so that range is wider than the host's alone. Each result this run measured for more than a few seconds has the same for the time it ran (\`machineDuring.yardstickCpuMs\`).`
  : '';
// The time the hypervisor took from this machine while each benchmark of that run ran (bench/run.ts, /proc/stat's steal).
const steals = all
  .filter((r) => r.benchRun === mainRun && r.machineDuring)
  .map((r) => ({ benchmark: r.benchmark, steal: r.machineDuring!.stealShare }))
  .sort((a, b) => b.steal - a.steal);
const stealText =
  steals.length === 0
    ? ''
    : ` The hypervisor reported ${steals[0]!.steal === 0 ? 'no steal time while any benchmark ran (/proc/stat\'s steal was 0)' : `taking at most ${Math.round(steals[0]!.steal * 1000) / 10}% of the cores' time while a benchmark ran (\`${steals[0]!.benchmark}\`; /proc/stat's steal), ${Math.round(median(steals.map((x) => x.steal)) * 1000) / 10}% at the median`}.`;

// The passes that run went through the list in (bench/run.ts), and the benchmarks that pooled their rounds over them.
const pooledInRun = all.filter((r) => r.benchRun === mainRun && (r.passes?.of ?? 1) > 1);
const passCount = Math.max(1, ...pooledInRun.map((r) => r.passes!.of));
const pooledNames = pooledInRun.map((r) => `\`${r.benchmark}\``);
const passText =
  passCount === 1
    ? ''
    : `

A *round* is one timed repetition; a *pass* is one sweep through the whole list of benchmarks. The run
went through the list in ${passCount} passes, because the machine's speed drifts over half an hour by more than
rounds taken within one minute differ: a range taken within one minute would miss the next run's
median too often. So ${pooledNames.join(', ')} *pooled* their rounds: each measured a share of every
figure's rounds in each pass${ROUNDS % passCount === 0 ? ` (of ${ROUNDS} rounds, ${ROUNDS / passCount} a pass)` : ''}, and its figures are the median and range of the rounds of all the
passes. The other benchmarks ran once, in one of the passes, so their ranges come from one sitting. In a pooled
benchmark, a value that is not a figure (a heap size, a session's growth) is measured in every pass, and
the page shows the last pass's.`;

// The benchmarks of that run that started on a busy machine (bench/run.ts waited for quiet in vain).
const busyStarts = all
  .filter((r) => r.benchRun === mainRun && r.quietBefore?.quiet === false)
  .map((r) => `\`${r.benchmark}\` (after waiting ${Math.round(r.quietBefore!.waitedMs / 1000)} s)`);

/**
 * The last comparison of two whole runs (\`npx tsx bench/compare-runs.ts <first> <second> --json\`, saved as
 * bench/reproduction.json): how many of the second run's medians lay inside the first's ranges.
 */
const reproductionFile = fileURLToPath(new URL('./reproduction.json', import.meta.url));
/** Its section of the page, and the sentence the page's opening gives it ('' when there is none). */
const reproduction = (() => {
  if (!existsSync(reproductionFile)) return { intro: '', section: '' };
  // A file from before the yardstick has no machineMoved, on the runs or on the figures.
  const rep = JSON.parse(readFileSync(reproductionFile, 'utf8')) as { runs?: (string | null)[]; machineMoved?: number | null; compared: (Omit<FigureComparison, 'machineMoved'> & { machineMoved?: number | null })[]; missing: string[] };
  const runs = rep.runs?.length === 2 && rep.runs.every((r) => typeof r === 'string') ? (rep.runs as [string, string]) : undefined;
  const outside = rep.compared.filter((c) => !c.inside);
  const sum = summarise(rep.compared);
  const pct = (x: number | null) => (x === null ? '' : `${x >= 0 ? '+' : ''}${Math.round(x * 1000) / 10}%`);
  const when = (run: string) => run.slice(0, 16).replace('T', ' ');
  const dates = runs ? `, started ${when(runs[0])} and ${when(runs[1])} UTC` : ' (which runs, the comparison does not say)';
  const current = runs?.[1] === mainRun;
  const stale = current ? '' : ' The second run is not the one this page shows.';
  // Runs measured with the yardstick (bench/yardstick.ts) say how much the machine itself moved beside each figure.
  const withMachine = outside.some((c) => typeof c.machineMoved === 'number');
  const rows = outside.map((c) => `| \`${c.where}\` | ${fig(c.first)}, ${c.first.rounds} rounds | ${c.second.median} | ${pct(c.moved)} |${withMachine ? ` ${typeof c.machineMoved === 'number' ? more(c.machineMoved) : ''} |` : ''}`);
  const more = (x: number) => `${Math.round(Math.abs(x) * 1000) / 10}% ${x >= 0 ? 'more' : 'less'}`;
  const machineText =
    typeof rep.machineMoved === 'number'
      ? ` The machine itself: the yardstick's fixed work (\`bench/yardstick.ts\`) took ${more(rep.machineMoved)} CPU time in the second run than in the first, at the median over each whole run.`
      : " The first run had no yardstick (or too few of its samples), so the comparison cannot say how far the machine's own speed moved between the runs.";
  return {
    intro: current ? ` The run this page shows, measured against the one before it: [Reproduction](#reproduction-between-runs).` : ` Two earlier runs measured against each other: [Reproduction](#reproduction-between-runs).`,
    section: `
## Reproduction between runs

Two whole \`npm run bench\` runs${dates}, the second's medians against the first's ranges
(\`npm run bench:compare\`, its \`--json\` saved as \`bench/reproduction.json\`): every figure of the results files with a median
and a range, some of them not on this page.${stale} **${sum.inside} of ${rep.compared.length}** figures
lie inside, ${sum.outside} outside, against ${sum.byChance.toFixed(2)} expected outside by chance alone if nothing changed (the sum, over
the figures, of the chance for each one's number of rounds)${rep.missing.length === 0 ? '' : `; ${rep.missing.length} figures are missing from the second run`}. Half the medians moved by less than ${pct(sum.medianMove).replace('+', '')}, up or down,
and the largest move was ${pct(sum.largestMove).replace('+', '')}.${machineText} ${sum.outside <= sum.byChance ? 'No more lie outside than chance explains: no sign that the two runs differ.' : 'More lie outside than chance explains: the runs differ by more than the rounds within one run do (the machine\'s speed from one half hour to the next, or anything a run\'s rounds share: one process, its compiled code and its heap), and a range of rounds taken within one run does not cover that.'}
${
  outside.length === 0
    ? ''
    : `
The figures outside (moved: (second − first) / first; for a time, + is slower; for a rate, such as the event stores' events per second, or a speed-up, + is faster${withMachine ? "; the machine: how much more or less CPU time the yardstick's fixed work took while the second run measured that benchmark, when both runs had 5 samples or more of it" : ''}):

| figure (results file: path) | first run | second run's median | moved |${withMachine ? ' the machine |' : ''}
| --- | --- | --- | --- |${withMachine ? ' --- |' : ''}
${rows.join('\n')}
`
}`,
  };
})();

interface StoreFigures {
  medians: Record<string, Record<string, number>>;
  ratios: Record<string, Record<string, number>>;
  analyzedRead?: { medians: Record<string, number>; ratios: Record<string, number>; samples?: Record<string, Record<string, number[]>> };
  /** Each round's figure, per contender and workload. */
  samples?: Record<string, Record<string, number[]>>;
}
/** ` (min–max)` of a store's rounds, in the table's number format. */
const storeRange = (rounds: readonly number[] | undefined) => (rounds && rounds.length > 0 ? ` (${n(Math.round(Math.min(...rounds)))}–${n(Math.round(Math.max(...rounds)))})` : '');
const WORKLOADS = [
  ['singles', 'single appends / s'],
  ['batched', 'batched events / s'],
  ['read', 'read events / s'],
] as const;
/** One store's table: medians per contender, this library's ratios, and whether each target is met. */
function storeTable(label: string, f: StoreFigures): string {
  const hasRaw = f.medians.raw !== undefined;
  const postgres = label === 'PostgreSQL';
  const row = (name: string, tot: number, emmett: number | undefined, raw: number | undefined, overRaw: number | undefined, overEmmett: number | undefined, rawTarget: boolean, rounds?: { tot?: number[]; emmett?: number[]; raw?: number[] }) => {
    const rawCell = raw === undefined ? '' : `${n(raw)}${storeRange(rounds?.raw)}`;
    const ratioRaw = overRaw === undefined ? '' : rawTarget ? `**${overRaw}**${met(overRaw >= 0.6)}` : String(overRaw);
    const ratioEmmett = overEmmett === undefined ? '' : postgres ? `**${overEmmett}**${met(overEmmett >= 1)}` : String(overEmmett);
    return `| ${name} | ${n(tot)}${storeRange(rounds?.tot)} | ${emmett === undefined ? '' : `${n(emmett)}${storeRange(rounds?.emmett)}`} | ${rawCell} | ${ratioRaw} | ${ratioEmmett} |`;
  };
  const lines = [
    `**${label}**`,
    '',
    `| workload | @tot/core | Emmett | raw driver | @tot/core / raw${hasRaw ? ' (target ≥ 0.6)' : ''} | @tot/core / Emmett${postgres ? ' (target ≥ 1)' : ''} |`,
    '| --- | --- | --- | --- | --- | --- |',
  ];
  for (const [w, name] of WORKLOADS) {
    const readName = postgres && w === 'read' ? 'read events / s, table never analyzed' : name;
    // Before ANALYZE the raw baseline gets a bad plan (see below): the target is judged after it.
    const rawTarget = hasRaw && !(postgres && w === 'read');
    const emmett = label === 'In memory' && w === 'read' ? undefined : f.medians.emmett?.[w];
    const overEmmett = label === 'In memory' && w === 'read' ? undefined : f.ratios.totOverEmmett?.[w];
    const rounds = { tot: f.samples?.tot?.[w], emmett: emmett === undefined ? undefined : f.samples?.emmett?.[w], raw: f.samples?.raw?.[w] };
    lines.push(row(readName, f.medians.tot![w]!, emmett, f.medians.raw?.[w], f.ratios.totOverRaw?.[w], overEmmett, rawTarget, rounds));
  }
  if (f.analyzedRead) {
    const a = f.analyzedRead;
    lines.push(row('read events / s, after ANALYZE', a.medians.tot!, a.medians.emmett, a.medians.raw, a.ratios.totOverRaw, a.ratios.totOverEmmett, true, { tot: a.samples?.tot?.read, emmett: a.samples?.emmett?.read, raw: a.samples?.raw?.read }));
  }
  return lines.join('\n');
}
const metInside = (ok: boolean) => (ok ? '' : ': not met');

const doc = `---
title: Benchmarks
---

# Benchmarks

\`npm run bench\` runs every benchmark, each in its own Node process with \`--expose-gc\`, prints its
figures as JSON, writes them to \`bench/results/<name>.json\`, and renders this page from them. The
figures below come from ${otherRuns.length === 0 ? `one \`npm run bench\` run on the project's machine kind: ${t.cores} cores
(${t.cpu}), ${t.memoryGiB} GiB, Node ${t.node}, on ${t.date.slice(0, 10)}` : `more than one run on the project's machine kind (${t.cores} cores, ${t.cpu}, ${t.memoryGiB} GiB, Node ${t.node}):
${mainMembers.map((b) => `\`${b}\``).join(', ')} from one run on ${ofMainRun[0]?.date?.slice(0, 10) ?? ''}, the others from other runs (each result in
\`bench/results/\` has its date)`}. The machine is shared:
${load ? `over ${otherRuns.length === 0 ? 'the run' : 'that run'}, its one-minute load average was ${load.atStart} at the start and ${load.atEnd} at the end (at most ${load.highest} at a benchmark's start or end, on ${t.cores} cores); above the core count, other processes took turns on the cores, and wall times carry their waits. ` : ''}Each
benchmark starts once the machine is quiet (\`bench/run.ts\` writes back the disk's dirty pages,
then waits until its cores have been under 10% busy for 2 s in a row; the load average above lags by a
minute, so it still counts the benchmark before)${busyStarts.length === 0 ? '' : `; ${busyStarts.join(', ')} started without that quiet`}.${stealText}${yardstickText} A figure
shown as \`median (min–max)\` is the median of at least 5 rounds, with the lowest and highest of the rounds
(${ROUNDS} rounds wherever a round takes a few seconds at most); a target is judged on the median, and one the
median misses is marked "(not met)". A second run reproduces a figure when its median lies inside the
first run's range. If nothing changed, a second run's median falls outside a ${ROUNDS}-round range about one
time in ${Math.round(1 / chanceOutside(ROUNDS))} by chance alone, and outside a 5-round range about one time in ${Math.round(1 / chanceOutside(5))}: a figure of 5 rounds is a
weaker check than one of ${ROUNDS}, and so is a wide range.${passText}${reproduction.intro}

Benchmarks run compiled, as the package ships: \`bench/run.ts\` bundles each with esbuild. (Run
through tsx, every closure made at run time goes through esbuild's \`keepNames\` wrapper, which on
the hot paths costs as much as the library's own work.)

## Reproduction of the Tree-of-Thoughts Game of 24 run (\`npm run bench:game24\`)

The recorded GPT-4 run of the Tree-of-Thoughts paper (puzzles 900–999, propose prompt, 3 value
samples, greedy beam of 5, 4 steps) replayed through \`Explorer\` with \`bfs({ beamWidth: 5 })\`: the
generator serves each parent state's logged proposals, the evaluator the logged values.

| | as recorded | with \`stateKey\` = remaining numbers |
| --- | --- | --- |
| puzzles | ${g.puzzles} | ${g.dedup.puzzles} |
| solved (exact verifier) | **${g.solved}** | ${g.dedup.solved} |
| steps whose selection differs from the log | **${g.stepMismatches}** | ${g.dedup.stepMismatches} |
| generator / evaluator calls | ${n(g.generatorCalls)} / ${g.evaluatorCalls} | ${n(g.dedup.generatorCalls)} / ${g.dedup.evaluatorCalls} |
| evaluations reused from an equal state | ${g.dedupedStates} | ${n(g.dedup.dedupedStates)} |
| wall time | ${g.wallMs} ms | ${g.dedup.wallMs} ms |

Dedup saves ${n(g.dedup.evaluationsSaved)} candidate evaluations and changes the selection at ${g.dedup.stepsWithChangedSelection} of the 400 steps,
changing the number of puzzles solved by ${g.dedup.solvedChange}. The changes are expected: the log gave equal positions
reached by different paths different values (value samples at temperature 0.7, and the reference
caches value prompts by the numbers in the order written, so \`4 6\` and \`6 4\` are scored
separately), while dedup gives them one. The exact-rational verifier agrees with the reference's own
judgement of all 500 final answers.

### CPU time per tree node, beside the paper's own code

The same replay, its solve loop (per puzzle, its replay roles, an \`Explorer\` and its run) timed in ${g.cpu.rounds} rounds of ${g.cpu.repeatsPerRound} replays
after a warm-up, each round's figure the median of its replays: the process's CPU time divided by the ${n(g.cpu.nodes)} tree
nodes a replay creates${g.loadAverage1m ? ` (one-minute load average ${g.loadAverage1m.atStart} at the start, ${g.loadAverage1m.atEnd} at the end, on ${g.cores} cores)` : ''}. With every role call made through a 0 ms model, it
counts everything: the search, the run kernel (events, the model-call log, the concurrency gate, abort handling), the
model calls' checks, and the replay roles themselves. Each puzzle's roles are built as its run starts, inside the
timed loop, as a service builds a request's. (Until 2026-11-28 the roles of all 100 puzzles were built before the
clock started, as the reference's driver builds its answers. Their tables then outlived V8's young generation, and
the timed runs paid for promoting them to the old one: 1.38 MB promoted per scavenge against 0.31, and 6.0–6.6 µs per
node against 4.7–5.0 with their building timed too. The library itself did not change, only where the benchmark
builds the roles.)
${g.cpu.perCandidate ? `
The model calls are the ones the paper's code makes: one per parent expanded, and one per value prompt it has not
asked before, ${n(g.cpu.modelCalls)} calls. The reference keeps a value cache on its task for the whole run of 100 puzzles
(a value prompt holds only the numbers a state leaves, so \`4 6\` valued in one puzzle is not asked again in another);
here the evaluator is behind \`withEvaluationCache\` keyed by the same prompt, with one store for the log. The replay
still selects what the log selected (${g.cpu.stepMismatches} steps differ). Without the cache, one call per parent and one per
candidate, the replay makes ${n(g.cpu.perCandidate.modelCalls)} calls, 2.2 times as many.
` : ''}${g.cpu.withModelMainThreadShare ? `
The process's CPU time counts V8's helper threads too (parallel scavenges, concurrent marking and sweeping,
compilation), which Python has none of: the main thread did ${fig(g.cpu.withModelMainThreadShare)} of it per round. Their
share is what moves most from one replay to the next on a busy machine (the garbage collector's parallel tasks wait for
each other when the cores are taken), and is where this process's figure spreads wider than the reference's.
` : ''}${g.cpu.reference.unavailable === undefined ? `
Beside it, in alternating rounds (each round starts with the other side), the paper's own Python code: \`solve\` of
\`bfs.py\` in the Tree-of-Thoughts repository, unchanged, over the same log, its model calls answered from the log by
\`bench/tot-reference-replay.py\` (Python ${g.cpu.reference.python}; CPU time from \`time.process_time\` over the loop of
\`solve\` calls). It makes ${n(g.cpu.reference.modelCalls)} model calls for the same nodes (one request with 3 samples per value
prompt), emits no events, checks nothing and runs one call at a time. "As written" has its progress prints on (to
/dev/null); "prints silenced" runs \`solve(..., to_print=False)\` with its one other \`print\` a no-op. Ratios are taken
per round, then their median and range.

| CPU per node | median (range) |
| --- | --- |
| @tot/core, the reference's model calls | ${fig(g.cpu.withModelCpuMicrosPerNode, ' µs', true)} |
${g.cpu.perCandidate ? `| @tot/core, one model call per candidate (no value cache) | ${fig(g.cpu.perCandidate.cpuMicrosPerNode, ' µs')} |
` : ''}| @tot/core, roles answering without a model call | ${fig(g.cpu.withoutModelCpuMicrosPerNode, ' µs')} |
| the paper's \`bfs.py\`, as written | ${fig(g.cpu.reference.asWrittenCpuMicrosPerNode, ' µs')} |
| the paper's \`bfs.py\`, prints silenced | ${fig(g.cpu.reference.printsSilencedCpuMicrosPerNode, ' µs')} |

| ratio, per round | median (range) | target |
| --- | --- | --- |
| the reference's model calls / \`bfs.py\` as written | ${fig(g.cpu.reference.ratioWithModelToAsWritten, '', true)}${missed(g.cpu.reference.ratioWithModelToAsWritten.median <= g.cpu.reference.targetRatio)} | ≤ ${g.cpu.reference.targetRatio} |
| the reference's model calls / \`bfs.py\` prints silenced | ${fig(g.cpu.reference.ratioWithModelToPrintsSilenced)} | |
| the same, each side's fastest replay of the round | ${g.cpu.reference.ratioWithModelToAsWrittenBestOfRound ? fig(g.cpu.reference.ratioWithModelToAsWrittenBestOfRound) : ''} | |
${g.cpu.reference.ratioPerCandidateToAsWritten ? `| one model call per candidate / \`bfs.py\` as written | ${fig(g.cpu.reference.ratioPerCandidateToAsWritten)} | |
` : ''}| without model calls / \`bfs.py\` as written | ${fig(g.cpu.reference.ratioWithoutModelToAsWritten)} | |
| without model calls / \`bfs.py\` prints silenced | ${fig(g.cpu.reference.ratioWithoutModelToPrintsSilenced)} | |
` : `
| CPU per node | median (range) |
| --- | --- |
| every role call through the model | ${fig(g.cpu.withModelCpuMicrosPerNode, ' µs', true)} |
| roles answering without a model call | ${fig(g.cpu.withoutModelCpuMicrosPerNode, ' µs')} |

The paper's own code was not run beside it: ${g.cpu.reference.unavailable} (\`npm run bench:game24 -- --reference <checkout of princeton-nlp/tree-of-thought-llm>\`).
`}
## Concurrency (\`npm run bench:latency\`)

The same replay over the first ${l.puzzles} puzzles with every role call made through a model with ${l.latencyMsPerCall} ms of
latency. The critical path is, per puzzle and level, the slowest generation call plus the slowest
evaluation call, summed; the capped critical path also counts the waves a level with more calls than
the concurrency needs (70 of the 400 levels have more than 32 candidates).

| concurrency | wall | critical path | wall / critical path | wall / capped critical path |
| --- | --- | --- | --- | --- |
| 1 | ${n(l.concurrency1.wallMs)} ms | ${n(l.concurrency1.criticalPathMs)} ms | ${l.concurrency1.wallOverCriticalPath} | ${l.concurrency1.wallOverCappedCriticalPath} |
| 32 | ${n(l.concurrency32.wallMs)} ms | ${n(l.concurrency32.criticalPathMs)} ms | **${l.concurrency32.wallOverCriticalPath}** (target ≤ 1.15${metInside(l.concurrency32.wallOverCriticalPath <= 1.15)}) | ${l.concurrency32.wallOverCappedCriticalPath} |

Speed-up from concurrency 1 to 32: **${l.speedup}×** (target ≥ 10×${metInside(l.speedup >= 10)}).

## Framework overhead of Explorer (\`npm run bench:overhead\`)

Instant synthetic generator and evaluator, BFS with branching 10 and beam 10,000 to depth 5
(${n(o.nodes)} nodes): everything measured is the library's own work.

| | median | target |
| --- | --- | --- |
| time per node | ${figOr(o.microsPerNode, o.medianMicrosPerNode, o.runsMicrosPerNode, ' µs', true)}${met(med(o.microsPerNode, o.medianMicrosPerNode) <= 6)} | ≤ 6 µs |
| heap per node | **${o.heapBytesPerNode} bytes**${met(o.heapBytesPerNode <= 320)} | ≤ 320 bytes |

A run keeps its first 10,000 events for a \`stream()\` opened late; keeping every event of a run this
size would cost about 2 µs more per node in garbage collection.

## ThoughtTree (\`npm run bench:tree\`)

| | median | target |
| --- | --- | --- |
| insert (${n(t.insert.nodes)} nodes, 5-ary), per insert | ${figOr(t.insert.microsPerInsert, t.insert.medianMicrosPerInsert, t.insert.runsMicrosPerInsert, ' µs', true)}${met(med(t.insert.microsPerInsert, t.insert.medianMicrosPerInsert) <= 2)} | ≤ 2 µs |
| \`path()\` of a depth-20 node, per call | ${figOr(t.pathDepth20.nanosPerCall, t.pathDepth20.medianNanosPerCall, undefined, ' ns')} | |
| JSON round trip of ${n(t.jsonRoundTrip.nodes)} nodes (toJSON, stringify, parse, zod-validated fromJSON) | ${figOr(t.jsonRoundTrip.ms, t.jsonRoundTrip.medianMs, t.jsonRoundTrip.runsMs, ' ms')} | |
| heap per node (small content) | **${t.heap.bytesPerNode} bytes**${met(t.heap.bytesPerNode <= 600)} | ≤ 600 bytes |

## Event stores (\`npm run bench:store\`)

Each store side by side, in one process, with Emmett (\`@event-driven-io/emmett\` ${s.emmettVersion}, the leading
TypeScript event-sourcing library: its in-memory, SQLite and PostgreSQL stores) and with its raw driver
doing the same work. The contenders are interleaved: each of ${s.rounds} rounds measures every workload for
every contender, in an order that rotates from round to round; figures are the medians of the rounds,
ratios are of the medians.

- **single appends**: one event per append, the expected version given, to a new stream (up to
  ${n(s.sizes.sqlite.singles)} appends or ${s.sizes.sqlite.budgetMs / 1000} s per measurement; ${n(s.sizes.postgres.singles)} or ${s.sizes.postgres.budgetMs / 1000} s on PostgreSQL);
- **batched appends**: ${s.batch} events per append, likewise;
- **read**: a whole stream of ${n(s.readEvents)} events (a recorded search run) in version order.

The raw baselines use the store's own table (its DDL: the same columns and indexes) and the same
durability: SQLite in WAL mode with \`synchronous = NORMAL\` (Emmett's SQLite store is given the same),
PostgreSQL 15 on a throwaway local cluster with default durability (fsync on). A raw append is one
transaction holding one multi-row INSERT of the same rows (time-ordered UUID version 7 ids, the data's
JSON); a raw read is a paged SELECT (${s.rawPage} rows a page) ordered by version, with the data parsed. The raw
baselines check nothing: no expected version, no idempotency, no validation. Targets: every store at
least 0.6 of its raw driver on each workload, and PostgreSQL at least Emmett's PostgreSQL store.

${storeTable('In memory', s.memory)}

${storeTable('SQLite', s.sqlite)}

${typeof s.postgres === 'string' ? `PostgreSQL: ${s.postgres}.` : storeTable('PostgreSQL', s.postgres)}

Replaying the ${n(s.readEvents)}-event run into its tree (\`replayRun\`): **${s.memory.replay100kMs} ms** in memory (target ≤ 1 s${metInside(s.memory.replay100kMs <= 1000)}),
${s.sqlite.replay100kMs} ms from SQLite${typeof s.postgres === 'string' ? '' : `, ${s.postgres.replay100kMs} ms from PostgreSQL`}. In-memory batched appends: **${n(s.memory.medians.tot.batched)}** events/s
(target ≥ 500,000${metInside(s.memory.medians.tot.batched >= 500_000)}).

The earlier absolute targets: SQLite **${n(s.sqlite.medians.tot.singles)}** single appends/s (target ≥ 5,000${metInside(s.sqlite.medians.tot.singles >= 5_000)}) and
**${n(s.sqlite.medians.tot.batched)}** batched events/s (target ≥ 60,000${metInside(s.sqlite.medians.tot.batched >= 60_000)})${typeof s.postgres === 'string' ? '' : `, PostgreSQL **${n(s.postgres.medians.tot.batched)}** batched events/s (target ≥ 10,000${metInside(s.postgres.medians.tot.batched >= 10_000)})`}.

Every append of this library validates each event (JSON-safe, size, identifiers), checks its expected
version and its idempotency keys, and every read returns fresh objects. Emmett's in-memory store hands
out the objects it keeps, so its "read" is a copy of an array of references, not comparable; its
SQLite store runs on the asynchronous \`sqlite3\` driver. In memory, a batch is kept as one JSON text
(a stored event costs the garbage collector next to nothing) and events are rebuilt when read. In
SQLite most of an append is SQLite itself inserting into a table with four unique indexes (position,
event id, idempotency key, stream + version).

PostgreSQL appends take one round trip (two with a signal, whose COMMIT waits for a round trip of its
own) and wait for the commit's WAL flush. A read sends each page as one query that turns off the
planner's sequential scans, bitmap scans and sorts for it: on a table never analyzed (as after a bulk
load) or with statistics from before a stream grew, PostgreSQL otherwise plans each page as a bitmap
scan of the rest of the stream plus a sort, which is what the raw baseline's plain paged SELECT gets in
the first read row${typeof s.postgres === 'string' ? '' : ` (${n(s.postgres.medians.raw.read)} events/s before ANALYZE, ${n(s.postgres.analyzedRead.medians.raw)} after)`}. The store's plan is an index range scan
whatever the statistics (\`test/postgres/read-plan.test.ts\` checks it with EXPLAIN).

## FractalSolver and ChainOfThoughtNode (\`npm run bench:loops\`)

Instant think/eval functions and an instant model (a plain function).

| | median | target |
| --- | --- | --- |
| FractalSolver, per frame (${n(r.fractal.frames)}-frame balanced recursion, fan-out 10, depth 4) | ${figOr(r.fractal.microsPerFrame, r.fractal.medianMicrosPerFrame, r.fractal.runs, ' µs', true)}${met(med(r.fractal.microsPerFrame, r.fractal.medianMicrosPerFrame) <= 50)} | ≤ 50 µs |
| FractalSolver, peak heap of that run (garbage included) | ${r.fractalHeap.peakHeapMiB} MiB (${n(r.fractalHeap.bytesPerFrame)} bytes per frame) | |
| FractalSolver, heap its result keeps | ${n(r.fractalHeap.retainedBytesPerFrame)} bytes per frame | |
| ChainOfThoughtNode, per thought, YAML replies | ${figOr(r.chainOfThought.yamlMicrosPerThought, r.chainOfThought.yamlMedianMicrosPerThought, undefined, ' µs', true)}${met(med(r.chainOfThought.yamlMicrosPerThought, r.chainOfThought.yamlMedianMicrosPerThought) <= 50)} | ≤ 50 µs |
| ChainOfThoughtNode, per thought, JSON replies | ${figOr(r.chainOfThought.jsonMicrosPerThought, r.chainOfThought.jsonMedianMicrosPerThought, undefined, ' µs', true)}${met(med(r.chainOfThought.jsonMicrosPerThought, r.chainOfThought.jsonMedianMicrosPerThought) <= 50)} | ≤ 50 µs |

Every run goes through the run kernel (events, the model-call log); the thoughts' model calls are
logged as \`llm.*\` events. A thought's prompt carries the whole history (chain of thought over a nested plan), so its cost grows with the run; the figures
are for runs of ${r.chainOfThought.thoughtsPerRun} thoughts (the default cap). Replies in the common shape are read by a narrow YAML
reader; a full parse with the \`yaml\` package, which every other reply still gets, takes about
85 µs for one such reply here.
`;
const recording = `
## Recording a run (\`npm run bench:recording\`)

The Game of 24 replay (${rec.puzzles} puzzles, ${n(rec.zeroMs.eventsRecorded)} events) recorded into an \`InMemoryEventStore\`
against the same replay unrecorded, interleaved, medians of ${rec.repeats} runs each. A recorded run uses a
model's result only once the call's events are stored, so that a crash never loses a call.

| model | unrecorded | recorded | recorded / unrecorded | target |
| --- | --- | --- | --- | --- |
| 0 ms (\`withLatency(model, 0)\`: answers on the next timer turn) | ${figOr(rec.zeroMs.unrecordedMs, rec.zeroMs.unrecordedMedianMs, undefined, ' ms')} | ${figOr(rec.zeroMs.recordedMs, rec.zeroMs.recordedMedianMs, undefined, ' ms')} | **${rec.zeroMs.ratio}**${rec.zeroMs.ratioPerRound ? ` (per round ${rec.zeroMs.ratioPerRound.min}–${rec.zeroMs.ratioPerRound.max})` : ''}${met(rec.zeroMs.ratio <= 1.15)} | ≤ 1.15 |
| answering in the same turn (CPU only) | ${figOr(rec.sameTurn.unrecordedMs, rec.sameTurn.unrecordedMedianMs, undefined, ' ms')} | ${figOr(rec.sameTurn.recordedMs, rec.sameTurn.recordedMedianMs, undefined, ' ms')} | ${rec.sameTurn.ratio}${rec.sameTurn.ratioPerRound ? ` (per round ${rec.sameTurn.ratioPerRound.min}–${rec.sameTurn.ratioPerRound.max})` : ''} | |

The second line is the CPU that recording costs: every event is checked, written as JSON and
indexed by its idempotency key, about as much work per event as the search does per event. With a
model that takes any time at all, that work fits in the waits.
`;
const h = results('hostile-replies');
type HostileRow = { shape: string; format: string; size: number; msPer100KB: number };
type AbortRow = { format: string; replyKB: number; abortAfterMs: number; medianMs: number | null; maxMs: number | null; aborted: number; runs: number; medianReadMs: number };
const over = (h.rows as HostileRow[]).filter((row) => row.msPer100KB > h.targets.msPer100KB);
const hostile = `
## Structured output on hostile replies

\`parseStructured\` on ${(h.rows as HostileRow[]).length / 4} pathological shapes (runs of brackets, backticks, quotes, dashes,
deep nesting, aliases, unterminated fences, …; \`test/structured/fixtures/hostile-replies.ts\`) at
100 KB and 1 MB, in JSON and YAML, medians of 5. Target: ≤ ${h.targets.msPer100KB} ms per 100 KB.
The slowest: ${h.worst.shape} (${h.worst.format}, ${Math.round(h.worst.size / 1000)} KB) at **${h.worst.msPer100KB} ms per 100 KB**${met(h.worst.msPer100KB <= h.targets.msPer100KB)}.
${over.length === 0 ? 'Every shape meets the target.' : `Over the target: ${over.map((row) => `${row.shape} (${row.format}, ${Math.round(row.size / 1000)} KB, ${row.msPer100KB} ms)`).join('; ')}: the \`yaml\` package's own parser on dense text the fast reader cannot take.`}

Abort during a 1 MB read (\`generateStructured\`, median of ${(h.abort as AbortRow[])[0]!.runs}; target ≤ ${h.targets.abortMs} ms from abort to settled):

| format | reply | abort after | abort → settled (median / max) | aborted | answer → settled (median) |
| --- | --- | --- | --- | --- | --- |
${(h.abort as AbortRow[]).map((a) => `| ${a.format} | ${a.replyKB} KB | ${a.abortAfterMs} ms | ${a.medianMs === null ? 'read finished first' : `${a.medianMs} / ${a.maxMs} ms`} | ${a.aborted} of ${a.runs} | ${a.medianReadMs} ms |`).join('\n')}
`;
const ad = results('adapters');
type AdapterRow = { calls: number; rawMedianMicros: number; adapterMedianMicros: number; overheadMedianMicros: number };
const adapterRow = (name: string, raw: string, f: AdapterRow, target: boolean) =>
  `| \`${name}\` | ${raw} | ${f.rawMedianMicros} µs | ${f.adapterMedianMicros} µs | ${target ? `**${f.overheadMedianMicros} µs**${met(f.overheadMedianMicros <= ad.targets.overheadMedianMicros)}` : `${f.overheadMedianMicros} µs`} | ${n(f.calls)} |`;
const adapters = `
## Provider adapters (\`npm run bench:adapters\`)

Each adapter against the raw call of the client it wraps, on the same local server speaking the
OpenAI wire format (in a worker thread, keep-alive): openai ${ad.clients.openai} and ${ad.clients.aiSdkProvider}. Each round
makes one raw call and one adapter call, in alternating order, after ${200} warm-up rounds; the overhead is
the median of the per-round differences. Target: ≤ ${ad.targets.overheadMedianMicros} µs median per call.

| adapter | raw call | raw (median) | adapter (median) | overhead (median) | calls |
| --- | --- | --- | --- | --- | --- |
${adapterRow('openAIModel', '`client.chat.completions.create`', ad.http.openAIModel, true)}
${adapterRow('fromAiSdk', '`model.doGenerate`', ad.http.fromAiSdk, true)}
${adapterRow('openAIEmbedder', '`client.embeddings.create`', ad.http.openAIEmbedder, false)}
${adapterRow('fromAiSdkEmbedding', '`model.doEmbed`', ad.http.fromAiSdkEmbedding, false)}

The method's own error, the raw call measured against itself in the same way: ${ad.calibration.openai.overheadMedianMicros} µs (openai),
${ad.calibration.aiSdk.overheadMedianMicros} µs (AI SDK). Without the network (clients that answer at once from memory), the adapter's
own CPU time per call: \`openAIModel\` ${ad.inMemory.openAIModel.overheadMedianMicros} µs, \`fromAiSdk\` ${ad.inMemory.fromAiSdk.overheadMedianMicros} µs (checking the request, mapping it,
checking the reply, abort handling). Between HTTP calls the same work measures several times
more; reading the reply through zod rather than the check compiled from its schema cost about
15 µs more per call there, which is why the adapters read replies through compiled checks.
`;
const got = results('got');
type GotReplay = { file: string; task: string; ok: boolean; finalMatches: boolean; checks: number; failedChecks: unknown[]; llmCalls: number; thoughts: number };
const gb = got.sortingBatch;
const graph = `
## Operation graphs (\`npm run bench:got\`)

Replays of the Graph-of-Thoughts paper's worked runs (\`example_prompts_*.md\`; any recording of
that format can be given with \`--recording\`): the run must end in the recording's final result,
every keep-the-best choosing what the recorded next step was given.

| recording | task | checks passed | final result | calls | thoughts |
| --- | --- | --- | --- | --- | --- |
${(got.replays as GotReplay[]).map((r) => `| ${r.file} | ${r.task} | ${r.checks - r.failedChecks.length} of ${r.checks} | ${r.finalMatches ? 'as recorded' : '**different**'} | ${r.llmCalls} | ${r.thoughts} |`).join('\n')}

The paper's sorting graph on the ${gb.lists} lists of ${gb.source} as one run (the sorting operations
once per list: ${gb.calls} calls), on a stand-in model answering after ${gb.latencyMs} ms (its answers computed
beforehand, so the figures time the graph). The critical path at concurrency 64 is the schedule's
lower bound: the longest chain (${gb.criticalPathMs.chain} ms) or the calls over the slots, whichever is longer
(${gb.criticalPathMs.atConcurrency64} ms). The ideal schedule is the same calls on 64 slots with nothing but timers.

| | wall (median) | ratio | target |
| --- | --- | --- | --- |
| concurrency 64 | ${figOr(gb.concurrency64.ms, gb.concurrency64.medianMs, gb.concurrency64.runs, ' ms')} | ${gb.concurrency64.ratioToCriticalPath} × the critical path (${gb.concurrency64.ratioToIdealSchedule} × the ideal schedule, ${figOr(gb.idealSchedule64.ms, gb.idealSchedule64.medianMs, gb.idealSchedule64.runs, ' ms')}) | ≤ ${gb.concurrency64.target}${met(gb.concurrency64.ratioToCriticalPath <= gb.concurrency64.target)} |
${gb.singleList64 ? `| each list on its own, concurrency 64 (${gb.singleList64.lists} runs) | ${gb.singleList64.ms ? fig(gb.singleList64.ms, ' ms') : `${gb.singleList64.medianMs} ms (max ${gb.singleList64.maxMs} ms)`} | ${gb.singleList64.ratioToChain} × its chain of ${gb.singleList64.chainMs} ms (max ${gb.singleList64.maxRatioToChain}) | ≤ ${gb.singleList64.target}${met(gb.singleList64.ratioToChain <= gb.singleList64.target)} |\n` : ''}| concurrency 1 | ${gb.concurrency1.ms} ms${gb.concurrency1.samples > 1 ? ` (median of ${gb.concurrency1.samples} runs, one a pass)` : ''} | ${gb.speedup} × slower than concurrency 64 | ≥ ${gb.speedupTarget}${met(gb.speedup >= gb.speedupTarget)} |

Framework overhead with a model that answers at once: ${figOr(got.overhead.microsPerThought, got.overhead.medianMicrosPerThought, got.overhead.runs, ' µs', true)} per thought${met(med(got.overhead.microsPerThought, got.overhead.medianMicrosPerThought) <= got.overhead.target)} (${n(got.overhead.thoughtsPerRun)} thoughts
per run; target ≤ ${got.overhead.target} µs), the example's parse and score functions included.${got.overhead.microsPerCall || got.overhead.medianMicrosPerCall ? ` Per thought counts the
copies that \`score\`, \`keepBest\` and \`select\` make (38 of the 70 per list); over the model calls instead, the same time is
${figOr(got.overhead.microsPerCall, got.overhead.medianMicrosPerCall, undefined, ' µs')} per call (${n(got.overhead.callsPerRun)} calls per run).` : ''}
`;
const ge = results('got-engine');
type Growth = { thoughts: number; meanMicros: number; cpuMeanMicros: number; medianMicros: number; p99Micros: number; maxMicros: number; checkpoints: number; checkpointedEventsPerThought: number };
const growthRows = (where: string, g: { sessions: Growth[]; medianTarget: number }) =>
  g.sessions
    .map((x) => `| ${where}, ${n(x.thoughts)} thoughts | **${x.meanMicros} µs** | ${x.cpuMeanMicros} µs | ${x.medianMicros} µs${met(x.medianMicros <= g.medianTarget)} | ${x.p99Micros} µs | ${x.checkpoints} (${x.checkpointedEventsPerThought} events' worth per thought) |`)
    .join('\n');
const gotEngine = `
## Agent sessions (\`npm run bench:got-engine\`)

\`addThought\`, every call of a session from its first thought to its last (after untimed sessions
that warm the JIT up). The mean is the cost per thought with the automatic checkpoints paid in: a
checkpoint serialises the whole session, and falls on few calls, so the median does not show it.

| session | mean | CPU per thought | median | p99 | checkpoints (state serialised) |
| --- | --- | --- | --- | --- | --- |
${growthRows('in memory', ge.addThought.memory)}
${growthRows('SQLite', ge.addThought.sqlite)}

The mean at ${n(ge.addThought.memory.sessions.at(-1).thoughts)} thoughts over the mean at ${n(ge.addThought.memory.sessions[0].thoughts)}: **${ge.addThought.memory.meanGrowth}×** in memory${met(ge.addThought.memory.meanGrowth <= ge.addThought.meanGrowthTarget)},
**${ge.addThought.sqlite.meanGrowth}×** on SQLite${met(ge.addThought.sqlite.meanGrowth <= ge.addThought.meanGrowthTarget)}; in CPU time per thought, ${ge.addThought.memory.cpuMeanGrowth}× and ${ge.addThought.sqlite.cpuMeanGrowth}× (target ≤ ${ge.addThought.meanGrowthTarget}×; medians: targets ≤ ${ge.addThought.memory.medianTarget} µs in memory, ≤ ${ge.addThought.sqlite.medianTarget} µs on SQLite).
Sessions checkpoint every 100 events while small, then whenever the session has doubled since
the last checkpoint, so the checkpoints cost a constant amount per event.${ge.loadAverage1m ? ` The machine's load average was ${ge.loadAverage1m.atStart} at the start of the run and ${ge.loadAverage1m.atEnd} at its end (${ge.cores} cores): above the core count, the wall-clock figures (the p99 above all) carry other processes' turns, which the CPU time does not.` : ''}

| measure | median | target |
| --- | --- | --- |
| \`runParallel('race')\`, ${ge.race.branches} branches of ${ge.race.workerMs.join(', ')} ms: wall past the fastest | ${figOr(ge.race.overshootMs, ge.race.medianOvershootMs, ge.race.runs, ' ms', true)}${met(med(ge.race.overshootMs, ge.race.medianOvershootMs) <= ge.race.target)} | ≤ ${ge.race.target} ms |
| restore of a ${n(ge.restore.events)}-event session from SQLite (latest checkpoint + the ${n(ge.restore.eventsAfterCheckpoint)} events after it) | ${figOr(ge.restore.fromCheckpointMs, ge.restore.fromCheckpointMedianMs, undefined, ' ms', true)}${met(med(ge.restore.fromCheckpointMs, ge.restore.fromCheckpointMedianMs) <= ge.restore.target)} | ≤ ${ge.restore.target} ms |
| restore of the ${n(ge.restore.largest.events)}-event session above (the ${n(ge.restore.largest.eventsAfterCheckpoint)} events after its checkpoint) | ${figOr(ge.restore.largest.ms, ge.restore.largest.medianMs, undefined, ' ms')} | |

Folding the same ${n(ge.restore.events)} events without a checkpoint takes ${figOr(ge.restore.fromEventsMs, ge.restore.fromEventsMedianMs, undefined, ' ms')}.
`;
const dl = results('deliberation');
const mad = results('mad-replay');
const deliberation = `
## Deliberation (\`npm run bench:deliberation\`, \`npm run bench:mad\`)

| measure | median | target |
| --- | --- | --- |
| framework time per round, ${dl.overhead.agents} LLM agents on a model that answers at once, ${dl.overhead.rounds} rounds, similarity host (lexical)${dl.overhead.settings ? `, ${dl.overhead.settings}` : ''} | **${dl.overhead.medianMicrosPerRoundSimilarityHost} µs**${met(dl.overhead.medianMicrosPerRoundSimilarityHost <= dl.overhead.targetMicros)} | ≤ ${dl.overhead.targetMicros} µs |
${dl.overhead.medianMicrosPerRoundSimilarityHostParallelLaterRounds ? `| the same with \`parallelLaterRounds: true\` | ${dl.overhead.medianMicrosPerRoundSimilarityHostParallelLaterRounds} µs | |\n` : ''}| the same with a host that decides without measuring | ${dl.overhead.medianMicrosPerRoundPlainHost} µs | |
| \`PositionComparer\` lexical, ${dl.lexicalCompare.agents} agents × ${dl.lexicalCompare.rounds} rounds (each round's matrix and every self-similarity), incremental | **${dl.lexicalCompare.medianMsTotal} ms** in all${met(dl.lexicalCompare.medianMsTotal <= dl.lexicalCompare.targetMs)} | ≤ ${dl.lexicalCompare.targetMs} ms |

The embedding cache over a ${dl.embeddingCache.rounds}-round debate of 4 agents whose positions settle after round 3:
${dl.embeddingCache.textsEmbedded} texts embedded for ${dl.embeddingCache.positions} positions${dl.embeddingCache.textsEmbeddedPerPosition !== undefined ? ` (**${dl.embeddingCache.textsEmbeddedPerPosition} per position**; ${dl.embeddingCache.distinctPositionTexts} of the texts are distinct, so that is the least possible)` : ''}.
The cache's hit rate is ${dl.embeddingCache.hitRate} (${dl.embeddingCache.hits} hits, ${dl.embeddingCache.misses} misses), but it counts every look-up of a vector: each
round's matrix and each agent's self-similarity fetch vectors again, so most hits are vectors fetched
earlier in the same round, not embeddings saved.

Lexical calibration on ${dl.lexicalCalibration.pairs} hand-labelled position pairs: label medians ${dl.lexicalCalibration.byLabel.agree.median} (agree),
${dl.lexicalCalibration.byLabel.partial.median} (partial), ${dl.lexicalCalibration.byLabel.disagree.median} (disagree); the best thresholds (${dl.lexicalCalibration.thresholds.converge} / ${dl.lexicalCalibration.thresholds.continue}) label ${dl.lexicalCalibration.accuracy} of
them correctly, the same search on shuffled labels ${dl.lexicalCalibration.shuffledLabels.medianAccuracy} (median of ${dl.lexicalCalibration.shuffledLabels.runs}): no signal, hence the
lexical defaults of [Deliberation](deliberation.md#thresholds-per-backend).

MAD replay (${mad.debates} recorded debates): ${mad.stopRoundMatches} stop in the recorded round, ${mad.finalMatches} with the recorded answer
(${mad.moderatorStops} by the moderator, ${mad.judgeDecisions} by the judge), ${mad.replayMisses} requests that were no recorded conversation; ${mad.wallMs} ms.
`;
const mc = results('mcp');
const ml = mc.latency;
const mr = mc.residentMemory;
const mcpHighest = Math.max(mr.maxSampledRssMB, mr.endRssMB);
const mcp = `
## MCP server (\`npm run bench:mcp\`)

The built command (\`node dist/cli/tot.js mcp\`) spawned by the MCP SDK's \`Client\` and
\`StdioClientTransport\`, as an MCP client runs it. A call's time is its whole round trip: the
request over stdio, the server's checks, the engine's write, the result, and the client's check of
the result against the tool's output schema.

| \`think_plan_step\`, ${n(ml.sqlite.calls)} calls on one session after ${ml.sqlite.warm} untimed | median | p99 | target |
| --- | --- | --- | --- |
| \`--db memory\` | **${ml.memory.medianMs} ms** | ${ml.memory.p99Ms} ms | |
| \`--db\` a SQLite file | **${ml.sqlite.medianMs} ms**${met(ml.sqlite.medianMs <= ml.sqlite.target)} | ${ml.sqlite.p99Ms} ms | median ≤ ${ml.sqlite.target} ms |

The figures include the engine's checkpoint every 100 events, which serializes the whole session
inside the call that reaches it: those ${ml.sqlite.checkpointCalls} calls take a median of ${ml.memory.checkpointCallsMedianMs} ms in memory and ${ml.sqlite.checkpointCallsMedianMs} ms on
SQLite (the others ${ml.memory.otherCallsMedianMs} ms and ${ml.sqlite.otherCallsMedianMs} ms). With ${ml.sqlite.checkpointCalls} of them in ${n(ml.sqlite.calls)} calls, the p99 falls among them and
the garbage collector's pauses.

Resident memory of the server process (\`VmRSS\` of \`/proc/<pid>/status\`; MB = 10⁶ bytes) while
clients write ${n(mr.thoughts)} thoughts across ${n(mr.sessions)} sessions (${mr.thoughtsPerSession} each) on SQLite with
\`--max-open-sessions ${mr.maxOpenSessions}\`, ${mr.inFlight} calls in flight (${n(mr.calls)} calls in ${mr.wallS} s, ${n(mr.callsPerS)} calls/s; the database
ends at ${mr.dbFileMB} MB):

| | RSS |
| --- | --- |
| idle, after \`initialize\` | ${mr.idleRssMB} MB |
| after the first ${mr.firstAfterSessions} sessions | ${mr.firstRssMB} MB |
${mr.at1000Sessions ? `| after ${n(mr.at1000Sessions.thoughts)} thoughts across 1,000 sessions | **${mr.at1000Sessions.rssMB} MB**${met(mr.at1000Sessions.rssMB <= mr.targets.maxRssMB)} |\n` : ''}| at the end | ${mr.endRssMB} MB |
| highest sample (every 100 sessions) | **${mcpHighest} MB**${met(mcpHighest <= mr.targets.maxRssMB)} |
| peak (\`VmHWM\`) | ${mr.peakRssMB} MB |

Target: flat and ≤ ${mr.targets.maxRssMB} MB. The RSS saws up and down with each collection (the samples run from
${Math.min(...mr.samples.map((x: { rssMB: number }) => x.rssMB))} to ${Math.max(...mr.samples.map((x: { rssMB: number }) => x.rssMB))} MB); their least-squares trend is **${mr.trendMBPer1000Sessions} MB per 1,000 sessions**${met(mr.flat)} (flat: under a tenth of
the first sample): sessions the LRU lets go leave nothing behind. The run goes on past 1,000 sessions
because the first few hundred are a warm-up, the heap and malloc's arenas growing to their working size:
a trend over the first 1,000 sessions alone is mostly that warm-up (an earlier run of 1,000 sessions
measured 15.8 MB per 1,000 sessions; the same server over 3,000 sessions, none). \`tot mcp\` keeps V8's young
generation at its starting size (\`--semi-space-growth-factor=1\`) and grows its old generation by a
quarter between full collections (\`--heap-growing-percent=25\`): without them the same run sat at about
190–205 MB, V8 reserving young-generation space and letting old-generation garbage wait (the live heap
after a full collection was about 23 MB). \`--optimize-for-size\`, used before, held about the same
memory at 1.5 to 2 times the CPU per call. The idle process (Node, the SDK, zod, SQLite) takes ${mr.idleRssMB} MB.
`;
// Measured only where a browser is installed: without one, the benchmark writes no result.
const sq = resultsIfAny('sequential-thinking');
type SeqServer = { server: string; sessionsOf10: { medianMs: number; p99Ms: number; serverCpuMsPerCall: number }; longSequence: { medianMs: number; p99Ms: number; firstTenthMedianMs: number; lastTenthMedianMs: number; serverCpuMsPerCall: number }; rssGrowthKBPerThought: number };
const sequentialThinking = sq
  ? `
## sequentialthinking beside the reference server (\`npm run bench:sequential-thinking\`)

The \`sequentialthinking\` tool of \`tot mcp\` and the reference server
(\`@modelcontextprotocol/server-sequential-thinking\`, its thought log off), each spawned over stdio and
called through the MCP SDK's \`Client\`, calls alternating between the servers. Sessions of 10: ${n(sq.sessions)}
lines of thinking of 10 thoughts each (after ${sq.warmRounds} untimed); the long sequence: thoughts 1 to ${n(sq.longSequence)} of
one line, ${sq.chunk} calls at a time on each server. Memory: the growth of each server's resident set
over the long sequence, per thought.

| server | sessions of 10: median (p99) | ${n(sq.longSequence)} thoughts: median (p99) | first tenth → last tenth | server CPU per call (10 / ${n(sq.longSequence)}) | RSS per thought |
| --- | --- | --- | --- | --- | --- |
${(sq.servers as SeqServer[]).map((x) => `| ${x.server} | **${x.sessionsOf10.medianMs} ms** (${x.sessionsOf10.p99Ms}) | **${x.longSequence.medianMs} ms** (${x.longSequence.p99Ms}) | ${x.longSequence.firstTenthMedianMs} → ${x.longSequence.lastTenthMedianMs} ms | ${x.sessionsOf10.serverCpuMsPerCall} / ${x.longSequence.serverCpuMsPerCall} ms | ${x.rssGrowthKBPerThought} KB |`).join('\n')}

${sq.heapBytesPerThought ? `The heap kept per thought, measured in process after full collections over ${n(sq.longSequence)} thoughts: the reference ${n(sq.heapBytesPerThought.reference)} bytes (the call's arguments it appends), \`tot\` on an in-memory store ${n(sq.heapBytesPerThought.totMemory)} bytes (${sq.heapBytesPerThought.ratio}×: the stored event and the session's model of it; the RSS column moves in steps as V8 grows its heap, and says little at this size).\n\n` : ''}${sq.loadAverage1m ? `Load average ${sq.loadAverage1m.atStart} at the start, ${sq.loadAverage1m.atEnd} at the end (${sq.cores} cores). ` : ''}Medians over the reference's: ${Object.entries(sq.ratiosToReference as Record<string, { sessionsOf10Median: number; longSequenceMedian: number }>)
      .map(([name, r]) =>
        name === 'tot --db memory'
          ? `${name}, ${r.sessionsOf10Median}× on sessions of 10${met(r.sessionsOf10Median <= sq.targetRatio)} and ${r.longSequenceMedian}× on the long sequence${met(r.longSequenceMedian <= sq.targetRatio)} (target ≤ ${sq.targetRatio}×)`
          : `${name}, ${r.sessionsOf10Median}× and ${r.longSequenceMedian}× (no target)`,
      )
      .join('; ')}. The target is judged on \`--db memory\`, the reference's like: the reference keeps its thoughts in an array and stores nothing, while \`--db sqlite\` commits every thought to a file before it answers${sq.sqliteFloor ? `, and that commit alone costs ${Math.round((sq.sqliteFloor.storeTableInsertCommitUs / sq.sqliteFloor.referenceInProcessCpuUs) * 10) / 10}× the reference's whole call in CPU (the floor below)` : ''}. The last tenth of the long sequence over its first tenth (a call's cost must not grow with the sequence): ${(sq.servers as SeqServer[]).slice(1).map((x) => `${x.server} ${Math.round((x.longSequence.lastTenthMedianMs / x.longSequence.firstTenthMedianMs) * 100) / 100}×`).join(', ')}.
${sq.sqliteFloor ? `
The same servers' handlers called in one process, in turn (CPU per call, median): the reference ${sq.inProcessServerCpuUs.reference.sessionsOf10.medianUs} µs, \`tot\` in memory ${sq.inProcessServerCpuUs['tot --db memory'].sessionsOf10.medianUs} µs, on SQLite ${sq.inProcessServerCpuUs['tot --db sqlite'].sessionsOf10.medianUs} µs (sessions of 10). The floor of a call on SQLite: one committed single-row INSERT through better-sqlite3 costs ${sq.sqliteFloor.bareInsertCommitUs} µs of CPU into a bare table and ${sq.sqliteFloor.storeTableInsertCommitUs} µs into the store's table (its unique indexes on the idempotency key, the event id and the stream's version), against ${sq.sqliteFloor.referenceInProcessCpuUs} µs for the reference's whole call (it keeps its thoughts in an array): in process, the durable write alone costs ${Math.round((sq.sqliteFloor.storeTableInsertCommitUs / sq.sqliteFloor.referenceInProcessCpuUs) * 10) / 10}× the reference's call.
` : ''}`
  : '';
const vw = resultsIfAny('viewer');
const viewer = `
## Run viewer (\`npm run bench:viewer\`)

${
  vw
    ? `A search run of ${n(vw.nodes)} nodes (${n(vw.modelCalls)} model calls, ${n(vw.events)} events: Explorer, BFS with beam 100 and
branching 10 on instant roles, every generation and evaluation a model call) rendered with
\`renderRunHtml\` to one page of ${vw.htmlMiB} MiB, opened from a file in headless Chromium (Debian's
\`chromium\`, driven by playwright-core) at ${vw.viewport.replace('x', '×')}. Each of ${vw.runs} runs opens it in a fresh browser
context, after one untimed load; the click is a mouse click in the middle of a node of the opening
view, and the page is interactive once the details show that node's content. Medians.

| measure | median | target |
| --- | --- | --- |
| navigation start → drawn (\`body[data-ready=true]\`) | ${vw.readyMs ? fig(vw.readyMs, ' ms') : `${n(vw.readyMedianMs)} ms`} | |
| navigation start → a click on a node shows its details | ${vw.interactiveMs ? fig(vw.interactiveMs, ' ms', true) : `**${n(vw.interactiveMedianMs)} ms**`}${met(vw.target.met)} | ≤ ${n(vw.target.interactiveMs)} ms |
| \`renderRunHtml\` in Node | ${figOr(vw.renderRunHtmlMs, vw.renderRunHtmlMedianMs, undefined, ' ms')} | |
| the page | ${n(vw.htmlBytes)} bytes | |

Console errors over the runs: ${vw.consoleErrors}; requests other than the page's own file: ${vw.requestsOtherThanThePage}.`
    : 'Not measured: the benchmark needs Chromium at `/usr/bin/chromium` (it never downloads a browser).'
}
`;
const qu = resultsIfAny('queue');
/** The queue's figures: throughput by worker count, overhead, takeover. */
function queueFigures(q: NonNullable<typeof qu>): string {
  type Round = { workers: number; runsPerSecond: number; workerCpuMsPerRun?: number; postgresCpuMsPerRun?: number };
  type Throughput = { concurrencyPerWorker: number; runsPerSecond: Record<string, number>; rounds: Round[] };
  const table = (t: Throughput) => {
    const of = (w: string) => t.rounds.filter((r) => String(r.workers) === w);
    const cpu = (w: string, key: 'workerCpuMsPerRun' | 'postgresCpuMsPerRun') => {
      const xs = of(w).flatMap((r) => (r[key] === undefined ? [] : [r[key]!]));
      return xs.length ? `${Math.round(median(xs) * 10) / 10} ms` : '?';
    };
    const runs = (w: string) => `${t.runsPerSecond[w]}${range(of(w).map((r) => r.runsPerSecond))}`;
    // The targets are for workers that wait on their model (one run at a time): with more runs at
    // a time, the 2 cores and not the queue are the bound, and the table shows the figures only.
    const judged = t.concurrencyPerWorker === 1;
    const row = (w: string) => {
      if (w === '1') return `| 1 | ${runs(w)} | | | ${cpu(w, 'workerCpuMsPerRun')}, ${cpu(w, 'postgresCpuMsPerRun')} |`;
      const target = w === '2' ? q.targets.twoWorkers : q.targets.fourWorkers;
      const ratio = Math.round((t.runsPerSecond[w]! / t.runsPerSecond['1']!) * 100) / 100;
      return judged
        ? `| ${w} | ${runs(w)} | **${ratio}**${met(ratio >= target)} | ≥ ${target} | ${cpu(w, 'workerCpuMsPerRun')}, ${cpu(w, 'postgresCpuMsPerRun')} |`
        : `| ${w} | ${runs(w)} | ${ratio} | none: the cores are the bound | ${cpu(w, 'workerCpuMsPerRun')}, ${cpu(w, 'postgresCpuMsPerRun')} |`;
    };
    return `**${t.concurrencyPerWorker === 1 ? 'One run at a time per worker' : `${t.concurrencyPerWorker} runs at a time per worker`}**

| worker processes | runs / s, median (range) | × 1 worker's runs / s (same runs at a time) | target | CPU per run: workers, PostgreSQL (medians) |
| --- | --- | --- | --- | --- |
${Object.keys(t.runsPerSecond).map(row).join('\n')}`;
  };
  const throughput = q.throughput as Throughput[];
  const o = q.overhead;
  return `Search runs of ${q.setup.callsPerRun} model calls at ${q.setup.modelLatencyMs} ms each from a model server (the workers call it with ${q.setup.modelClient}), ${q.setup.runs} runs a round submitted at once
to worker processes, after ${q.setup.warmRunsPerWorker} untimed warm-up runs per worker in each round, PostgreSQL holding both the pg-boss queue and the event store, on the
same 2 cores as the benchmark; ${q.setup.rounds} rounds, the worker counts in a new order each round.

${throughput.map(table).join('\n\n')}

With one run at a time, a worker spends most of a run waiting on its model, and more workers add runs until the cores
are busy. With 4 at a time, one worker already keeps most of the 2 cores busy: a run costs tens of milliseconds of CPU
in its worker and in PostgreSQL (its events are appended durably, each model call's request before the call and its
result before it is used), and more workers share the same cores.

| measure | median (range) | target |
| --- | --- | --- |
| a run in the worker against the runner called directly with the same store (${o.overheadInWorkerMs.rounds} pairs, in turn) | ${fig(o.overheadInWorkerMs, ' ms', true)}${met(o.overheadInWorkerMs.median <= q.targets.overheadMs)} | ≤ ${q.targets.overheadMs} ms |
| submit → result with an idle worker, against the runner called directly (the same pairs) | ${fig(o.submitToResultOverDirectMs, ' ms', true)}${met(o.submitToResultOverDirectMs.median <= q.targets.overheadMs)} | ≤ ${q.targets.overheadMs} ms |
| where submit → result goes (medians): the submit call; until the worker starts the run; from the worker's completion of the run to \`result()\` returning (below zero when \`result()\` heard of it first) | ${o.parts.submitCallMs.median} ms; ${o.parts.submittedToStartedMs.median} ms; ${o.parts.settledToResultMs.median} ms | |
| a worker's SIGKILL → its runs running again elsewhere (${q.takeover.kills === undefined ? `one kill, lease ${q.takeover.leaseSeconds} s, workers polling every 100 ms; the time of each of the ${q.takeover.runsHeld} runs it held` : `${q.takeover.kills} kills, lease ${q.takeover.leaseSeconds} s, workers polling every 100 ms; for each kill, until the last of the ${Math.min(...q.takeover.runsHeld) === Math.max(...q.takeover.runsHeld) ? Math.min(...q.takeover.runsHeld) : `${Math.min(...q.takeover.runsHeld)} to ${Math.max(...q.takeover.runsHeld)}`} runs its worker held runs again`}) | ${fig(q.takeover.killToRunningAgainMs, ' ms', true)}${met(q.takeover.killToRunningAgainMs.median <= q.targets.takeoverMs)} | ≤ ${n(q.targets.takeoverMs)} ms (the documented takeover bound, \`queue.takeoverBoundMs\` = ${n(q.takeover.documentedBoundMs)} ms for this lease and poll, plus 1 s) |

The throughput rows are medians of ${q.setup.rounds} rounds${q.setup.rounds < ROUNDS ? `, fewer than the ${ROUNDS} of the quick figures of this page` : ''} (a round of
each worker count takes the queue through start, warm-up, ${q.setup.runs} runs and stop). The direct and the queued run of a pair solve
the same puzzle with the same model calls, but a pair's difference still ranges as shown (the model server's timers and the
machine's other work), so the overhead medians are good to a few milliseconds, not to one. A finished run's outcome reaches
\`result()\` in the worker's notification, so \`result()\` queries nothing more.`;
}
const queueSection = `
## The queue of runs across worker processes (\`npm run bench:queue\`)

${qu ? queueFigures(qu) : 'Not measured: the benchmark needs PostgreSQL (`.ci/postgres`).'}
`;
const ot = resultsIfAny('otel');
/** Telemetry's cost per model call. */
function otelFigures(t: NonNullable<typeof ot>): string {
  const wall = t.wallClock ? `\n| added per model call, in wall time | ${t.wallClock.medianMicrosAddedPerCall} µs | |` : '';
  return `The Game of 24 search of the paper's GPT-4 log replayed through \`Explorer\` on an instant model (${t.callsPerRun} model calls and about
${t.spansPerRun} spans a run), with telemetry off and on in turn (the real SDK: a batch span processor, an exporter that drops what it
gets, a meter provider with a reader), ${t.rounds} rounds of each. The figure is the process's CPU time per model call, on minus off,
the run's structure spans and events included: the median of the ${t.rounds} rounds' differences, which is not the
difference of the two medians below. The exporter drops what it gets (no OTLP encoding or network is counted), and
prompts and outputs are not captured (the default).

| measure | median | target |
| --- | --- | --- |
| added per model call | **${t.medianMicrosAddedPerCall} µs**${met(t.medianMicrosAddedPerCall <= t.targets.microsAddedPerCall)} | ≤ ${t.targets.microsAddedPerCall} µs |
| per model call, telemetry off / on | ${t.medianMicrosPerCallOff} / ${t.medianMicrosPerCallOn} µs | |${wall}`;
}
const otelSection = `
## OpenTelemetry's cost per model call (\`npm run bench:otel\`)

${ot ? otelFigures(ot) : 'Not measured.'}
`;
// An output path as the argument writes the page there instead (to compare it, or to take one section of it).
const out = process.argv[2] ?? fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url));
writeFileSync(out, doc + recording + hostile + adapters + graph + gotEngine + deliberation + mcp + sequentialThinking + queueSection + otelSection + viewer + reproduction.section);
console.log(`${out} written`);
