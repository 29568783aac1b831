import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { samplesBetween, timeYardstick, yardstickWork } from '../../bench/yardstick.js';

/** What the fixed work returns: computed once from it, so that any change to the work shows. */
const HASH = 1_049_888_662;

describe("bench/yardstick: the machine's own speed through a benchmark run", () => {
  afterEach(() => vi.restoreAllMocks());

  it('does the same work every time: a change to it shows here, and needs a new YARDSTICK_ID', () => {
    expect(yardstickWork()).toBe(HASH);
  });

  it('times the work in CPU time, user and system, in milliseconds', () => {
    const usage = vi.spyOn(process, 'cpuUsage');
    usage.mockReturnValueOnce({ user: 1_000, system: 500 }).mockReturnValueOnce({ user: 8_000, system: 2_000 });
    expect(timeYardstick()).toBe(10);
  });

  it('reads the samples taken from one time to another, both ends included, and skips a line a crash cut short', () => {
    const file = ['{"at":1000,"cpuMs":8}', '{"at":2000,"cpuMs":9}', 'null', '{"at":3000,"cpuMs":10}', '{"at":4000,"cpuMs":11}', '{"at":5000,"cpu'].join('\n');
    expect(samplesBetween(file, 2000, 4000)).toEqual([9, 10, 11]);
    expect(samplesBetween(file, 6000, 7000)).toEqual([]);
  });

  it('samples until the process that started it goes, then stops', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tot-yardstick-'));
    let child: ChildProcess | undefined;
    try {
      const file = join(dir, 'samples.jsonl');
      child = fork('bench/yardstick.ts', [file], { execArgv: ['--import', 'tsx', '--expose-gc'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
      const started = child;
      const exited = new Promise<number | null>((resolve) => started.on('exit', (code) => resolve(code)));
      // Its first sample comes once the work is compiled.
      for (let waited = 0; waited < 20_000; waited += 100) {
        let text = '';
        try {
          text = readFileSync(file, 'utf8');
        } catch {
          // Not written yet.
        }
        if (text.includes('\n')) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(samplesBetween(readFileSync(file, 'utf8'), 0, Date.now()).length).toBeGreaterThan(0);
      child.disconnect();
      expect(await exited).toBe(0);
    } finally {
      // A yardstick that failed to stop must not outlive the test.
      child?.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
