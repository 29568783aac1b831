import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';

/** The bench folder: benchmarks run bundled from elsewhere (bench/run.ts), so they find it here. */
export const benchDir = (process.env.TOT_BENCH_DIR ?? fileURLToPath(new URL('.', import.meta.url))).replace(/\/$/, '');

/** Median of numbers. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The fewest rounds a figure on the benchmarks page is the median of. */
export const MIN_ROUNDS = 5;

/**
 * The rounds a benchmark measures a figure over when a round takes a few seconds at most. A range
 * is stated so that a second run can be held to it: on an unchanged machine the second run's median
 * falls outside a range of 15 rounds one time in 455 by chance alone, outside one of 5 rounds one
 * time in six ({@link chanceOutside}).
 */
export const ROUNDS = 15;

/**
 * A figure measured over rounds: its median and the range of the rounds (every figure on the
 * benchmarks page is shown as a median with its range). Rounded to `digits` decimals.
 */
export interface Figure {
  median: number;
  min: number;
  max: number;
  rounds: number;
}

/**
 * How likely a second run's median falls outside a first run's range (min–max) by chance alone:
 * the first run's `rounds` and the second's `secondRounds` (as many by default) all independent
 * draws from one distribution, as on a machine whose speed does not change between the runs. For
 * an odd count of second rounds it depends on the counts only: 16.7% at 5 and 5 rounds, 1.2% at 11,
 * 0.22% at 15. For an even count (a median halfway between two rounds) it is an upper bound.
 *
 * The second median lies below the first's minimum when at least half of the second run's rounds
 * (`k`) come before every round of the first in the merged order. With `j` of them first,
 * P(j) = C(m+n−j−1, m−1) / C(m+n, m) for m first and n second rounds: m/(m+n) for j = 0, and each
 * next j is (n−j)/(m+n−j−1) times the one before. Above the maximum is the mirror image.
 */
export function chanceOutside(rounds: number, secondRounds = rounds): number {
  for (const count of [rounds, secondRounds]) if (!Number.isInteger(count) || count < 1) throw new RangeError(`rounds must be a positive integer, got ${count}`);
  const m = rounds;
  const n = secondRounds;
  const k = Math.ceil(n / 2);
  let term = m / (m + n);
  let below = 0;
  for (let j = 0; j <= n; j++) {
    if (j >= k) below += term;
    term *= (n - j) / (m + n - j - 1);
  }
  return Math.min(1, 2 * below);
}

/** The {@link Figure} of one measurement per round. */
export function figure(values: number[], digits = 2): Figure {
  if (values.length === 0) throw new Error('a figure needs at least one round');
  const round = (x: number) => Math.round(x * 10 ** digits) / 10 ** digits;
  return { median: round(median(values)), min: round(Math.min(...values)), max: round(Math.max(...values)), rounds: values.length };
}

/** The one-minute load average when the benchmark process started: with the one at its end, how busy the machine was. */
const loadAtStart = Math.round(loadavg()[0]! * 100) / 100;

/** Runs `fn` `runs` times and returns each run's duration in milliseconds. */
export function timeRuns(runs: number, fn: () => void): number[] {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    fn();
    out.push(performance.now() - start);
  }
  return out;
}

/** Forces a full collection; the benchmark must run with --expose-gc. */
export function gc(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) throw new Error('run benchmarks with node --expose-gc (npm run bench does)');
  collect();
  collect();
}

/** Prints the result as JSON and writes it to bench/results/<name>.json with the machine it ran on. */
export function report(name: string, figures: Record<string, unknown>): void {
  const result = {
    benchmark: name,
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model,
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    loadAverage1m: { atStart: loadAtStart, atEnd: Math.round(loadavg()[0]! * 100) / 100 },
    // Which \`bench/run.ts\` invocation measured it: the benchmarks page names figures from another run.
    ...(process.env.TOT_BENCH_RUN ? { benchRun: process.env.TOT_BENCH_RUN } : {}),
    // How long bench/run.ts waited for the machine to be quiet before this benchmark, and whether it was.
    ...(process.env.TOT_BENCH_QUIET ? { quietBefore: JSON.parse(process.env.TOT_BENCH_QUIET) as unknown } : {}),
    ...figures,
  };
  const dir = `${benchDir}/results/`;
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}${name}.json`, `${JSON.stringify(result, null, 2)}\n`);
  console.log(JSON.stringify(result, null, 2));
}
