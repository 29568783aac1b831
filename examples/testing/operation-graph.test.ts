// Unit-testing an OperationGraph: the generate operation's outputs given by role, the rest local.
import { generate, keepBest, OperationGraph, score } from '@tot/core/graph';
import { roleModel } from '@tot/core/testing';
import { expect, it } from 'vitest';

interface SortState {
  input: number[];
  current: number[];
}

const errors = (s: SortState) => s.current.reduce((n, v, i) => n + (i > 0 && s.current[i - 1]! > v ? 1 : 0), 0) + Math.abs(s.input.length - s.current.length);

it('keeps the one sort attempt, of three, that has no error', async () => {
  const model = roleModel({
    // A flat list is the three outputs one generate asks for (one call per output when, as
    // here, the model does not sample n at once).
    replies: { generate: ['[1, 3, 2]', '[1, 2, 3]', '[3, 2, 1]'] },
  });
  const g = new OperationGraph<SortState>();
  const sorts = g.add(
    generate<SortState>({
      prompt: (s) => `Sort ${JSON.stringify(s.input)}`,
      parse: (text, s) => ({ input: s.input, current: JSON.parse(text) as number[] }),
      responses: 3,
    }),
  );
  const scored = g.add(score<SortState>({ score: errors }), { after: [sorts] });
  g.add(keepBest<SortState>({ n: 1, higherIsBetter: false }), { after: [scored] });

  const result = await g.run({ model, input: { input: [3, 1, 2], current: [3, 1, 2] }, strict: true });

  expect(result.stopReason).toBe('completed');
  expect(result.thoughts.map((t) => t.state.current)).toEqual([[1, 2, 3]]);
  expect(model.callsFor('generate')).toHaveLength(3);
});
