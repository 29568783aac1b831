/**
 * Framework overhead of Explorer: instant synthetic roles, 100,000+ nodes (BFS, branching 10,
 * beam 10,000, depth 5). Targets: ≤ 6 µs of framework time per node, ≤ 320 B of heap per node (they were 20 µs and 2 KB before the run kernel).
 */
import { bfs, Explorer, type ThoughtEvaluator, type ThoughtGenerator } from '../src/index.js';
import { figure, gc, passRounds, pooled, report, ROUNDS } from './harness.js';

const BRANCHING = 10;
const generator: ThoughtGenerator = {
  async generate({ parent, k }) {
    return Array.from({ length: k }, (_, i) => ({ content: `${parent.id}/${i}` }));
  },
};
const evaluator: ThoughtEvaluator = {
  async evaluate({ candidates }) {
    return {
      evaluations: candidates.map((c, i) => ({ nodeId: c.id, score: (i * 7) % 10, confidence: 1, reasoning: '' })),
      ranking: [],
      pruningSuggestions: [],
    };
  },
};

const explorer = () =>
  new Explorer({ generator, evaluator, strategy: bfs({ beamWidth: 10_000 }), maxDepth: 5, branchingFactor: BRANCHING, pruningThreshold: 0, concurrency: 64 });

// Warm-up.
await explorer().run('warm-up');

const passRuns: { ms: number; nodes: number }[] = [];
// This pass's share of the rounds (bench/run.ts runs the list in passes); the figure is of every pass's rounds.
for (const _ of passRounds(ROUNDS)) {
  const started = performance.now();
  const result = await explorer().run('overhead');
  passRuns.push({ ms: performance.now() - started, nodes: result.tree.size });
}
const runs = pooled('runs', passRuns);
const micros = runs.map((r) => (r.ms * 1000) / r.nodes);

gc();
const before = process.memoryUsage().heapUsed;
const kept = await explorer().run('heap');
gc();
const bytesPerNode = (process.memoryUsage().heapUsed - before) / kept.tree.size;

report('overhead', {
  nodes: runs[0]!.nodes,
  runs: runs.length,
  microsPerNode: figure(micros, 3),
  runsMicrosPerNode: micros.map((m) => Math.round(m * 1000) / 1000),
  heapBytesPerNode: Math.round(bytesPerNode),
  targets: { microsPerNode: 6, heapBytesPerNode: 320 },
});
