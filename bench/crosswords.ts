/**
 * Replays a recorded run of the Tree-of-Thoughts paper's depth-first crossword search through
 * Explorer and `dfs` with the paper's settings (proposals from the recorded cache, each step's
 * clue counts from the recorded step with the same answers) and compares every step: the answers
 * that led to the board, its depth, its agreement with the solution and its counts. Then measures
 * the CPU time per step of the replay, and saves the figures to bench/results/crosswords.json.
 *
 * npm run bench:crosswords -- [--puzzles <mini0505.json>] [--cache <env_cache.json>] [--log <steps.json>]
 *   [--indices 0,5,10] [--no-prune] [--repeats <n>] [--metrics-only]
 *
 * The recorded searches are matched to puzzles in order: by default the puzzles whose empty board
 * the cache holds, or `--indices`. `--metrics-only` reads the step log alone. The last line printed
 * is one line of JSON; the exit code is 1 on any mismatch.
 */
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadProposals, loadPuzzles, loadSteps, type RecordedStep } from '../examples/crosswords/replay.js';
import { paperMetrics, recordedPuzzleIndices, replayPuzzle, type StepMismatch, type StepRecord } from '../examples/crosswords/reproduce.js';
import { benchDir, figure, passRounds, pooled, report, ROUNDS } from './harness.js';

const data = resolve(benchDir, '..', '../shared/data/tot-reference/crosswords/');

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      puzzles: { type: 'string', default: `${data}/mini0505.json` },
      cache: { type: 'string', default: `${data}/env_cache_0-45.json` },
      log: { type: 'string', default: `${data}/infoss_dfs_prune_0-45.json` },
      indices: { type: 'string' },
      'no-prune': { type: 'boolean', default: false },
      repeats: { type: 'string', default: String(ROUNDS) },
      'metrics-only': { type: 'boolean', default: false },
    },
  });
  const log = loadSteps(values.log!);
  const steps = log.reduce((n, s) => n + s.length, 0);
  if (values['metrics-only']) {
    const summary = { puzzles: log.length, exact: null, steps, stepMismatches: null, ...paperMetrics(log) };
    console.log(JSON.stringify(summary));
    return;
  }
  const puzzles = loadPuzzles(values.puzzles!);
  const proposals = loadProposals(values.cache!);
  const indices = values.indices ? values.indices.split(',').map(Number) : recordedPuzzleIndices(puzzles, proposals);
  if (indices.length !== log.length || indices.some((i) => !Number.isInteger(i) || !puzzles[i])) {
    throw new Error(`${log.length} recorded searches but ${indices.length} puzzles to match them (${indices.join(', ')}): give --indices`);
  }
  const prune = !values['no-prune'];
  const replayAll = async () => {
    const runs: { steps: StepRecord[]; mismatches: number; first: StepMismatch | undefined }[] = [];
    for (let p = 0; p < log.length; p++) runs.push(await replayPuzzle(puzzles[indices[p]!]!, log[p]!, proposals, { prune, index: p }));
    return runs;
  };
  const runs = await replayAll();
  const cpu = await cpuPerStep(replayAll, steps, Number(values.repeats));
  const firstMismatches = runs.flatMap((r, p) => (r.first ? [{ puzzle: p, puzzleIndex: indices[p], step: r.first.step, fields: r.first.fields, expected: r.first.expected?.actions, actual: r.first.actual?.actions }] : []));
  const summary = {
    puzzles: log.length,
    exact: runs.filter((r) => r.mismatches === 0).length,
    steps,
    replayedSteps: runs.reduce((n, r) => n + r.steps.length, 0),
    stepMismatches: runs.reduce((n, r) => n + r.mismatches, 0),
    ...paperMetrics(runs.map((r) => r.steps)),
    recorded: paperMetrics(log as RecordedStep[][]),
    // The median alone in the printed summary; the figure with its range is in cpuTime.
    cpuMicrosPerStep: cpu.cpuMicrosPerStep.median,
  };
  report('crosswords', {
    puzzlesFile: relative(process.cwd(), values.puzzles!),
    cacheFile: relative(process.cwd(), values.cache!),
    logFile: relative(process.cwd(), values.log!),
    puzzleIndices: indices,
    prune,
    ...summary,
    cpuTime: cpu,
    firstMismatches,
  });
  console.log(JSON.stringify(summary));
  if (summary.stepMismatches > 0) process.exitCode = 1;
}

/** The process's CPU time over whole replays, per recorded step: median of `repeats` after warm-up. */
async function cpuPerStep(replayAll: () => Promise<unknown>, steps: number, repeats: number) {
  const measure = async () => {
    const started = process.cpuUsage();
    const wall = performance.now();
    await replayAll();
    const used = process.cpuUsage(started);
    return { cpu: (used.user + used.system) / steps, wall: ((performance.now() - wall) * 1000) / steps };
  };
  // Warm-up: the JIT settles over the first replays.
  for (let i = 0; i < 5; i++) await measure();
  const passRuns: { cpu: number; wall: number }[] = [];
  // This pass's share of the repeats (bench/run.ts runs the list in passes); the figures are of every pass's.
  for (const _ of passRounds(repeats)) passRuns.push(await measure());
  const runs = pooled('runs', passRuns);
  const round = (x: number) => Math.round(x * 10) / 10;
  return {
    steps,
    repeats: runs.length,
    cpuMicrosPerStep: figure(runs.map((r) => r.cpu), 1),
    wallMicrosPerStep: figure(runs.map((r) => r.wall), 1),
    runsCpuMicrosPerStep: runs.map((r) => round(r.cpu)),
  };
}

await main();
