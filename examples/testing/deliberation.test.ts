// Unit-testing a Deliberation: the planner, the critic and the reporter answered by role; the
// similarity host needs no model.
import { critic, Deliberation, planner, reporter, similarityHost } from '@tot/core/deliberation';
import { roleModel } from '@tot/core/testing';
import { expect, it } from 'vitest';

const position = { conclusion: 'Study four weeks, one mock test a week', key_reasons: ['four weeks are enough for band 7'], confidence: 0.8 };

it('converges in the first round when planner and critic hold the same position, and reports', async () => {
  const model = roleModel({
    replies: {
      planner: { content: 'Four weeks, a mock test every Saturday.', position, plan: { title: 'IELTS in four weeks', phases: [{ phase_name: 'Practice' }] } },
      critic: { content: 'The plan holds.', position, critique: { risks: [] } },
      reporter: { content: '# IELTS in four weeks', final_plan: { title: 'IELTS in four weeks' }, summary: { key_agreements: ['weekly mock tests'] } },
    },
  });
  const d = new Deliberation({
    agents: [planner({ model }), critic({ model })],
    host: similarityHost(),
    reporter: reporter({ model }),
    strict: true,
  });

  const result = await d.run('Plan my IELTS preparation');

  expect(result.stopReason).toBe('converged');
  expect(result.rounds).toHaveLength(1);
  expect(result.finalReport?.content).toBe('# IELTS in four weeks');
  expect(model.roles().sort()).toEqual(['critic', 'planner', 'reporter']);
});
