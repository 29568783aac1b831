/**
 * Builds benchmarks and runs each in its own Node process (a clean heap, --expose-gc), once the
 * machine is quiet (`waitForQuiet` below).
 *
 *   npm run bench                          every benchmark in 3 passes, then docs/benchmarks.md
 *   npm run bench -- --passes 1            every benchmark in one pass: the same rounds, without the later passes' start-up costs, each range from a few minutes
 *   tsx bench/run.ts game24-replay -- …    one benchmark, with its own arguments, in one pass
 *   tsx bench/run.ts --passes 3 tree       one benchmark in 3 passes
 *
 * Passes: over half an hour the machine's speed drifts by more than one benchmark's rounds, taken
 * within a minute, vary (three whole runs in a row without passes showed 11 to 14 of 61 figures
 * outside the run before's ranges, where chance alone would put 2). So a whole run goes through the list
 * `--passes` times, and a benchmark that measures figures over rounds (POOLED in bench/plan.ts)
 * measures a share of its rounds in each pass, adding them to the earlier passes' (bench/harness.ts,
 * `pooled`): every figure's rounds, and so its range, come from across the run. It writes its
 * result in its last pass only, so a run stopped midway leaves the results it had whole. The other
 * benchmarks run once, each in one of the passes, spread by how long they took last time so that
 * the passes take about as long.
 *
 * Benchmarks run compiled, the way users run the package: tsx compiles with esbuild's keepNames,
 * which wraps every function made at run time (each closure) in a name-setting call, and on the
 * hot paths that wrapper cost as much as the library's own work. esbuild bundles each benchmark
 * with the library's sources (no keepNames, like the tsup build) into .tmp/bench/.
 *
 * Beside the benchmarks, a yardstick (bench/yardstick.ts) times one fixed piece of work every 2 s:
 * each result says how fast the machine itself was while it ran (`machineDuring.yardstickCpuMs`),
 * and a whole run writes the same over all of it to bench/results/machine.json.
 *
 * The libraries a benchmark compares against (Emmett, the reference sequential-thinking server)
 * live in bench/peers/, a package of their own, so that the library's `npm install` never compiles
 * a driver only a comparison uses: it is installed here, on the first run of a benchmark that needs it.
 */
import { execFileSync, fork } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { figure, readPool } from './harness.js';
import { parseRunArgs, passesOf, POOLED } from './plan.js';
import { samplesBetween, YARDSTICK_EVERY_SECONDS, YARDSTICK_ID } from './yardstick.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const benchDir = fileURLToPath(new URL('.', import.meta.url));
const out = `${root}.tmp/bench/`;

const { names, selected, extra, passes: PASSES } = parseRunArgs(process.argv.slice(2));
/** The seconds a benchmark took in the last run that wrote its result, if it says. */
const lastSeconds = (name: string): number | undefined => {
  try {
    return (JSON.parse(readFileSync(`${benchDir}results/${name}.json`, 'utf8')) as { machineDuring?: { seconds?: number } }).machineDuring?.seconds;
  } catch {
    return undefined;
  }
};
const passesFor = passesOf(selected, PASSES, lastSeconds);

// Benchmarks that import a package from bench/peers, and the packages they import from there.
const NEEDS_PEERS = ['event-store', 'sequential-thinking'];
const PEERS = /^(@event-driven-io\/|uuid$|sqlite3$|@modelcontextprotocol\/server-sequential-thinking)/;
const peersDir = `${benchDir}peers/`;
if (selected.some((name) => NEEDS_PEERS.includes(name)) && !existsSync(`${peersDir}node_modules/.package-lock.json`)) {
  console.error('bench: installing the libraries the comparison benchmarks measure against (npm --prefix bench/peers ci)');
  execFileSync('npm', ['--prefix', peersDir, 'ci', '--no-audit', '--no-fund'], { stdio: 'inherit', cwd: root });
}
// A peer stays outside the bundle, imported by its path in bench/peers/node_modules, since the
// bundle in .tmp/bench/ would otherwise look for it in the library's node_modules.
const fromPeers: Plugin = {
  name: 'bench-peers',
  setup(b) {
    b.onResolve({ filter: PEERS }, async (args) => {
      if (args.pluginData === 'bench-peers') return undefined;
      const found = await b.resolve(args.path, { kind: args.kind, resolveDir: peersDir, pluginData: 'bench-peers' });
      if (found.errors.length > 0) return { errors: found.errors };
      return { path: found.path, external: true };
    });
  },
};

mkdirSync(out, { recursive: true });
await build({
  plugins: [fromPeers],
  entryPoints: [...selected, 'yardstick'].map((name) => `${benchDir}${name}.ts`),
  outdir: out,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  tsconfig: `${root}tsconfig.json`,
  // Database drivers stay in node_modules (better-sqlite3 is native; pg needs require).
  external: ['better-sqlite3', 'pg', 'pg-boss'],
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  logLevel: 'warning',
});

/**
 * The machine's CPU time so far in clock ticks, from the first line of /proc/stat (user nice system
 * idle iowait irq softirq steal): the cores' work for processes, their wait for the disk, the time
 * the hypervisor took for other machines on the same host (a virtual machine's noise that no
 * process here shows), their idle time, and all of it; undefined off Linux.
 */
function cpuTicks(): { work: number; iowait: number; steal: number; idle: number; total: number } | undefined {
  try {
    const [user, nice, system, idle, iowait, irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    const work = user! + nice! + system! + (irq ?? 0) + (softirq ?? 0);
    return { work, iowait: iowait ?? 0, steal: steal ?? 0, idle: idle!, total: work + idle! + (iowait ?? 0) + (steal ?? 0) };
  } catch {
    return undefined;
  }
}

/** The quiet the machine must reach before a benchmark starts: its cores under 10% busy, two seconds in a row. */
const QUIET = { busyShare: 0.1, seconds: 2, maxWaitSeconds: 120 };

/**
 * Waits until the machine is quiet before a benchmark. A benchmark leaves work behind it (a
 * PostgreSQL cluster's shutdown checkpoint, the kernel writing back what it wrote, Chromium's
 * processes exiting), and a short benchmark that starts in it measures all its rounds in it.
 * Writes the dirty pages back first, then samples /proc/stat every second. Busy here is anything
 * but idle: waiting for the disk (writes still settling) and time the hypervisor took count too.
 * `quiet` is null where there is no /proc/stat to tell.
 */
async function waitForQuiet(): Promise<{ waitedMs: number; busyShare: number | null; quiet: boolean | null }> {
  const started = performance.now();
  try {
    execFileSync('sync');
  } catch {
    // No sync command (not Linux): nothing to write back first.
  }
  let before = cpuTicks();
  if (!before) return { waitedMs: 0, busyShare: null, quiet: null };
  let calm = 0;
  let share = 0;
  while (performance.now() - started < QUIET.maxWaitSeconds * 1000) {
    await sleep(1000);
    const now = cpuTicks()!;
    share = now.total === before.total ? 0 : 1 - (now.idle - before.idle) / (now.total - before.total);
    before = now;
    calm = share < QUIET.busyShare ? calm + 1 : 0;
    if (calm >= QUIET.seconds) break;
  }
  return { waitedMs: Math.round(performance.now() - started), busyShare: Math.round(share * 1000) / 1000, quiet: calm >= QUIET.seconds };
}

// One id for this invocation's results, so that the benchmarks page can name figures from another run.
const benchRun = new Date().toISOString();
const poolDir = `${out}pool/`;
mkdirSync(poolDir, { recursive: true });
type Ticks = NonNullable<ReturnType<typeof cpuTicks>>;
/** Per benchmark, over its passes so far: the machine's ticks while it ran, its seconds, and the quiet before each pass. */
const during = new Map<string, { ticks: Ticks; seconds: number; quiet: Awaited<ReturnType<typeof waitForQuiet>>[]; yardstick: number[] }>();
// The machine's own speed through the run (bench/yardstick.ts): a fixed piece of work timed every
// few seconds in a process of its own, so that each result says how fast the machine was while it ran.
// The file is this invocation's own: another run's yardstick, if one were left, writes elsewhere.
const yardstickFile = `${out}yardstick-${process.pid}.jsonl`;
rmSync(yardstickFile, { force: true });
const runStarted = Date.now();
let yardstickStopped = false;
const yardstick = fork(`${out}yardstick.mjs`, [yardstickFile], { execArgv: ['--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
// A yardstick that fails only costs the results their machine speed: say so, and go on.
yardstick.on('error', (error) => console.error(`bench: the yardstick could not run (${error.message}); the results will not say how fast the machine was`));
yardstick.on('exit', (code, signal) => {
  if (!yardstickStopped) console.error(`bench: the yardstick stopped (${signal ?? `exit code ${code}`}); results measured from now on will not say how fast the machine was`);
});
const yardstickSince = (from: number): number[] => (existsSync(yardstickFile) ? samplesBetween(readFileSync(yardstickFile, 'utf8'), from, Date.now()) : []);
/** Pooled benchmarks that ended a pass without keeping its rounds: they measured nothing (the viewer without a browser), so the later passes skip them. */
const measuredNothing = new Set<string>();
for (let pass = 1; pass <= PASSES; pass++) {
  for (const name of selected.filter((n) => passesFor.get(n)!.includes(pass) && !measuredNothing.has(n))) {
    const pooledHere = PASSES > 1 && POOLED.includes(name);
    const quiet = await waitForQuiet();
    if (quiet.quiet === false) console.error(`bench: ${name} starts on a busy machine (${Math.round(quiet.busyShare! * 100)}% of the cores busy after ${Math.round(quiet.waitedMs / 1000)} s)`);
    if (PASSES > 1) console.error(`bench: ${name}, pass ${pass} of ${PASSES}${pooledHere ? '' : ' (its only one)'}`);
    const passEnv = pooledHere ? { TOT_BENCH_PASS: `${pass}/${PASSES}`, TOT_BENCH_POOL: `${poolDir}${name}.json` } : {};
    const before = cpuTicks();
    const started = Date.now();
    execFileSync(process.execPath, ['--expose-gc', `${out}${name}.mjs`, ...extra], { stdio: 'inherit', cwd: root, env: { ...process.env, TOT_BENCH_DIR: benchDir, TOT_BENCH_RUN: benchRun, TOT_BENCH_QUIET: JSON.stringify(quiet), ...passEnv } });
    const after = cpuTicks();
    if (pooledHere && pass < PASSES) {
      const kept = readPool(passEnv.TOT_BENCH_POOL!);
      if (kept?.benchRun !== benchRun || kept.pass !== pass) {
        measuredNothing.add(name);
        console.error(`bench: ${name} kept no rounds in pass ${pass} of ${PASSES} (it measured nothing): the later passes skip it`);
        continue;
      }
    }
    // The machine while the benchmark ran, over its passes: the share of its cores' time spent on
    // processes (the benchmark's own included), waiting for the disk, and taken by the hypervisor;
    // and how quiet it was before each pass. Added to its result after its last pass, which writes it.
    const sum = during.get(name) ?? { ticks: { work: 0, iowait: 0, steal: 0, idle: 0, total: 0 }, seconds: 0, quiet: [], yardstick: [] };
    sum.yardstick.push(...yardstickSince(started));
    if (before && after) for (const key of ['work', 'iowait', 'steal', 'idle', 'total'] as const) sum.ticks[key] += after[key] - before[key];
    sum.seconds += (Date.now() - started) / 1000;
    sum.quiet.push(quiet);
    during.set(name, sum);
    const file = `${benchDir}results/${name}.json`;
    if (pass !== passesFor.get(name)!.at(-1) || sum.ticks.total <= 0 || !existsSync(file)) continue;
    const result = JSON.parse(readFileSync(file, 'utf8')) as { date?: string; benchRun?: string };
    // A result of an earlier run (a benchmark that measured nothing here, as the viewer without a browser) is left as it was.
    if (result.benchRun !== benchRun || Date.parse(result.date ?? '') < started) continue;
    const share = (ticks: number) => Math.round((ticks / sum.ticks.total) * 1000) / 1000;
    const machineDuring = {
      seconds: Math.round(sum.seconds * 10) / 10,
      busyShare: share(sum.ticks.work),
      iowaitShare: share(sum.ticks.iowait),
      stealShare: share(sum.ticks.steal),
      // The CPU time the yardstick's fixed work took while the benchmark ran, one sample every few seconds.
      ...(sum.yardstick.length > 0 ? { yardstickCpuMs: figure(sum.yardstick), yardstickEverySeconds: YARDSTICK_EVERY_SECONDS, yardstickId: YARDSTICK_ID } : {}),
    };
    // Over the passes: quiet only if every pass started quiet; the longest wait.
    const quietBefore = sum.quiet.length === 1 ? sum.quiet[0] : { waitedMs: Math.max(...sum.quiet.map((q) => q.waitedMs)), busyShare: Math.max(...sum.quiet.map((q) => q.busyShare ?? 0)), quiet: sum.quiet.some((q) => q.quiet === null) ? null : sum.quiet.every((q) => q.quiet), passes: sum.quiet.length };
    writeFileSync(file, `${JSON.stringify({ ...result, quietBefore, machineDuring }, null, 2)}\n`);
  }
}
const wholeRun = yardstickSince(runStarted);
yardstickStopped = true;
yardstick.kill();
rmSync(yardstickFile, { force: true });
// A whole run says how fast the machine was over all of it, for the benchmarks page and for
// bench/compare-runs, which sets one run's machine beside another's.
if (names.length === 0 && wholeRun.length > 0) {
  const machine = { benchmark: 'machine', date: new Date().toISOString(), benchRun, machineDuring: { seconds: Math.round((Date.now() - runStarted) / 100) / 10, yardstickCpuMs: figure(wholeRun), yardstickEverySeconds: YARDSTICK_EVERY_SECONDS, yardstickId: YARDSTICK_ID } };
  writeFileSync(`${benchDir}results/machine.json`, `${JSON.stringify(machine, null, 2)}\n`);
}
if (names.length === 0) execFileSync(process.execPath, ['--import', 'tsx', `${benchDir}write-docs.ts`], { stdio: 'inherit', cwd: root });
