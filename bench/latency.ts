/**
 * Concurrency benchmark: the Game of 24 replay with every role call made through a model with
 * 20 ms of latency, at concurrency 1 and 32. Reports wall time, the critical path (per puzzle and
 * level, the slowest generation call plus the slowest evaluation call, summed) and their ratio.
 * Targets (issue #3): at concurrency 32, wall ≤ 1.15 × critical path and ≥ 10× faster than at 1.
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type LanguageModel } from '../src/index.js';
import { mockModel, withLatency } from '../src/testing/index.js';
import { loadReplayLog } from '../examples/game24/replay.js';
import { replayAll } from '../examples/game24/reproduce.js';
import { benchDir, report } from './harness.js';

const { values } = parseArgs({ options: { puzzles: { type: 'string', default: '20' }, latency: { type: 'string', default: '20' } } });
const log = loadReplayLog(`${benchDir}/fixtures/game24-gpt4-bfs.json`).slice(0, Number(values.puzzles));
const LATENCY = Number(values.latency);

/** A 20 ms model that records how long each call really took, by puzzle run, level and role. */
function timedTransport(concurrency: number) {
  const slowest = new Map<string, number>();
  const counts = new Map<string, number>();
  let run = 0;
  const inner = withLatency(mockModel(''), LATENCY);
  const transport: LanguageModel = {
    modelId: 'latency',
    async generate(request, options) {
      const started = performance.now();
      const result = await inner.generate(request, options);
      const key = `${run}|${request.tags?.depth}|${request.tags?.role}`;
      slowest.set(key, Math.max(slowest.get(key) ?? 0, performance.now() - started));
      counts.set(key, (counts.get(key) ?? 0) + 1);
      return result;
    },
  };
  return {
    transport,
    nextPuzzle: () => void (run += 1),
    /** The definition: per level, the slowest generation plus the slowest evaluation. */
    criticalPathMs: () => [...slowest.values()].reduce((a, b) => a + b, 0),
    /** The same with the concurrency cap: a level with more calls than the cap needs several waves. */
    cappedCriticalPathMs: () => [...slowest].reduce((sum, [key, ms]) => sum + Math.ceil(counts.get(key)! / concurrency) * ms, 0),
  };
}

async function measure(concurrency: number) {
  const timing = timedTransport(concurrency);
  // One replay per puzzle, so that the transport can tell the puzzles apart.
  let wallMs = 0;
  let calls = 0;
  for (const puzzle of log) {
    timing.nextPuzzle();
    const started = performance.now();
    const figures = await replayAll([puzzle], { transport: timing.transport, concurrency });
    wallMs += performance.now() - started;
    calls += figures.generatorCalls;
    if (figures.stepMismatches !== 0) throw new Error('the replay diverged from the log');
  }
  const criticalPathMs = timing.criticalPathMs();
  const capped = timing.cappedCriticalPathMs();
  const ratio = (x: number) => Math.round((wallMs / x) * 1000) / 1000;
  return {
    concurrency,
    wallMs: Math.round(wallMs),
    criticalPathMs: Math.round(criticalPathMs),
    wallOverCriticalPath: ratio(criticalPathMs),
    cappedCriticalPathMs: Math.round(capped),
    wallOverCappedCriticalPath: ratio(capped),
    generatorCalls: calls,
  };
}

const sequential = await measure(1);
const parallel = await measure(32);
report('latency', {
  puzzles: log.length,
  latencyMsPerCall: LATENCY,
  concurrency1: sequential,
  concurrency32: parallel,
  speedup: Math.round((sequential.wallMs / parallel.wallMs) * 100) / 100,
  targets: { wallOverCriticalPathAt32: 1.15, speedup: 10 },
});
