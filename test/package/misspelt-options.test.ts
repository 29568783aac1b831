import { describe, expect, it } from 'vitest';
import { bfs, Budget, createEvaluator, createGenerator, Explorer, retryMiddleware, TotError } from '@tot/core';
import { mockModel } from '@tot/core/testing';

/** What `action` throws or rejects with. */
async function caught(action: () => unknown): Promise<unknown> {
  try {
    await action();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** Expects an INVALID_ARGUMENT naming the misspelt option and the one meant. */
function expectUnknownOption(error: unknown, message: string, suggestion: string) {
  expect(TotError.hasCode(error, 'INVALID_ARGUMENT'), String(error)).toBe(true);
  expect((error as TotError).message).toBe(message);
  expect((error as TotError<'INVALID_ARGUMENT'>).details?.suggestion).toBe(suggestion);
}

/** Two candidates per parent, each scored 6: a BFS of depth 2 and beam 2 makes 1 + 2 + 2 + 4 = 9 calls when nothing stops it. */
const twoByTwo = () =>
  mockModel((r) => (r.tags?.role === 'generator' ? '{"candidates": [{"content": "a"}, {"content": "b"}]}' : '{"score": 6, "confidence": 1, "reasoning": ""}'));

describe('a misspelt option is refused, not dropped', () => {
  it('new Budget({ maxCall: 5 }) names maxCalls', async () => {
    expectUnknownOption(await caught(() => new Budget({ maxCall: 5 } as never)), 'Budget: options.maxCall: unknown option; did you mean `maxCalls`?', 'maxCalls');
  });

  it('bfs({ beamwidth: 3 }) names beamWidth, whatever the case', async () => {
    expectUnknownOption(await caught(() => bfs({ beamwidth: 3 } as never)), 'bfs: options.beamwidth: unknown option; did you mean `beamWidth`?', 'beamWidth');
  });

  it('retryMiddleware({ retries: 3 }) names maxRetries when it is made, not when it wraps a model', async () => {
    expectUnknownOption(await caught(() => retryMiddleware({ retries: 3 } as never)), 'retryMiddleware: options.retries: unknown option; did you mean `maxRetries`?', 'maxRetries');
  });

  it('new Explorer({ …, maxDeph: 2 }) names maxDepth', async () => {
    const model = twoByTwo();
    const error = await caught(() => new Explorer({ generator: createGenerator({ model }), evaluator: createEvaluator({ model }), maxDeph: 2 } as never));
    expectUnknownOption(error, 'Explorer: options.maxDeph: unknown option; did you mean `maxDepth`?', 'maxDepth');
  });

  it('a run budget of { maxCalls: 5 } stops the run after 5 calls', async () => {
    const model = twoByTwo();
    const explorer = new Explorer({ generator: createGenerator({ model }), evaluator: createEvaluator({ model }), strategy: bfs({ beamWidth: 2 }), maxDepth: 2, branchingFactor: 2, budget: { maxCalls: 5 } });
    const result = await explorer.run('R');
    expect([result.stopReason, result.stats.llmCalls, model.calls.length]).toEqual(['budget_exceeded', 5, 5]);
  });

  it('a run budget of { maxCall: 5 } is refused before anything runs: no model call is made', async () => {
    const model = twoByTwo();
    const error = await caught(() =>
      new Explorer({ generator: createGenerator({ model }), evaluator: createEvaluator({ model }), strategy: bfs({ beamWidth: 2 }), maxDepth: 2, branchingFactor: 2, budget: { maxCall: 5 } as never }).run('R'),
    );
    expectUnknownOption(error, 'Explorer: options.budget.maxCall: unknown option; did you mean `maxCalls`?', 'maxCalls');
    expect(model.calls).toEqual([]);
  });

  it('a typo is named even when a required option is missing too', async () => {
    expectUnknownOption(await caught(() => new Explorer({ generater: {} } as never)), 'Explorer: options.generater: unknown option; did you mean `generator`?', 'generator');
  });

  it('an unknown option with no near name is refused without a guess', async () => {
    const error = await caught(() => bfs({ colour: 'blue' } as never));
    expect(TotError.hasCode(error, 'INVALID_ARGUMENT')).toBe(true);
    expect((error as TotError).message).toBe('bfs: options.colour: unknown option');
    expect((error as TotError<'INVALID_ARGUMENT'>).details?.suggestion).toBeUndefined();
  });
});
