/**
 * Does a second `npm run bench` reproduce the first? For every figure (a median with its range over
 * rounds: `{ median, min, max, rounds }`) found at the same place in both runs' results files, it
 * says whether the second run's median lies inside the first run's range, and how far it moved.
 *
 *   npx tsx bench/compare-runs.ts <first results dir> <second results dir> [--json]
 *
 * Exits with 1 when a figure of the second run lies outside the first's range, or when the two runs
 * have no figure in common; with 2 on bad arguments.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A figure of a results file: the median of its rounds, with their range. */
export interface RunFigure {
  median: number;
  min: number;
  max: number;
  rounds: number;
}

/** One figure of the first run beside the same figure of the second. */
export interface FigureComparison {
  /** The results file and the figure's path in it, as `file: a.b.c`. */
  where: string;
  first: RunFigure;
  second: RunFigure;
  /** Whether the second run's median lies inside the first run's range. */
  inside: boolean;
  /** The second median over the first, less one (0.05: 5% higher); null when the first is 0. */
  moved: number | null;
}

const isFigure = (value: unknown): value is RunFigure =>
  typeof value === 'object' &&
  value !== null &&
  ['median', 'min', 'max', 'rounds'].every((key) => typeof (value as Record<string, unknown>)[key] === 'number');

/** Every figure of a parsed results file, by its path. */
export function figuresOf(value: unknown, path = ''): Map<string, RunFigure> {
  const out = new Map<string, RunFigure>();
  if (isFigure(value)) {
    out.set(path, value);
    return out;
  }
  if (typeof value !== 'object' || value === null) return out;
  for (const [key, child] of Object.entries(value)) {
    // Per-round lists hold the rounds themselves, not figures of the run.
    if (key === 'perRound') continue;
    for (const [p, f] of figuresOf(child, path === '' ? key : `${path}.${key}`)) out.set(p, f);
  }
  return out;
}

/** The figures the two runs have in common, file by file, in the first run's order. */
export function compareRuns(first: Record<string, unknown>, second: Record<string, unknown>): FigureComparison[] {
  const out: FigureComparison[] = [];
  for (const [file, results] of Object.entries(first)) {
    if (!(file in second)) continue;
    const theirs = figuresOf(second[file]);
    for (const [path, a] of figuresOf(results)) {
      const b = theirs.get(path);
      if (!b) continue;
      out.push({ where: `${file}: ${path}`, first: a, second: b, inside: b.median >= a.min && b.median <= a.max, moved: a.median === 0 ? null : b.median / a.median - 1 });
    }
  }
  return out;
}

/** The results files of a directory, parsed, by file name. */
export function readResults(dir: string): Record<string, unknown> {
  if (!existsSync(dir)) throw new Error(`no results directory at ${dir}`);
  const out: Record<string, unknown> = {};
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) out[name] = JSON.parse(readFileSync(join(dir, name), 'utf8')) as unknown;
  return out;
}

const pct = (x: number | null) => (x === null ? 'n/a' : `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`);
const show = (f: RunFigure) => `${f.median} (${f.min}–${f.max}, ${f.rounds} rounds)`;

function main(): number {
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const dirs = args.filter((a) => a !== '--json');
  if (dirs.length !== 2) {
    console.error('usage: npx tsx bench/compare-runs.ts <first results dir> <second results dir> [--json]');
    return 2;
  }
  const comparisons = compareRuns(readResults(dirs[0]!), readResults(dirs[1]!));
  const outside = comparisons.filter((c) => !c.inside);
  if (json) console.log(JSON.stringify(comparisons, null, 2));
  else {
    for (const c of comparisons) console.log(`${c.inside ? 'inside ' : 'OUTSIDE'} ${c.where}: ${show(c.first)} → ${c.second.median} (${pct(c.moved)})`);
    const moves = comparisons.map((c) => Math.abs(c.moved ?? 0)).sort((a, b) => a - b);
    console.log(`\n${comparisons.length} figures in common: ${comparisons.length - outside.length} inside the first run's range, ${outside.length} outside; median move ${pct(moves[moves.length >> 1] ?? 0)}, largest ${pct(moves.at(-1) ?? 0)}`);
  }
  return comparisons.length === 0 || outside.length > 0 ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = main();
