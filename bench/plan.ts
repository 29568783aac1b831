/**
 * What `bench/run.ts` runs, and in which passes: its arguments read, and the passes each benchmark
 * runs in. Kept apart from run.ts (which builds and runs the benchmarks as it loads) so that tests
 * can read it.
 */

/** Every benchmark, in the order a whole run goes through them. */
export const ALL = ['tree', 'overhead', 'game24-replay', 'crosswords', 'latency', 'event-store', 'reasoning-loops', 'recording', 'hostile-replies', 'adapters', 'got', 'got-engine', 'mad-replay', 'deliberation', 'mcp', 'sequential-thinking', 'viewer', 'queue', 'otel'];

/**
 * The benchmarks whose figures are pooled over passes: each calls `passRounds` and `pooled` of
 * bench/harness.ts (test/bench/run-plan.test.ts checks that every benchmark with a figure is
 * here). event-store keeps its rounds as samples, not `figure()`s, and is pooled too.
 */
export const POOLED = ['tree', 'overhead', 'game24-replay', 'crosswords', 'event-store', 'reasoning-loops', 'recording', 'got', 'got-engine', 'viewer', 'queue'];

/** The most passes: every figure has 5 rounds at least, and every pass needs one of them. */
export const MAX_PASSES = 5;

/** What `bench/run.ts [names] [--passes N] [-- benchmark arguments]` asks for. */
export interface RunPlan {
  /** The benchmarks named (none: a whole run). */
  names: string[];
  /** The benchmarks to run, in order, each once. */
  selected: string[];
  /** The arguments after `--`, given to every benchmark. */
  extra: string[];
  /** The passes: 3 for a whole run, 1 for named benchmarks, unless `--passes` says. */
  passes: number;
}

/** Reads run.ts's arguments; throws a message for the person who typed them on anything it cannot run. */
export function parseRunArgs(argv: readonly string[]): RunPlan {
  const split = argv.indexOf('--');
  const own = split === -1 ? [...argv] : argv.slice(0, split);
  const extra = split === -1 ? [] : argv.slice(split + 1);
  let given: string | undefined;
  const names: string[] = [];
  for (let i = 0; i < own.length; i++) {
    const arg = own[i]!;
    if (arg === '') continue;
    if (arg === '--passes' || arg.startsWith('--passes=')) {
      given = arg === '--passes' ? own[++i] : arg.slice('--passes='.length);
      if (given === undefined) throw new Error('--passes needs a number');
      if (!new RegExp(`^[1-${MAX_PASSES}]$`).test(given)) throw new Error(`--passes takes a whole number from 1 to ${MAX_PASSES} (every figure has 5 rounds at least), not "${given}"`);
    } else if (arg.startsWith('-')) throw new Error(`bench/run.ts takes benchmark names and --passes; "${arg}" is for the benchmarks themselves: put it after "--"`);
    else if (!ALL.includes(arg)) throw new Error(`no benchmark "${arg}" (known: ${ALL.join(', ')})`);
    else if (!names.includes(arg)) names.push(arg);
  }
  return { names, selected: names.length === 0 ? ALL : names, extra, passes: given === undefined ? (names.length === 0 ? 3 : 1) : Number(given) };
}

/**
 * The passes each benchmark runs in (numbered from 1): a pooled one in every pass, any other in
 * one. The others go longest first, each to the pass with the least of them so far (the earlier
 * pass on a tie), by `seconds` (what each took last time; 30 s when unknown), so that the passes
 * take about as long and a pooled figure's rounds are spread over the run.
 */
export function passesOf(selected: readonly string[], passes: number, seconds: (name: string) => number | undefined): Map<string, number[]> {
  const out = new Map<string, number[]>();
  const every = Array.from({ length: passes }, (_, i) => i + 1);
  const load = new Array<number>(passes).fill(0);
  const once = selected.filter((name) => !POOLED.includes(name));
  const took = (name: string) => seconds(name) ?? 30;
  for (const name of selected) if (POOLED.includes(name)) out.set(name, every);
  for (const name of [...once].sort((a, b) => took(b) - took(a) || once.indexOf(a) - once.indexOf(b))) {
    const pass = load.indexOf(Math.min(...load));
    load[pass]! += took(name);
    out.set(name, [pass + 1]);
  }
  return out;
}
