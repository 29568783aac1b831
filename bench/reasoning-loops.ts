/**
 * Framework overhead of FractalSolver and ChainOfThoughtNode with instant operators/models, and
 * the peak heap of a 10,000-frame recursive run. Target (issue #5): ≤ 50 µs per frame and per thought.
 */
import { fromFunction } from '../src/index.js';
import { FractalSolver, type EvalFunction, type ThinkFunction } from '../src/fractal/index.js';
import { ChainOfThoughtNode } from '../src/cot/index.js';
import { figure, gc, passRounds, pooled, report, ROUNDS } from './harness.js';

/** A balanced recursion: every frame above the leaves calls `fanout` children, leaves return. */
function fractal(fanout: number, depth: number) {
  const think: ThinkFunction = ({ frame }) => (frame.depth >= depth ? { type: 'RETURN', description: `leaf ${frame.id}` } : { type: 'TODO', description: 'split' });
  const evaluate: EvalFunction = ({ frame }) => (frame.done.length < fanout ? { type: 'CALL', description: `part ${frame.done.length}` } : { type: 'RETURN', description: `${frame.done.length} parts` });
  return new FractalSolver({ think, eval: evaluate, maxDepth: depth, maxSteps: 100_000 });
}

// 1 + 10 + 100 + 1000 + 10000 = 11,111 frames.
await fractal(10, 4).run('warm-up');
// This pass's share of the rounds (bench/run.ts runs the list in passes); the figures are of every pass's rounds.
const PASS_ROUNDS = passRounds(ROUNDS).length;
const passFrameRuns: number[] = [];
let frames = 0;
for (let i = 0; i < PASS_ROUNDS; i++) {
  const started = performance.now();
  const result = await fractal(10, 4).run('bench');
  frames = result.stats.frames;
  passFrameRuns.push(((performance.now() - started) * 1000) / frames);
}
const frameRuns = pooled('frameRuns', passFrameRuns);

gc();
const before = process.memoryUsage().heapUsed;
let peak = before;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 5);
let kept: Awaited<ReturnType<FractalSolver['run']>> | undefined = await fractal(10, 4).run('heap');
peak = Math.max(peak, process.memoryUsage().heapUsed);
clearInterval(sampler);
// The peak counts garbage not yet collected; what a finished run keeps is its result.
gc();
const retained = process.memoryUsage().heapUsed - before;
const keptFrames = kept.stats.frames;
// Released before the chain-of-thought samples, so that they do not pay for collecting around it.
kept = undefined;

// Each prompt carries the whole history (as the multi-agent planning protocol specifies), so a run of n thoughts costs O(n²) text:
// measure at the default cap of 20 thoughts, over many runs.
const THOUGHTS = 20;
const RUNS_PER_SAMPLE = 100;
const reply = 'current_thinking: working\nplanning:\n  - description: "Step"\n    status: "Done"\n    result: "ok"\n  - description: "Conclusion"\n    status: "Pending"\nnext_thought_needed: true';
const jsonReply = JSON.stringify({ current_thinking: 'working', planning: [{ description: 'Step', status: 'Done', result: 'ok' }, { description: 'Conclusion', status: 'Pending' }], next_thought_needed: true });

async function perThought(format: 'yaml' | 'json'): Promise<number[]> {
  const runs: number[] = [];
  // Ten untimed samples first: without them the first samples time the compiler, not the loop.
  for (let i = -10; i < PASS_ROUNDS; i++) {
    const text = format === 'yaml' ? reply : jsonReply;
    // An instant model: a plain function (the testing kit's mocks also record every request).
    const node = new ChainOfThoughtNode({ model: fromFunction(() => text), maxThoughts: THOUGHTS, format });
    let thoughts = 0;
    const started = performance.now();
    for (let r = 0; r < RUNS_PER_SAMPLE; r++) thoughts += (await node.run('bench')).thoughts.length;
    if (i >= 0) runs.push(((performance.now() - started) * 1000) / thoughts);
  }
  return pooled(`${format}ThoughtRuns`, runs);
}
const thoughtRuns = await perThought('yaml');
const jsonThoughtRuns = await perThought('json');

report('reasoning-loops', {
  fractal: { frames, microsPerFrame: figure(frameRuns), runs: frameRuns.map((x) => Math.round(x * 100) / 100), target: 50 },
  fractalHeap: { frames: keptFrames, peakHeapMiB: Math.round(((peak - before) / 2 ** 20) * 10) / 10, bytesPerFrame: Math.round((peak - before) / keptFrames), retainedBytesPerFrame: Math.round(retained / keptFrames) },
  chainOfThought: {
    thoughtsPerRun: THOUGHTS,
    runsPerSample: RUNS_PER_SAMPLE,
    yamlMicrosPerThought: figure(thoughtRuns),
    jsonMicrosPerThought: figure(jsonThoughtRuns),
    target: 50,
  },
});
