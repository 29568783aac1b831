/**
 * ThoughtTree benchmark: insert cost, path() cost, JSON round trip and heap per node.
 * Targets (issue #2): ≤ 2 µs per insert and ≤ 600 bytes per node with small content.
 */
import { ThoughtTree } from '../src/index.js';
import { figure, gc, passRounds, pooled, report, ROUNDS, timeRuns } from './harness.js';

const INSERTS = 1_000_000;
const ROUND_TRIP_NODES = 100_000;
const RUNS = ROUNDS;
// This pass's share of them (bench/run.ts runs the list in passes); the figures are of every pass's rounds.
const PASS_RUNS = passRounds(RUNS).length;

/** A 5-ary tree grown breadth first, as a beam search grows one: node i hangs under node floor((i - 1) / 5). */
function grow(count: number): ThoughtTree {
  const tree = new ThoughtTree({ problem: '4 9 10 13' });
  const ids: string[] = [tree.rootId];
  for (let i = 1; i < count; i++) {
    ids.push(tree.addChild(ids[(i - 1) / 5 | 0]!, { content: `step ${i}` }).id);
  }
  return tree;
}

// Warm up the JIT on a smaller tree before measuring.
grow(200_000);

const insertMs = pooled('insertMs', timeRuns(PASS_RUNS, () => void grow(INSERTS + 1)));
const insertMicros = insertMs.map((ms) => (ms * 1000) / INSERTS);

const chain = new ThoughtTree({ problem: 'chain' });
let tip = chain.rootId;
for (let d = 0; d < 20; d++) tip = chain.addChild(tip, { content: `depth ${d + 1}` }).id;
const PATH_CALLS = 1_000_000;
let sink = 0;
const pathRuns = timeRuns(PASS_RUNS, () => {
  for (let i = 0; i < PATH_CALLS; i++) sink += chain.path(tip).length;
});
if (sink !== PASS_RUNS * PATH_CALLS * 21) throw new Error('path() returned a wrong length');
const pathMs = pooled('pathMs', pathRuns);

const big = grow(ROUND_TRIP_NODES);
const roundTripMs = pooled('roundTripMs', timeRuns(PASS_RUNS, () => {
  const copy = ThoughtTree.fromJSON(JSON.parse(JSON.stringify(big.toJSON())));
  if (copy.size !== ROUND_TRIP_NODES) throw new Error('round trip lost nodes');
}));

gc();
const before = process.memoryUsage().heapUsed;
const kept = grow(INSERTS + 1);
gc();
const after = process.memoryUsage().heapUsed;
const bytesPerNode = (after - before) / kept.size;

report('tree', {
  runs: insertMs.length,
  insert: { nodes: INSERTS, microsPerInsert: figure(insertMicros, 3), runsMicrosPerInsert: insertMicros.map(round), target: 2 },
  pathDepth20: { calls: PATH_CALLS, nanosPerCall: figure(pathMs.map((ms) => (ms * 1e6) / PATH_CALLS), 3) },
  jsonRoundTrip: { nodes: ROUND_TRIP_NODES, ms: figure(roundTripMs, 3), runsMs: roundTripMs.map(round) },
  heap: { nodes: kept.size, bytesPerNode: Math.round(bytesPerNode), target: 600 },
});

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
