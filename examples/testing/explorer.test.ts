// Unit-testing a Tree-of-Thoughts search: the generator and evaluator are answered by role, and
// the test checks the answer the search finds.
import { bfs, createEvaluator, createGenerator, Explorer } from '@tot/core';
import { roleModel } from '@tot/core/testing';
import { expect, it } from 'vitest';

it('finds the Game of 24 solution with a breadth-first search', async () => {
  const model = roleModel({
    replies: {
      // Thoughts by the depth of the node being expanded (the root is depth 0).
      generator: ({ depth }) =>
        depth === 0 ? ['13 - 9 = 4 (left: 4 4 10)', '10 - 4 = 6 (left: 4 6 13)'] : depth === 1 ? ['10 - 4 = 6 (left: 4 6)'] : ['4 * 6 = 24 (left: 24)'],
      evaluator: ({ thought }) => ({ score: thought.includes('left: 4 4 10') || thought.includes('(left: 4 6)') || thought.includes('24') ? 9 : 2 }),
    },
  });
  const explorer = new Explorer({
    generator: createGenerator({ model }),
    evaluator: createEvaluator({ model }),
    strategy: bfs({ beamWidth: 1 }),
    maxDepth: 3,
    branchingFactor: 2,
    strict: true,
    isSolution: (node) => node.content.includes('(left: 24)'),
  });

  const result = await explorer.run('Use 4 9 10 13 to make 24.');

  expect(result.stopReason).toBe('solution_found');
  expect(result.bestPath.map((n) => n.content).slice(1)).toEqual(['13 - 9 = 4 (left: 4 4 10)', '10 - 4 = 6 (left: 4 6)', '4 * 6 = 24 (left: 24)']);
  expect(model.callsFor('generator')).toHaveLength(3);
});
