/**
 * Reproduces a recorded Tree-of-Thoughts Game of 24 run with this library's Explorer (BFS, beam 5,
 * depth = the log's steps): the replay generator serves the logged proposals and the replay
 * evaluator the logged values, and at every step of every puzzle the states the Explorer selects
 * must equal the log's `select_new_ys`, in order. Runs twice: as recorded, and with state dedup
 * (remaining numbers).
 *
 * Then measures CPU time per tree node on the same replay, in rounds: the process's CPU time over
 * the solve loop (per puzzle, an Explorer and its run; the replay roles are built before, as the
 * reference's driver builds its answers before), divided by the tree nodes created; with every
 * role call made through a 0 ms model (one call per generation and one per candidate evaluated),
 * and with the roles answering without a model call. When a checkout of the paper's code is given
 * (`--reference`) and Python runs, each round also runs the paper's own `bfs.py` on the same log
 * through bench/tot-reference-replay.py (as written, and with its prints silenced), the two sides
 * in alternating order, and the ratios are taken per round. Target: with every call through the
 * model, at most the reference as written (median of the per-round ratios ≤ 1).
 *
 * npm run bench:game24 -- [--log <path>] [--rounds <n>] [--repeats <n>] [--reference <checkout>] [--csv <24.csv>] [--python <python3>]
 *   --log        default bench/fixtures/game24-gpt4-bfs.json
 *   --rounds     default 7 (at least 5)
 *   --repeats    timed replays per side and round (their median is the round's figure), default 5
 *   --reference  a checkout of princeton-nlp/tree-of-thought-llm (read in place, never copied); default $TOT_BENCH_REFERENCE
 *   --csv        the puzzles' 24.csv; default the checkout's own
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadReplayLog, replayEvaluator, replayGenerator, type ReplayPuzzle } from '../examples/game24/replay.js';
import { replayAll } from '../examples/game24/reproduce.js';
import { bfs, Explorer, ThoughtTree, type LanguageModel } from '../src/index.js';
import { benchDir, figure, median, MIN_ROUNDS, report } from './harness.js';

const TARGET_RATIO = 1;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      log: { type: 'string' },
      rounds: { type: 'string', default: '7' },
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

/** Model calls the replay makes through the model: one per parent expanded, one per candidate evaluated. */
const callsOf = (log: ReplayPuzzle[]) => log.reduce((sum, p) => sum + p.steps.reduce((s, step) => s + step.ys.length + step.new_ys.length, 0), 0);

/** CPU µs per node of one replay: per puzzle, an Explorer and its run, as `replayAll` makes them (without its checks of the answers). */
async function replayCpu(log: ReplayPuzzle[], nodes: number, transport: LanguageModel | undefined): Promise<number> {
  const roles = log.map((puzzle) => ({
    puzzle,
    generator: replayGenerator(puzzle, transport ? { transport } : {}),
    evaluator: replayEvaluator(puzzle, transport ? { transport } : {}),
  }));
  const started = process.cpuUsage();
  for (const { puzzle, generator, evaluator } of roles) {
    const explorer = new Explorer({ generator, evaluator, strategy: bfs({ beamWidth: 5 }), maxDepth: puzzle.steps.length, branchingFactor: 1000, pruningThreshold: 0, concurrency: 16 });
    const tree = new ThoughtTree({ problem: puzzle.steps[0]!.x, taskId: `puzzle-${puzzle.idx}`, taskType: 'math_reasoning' });
    await explorer.run(tree, { runId: `puzzle-${puzzle.idx}` });
  }
  const used = process.cpuUsage(started);
  return (used.user + used.system) / nodes;
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
  // Warm-up: the JIT settles over the first replays.
  for (let i = 0; i < 5; i++) {
    await replayCpu(log, nodes, zeroMs);
    await replayCpu(log, nodes, undefined);
  }
  const ours = async () => {
    const withModel: number[] = [];
    const withoutModel: number[] = [];
    for (let i = 0; i < repeats; i++) {
      withModel.push(await replayCpu(log, nodes, zeroMs));
      withoutModel.push(await replayCpu(log, nodes, undefined));
    }
    return { withModel: median(withModel), withoutModel: median(withoutModel), withModelBest: Math.min(...withModel) };
  };
  const runReference = reference && 'run' in reference ? reference.run : undefined;
  const perRound: { withModel: number; withoutModel: number; withModelBest: number; reference?: { asWritten: number; printsSilenced: number; asWrittenBest: number } }[] = [];
  let referenceInfo: Omit<ReferenceRound, 'asWritten' | 'printsSilenced'> | undefined;
  for (let r = 0; r < rounds; r++) {
    // Alternating which side goes first, so that neither always runs in the same state of a shared machine.
    let theirs: ReferenceRound | undefined;
    if (runReference && r % 2 === 1) theirs = runReference(repeats);
    const mine = await ours();
    if (runReference && r % 2 === 0) theirs = runReference(repeats);
    if (theirs) {
      const { asWritten, printsSilenced, ...info } = theirs;
      referenceInfo = info;
      perRound.push({ ...mine, reference: { asWritten: median(asWritten), printsSilenced: median(printsSilenced), asWrittenBest: Math.min(...asWritten) } });
    } else perRound.push(mine);
  }
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
        ratioWithoutModelToAsWritten: figure(withRef.map((r) => r.withoutModel / r.reference.asWritten)),
        ratioWithoutModelToPrintsSilenced: figure(withRef.map((r) => r.withoutModel / r.reference.printsSilenced)),
        // The same ratio from each side's fastest replay of the round: load on a shared machine only adds CPU time
        // (cache misses, the garbage collector's helper threads waiting for cores), and this process's more than Python's.
        ratioWithModelToAsWrittenBestOfRound: figure(withRef.map((r) => r.withModelBest / r.reference.asWrittenBest)),
        targetRatio: TARGET_RATIO,
      };
  return {
    nodes,
    modelCalls: callsOf(log),
    rounds,
    repeatsPerRound: repeats,
    model: '0 ms',
    withModelCpuMicrosPerNode: figure(perRound.map((r) => r.withModel)),
    withoutModelCpuMicrosPerNode: figure(perRound.map((r) => r.withoutModel)),
    reference: comparison,
    // Each round's figures (medians of its replays; "best", its fastest), in the order they ran.
    perRound: perRound.map((r) => JSON.parse(JSON.stringify(r, (_k, v: unknown) => (typeof v === 'number' ? Math.round(v * 100) / 100 : v)))),
  };
}

await main();
