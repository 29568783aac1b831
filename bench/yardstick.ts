/**
 * The machine's own speed through a benchmark run: `bench/run.ts` starts this beside the benchmarks
 * and it times one fixed piece of work (sorting 20,000 small records by a string key, then hashing
 * them: the allocation, comparison and property access the library's hot paths are made of) every
 * 2 seconds, in CPU time, until the run ends.
 *
 * Why: on a shared virtual machine the same work takes a different time from one minute to the
 * next. On the project's idle 2-core machine this work took from 8 to 39 ms of CPU time within
 * half a minute, with steal time at 0 (the hypervisor does not report it), and whole runs half an
 * hour apart differed by more than their 15 rounds did. CPU time, not wall time: waiting for a
 * core the benchmark holds does not count, a slower core does; so does a core slowed by the
 * benchmark's own work on the other one, and a sample taken while a benchmark runs measures both.
 * A full collection runs before each sample, so that none falls inside it.
 *
 * Its cost: one sample is 8 ms of one core when the machine is fast and up to about 50 ms when it
 * is slow, every 2 s (0.4–2.5% of one of the two cores).
 *
 *   node --expose-gc yardstick.mjs <file>    appends `{"at": <epoch ms>, "cpuMs": <ms>}` lines to <file>
 *
 * It stops when the process that started it goes (its IPC channel closes), so that a run that
 * crashes leaves nothing running.
 */
import { appendFileSync, existsSync, realpathSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/** How often the work is timed, in seconds. */
export const YARDSTICK_EVERY_SECONDS = 2;

/** How many records the fixed work sorts. */
export const RECORDS = 20_000;

/**
 * Names the fixed work: a result's yardstick is set beside another's only when both timed the same
 * work (bench/compare-runs.ts). A change to {@link yardstickWork} needs a new id.
 */
export const YARDSTICK_ID = 'sort-20000-records-v1';

/** The fixed work: the same records, the same order, every time; returns a hash so that nothing is optimised away. */
export function yardstickWork(): number {
  const records: { i: number; key: string }[] = [];
  for (let i = 0; i < RECORDS; i++) records.push({ i, key: `k${(i * 7919) % 10_007}` });
  records.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.i - b.i));
  let hash = 0;
  for (const r of records) hash = (hash * 31 + r.key.length + r.i) | 0;
  return hash;
}

/** The CPU time, in milliseconds, this process spent on one {@link yardstickWork}. */
export function timeYardstick(): number {
  const before = process.cpuUsage();
  yardstickWork();
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / 1000;
}

/** One sample of the machine's speed. */
export interface YardstickSample {
  /** When it was taken (epoch milliseconds). */
  at: number;
  /** The CPU time the fixed work took. */
  cpuMs: number;
}

/** The samples of a yardstick file taken from `from` to `to` (epoch ms); a line cut short by a crash is skipped. */
export function samplesBetween(text: string, from: number, to: number): number[] {
  const out: number[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    let sample: YardstickSample | null;
    try {
      sample = JSON.parse(line) as YardstickSample;
    } catch {
      continue;
    }
    if (typeof sample?.at === 'number' && typeof sample.cpuMs === 'number' && sample.at >= from && sample.at <= to) out.push(sample.cpuMs);
  }
  return out;
}

async function main(file: string): Promise<void> {
  process.on('disconnect', () => process.exit(0));
  // Compiled before the first sample counts: the first runs time the compiler, not the machine.
  for (let i = 0; i < 20; i++) yardstickWork();
  const collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) throw new Error('run the yardstick with node --expose-gc (bench/run.ts does)');
  for (;;) {
    collect();
    const cpuMs = timeYardstick();
    appendFileSync(file, `${JSON.stringify({ at: Date.now(), cpuMs: Math.round(cpuMs * 100) / 100 })}\n`);
    await sleep(YARDSTICK_EVERY_SECONDS * 1000);
  }
}

// Run as a command (bench/run.ts compiles it to .tmp/bench/yardstick.mjs), not when imported.
if (process.argv[1] && existsSync(process.argv[1]) && realpathSync(fileURLToPath(import.meta.url)) === realpathSync(process.argv[1])) {
  if (!process.argv[2] || !process.send) throw new Error('usage: node --expose-gc yardstick.mjs <file>, started by bench/run.ts with an IPC channel');
  await main(process.argv[2]);
}
