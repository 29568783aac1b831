/**
 * Compares plain beam search with the custom diversity-aware beam on the 100 Game of 24 puzzles
 * of the benchmark fixture, offline (every move listed, a noisy exact judge).
 *
 * Run: npm run example:custom-strategy
 */
import { readFileSync } from 'node:fs';
import { bfs, Explorer, type SearchStrategy } from '@tot/core';
import { isSolved, moveGenerator, noisyEvaluator, positionKey } from './arithmetic.js';
import { diverseBeam } from './diverse-beam.js';

const fixture = JSON.parse(readFileSync(new URL('../../bench/fixtures/game24-gpt4-bfs.json', import.meta.url), 'utf8')) as { steps: { x: string }[] }[];
const puzzles = fixture.map((p) => p.steps[0]!.x);
const BEAM = 3;

async function solveAll(strategy: () => SearchStrategy) {
  let solved = 0;
  let nodes = 0;
  let repeatedSlots = 0;
  for (const puzzle of puzzles) {
    const explorer = new Explorer({ generator: moveGenerator, evaluator: noisyEvaluator, strategy: strategy(), maxDepth: 3, branchingFactor: 1000, pruningThreshold: 0, isSolution: isSolved });
    const beams: string[][] = [];
    explorer.on('search.step', (event) => beams.push(event.frontier));
    const result = await explorer.run(puzzle);
    if (result.solutions.length > 0) solved += 1;
    nodes += result.stats.totalNodes;
    // Beam slots holding a position that another slot of the same beam already holds.
    for (const beam of beams) repeatedSlots += beam.length - new Set(beam.map((id) => positionKey(result.tree, result.tree.node(id)))).size;
  }
  return { solved, nodes, repeatedSlots };
}

const plain = await solveAll(() => bfs({ beamWidth: BEAM }));
const diverse = await solveAll(() => diverseBeam({ beamWidth: BEAM, key: (node, ctx) => positionKey(ctx.tree, node) }));
console.log(`Beam width ${BEAM}, ${puzzles.length} puzzles`);
for (const [name, r] of [['bfs (plain beam)', plain], ['diverse beam', diverse]] as const) {
  console.log(`  ${name.padEnd(17)} solved ${r.solved}, ${r.nodes} nodes, ${r.repeatedSlots} beam slots spent on a repeated position`);
}
