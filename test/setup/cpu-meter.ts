// Opt-in per-file CPU meter (TOT_CPU_LOG=<file.jsonl> npx vitest run): appends, for each test
// file, its wall time and the CPU it cost, the worker's own and that of the child processes it
// reaped (commands, servers, browsers), read from /proc/self/stat. Linux only.
import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** utime, stime, cutime, cstime of this process, in clock ticks. */
function ticks(): number[] {
  const fields = (() => { const stat = readFileSync('/proc/self/stat', 'utf8'); return stat.slice(stat.lastIndexOf(') ') + 2).split(' '); })();
  return [11, 12, 13, 14].map((i) => Number(fields[i]));
}

const log = process.env.TOT_CPU_LOG;
if (log) {
  let start: number[] = [];
  let startedAt = 0;
  let file = '';
  // vitest hands hooks their suite as the second argument, after a fixture object it requires destructured.
  beforeAll(({}, suite) => {
    file = (suite as { filepath?: string }).filepath ?? (suite as { file?: { filepath?: string } }).file?.filepath ?? suite.name;
    start = ticks();
    startedAt = performance.now();
  });
  afterAll(() => {
    const end = ticks();
    // Since the previous file ended: this file's import and collection as well.
    const previous = (globalThis as { __totCpuMeterEnd?: number[] }).__totCpuMeterEnd ?? start;
    (globalThis as { __totCpuMeterEnd?: number[] }).__totCpuMeterEnd = end;
    const sinceOwn = (end[0]! + end[1]! - previous[0]! - previous[1]!) * TICK_MS;
    const sinceChildren = (end[2]! + end[3]! - previous[2]! - previous[3]!) * TICK_MS;
    const own = (end[0]! + end[1]! - start[0]! - start[1]!) * TICK_MS;
    const children = (end[2]! + end[3]! - start[2]! - start[3]!) * TICK_MS;
    appendFileSync(log, `${JSON.stringify({ file: file.replace(`${process.cwd()}/`, ''), wallMs: Math.round(performance.now() - startedAt), ownMs: own, childrenMs: children, withImportOwnMs: sinceOwn, withImportChildrenMs: sinceChildren })}\n`);
  });
}
