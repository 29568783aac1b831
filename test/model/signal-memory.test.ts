import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleFixture } from '../helpers/bundle-fixture.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

type Growth = Record<string, { withoutSignalMB: number; withSignalMB: number }>;

const CALLS = { withTimeout: 10_000, 'callModel-samples': 10_000, 'withBudget-deadline': 10_000, 'callModel-timeout-signal-per-call': 10_000, 'recorded-run': 2_000 };

// Each call used to leave about 2 KB behind while the caller's signal lived (20 MB after 10,000
// calls); a margin of 5 MB is far above what a collection leaves over and far below the leak.
const MARGIN_MB = 5;

describe("calls under one long-lived signal (a server's shutdown signal, say)", () => {
  let growth: Growth;
  beforeAll(async () => {
    // A process of its own, with --expose-gc, so that the heap holds nothing but the calls (and
    // no compiler: the fixture is bundled with its sources).
    const args = ['--expose-gc', await bundleFixture('test/model/fixtures/signal-memory.ts'), ...Object.entries(CALLS).map(([name, calls]) => `${name}:${calls}`)];
    const { stdout } = await promisify(execFile)(process.execPath, args, { cwd: root });
    growth = JSON.parse(stdout.trim().split('\n').at(-1)!) as Growth;
  }, 300_000);

  it.each([
    { name: 'a model behind withTimeout', scenario: 'withTimeout' },
    { name: 'callModel emulating n > 1 with parallel samples', scenario: 'callModel-samples' },
    { name: 'a model behind withBudget with a deadline', scenario: 'withBudget-deadline' },
  ])('$name: its calls leave the heap where the same calls without a signal leave it', ({ scenario }) => {
    const { withoutSignalMB, withSignalMB } = growth[scenario]!;
    expect(withSignalMB).toBeLessThan(withoutSignalMB + MARGIN_MB);
  });

  it('keeps nothing of 10,000 calls each given a time-limit signal of its own', () => {
    expect(growth['callModel-timeout-signal-per-call']!.withSignalMB).toBeLessThan(MARGIN_MB);
  });

  // A run used to keep about 2 KB until its time limit passed: over 4 MB for 2,000 runs.
  it('keeps nothing of 2,000 recorded runs with a time limit, with or without the signal', () => {
    const { withoutSignalMB, withSignalMB } = growth['recorded-run']!;
    expect(withoutSignalMB).toBeLessThan(2);
    expect(withSignalMB).toBeLessThan(2);
  });
});
