// Calls made by a moderator host and by plain agents carry their role too, so roleModel answers
// them without any prompt wording.
import { madDebate } from '@tot/core/deliberation';
import { roleModel } from '@tot/core/testing';
import { expect, it } from 'vitest';

it('answers a debate by role: the debaters as agents, the moderator as host', async () => {
  const model = roleModel({
    replies: {
      agent: ({ agent }) => (agent === 'affirmative' ? 'Yes: the sum is 10.' : 'No: the sum is 11.'),
      // madDebate's moderator reads the debate paper's verdict.
      host: { 'Whether there is a preference': 'Yes', 'Supported Side': 'Affirmative', Reason: '3 + 7 is 10', Answer: '10' },
    },
  });

  const result = await madDebate({ model, maxRounds: 2, strict: true }).run('Is 3 + 7 equal to 10?');

  expect(result.finalReport?.content).toBe('10');
  expect(model.roles().sort()).toEqual(['agent', 'agent', 'host']);
});
