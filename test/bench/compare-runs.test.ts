import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareRuns, figuresOf } from '../../bench/compare-runs.js';

/** Runs the command on two results directories holding `first` and `second` as a.json. */
function command(first: unknown, second: unknown | undefined) {
  const dir = mkdtempSync(join(tmpdir(), 'tot-compare-runs-'));
  try {
    for (const [name, results] of [['one', first], ['two', second]] as const) {
      if (results === undefined) continue;
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, 'a.json'), JSON.stringify(results));
    }
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/compare-runs.ts', join(dir, 'one'), join(dir, 'two')], { encoding: 'utf8' });
    return { status: run.status, out: run.stdout + run.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const fig = (median: number, min: number, max: number) => ({ median, min, max, rounds: 5 });

describe('bench/compare-runs: does a second benchmark run reproduce the first', () => {
  it('finds every figure of a results file by its path, and none in the per-round lists', () => {
    const results = { benchmark: 'x', cpu: { perNode: fig(4, 3, 5), reference: { ratio: fig(0.8, 0.7, 0.9) }, perRound: [{ perNode: fig(1, 1, 1) }] }, wallMs: 12 };
    expect([...figuresOf(results).keys()]).toEqual(['cpu.perNode', 'cpu.reference.ratio']);
  });

  it("counts a second median inside the first run's range, its ends included, as reproduced", () => {
    const [low, high] = compareRuns({ 'a.json': { lo: fig(4, 3, 5), hi: fig(4, 3, 5) } }, { 'a.json': { lo: fig(3, 2, 9), hi: fig(5, 1, 6) } }).compared;
    expect(low).toMatchObject({ where: 'a.json: lo', inside: true, moved: -0.25 });
    expect(high).toMatchObject({ inside: true, moved: 0.25 });
  });

  it("reports a second median outside the first run's range, however narrow the second's own range", () => {
    const [c] = compareRuns({ 'a.json': { cpu: fig(4, 3.9, 4.1) } }, { 'a.json': { cpu: fig(4.2, 4.2, 4.2) } }).compared;
    expect(c!.inside).toBe(false);
    expect(c!.moved).toBeCloseTo(0.05);
  });

  it('lists as missing every figure of the first run the second lacks: a figure it did not measure, a file it did not write', () => {
    const { compared, missing } = compareRuns({ 'a.json': { x: fig(1, 1, 1), only: fig(1, 1, 1) }, 'b.json': { y: fig(1, 1, 1) } }, { 'a.json': { x: fig(1, 1, 1) } });
    expect(compared.map((c) => c.where)).toEqual(['a.json: x']);
    expect(missing).toEqual(['a.json: only', 'b.json: y']);
  });

  it("gives each figure the chance that its second median lies outside by luck alone, from both runs' rounds", () => {
    const [c] = compareRuns({ 'a.json': { x: fig(4, 3, 5) } }, { 'a.json': { x: { median: 4, min: 4, max: 4, rounds: 15 } } }).compared;
    // 5 rounds, then 15: of the C(20, 5) orders of the merged rounds, 792 put eight or more of the second run's below all of the first's, as many above.
    expect(c!.chance).toBeCloseTo((2 * 792) / 15_504, 12);
  });

  it("takes each list of numbers under a results file's samples for a figure of that many rounds", () => {
    const results = { memory: { samples: { tot: { singles: [5, 1, 3], read: [2, 4] } }, medians: { tot: { singles: 3 } } } };
    expect(Object.fromEntries(figuresOf(results))).toEqual({ 'memory.samples.tot.singles': { median: 3, min: 1, max: 5, rounds: 3 }, 'memory.samples.tot.read': { median: 3, min: 2, max: 4, rounds: 2 } });
  });

  it('takes no list for a figure outside samples, nor a list of records inside', () => {
    const results = { runs: [1, 2, 3], residentMemory: { samples: [{ rssMB: 100 }, { rssMB: 110 }] } };
    expect(figuresOf(results).size).toBe(0);
  });

  it('takes for a figure only a median and range over a whole, positive number of rounds', () => {
    const results = { a: { median: 1, min: 1, max: 1, rounds: 0 }, b: { median: 1, min: 1, max: 1, rounds: 2.5 }, c: { median: 1, min: 1, max: 1, rounds: 3 } };
    expect([...figuresOf(results).keys()]).toEqual(['c']);
  });

  it("takes the machine's yardstick for no figure of the library", () => {
    const results = { perNode: fig(4, 3, 5), machineDuring: { seconds: 60, yardstickCpuMs: fig(8, 7, 12) } };
    expect([...figuresOf(results).keys()]).toEqual(['perNode']);
  });

  /** A result of one figure, measured while the yardstick's work took `cpuMs` at the median over `samples` samples. */
  const measured = (cpuMs: number, samples = 5, id?: string) => ({ x: fig(4, 3, 5), machineDuring: { yardstickCpuMs: { median: cpuMs, min: cpuMs, max: cpuMs, rounds: samples }, ...(id ? { yardstickId: id } : {}) } });
  const machineMoved = (first: unknown, second: unknown) => compareRuns({ 'a.json': first }, { 'a.json': second }).compared[0]!.machineMoved;

  it("sets beside each figure how much more CPU time the machine's fixed work took while the second run measured it", () => {
    expect(machineMoved(measured(8), measured(10))).toBeCloseTo(0.25);
  });

  it('sets no machine move beside a figure when either run lacks the yardstick', () => {
    expect(machineMoved({ x: fig(4, 3, 5) }, measured(10))).toBeNull();
    expect(machineMoved(measured(8), { x: fig(4, 3, 5) })).toBeNull();
  });

  it('sets no machine move beside a figure from fewer than 5 samples of the yardstick in either run', () => {
    expect(machineMoved(measured(8, 4), measured(10, 9))).toBeNull();
    expect(machineMoved(measured(8, 9), measured(10, 4))).toBeNull();
  });

  it('sets no machine move between yardsticks that timed different work, and takes a result without a name for the first work', () => {
    expect(machineMoved(measured(8, 5, 'other-work'), measured(10))).toBeNull();
    expect(machineMoved(measured(8), measured(10, 5, 'sort-20000-records-v1'))).toBeCloseTo(0.25);
  });

  it("gives the whole runs' machine move from machine.json, which a whole run writes, and none when a run lacks it", () => {
    const machine = (cpuMs: number) => ({ benchmark: 'machine', machineDuring: { yardstickCpuMs: { median: cpuMs, min: 1, max: 20, rounds: 900 } } });
    expect(compareRuns({ 'machine.json': machine(10) }, { 'machine.json': machine(8) }).machineMoved).toBeCloseTo(-0.2);
    expect(compareRuns({ 'machine.json': machine(10) }, {}).machineMoved).toBeNull();
  });

  it('prints how many figures would lie outside by chance alone beside how many do', () => {
    const out = command({ x: fig(4, 3, 5), y: fig(4, 3, 5) }, { x: fig(4, 3, 5), y: fig(4, 3, 5) }).out;
    expect(out).toContain('2 inside the first run\'s range, 0 outside (0.33 expected by chance alone');
  }, 30_000);

  it('exits 0 when every figure is reproduced, 1 when one is outside or missing, 2 when a directory is not there', () => {
    expect(command({ x: fig(4, 3, 5) }, { x: fig(4.5, 4, 5) })).toMatchObject({ status: 0 });
    const outside = command({ x: fig(4, 3, 5) }, { x: fig(6, 6, 6) });
    expect(outside.status).toBe(1);
    expect(outside.out).toContain('OUTSIDE a.json: x');
    const missing = command({ x: fig(4, 3, 5), y: fig(1, 1, 1) }, { x: fig(4, 3, 5) });
    expect(missing.status).toBe(1);
    expect(missing.out).toContain('MISSING a.json: y');
    expect(command({ x: fig(4, 3, 5) }, undefined).status).toBe(2);
  }, 30_000);
});
