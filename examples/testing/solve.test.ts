// Unit-testing solve(): decomposition, search and synthesis, each role answered by role.
import { solve } from '@tot/core';
import { roleModel } from '@tot/core/testing';
import { expect, it } from 'vitest';

it('solves a Game of 24 through decomposition, search and synthesis', async () => {
  const model = roleModel({
    replies: {
      decomposer: {
        thought_granularity: 'one arithmetic operation',
        intermediate_steps: ['combine two numbers', 'combine two numbers', 'reach 24'],
        depth_estimate: 3,
        success_criteria: 'the last step leaves 24',
      },
      generator: ({ depth }) => [['13 - 9 = 4 (left: 4 4 10)'], ['10 - 4 = 6 (left: 4 6)'], ['4 * 6 = 24 (left: 24)']][depth ?? 0] ?? [],
      evaluator: 8,
      synthesizer: '(10 - 4) * (13 - 9) = 24',
    },
  });

  const result = await solve({
    problem: 'Use 4 9 10 13 to make 24.',
    taskType: 'math_reasoning',
    model,
    strict: true,
    isSolution: (node) => node.content.endsWith('(left: 24)'),
  });

  expect(result.stopReason).toBe('solution_found');
  expect(result.solution?.answer).toBe('(10 - 4) * (13 - 9) = 24');
  expect(model.roles()[0]).toBe('decomposer');
  expect(model.roles().at(-1)).toBe('synthesizer');
});
