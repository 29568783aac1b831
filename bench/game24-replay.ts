/**
 * Reproduces a recorded Tree-of-Thoughts Game of 24 run with this library's Explorer (BFS, beam 5,
 * depth = the log's steps): the replay generator serves the logged proposals and the replay
 * evaluator the logged values, and at every step of every puzzle the states the Explorer selects
 * must equal the log's `select_new_ys`, in order. Runs twice: as recorded, and with state dedup
 * (remaining numbers).
 *
 * Then measures CPU time per tree node on the same replay, in rounds: the process's CPU time over
 * the solve loop (per puzzle, its replay roles, an Explorer and its run), divided by the tree
 * nodes created; with every role call made through a 0 ms model, three ways: the calls the reference makes (one per parent
 * expanded, one per value prompt not asked before: the paper's code keeps a value cache across the
 * puzzles of a run, and the evaluator here is behind `withEvaluationCache` with one store for the
 * log), one call per candidate evaluated (no cache: 2.2 times the calls), and with the roles
 * answering without a model call (without the value cache, and behind it: the first way less the
 * latter is what the model calls themselves cost). When a checkout of the paper's code is given
 * (`--reference`) and Python runs, each round also runs the paper's own `bfs.py` on the same log
 * through bench/tot-reference-replay.py (as written, and with its prints silenced), the two sides
 * in alternating order, and the ratios are taken per round. Target: with every call through the
 * model, at most the reference as written (median of the per-round ratios ≤ 1).
 *
 * npm run bench:game24 -- [--log <path>] [--rounds <n>] [--repeats <n>] [--reference <checkout>] [--csv <24.csv>] [--python <python3>]
 *   --log        default bench/fixtures/game24-gpt4-bfs.json
 *   --rounds     default 15 (at least 5)
 *   --repeats    timed replays per side and round (their median is the round's figure), default 5
 *   --reference  a checkout of princeton-nlp/tree-of-thought-llm (read in place, never copied); default $TOT_BENCH_REFERENCE
 *   --csv        the puzzles' 24.csv; default the checkout's own
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadReplayLog, replayEvaluator, replayGenerator, stateOf, type ReplayPuzzle } from '../examples/game24/replay.js';
import { replayAll } from '../examples/game24/reproduce.js';
import { bfs, Explorer, ThoughtTree, withEvaluationCache, type Evaluation, type LanguageModel, type ThoughtNode } from '../src/index.js';
import { benchDir, figure, median, MIN_ROUNDS, passRounds, pooled, report, ROUNDS } from './harness.js';

const TARGET_RATIO = 1;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      log: { type: 'string' },
      rounds: { type: 'string', default: String(ROUNDS) },
      repeats: { type: 'string', default: '5' },
      reference: { type: 'string' },
      csv: { type: 'string' },
      python: { type: 'string', default: 'python3' },
    },
  });
  const path = values.log ?? `${benchDir}/fixtures/game24-gpt4-bfs.json`;
  const log = loadReplayLog(path);
  const plain = await replayAll(log);
  const dedup = await replayAll(log, { dedup: true });
  let changedSteps = 0;
  plain.selections.forEach((puzzle, p) => puzzle.forEach((states, s) => {
    const other = dedup.selections[p]?.[s] ?? [];
    if (states.length !== other.length || states.some((x, i) => x !== other[i])) changedSteps += 1;
  }));
  const { selections: _a, ...asRecorded } = plain;
  const { selections: _b, ...withDedup } = dedup;
  const rounds = Math.max(MIN_ROUNDS, Number(values.rounds));
  // The environment's TOT_BENCH_REFERENCE stands in for --reference in a full \`npm run bench\`, whose arguments every benchmark gets.
  const checkout = values.reference ?? process.env.TOT_BENCH_REFERENCE;
  const reference = checkout === undefined ? undefined : referenceSide(resolve(checkout), resolve(path), values.csv, values.python!);
  const cpu = await cpuPerNode(log, rounds, Number(values.repeats), reference);
  report('game24-replay', {
    log: relative(process.cwd(), path),
    cpu,
    ...asRecorded,
    dedup: {
      stateKey: 'remaining numbers',
      ...withDedup,
      evaluationsSaved: withDedup.dedupedStates,
      stepsWithChangedSelection: changedSteps,
      solvedChange: withDedup.solved - asRecorded.solved,
    },
  });
}

/** A model that answers at once: the replay's roles call it for the latency and the bookkeeping of a call. */
const zeroMs: LanguageModel = { modelId: 'zero-ms', generate: async () => ({ outputs: [''], usage: {} }) };

/** Tree nodes a replay of the log creates: every root and every proposed state. */
const nodesOf = (log: ReplayPuzzle[]) => log.reduce((sum, p) => sum + 1 + p.steps.reduce((s, step) => s + step.new_ys.length, 0), 0);

/**
 * The reference's value cache key of a state: its value prompt, which holds only the numbers the
 * state leaves (whatever the path to them), or, for an answer, the puzzle and the answer
 * (`value_prompt_wrap` of the paper's game24 task, from the state's last line).
 */
function valuePromptKey(node: ThoughtNode, tree: ThoughtTree): string {
  let line = node.depth === 1 ? node.content.trim() : node.content.trimEnd();
  if (line === '' || line.includes('\n')) line = stateOf(tree, node).trim().split('\n').at(-1)!;
  const left = line.lastIndexOf('left: ');
  // The numbers alone (digits and spaces): no answer's key, which starts with "answer:", can equal one.
  if (left !== -1) {
    const end = line.indexOf(')', left + 6);
    return end === -1 ? line.slice(left + 6) : line.slice(left + 6, end);
  }
  return `answer:${tree.problem}\n${line.toLowerCase().replaceAll('answer: ', '')}`;
}

/**
 * How the replay's roles reach the model. `perCandidate`: one call per parent expanded and one per
 * candidate evaluated. `valueCache`: the evaluator behind {@link withEvaluationCache} keyed by the
 * reference's value prompt, one store for the whole log, as the paper's code keeps its
 * `value_cache` across the puzzles of a run: a state whose value prompt was asked before costs no
 * call, so the calls are the reference's. `none`: the roles answer without a model call.
 * `valueCacheNoModel`: the evaluator behind the same cache as `valueCache`, the roles answering
 * without a model call.
 */
type Calls = 'perCandidate' | 'valueCache' | 'none' | 'valueCacheNoModel';

/**
 * The replay roles of a puzzle, as `replayAll` makes them (without its checks of the answers), with
 * one value cache store for the whole log.
 */
function replayRoles(transport: LanguageModel, calls: Calls) {
  const roleOptions = calls === 'none' || calls === 'valueCacheNoModel' ? {} : { transport };
  const store = new Map<string, Evaluation>();
  return (puzzle: ReplayPuzzle) => {
    const generator = replayGenerator(puzzle, roleOptions);
    const replayed = replayEvaluator(puzzle, roleOptions);
    const evaluator = calls === 'valueCache' || calls === 'valueCacheNoModel' ? withEvaluationCache(replayed, { key: valuePromptKey, store }) : replayed;
    return { puzzle, generator, evaluator };
  };
}

const explorerFor = ({ puzzle, generator, evaluator }: ReturnType<ReturnType<typeof replayRoles>>) =>
  new Explorer({ generator, evaluator, strategy: bfs({ beamWidth: 5 }), maxDepth: puzzle.steps.length, branchingFactor: 1000, pruningThreshold: 0, concurrency: 16 });

const treeFor = (puzzle: ReplayPuzzle) => new ThoughtTree({ problem: puzzle.steps[0]!.x, taskId: `puzzle-${puzzle.idx}`, taskType: 'math_reasoning' });

/**
 * CPU µs per node of one replay: per puzzle, its roles, an Explorer and its run, all timed. The
 * roles are built as each puzzle starts, the way a service builds a request's. Built for all 100
 * puzzles before the clock started (as the reference's driver builds its answers), their tables
 * outlived V8's young generation, and the timed runs paid for promoting them to the old one: 1.38 MB
 * promoted per scavenge against 0.31, a scavenge's pause 4.3 ms against 2.8 (--trace-gc-nvp, 30
 * scavenges each), and 6.0–6.6 µs per node against 4.7–5.0 with the roles' building timed too
 * (medians of 40 replays, three processes each, alternating).
 */
async function replayCpu(log: ReplayPuzzle[], nodes: number, calls: Calls, mainThread?: { micros: number }): Promise<number> {
  const rolesFor = replayRoles(zeroMs, calls);
  const mainStarted = mainThreadMicros();
  const started = process.cpuUsage();
  for (const puzzle of log) await explorerFor(rolesFor(puzzle)).run(treeFor(puzzle), { runId: `puzzle-${puzzle.idx}` });
  const used = process.cpuUsage(started);
  if (mainThread && mainStarted !== undefined) mainThread.micros += mainThreadMicros()! - mainStarted;
  return (used.user + used.system) / nodes;
}

/**
 * The CPU time of this process's main thread alone, in µs (Linux: /proc, in clock ticks of 10 ms,
 * so read over several replays), or undefined. The process's CPU time also counts V8's helper
 * threads (parallel scavenges, concurrent marking and sweeping, compilation), which Python has none
 * of; their share is what moves most between replays on a busy machine.
 */
function mainThreadMicros(): number | undefined {
  try {
    const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return undefined;
  }
}

/** One untimed replay that counts the model calls and the steps whose selection differs from the log's. */
async function checkReplay(log: ReplayPuzzle[], calls: Calls): Promise<{ modelCalls: number; stepMismatches: number }> {
  let modelCalls = 0;
  const counting: LanguageModel = { modelId: 'zero-ms', generate: async () => ((modelCalls += 1), { outputs: [''], usage: {} }) };
  let stepMismatches = 0;
  const rolesFor = replayRoles(counting, calls);
  for (const puzzle of log) {
    const explorer = explorerFor(rolesFor(puzzle));
    const tree = treeFor(puzzle);
    const selected: string[][] = [];
    explorer.on('search.step', (event) => {
      selected[event.depth - 1] = event.frontier.map((id) => stateOf(tree, tree.node(id)));
    });
    await explorer.run(tree, { runId: `puzzle-${puzzle.idx}` });
    puzzle.steps.forEach((step, i) => {
      const ours = selected[i] ?? [];
      if (ours.length !== step.select_new_ys.length || ours.some((x, j) => x !== step.select_new_ys[j])) stepMismatches += 1;
    });
  }
  return { modelCalls, stepMismatches };
}

interface ReferenceRound {
  asWritten: number[];
  printsSilenced: number[];
  nodes: number;
  modelCalls: number;
  python: string;
}

/** Runs one round of the paper's bfs.py on the log (a fresh Python process), or says why it cannot. */
function referenceSide(checkout: string, log: string, csv: string | undefined, python: string): { run: (repeats: number) => ReferenceRound } | { unavailable: string } {
  if (!existsSync(`${checkout}/src/tot/methods/bfs.py`)) return { unavailable: `${checkout} is not a checkout of tree-of-thought-llm` };
  const puzzles = csv ?? `${checkout}/src/tot/data/24/24.csv`;
  try {
    execFileSync(python, ['-c', 'import numpy, sympy'], { stdio: 'ignore' });
  } catch {
    return { unavailable: `${python} with numpy and sympy (the reference imports them) is not available` };
  }
  return {
    run: (repeats) => {
      const out = execFileSync(python, [`${benchDir}/tot-reference-replay.py`, '--reference', checkout, '--log', log, '--csv', resolve(puzzles), '--repeats', String(repeats), '--warmup', '1'], { encoding: 'utf8' });
      const parsed = JSON.parse(out) as { nodes: number; modelCalls: number; python: string; cpuMicrosPerNode: { asWritten: number[]; printsSilenced: number[] } };
      return { ...parsed.cpuMicrosPerNode, nodes: parsed.nodes, modelCalls: parsed.modelCalls, python: parsed.python };
    },
  };
}

async function cpuPerNode(log: ReplayPuzzle[], rounds: number, repeats: number, reference: ReturnType<typeof referenceSide> | undefined) {
  const nodes = nodesOf(log);
  const checks = { perCandidate: await checkReplay(log, 'perCandidate'), valueCache: await checkReplay(log, 'valueCache') };
  // Warm-up: the JIT settles over the first replays.
  for (let i = 0; i < 5; i++) {
    await replayCpu(log, nodes, 'valueCache');
    await replayCpu(log, nodes, 'perCandidate');
    await replayCpu(log, nodes, 'none');
    await replayCpu(log, nodes, 'valueCacheNoModel');
  }
  const ours = async () => {
    const withModel: number[] = [];
    const perCandidate: number[] = [];
    const withoutModel: number[] = [];
    const cacheWithoutModel: number[] = [];
    const mainThread = { micros: 0 };
    for (let i = 0; i < repeats; i++) {
      withModel.push(await replayCpu(log, nodes, 'valueCache', mainThread));
      perCandidate.push(await replayCpu(log, nodes, 'perCandidate'));
      withoutModel.push(await replayCpu(log, nodes, 'none'));
      cacheWithoutModel.push(await replayCpu(log, nodes, 'valueCacheNoModel'));
    }
    const processMicros = withModel.reduce((a, b) => a + b, 0) * nodes;
    return { withModel: median(withModel), perCandidate: median(perCandidate), withoutModel: median(withoutModel), cacheWithoutModel: median(cacheWithoutModel), withModelBest: Math.min(...withModel), withModelMainThreadShare: mainThreadMicros() === undefined ? undefined : mainThread.micros / processMicros };
  };
  const runReference = reference && 'run' in reference ? reference.run : undefined;
  type Round = { withModel: number; perCandidate: number; withoutModel: number; cacheWithoutModel: number; withModelBest: number; withModelMainThreadShare: number | undefined; loadAverage1m: number; reference?: { asWritten: number; printsSilenced: number; asWrittenBest: number } };
  const passPerRound: Round[] = [];
  let referenceInfo: Omit<ReferenceRound, 'asWritten' | 'printsSilenced'> | undefined;
  // This pass's share of the rounds (bench/run.ts runs the list in passes), numbered over the whole run.
  for (const r of passRounds(rounds)) {
    // Alternating which side goes first, so that neither always runs in the same state of a shared machine.
    let theirs: ReferenceRound | undefined;
    if (runReference && r % 2 === 1) theirs = runReference(repeats);
    const mine = { ...(await ours()), loadAverage1m: 0 };
    if (runReference && r % 2 === 0) theirs = runReference(repeats);
    // How busy the machine was by the round's end: on a shared machine the figures move with it, this process's more than Python's.
    mine.loadAverage1m = loadavg()[0]!;
    if (theirs) {
      const { asWritten, printsSilenced, ...info } = theirs;
      referenceInfo = info;
      passPerRound.push({ ...mine, reference: { asWritten: median(asWritten), printsSilenced: median(printsSilenced), asWrittenBest: Math.min(...asWritten) } });
    } else passPerRound.push(mine);
  }
  // Every pass's rounds so far: the figures below are of them all.
  const perRound = pooled('perRound', passPerRound);
  const withRef = perRound.filter((r) => r.reference !== undefined) as Required<(typeof perRound)[number]>[];
  const comparison = withRef.length === 0
    ? { unavailable: reference === undefined ? 'no --reference checkout given (or TOT_BENCH_REFERENCE)' : 'unavailable' in reference ? reference.unavailable : 'no rounds' }
    : {
        source: 'princeton-nlp/tree-of-thought-llm src/tot/methods/bfs.py, solve() unchanged, its model calls answered from the log (bench/tot-reference-replay.py)',
        ...referenceInfo,
        asWrittenCpuMicrosPerNode: figure(withRef.map((r) => r.reference.asWritten)),
        printsSilencedCpuMicrosPerNode: figure(withRef.map((r) => r.reference.printsSilenced)),
        // Per round: this library's figure over the reference's of the same round.
        ratioWithModelToAsWritten: figure(withRef.map((r) => r.withModel / r.reference.asWritten)),
        ratioWithModelToPrintsSilenced: figure(withRef.map((r) => r.withModel / r.reference.printsSilenced)),
        ratioPerCandidateToAsWritten: figure(withRef.map((r) => r.perCandidate / r.reference.asWritten)),
        ratioWithoutModelToAsWritten: figure(withRef.map((r) => r.withoutModel / r.reference.asWritten)),
        ratioWithoutModelToPrintsSilenced: figure(withRef.map((r) => r.withoutModel / r.reference.printsSilenced)),
        // The same ratio from each side's fastest replay of the round: load on a shared machine only adds CPU time
        // (cache misses, the garbage collector's helper threads waiting for cores), and this process's more than Python's.
        ratioWithModelToAsWrittenBestOfRound: figure(withRef.map((r) => r.withModelBest / r.reference.asWrittenBest)),
        targetRatio: TARGET_RATIO,
      };
  return {
    nodes,
    // The calls the replay makes through the model (counted on an untimed replay), and the steps
    // whose selection differs from the log's (0: the replay is the logged run).
    modelCalls: checks.valueCache.modelCalls,
    stepMismatches: checks.valueCache.stepMismatches,
    rounds: perRound.length,
    repeatsPerRound: repeats,
    model: '0 ms',
    calls: 'one per parent expanded and one per value prompt not asked before in the log (withEvaluationCache, one store for the log, as the reference keeps its value_cache)',
    withModelCpuMicrosPerNode: figure(perRound.map((r) => r.withModel)),
    // Of that CPU time, the share of the main thread (the rest: V8's helper threads), per round.
    ...(perRound[0]?.withModelMainThreadShare === undefined ? {} : { withModelMainThreadShare: figure(perRound.map((r) => r.withModelMainThreadShare!)) }),
    perCandidate: {
      calls: 'one per parent expanded and one per candidate evaluated (no value cache)',
      modelCalls: checks.perCandidate.modelCalls,
      stepMismatches: checks.perCandidate.stepMismatches,
      cpuMicrosPerNode: figure(perRound.map((r) => r.perCandidate)),
    },
    withoutModelCpuMicrosPerNode: figure(perRound.map((r) => r.withoutModel)),
    // The roles behind the same value cache as the figure with the model, answering without a call:
    // the figure with the model less this one is the model calls' own cost, per node.
    valueCacheWithoutModelCpuMicrosPerNode: figure(perRound.map((r) => r.cacheWithoutModel)),
    reference: comparison,
    // Each round's figures (medians of its replays; "best", its fastest), in the order they ran.
    perRound: perRound.map((r) => JSON.parse(JSON.stringify(r, (_k, v: unknown) => (typeof v === 'number' ? Math.round(v * 100) / 100 : v)))),
  };
}

await main();
