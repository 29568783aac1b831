import { describe, expect, it } from 'vitest';
import { compareRuns, figuresOf } from '../../bench/compare-runs.js';

const fig = (median: number, min: number, max: number) => ({ median, min, max, rounds: 5 });

describe('bench/compare-runs: does a second benchmark run reproduce the first', () => {
  it('finds every figure of a results file by its path, and none in the per-round lists', () => {
    const results = { benchmark: 'x', cpu: { perNode: fig(4, 3, 5), reference: { ratio: fig(0.8, 0.7, 0.9) }, perRound: [{ perNode: fig(1, 1, 1) }] }, wallMs: 12 };
    expect([...figuresOf(results).keys()]).toEqual(['cpu.perNode', 'cpu.reference.ratio']);
  });

  it("counts a second median inside the first run's range, its ends included, as reproduced", () => {
    const [low, high] = compareRuns({ 'a.json': { lo: fig(4, 3, 5), hi: fig(4, 3, 5) } }, { 'a.json': { lo: fig(3, 2, 9), hi: fig(5, 1, 6) } });
    expect(low).toMatchObject({ where: 'a.json: lo', inside: true, moved: -0.25 });
    expect(high).toMatchObject({ inside: true, moved: 0.25 });
  });

  it("reports a second median outside the first run's range, however narrow the second's own range", () => {
    const [c] = compareRuns({ 'a.json': { cpu: fig(4, 3.9, 4.1) } }, { 'a.json': { cpu: fig(4.2, 4.2, 4.2) } });
    expect(c!.inside).toBe(false);
    expect(c!.moved).toBeCloseTo(0.05);
  });

  it('compares only the figures both runs have, and files both runs wrote', () => {
    const comparisons = compareRuns({ 'a.json': { x: fig(1, 1, 1), only: fig(1, 1, 1) }, 'b.json': { y: fig(1, 1, 1) } }, { 'a.json': { x: fig(1, 1, 1) } });
    expect(comparisons.map((c) => c.where)).toEqual(['a.json: x']);
  });
});
