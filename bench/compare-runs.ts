/**
 * Does a second `npm run bench` reproduce the first? For every figure (a median with its range over
 * rounds: `{ median, min, max, rounds }`, or a list of numbers inside `samples`, one per round, as
 * the event stores' benchmark keeps its rows) found at the same place in both runs' results files,
 * it says whether the second run's median lies inside the first run's range, and how far it moved.
 *
 *   npx tsx bench/compare-runs.ts <first results dir> <second results dir> [--json]
 *   npx tsx bench/compare-runs.ts <first> <second> --json > bench/reproduction.json   (the page reports it)
 *
 * Beside the count outside, it prints how many would lie outside by chance alone if the machine had
 * not changed between the runs (the sum over the figures of `chanceOutside` of both runs' rounds):
 * a range of 5 rounds misses the next run's median of 5 one time in six even then, one of 15
 * rounds the median of 15 one time in 455.
 *
 * Beside each figure it prints how far the machine itself moved while its benchmark ran: the CPU time
 * of the yardstick's fixed work (bench/yardstick.ts) in the second run over the first's, when both
 * results carry it. A CPU-bound figure can move with it; the count of figures inside and outside is
 * not corrected for it.
 *
 * A figure of the first run that the second run lacks (a file it did not write, a figure it did not
 * measure, such as the reference's without `--reference`) is listed as missing. Exits with 1 when a
 * figure of the second run lies outside the first's range, when one is missing, or when the runs
 * have no figure in common; with 2 on bad arguments or an unreadable directory.
 */
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chanceOutside, figure, type Figure } from './harness.js';
import { YARDSTICK_ID } from './yardstick.js';

/** One figure of the first run beside the same figure of the second. */
export interface FigureComparison {
  /** The results file and the figure's path in it, as `file: a.b.c`. */
  where: string;
  first: Figure;
  second: Figure;
  /** Whether the second run's median lies inside the first run's range. */
  inside: boolean;
  /** The second median over the first, less one (0.05: 5% higher); null when the first is 0. */
  moved: number | null;
  /** How likely the second median lies outside the first's range by chance alone, on an unchanged machine: `chanceOutside` of both runs' rounds. */
  chance: number;
  /**
   * How much slower the machine itself was while the second run measured the figure's benchmark:
   * the CPU time of the yardstick's fixed work (bench/yardstick.ts) over the first's, less one
   * (0.1: the same work cost 10% more); null when either result lacks it (a run before the yardstick),
   * has fewer than {@link MIN_YARDSTICK_SAMPLES} samples or timed other work.
   */
  machineMoved: number | null;
}

/** The fewest yardstick samples a result needs for its machine speed to be set beside another's: a benchmark of a few seconds has one or two, which say little. */
export const MIN_YARDSTICK_SAMPLES = 5;

/**
 * The yardstick a result carries: the CPU time of a fixed piece of work while it ran
 * (`machineDuring.yardstickCpuMs`, written by bench/run.ts), and which work (a result from before
 * the work was named timed the first).
 */
export function yardstickOf(result: unknown): { cpuMs: Figure; id: string } | undefined {
  const during = (result as { machineDuring?: { yardstickCpuMs?: unknown; yardstickId?: unknown } } | null)?.machineDuring;
  const found = during?.yardstickCpuMs;
  return isFigure(found) ? { cpuMs: found, id: typeof during?.yardstickId === 'string' ? during.yardstickId : YARDSTICK_ID } : undefined;
}

/** How much more CPU time the second's fixed work took, less one; null unless both timed the same work, enough times. */
const moveOf = (first: ReturnType<typeof yardstickOf>, second: ReturnType<typeof yardstickOf>) =>
  first && second && first.id === second.id && first.cpuMs.median > 0 && Math.min(first.cpuMs.rounds, second.cpuMs.rounds) >= MIN_YARDSTICK_SAMPLES ? second.cpuMs.median / first.cpuMs.median - 1 : null;

const isFigure = (value: unknown): value is Figure =>
  typeof value === 'object' &&
  value !== null &&
  ['median', 'min', 'max'].every((key) => typeof (value as Record<string, unknown>)[key] === 'number') &&
  Number.isInteger((value as Record<string, unknown>).rounds) &&
  ((value as { rounds: number }).rounds >= 1);

const isRounds = (value: unknown): value is number[] => Array.isArray(value) && value.length > 0 && value.every((x) => typeof x === 'number' && Number.isFinite(x));

/** Every figure of a parsed results file, by its path; `inSamples` under a `samples` key, whose lists of numbers are rounds. */
export function figuresOf(value: unknown, path = '', inSamples = false): Map<string, Figure> {
  const out = new Map<string, Figure>();
  if (isFigure(value)) {
    out.set(path, value);
    return out;
  }
  if (inSamples && isRounds(value)) {
    out.set(path, figure(value));
    return out;
  }
  if (typeof value !== 'object' || value === null) return out;
  for (const [key, child] of Object.entries(value)) {
    // Per-round lists hold the rounds themselves, not figures of the run; the machine's yardstick is not a figure of the library.
    if (key === 'perRound' || key === 'machineDuring') continue;
    for (const [p, f] of figuresOf(child, path === '' ? key : `${path}.${key}`, inSamples || key === 'samples')) out.set(p, f);
  }
  return out;
}

/** The figures of the first run beside the second's, file by file in the first run's order, and the ones the second lacks. */
export function compareRuns(first: Record<string, unknown>, second: Record<string, unknown>): { compared: FigureComparison[]; missing: string[]; machineMoved: number | null } {
  const compared: FigureComparison[] = [];
  const missing: string[] = [];
  for (const [file, results] of Object.entries(first)) {
    const theirs = file in second ? figuresOf(second[file]) : new Map<string, Figure>();
    const machineMoved = moveOf(yardstickOf(results), yardstickOf(second[file]));
    for (const [path, a] of figuresOf(results)) {
      const b = theirs.get(path);
      if (!b) {
        missing.push(`${file}: ${path}`);
        continue;
      }
      compared.push({ where: `${file}: ${path}`, first: a, second: b, inside: b.median >= a.min && b.median <= a.max, moved: a.median === 0 ? null : b.median / a.median - 1, chance: chanceOutside(a.rounds, b.rounds), machineMoved });
    }
  }
  // Over the whole runs: machine.json, which a whole `npm run bench` writes.
  return { compared, missing, machineMoved: moveOf(yardstickOf(first['machine.json']), yardstickOf(second['machine.json'])) };
}

/** A comparison in numbers: how many figures lie inside and outside, how many would by chance alone, and how far the medians moved (as fractions). */
export function summarise(compared: readonly Pick<FigureComparison, 'inside' | 'moved' | 'chance'>[]): { inside: number; outside: number; byChance: number; medianMove: number; largestMove: number } {
  const outside = compared.filter((c) => !c.inside).length;
  const moves = compared.map((c) => Math.abs(c.moved ?? 0)).sort((a, b) => a - b);
  return { inside: compared.length - outside, outside, byChance: compared.reduce((sum, c) => sum + c.chance, 0), medianMove: moves[(moves.length - 1) >> 1] ?? 0, largestMove: moves.at(-1) ?? 0 };
}

/** The `npm run bench` run most of a directory's results files come from (their `benchRun`), if they name one. */
export function runOf(results: Record<string, unknown>): string | undefined {
  const counts = new Map<string, number>();
  for (const r of Object.values(results)) {
    const run = (r as { benchRun?: unknown } | null)?.benchRun;
    if (typeof run === 'string') counts.set(run, (counts.get(run) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
}

/** The results files of a directory, parsed, by file name. */
export function readResults(dir: string): Record<string, unknown> {
  if (!existsSync(dir)) throw new Error(`no results directory at ${dir}`);
  const out: Record<string, unknown> = {};
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) out[name] = JSON.parse(readFileSync(join(dir, name), 'utf8')) as unknown;
  return out;
}

const pct = (x: number | null) => (x === null ? 'n/a' : `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`);
/** A move of the machine's CPU time in words: "12.0% more", "3.5% less". */
const more = (x: number) => `${(Math.abs(x) * 100).toFixed(1)}% ${x >= 0 ? 'more' : 'less'}`;
const show = (f: Figure) => `${f.median} (${f.min}–${f.max}, ${f.rounds} rounds)`;

function main(): number {
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const dirs = args.filter((a) => a !== '--json');
  if (dirs.length !== 2) {
    console.error('usage: npx tsx bench/compare-runs.ts <first results dir> <second results dir> [--json]');
    return 2;
  }
  let runs: [Record<string, unknown>, Record<string, unknown>];
  try {
    runs = [readResults(dirs[0]!), readResults(dirs[1]!)];
  } catch (error) {
    console.error(`bench/compare-runs: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  const { compared, missing, machineMoved } = compareRuns(...runs);
  const sum = summarise(compared);
  // Saved as bench/reproduction.json, the benchmarks page reports it.
  if (json) console.log(JSON.stringify({ runs: runs.map(runOf), machineMoved, compared, missing }, null, 2));
  else {
    for (const c of compared) console.log(`${c.inside ? 'inside ' : 'OUTSIDE'} ${c.where}: ${show(c.first)} → ${c.second.median} (${pct(c.moved)}${c.machineMoved === null ? '' : `; the machine's fixed work took ${more(c.machineMoved)} CPU time`})`);
    for (const where of missing) console.log(`MISSING ${where}: not in the second run`);
    console.log(`\n${compared.length} figures compared: ${sum.inside} inside the first run's range, ${sum.outside} outside (${sum.byChance.toFixed(2)} expected by chance alone on an unchanged machine, from each figure's rounds), ${missing.length} missing from the second run; median move ${pct(sum.medianMove)}, largest ${pct(sum.largestMove)}${machineMoved === null ? '' : `; the machine's fixed work took ${more(machineMoved)} CPU time in the second run, at the median over each whole run (bench/yardstick.ts)`}`);
  }
  return compared.length === 0 || sum.outside > 0 || missing.length > 0 ? 1 : 0;
}

// Run as a command (through a symlinked path too), not when a test imports it.
if (process.argv[1] && existsSync(process.argv[1]) && realpathSync(fileURLToPath(import.meta.url)) === realpathSync(process.argv[1])) process.exitCode = main();
