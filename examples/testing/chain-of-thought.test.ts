// Unit-testing a ChainOfThoughtNode: each thought answered by its number.
import { ChainOfThoughtNode } from '@tot/core/cot';
import { roleModel } from '@tot/core/testing';
import { expect, it } from 'vitest';

it('stops at the thought that needs no next one, with its thinking as the solution', async () => {
  const model = roleModel({
    replies: {
      'chain-of-thought': ({ thoughtNumber }) =>
        thoughtNumber === 1
          ? { current_thinking: '210 km at 84 km/h takes 2.5 hours.', planning: [{ description: 'Travel time', status: 'Done', result: '2 h 30 min' }, { description: 'Conclusion', status: 'Pending' }], next_thought_needed: true }
          : { current_thinking: 'Ready at 12:22.', planning: [{ description: 'Travel time', status: 'Done', result: '2 h 30 min' }, { description: 'Conclusion', status: 'Done', result: '12:22' }], next_thought_needed: false },
    },
  });

  const result = await new ChainOfThoughtNode({ model, maxThoughts: 5, strict: true }).run('A train leaves at 09:40, travels 210 km at 84 km/h and waits 12 minutes. When is it ready?');

  expect(result.stopReason).toBe('completed');
  expect(result.solution).toBe('Ready at 12:22.');
  expect(model.callsFor('chain-of-thought')).toHaveLength(2);
});
