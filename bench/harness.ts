import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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

/**
 * Which pass of a run this process is. A whole `npm run bench` runs every benchmark that measures
 * figures over rounds in passes (`bench/run.ts --passes`, 3 by default): the list is run once per
 * pass, and each pass measures its share of every figure's rounds ({@link passRounds}), so that a
 * figure's rounds come from across the run's half hour and not from one minute of it. Over half
 * an hour the machine's speed drifts by more than rounds taken within one minute vary, so a range
 * from one minute misses the next run's median too often. Each pass adds its rounds to the earlier
 * passes' ones ({@link pooled}) and computes its figures from them all; the last pass writes the result, with
 * figures of every round (an earlier pass prints its figures so far and writes no result).
 * `bench/run.ts` sets TOT_BENCH_PASS ("2/3") and TOT_BENCH_POOL (the file the rounds are kept in
 * between passes); without them a benchmark is one pass of its whole rounds.
 */
export const pass = ((): { index: number; of: number; pool: string | undefined } => {
  const given = process.env.TOT_BENCH_PASS;
  if (given === undefined) return { index: 1, of: 1, pool: undefined };
  const [, index, of] = (/^(\d+)\/(\d+)$/.exec(given) ?? []).map(Number);
  if (!Number.isInteger(index) || !Number.isInteger(of) || index! < 1 || index! > of!) throw new Error(`TOT_BENCH_PASS must be "<pass>/<passes>", such as "2/3" (got "${given}")`);
  const pool = process.env.TOT_BENCH_POOL;
  if (of! > 1 && !pool) throw new Error('TOT_BENCH_PASS names more than one pass but TOT_BENCH_POOL names no file to keep the rounds in between them');
  return { index: index!, of: of!, pool };
})();

/**
 * The rounds this pass measures of `total` (their indices over the whole run, for a benchmark that
 * varies its order by round): the passes take consecutive shares, as equal as whole rounds allow
 * (15 over 3 passes: 0–4, 5–9, 10–14; 5 over 3: 0, 1–2, 3–4).
 */
export function passRounds(total: number): number[] {
  if (!Number.isInteger(total) || total < pass.of) throw new RangeError(`${total} rounds cannot be shared by ${pass.of} passes: every pass needs one at least`);
  const first = Math.floor((total * (pass.index - 1)) / pass.of);
  const end = Math.floor((total * pass.index) / pass.of);
  return Array.from({ length: end - first }, (_, i) => first + i);
}

/** The rounds a pass keeps for the next, in the file TOT_BENCH_POOL names. */
export interface Pool {
  benchRun: string | undefined;
  pass: number;
  of: number;
  items: Record<string, unknown[]>;
}

/** The pool in `file`, or undefined when there is none; throws when the file is not JSON. */
export function readPool(file: string): Pool | undefined {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Pool) : undefined;
}

/**
 * The rounds the earlier passes of this run pooled, by key: read as the process starts, so that a
 * pass that cannot go on stops before it measures anything.
 */
const earlier: Record<string, unknown[]> = ((): Record<string, unknown[]> => {
  if (pass.index === 1) return {};
  const file = pass.pool!;
  const want = `pass ${pass.index} of ${pass.of} needs the rounds of pass ${pass.index - 1} of this run (${process.env.TOT_BENCH_RUN ?? 'unnamed'}) in ${file}`;
  let found: Pool | undefined;
  try {
    found = readPool(file);
  } catch (error) {
    throw new Error(`${want}, and the file is not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (!found) throw new Error(`${want}, and there is no such file (did that pass fail?)`);
  if (found.benchRun !== process.env.TOT_BENCH_RUN) throw new Error(`${want}, and the file holds run ${found.benchRun ?? 'unnamed'}'s`);
  if (found.pass !== pass.index - 1 || found.of !== pass.of) throw new Error(`${want}, and the file holds pass ${found.pass} of ${found.of}'s`);
  return found.items;
})();
const pooledNow: Record<string, unknown[]> = {};

/**
 * This pass's rounds of a measurement after the earlier passes' rounds of it: what a benchmark
 * computes its figures (and anything derived from them) from. `key` names the measurement within
 * the benchmark; every pass must pool the same keys. The rounds must survive JSON.
 */
export function pooled<T>(key: string, rounds: T[]): T[] {
  if (key in pooledNow) throw new Error(`the rounds of "${key}" were pooled twice in one pass`);
  if (pass.index > 1 && !(key in earlier)) throw new Error(`pass ${pass.index} pooled "${key}", which the earlier passes did not measure`);
  // Kept in JSON between passes, where NaN and Infinity would come back as null, and then as 0 in a figure.
  JSON.stringify(rounds, (_key, value: unknown) => {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new RangeError(`a round of "${key}" is ${value}: rounds must be finite numbers, which JSON keeps`);
    return value;
  });
  const all = [...((earlier[key] ?? []) as T[]), ...rounds];
  pooledNow[key] = all;
  return all;
}

/** Keeps this pass's pooled rounds for the next pass; called by {@link report}. */
function keepPool(): void {
  if (pass.of === 1) return;
  const keys = Object.keys(pooledNow);
  if (keys.length === 0) throw new Error(`the benchmark ran in ${pass.of} passes but pooled no rounds: each pass measured its share and kept none of the others'`);
  const missed = Object.keys(earlier).filter((key) => !(key in pooledNow));
  if (missed.length > 0) throw new Error(`pass ${pass.index} did not measure ${missed.map((k) => `"${k}"`).join(', ')}, which the earlier passes did`);
  const pool: Pool = { benchRun: process.env.TOT_BENCH_RUN, pass: pass.index, of: pass.of, items: pooledNow };
  writeFileSync(pass.pool!, JSON.stringify(pool));
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

/**
 * Prints the result as JSON and writes it to bench/results/<name>.json with the machine it ran on;
 * in a pass before the last, prints it (figures of the passes so far) and keeps the rounds for the
 * next pass instead.
 */
export function report(name: string, figures: Record<string, unknown>): void {
  keepPool();
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
    // The passes its rounds were measured in, when more than one (bench/run.ts): printed after each, written after the last.
    ...(pass.of > 1 ? { passes: { done: pass.index, of: pass.of } } : {}),
    ...figures,
  };
  console.log(JSON.stringify(result, null, 2));
  if (pass.index < pass.of) return;
  const dir = `${benchDir}/results/`;
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}${name}.json`, `${JSON.stringify(result, null, 2)}\n`);
}
