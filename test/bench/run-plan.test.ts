import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ALL, parseRunArgs, passesOf, POOLED } from '../../bench/plan.js';

describe('parseRunArgs: what bench/run.ts is asked to run', () => {
  it('runs every benchmark in 3 passes when none is named', () => {
    expect(parseRunArgs([])).toEqual({ names: [], selected: ALL, extra: [], passes: 3 });
  });

  it('runs named benchmarks in one pass, with the arguments after "--"', () => {
    expect(parseRunArgs(['tree', 'queue', '--', '--rounds', '9'])).toEqual({ names: ['tree', 'queue'], selected: ['tree', 'queue'], extra: ['--rounds', '9'], passes: 1 });
  });

  it('takes --passes as "--passes N" or "--passes=N", before or after the names', () => {
    expect(parseRunArgs(['--passes', '1']).passes).toBe(1);
    expect(parseRunArgs(['tree', '--passes=3']).passes).toBe(3);
    expect(parseRunArgs(['--passes', '2', 'tree']).selected).toEqual(['tree']);
  });

  it('leaves a --passes after "--" to the benchmarks', () => {
    expect(parseRunArgs(['tree', '--', '--passes', '3'])).toMatchObject({ passes: 1, extra: ['--passes', '3'] });
  });

  it('runs a benchmark named twice once', () => {
    expect(parseRunArgs(['tree', 'tree']).selected).toEqual(['tree']);
  });

  it('refuses a pass count outside 1 to 5, or none', () => {
    for (const bad of ['0', '6', '2.5', 'x']) expect(() => parseRunArgs(['--passes', bad]), bad).toThrow('--passes takes a whole number from 1 to 5');
    expect(() => parseRunArgs(['--passes'])).toThrow('--passes needs a number');
  });

  it('refuses a benchmark it does not know, naming the ones it does', () => {
    expect(() => parseRunArgs(['trees'])).toThrow('no benchmark "trees" (known: tree, overhead');
  });

  it("refuses a benchmark's own option before \"--\"", () => {
    expect(() => parseRunArgs(['tree', '--rounds', '3'])).toThrow('"--rounds" is for the benchmarks themselves: put it after "--"');
  });
});

describe('passesOf: the passes each benchmark runs in', () => {
  const seconds: Record<string, number> = { latency: 46, 'hostile-replies': 13, adapters: 13, 'mad-replay': 5, deliberation: 4, mcp: 206, 'sequential-thinking': 32, otel: 2 };

  it('runs a pooled benchmark in every pass and any other in exactly one', () => {
    const plan = passesOf(ALL, 3, (name) => seconds[name]);
    for (const name of ALL) expect(plan.get(name), name).toEqual(POOLED.includes(name) ? [1, 2, 3] : [expect.any(Number)]);
  });

  it('deals the others out longest first to the pass with the least so far', () => {
    const plan = passesOf(ALL, 3, (name) => seconds[name]);
    const load = [1, 2, 3].map((pass) => ALL.filter((name) => !POOLED.includes(name) && plan.get(name)![0] === pass).reduce((sum, name) => sum + seconds[name]!, 0));
    // mcp (206 s) to pass 1, latency (46) to 2, sequential-thinking (32), hostile-replies (13) and adapters (13) to 3,
    // mad-replay (5), deliberation (4) and otel (2) to 2, each time the least so far.
    expect(load).toEqual([206, 57, 58]);
  });

  it('counts a benchmark without a last time as 30 s', () => {
    expect(passesOf(['latency', 'otel', 'mcp'], 2, () => undefined)).toEqual(new Map([['latency', [1]], ['otel', [2]], ['mcp', [1]]]));
  });

  it('runs everything in the one pass when there is one', () => {
    for (const [name, passes] of passesOf(ALL, 1, (name) => seconds[name])) expect(passes, name).toEqual([1]);
  });
});

describe('POOLED: the benchmarks whose figures are pooled over passes', () => {
  const benchDir = fileURLToPath(new URL('../../bench/', import.meta.url));
  const sources = readdirSync(benchDir)
    .filter((file) => file.endsWith('.ts'))
    .map((file) => ({ name: file.replace(/\.ts$/, ''), text: readFileSync(`${benchDir}${file}`, 'utf8') }))
    .filter(({ name }) => ALL.includes(name));

  it('holds every benchmark that measures a figure, so that none of them runs its whole rounds in every pass', () => {
    const measuring = sources.filter(({ text }) => /\bfigure\(/.test(text)).map(({ name }) => name);
    expect(measuring.length).toBeGreaterThan(0);
    for (const name of measuring) expect(POOLED, name).toContain(name);
  });

  it('holds only benchmarks that share their rounds between passes and pool them', () => {
    for (const name of POOLED) {
      const text = sources.find((s) => s.name === name)?.text ?? '';
      expect(text, name).toMatch(/\bpassRounds\(/);
      expect(text, name).toMatch(/\bpooled\(/);
    }
  });
});
