// Unit-testing a FractalSolver: think and eval answered by role, the frame's goal telling them apart.
import { FractalSolver } from '@tot/core/fractal';
import { roleModel } from '@tot/core/testing';
import { expect, it } from 'vitest';

it('splits the task into two sub-goals and returns the result built from them', async () => {
  const model = roleModel({
    replies: {
      // The root (depth 0) plans; each sub-goal is done at once.
      think: ({ depth, goal }) => (depth === 0 ? { type: 'TODO', description: '1. Outline 2. Draft' } : { type: 'RETURN', description: `${goal}: done` }),
      // The root's eval, in call order: start each sub-goal, then return.
      eval: [
        { type: 'CALL', description: 'Outline' },
        { type: 'CALL', description: 'Draft' },
        { type: 'RETURN', description: 'Essay: outline and draft done' },
      ],
    },
  });

  const result = await new FractalSolver({ model, maxDepth: 2, strict: true }).run('Write a short essay');

  expect(result.stopReason).toBe('completed');
  expect(result.result).toBe('Essay: outline and draft done');
  expect(model.callsFor('think').map((c) => c.request.tags?.goal)).toEqual(['Write a short essay', 'Outline', 'Draft']);
});
