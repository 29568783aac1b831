import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

type Harness = typeof import('../../bench/harness.js');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tot-bench-passes-'));
  // report() prints its result; the tests read the file it writes instead.
  vi.spyOn(console, 'log').mockImplementation(() => undefined);
});
afterEach(() => {
  vi.unstubAllEnvs();
  // The files of a worker share one module graph (vitest.config.ts, isolate: false): the next file
  // that imports the harness gets one made with the environment restored, not one of these.
  vi.resetModules();
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

/** The harness as a benchmark process of `pass` ("2/3", or undefined for a run without passes) sees it: a fresh module, with bench/run.ts's environment. */
async function processOf(pass: string | undefined, run = 'run-1'): Promise<Harness> {
  vi.resetModules();
  vi.stubEnv('TOT_BENCH_DIR', dir);
  vi.stubEnv('TOT_BENCH_RUN', run);
  vi.stubEnv('TOT_BENCH_QUIET', undefined);
  vi.stubEnv('TOT_BENCH_PASS', pass);
  vi.stubEnv('TOT_BENCH_POOL', pass === undefined ? undefined : join(dir, 'pool.json'));
  return import('../../bench/harness.js');
}

/** The process of `pass` after its earlier pass ended well (with nothing pooled): for what does not depend on the rounds before. */
async function afterGoodPass(pass: string): Promise<Harness> {
  const [index, of] = pass.split('/').map(Number);
  if (index! > 1) writeFileSync(join(dir, 'pool.json'), JSON.stringify({ benchRun: 'run-1', pass: index! - 1, of, items: {} }));
  return processOf(pass);
}

const written = (name: string) => JSON.parse(readFileSync(join(dir, 'results', `${name}.json`), 'utf8')) as Record<string, unknown>;

describe('passRounds: the share of a figure’s rounds each pass measures', () => {
  it('gives 15 rounds over 3 passes as 0–4, 5–9 and 10–14', async () => {
    const shares = [];
    for (const pass of ['1/3', '2/3', '3/3']) shares.push((await afterGoodPass(pass)).passRounds(15));
    expect(shares).toEqual([[0, 1, 2, 3, 4], [5, 6, 7, 8, 9], [10, 11, 12, 13, 14]]);
  });

  it('gives 5 rounds over 3 passes as 1, 2 and 2', async () => {
    const shares = [];
    for (const pass of ['1/3', '2/3', '3/3']) shares.push((await afterGoodPass(pass)).passRounds(5));
    expect(shares).toEqual([[0], [1, 2], [3, 4]]);
  });

  it('measures every round exactly once over the passes, in order, for any count the passes can share', async () => {
    for (let of = 1; of <= 5; of++) {
      const harnesses: Harness[] = [];
      for (let pass = 1; pass <= of; pass++) harnesses.push(await afterGoodPass(`${pass}/${of}`));
      for (let total = of; total <= 40; total++) {
        const shares = harnesses.map((h) => h.passRounds(total));
        expect(shares.flat()).toEqual(Array.from({ length: total }, (_, i) => i));
        // As equal as whole rounds allow: no pass measures two rounds more than another.
        const sizes = shares.map((s) => s.length);
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      }
    }
  });

  it('gives every round to a benchmark run without passes', async () => {
    expect((await processOf(undefined)).passRounds(7)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('refuses fewer rounds than passes, which would leave a pass without one', async () => {
    const h = await processOf('1/3');
    expect(() => h.passRounds(2)).toThrow(RangeError);
    expect(() => h.passRounds(2)).toThrow('2 rounds cannot be shared by 3 passes');
  });
});

describe('pooled: each pass’s figures are of every pass’s rounds so far', () => {
  /** One pass of a benchmark that measures `rounds` of "ms" and reports their figure. */
  async function benchmarkPass(pass: string, rounds: number[]) {
    const h = await processOf(pass);
    const all = h.pooled('ms', rounds);
    h.report('toy', { ms: h.figure(all) });
    return all;
  }

  it('returns the rounds unchanged in a run without passes, and the result names no passes', async () => {
    const h = await processOf(undefined);
    expect(h.pooled('ms', [3, 1, 2])).toEqual([3, 1, 2]);
    h.report('toy', { ms: h.figure([3, 1, 2]) });
    expect(written('toy')).not.toHaveProperty('passes');
  });

  it('adds each pass’s rounds after the earlier passes’ ones', async () => {
    expect(await benchmarkPass('1/3', [10, 11])).toEqual([10, 11]);
    expect(await benchmarkPass('2/3', [20])).toEqual([10, 11, 20]);
    expect(await benchmarkPass('3/3', [30, 31])).toEqual([10, 11, 20, 30, 31]);
  });

  it('writes the last pass’s figure from the rounds of all three passes', async () => {
    await benchmarkPass('1/3', [1, 9]);
    await benchmarkPass('2/3', [5]);
    await benchmarkPass('3/3', [2, 3]);
    expect(written('toy')).toMatchObject({ ms: { median: 3, min: 1, max: 9, rounds: 5 }, passes: { done: 3, of: 3 } });
  });

  it('keeps records whole, so that figures derived from a round’s parts stay paired', async () => {
    let h = await processOf('1/2');
    h.pooled('pairs', [{ plain: 1, recorded: 2 }]);
    h.report('toy', {});
    h = await processOf('2/2');
    expect(h.pooled('pairs', [{ plain: 3, recorded: 6 }])).toEqual([{ plain: 1, recorded: 2 }, { plain: 3, recorded: 6 }]);
  });

  it('starts afresh in pass 1, whatever an earlier run left', async () => {
    await benchmarkPass('1/2', [100]);
    await benchmarkPass('2/2', [200]);
    expect(await benchmarkPass('1/2', [7])).toEqual([7]);
  });

  it('writes the result in the last pass only: a run stopped midway leaves the result it had', async () => {
    await benchmarkPass('1/2', [1]);
    expect(existsSync(join(dir, 'results', 'toy.json'))).toBe(false);
    await benchmarkPass('2/2', [2]);
    expect(written('toy')).toMatchObject({ ms: { rounds: 2 }, passes: { done: 2, of: 2 } });
  });

  it('stops a later pass as it starts when its earlier pass left no rounds (it failed before its report)', async () => {
    await expect(processOf('2/3')).rejects.toThrow(`pass 2 of 3 needs the rounds of pass 1 of this run (run-1) in ${join(dir, 'pool.json')}, and there is no such file (did that pass fail?)`);
  });

  it('stops a later pass that finds the rounds of another run', async () => {
    await benchmarkPass('1/2', [1]);
    await expect(processOf('2/2', 'run-2')).rejects.toThrow("and the file holds run run-1's");
  });

  it('stops a pass that skipped a pass', async () => {
    await benchmarkPass('1/3', [1]);
    await expect(processOf('3/3')).rejects.toThrow("and the file holds pass 1 of 3's");
  });

  it('stops a later pass whose pool file is not JSON', async () => {
    writeFileSync(join(dir, 'pool.json'), '{"benchRun": "run-1", "pass": 1');
    await expect(processOf('2/2')).rejects.toThrow('and the file is not JSON');
  });

  it('refuses a round that JSON would not keep between passes', async () => {
    const h = await processOf('1/2');
    expect(() => h.pooled('ms', [1, Number.NaN])).toThrow('a round of "ms" is NaN');
    expect(() => h.pooled('pairs', [{ plain: 1, recorded: Number.POSITIVE_INFINITY }])).toThrow('a round of "pairs" is Infinity');
  });

  it('stops a pass that pools a measurement the earlier passes did not make', async () => {
    await benchmarkPass('1/2', [1]);
    const h = await processOf('2/2');
    expect(() => h.pooled('other', [2])).toThrow('pass 2 pooled "other", which the earlier passes did not measure');
  });

  it('stops the report of a pass that left out a measurement the earlier passes made', async () => {
    let h = await processOf('1/2');
    h.pooled('a', [1]);
    h.pooled('b', [1]);
    h.report('toy', {});
    h = await processOf('2/2');
    h.pooled('a', [2]);
    expect(() => h.report('toy', {})).toThrow('pass 2 did not measure "b", which the earlier passes did');
  });

  it('stops the report of a benchmark run in passes that pooled nothing', async () => {
    const h = await processOf('1/3');
    expect(() => h.report('toy', { ms: h.figure([1, 2, 3]) })).toThrow('ran in 3 passes but pooled no rounds');
  });

  it('refuses to pool one measurement twice in a pass', async () => {
    const h = await processOf('1/2');
    h.pooled('ms', [1]);
    expect(() => h.pooled('ms', [2])).toThrow('the rounds of "ms" were pooled twice in one pass');
  });
});

describe('the pass a process is told it runs', () => {
  it('refuses a pass that is not "<pass>/<passes>"', async () => {
    for (const bad of ['2', '0/3', '4/3', 'a/b', '1.5/3', '1/2/3']) await expect(processOf(bad), bad).rejects.toThrow('TOT_BENCH_PASS must be "<pass>/<passes>"');
  });

  it('refuses more than one pass without a file to keep the rounds in', async () => {
    vi.resetModules();
    vi.stubEnv('TOT_BENCH_PASS', '1/2');
    vi.stubEnv('TOT_BENCH_POOL', undefined);
    await expect(import('../../bench/harness.js')).rejects.toThrow('TOT_BENCH_POOL names no file');
  });
});
