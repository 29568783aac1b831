import { describe, expect, it } from 'vitest';
import { bfs, Budget, createEvaluator, createGenerator, Explorer, withBudget, withRetry, type LanguageModel } from '../../src/index.js';
import { FractalSolver } from '../../src/fractal/index.js';
import { ChainOfThoughtNode } from '../../src/cot/index.js';
import { mockModel } from '../../src/testing/index.js';
import { delay } from '../helpers/expect-tot-error.js';

/** Two candidates per parent, every candidate scored 6: a BFS of depth 2 and beam 2 makes 1 + 2 + 2 + 4 = 9 calls. */
const twoByTwo = (usage: 'estimate' | 'unknown' = 'estimate') =>
  mockModel((r) => (r.tags?.role === 'generator' ? '{"candidates": [{"content": "a"}, {"content": "b"}]}' : '{"score": 6, "confidence": 1, "reasoning": ""}'), { usage });

const explorerOn = (model: LanguageModel, budget?: ConstructorParameters<typeof Explorer>[0]['budget']) =>
  new Explorer({ generator: createGenerator({ model }), evaluator: createEvaluator({ model }), strategy: bfs({ beamWidth: 2 }), maxDepth: 2, branchingFactor: 2, ...(budget ? { budget } : {}) });

describe('a run budget', () => {
  it('and the run stats count the same tokens for a call whose provider reported malformed usage', async () => {
    const model: LanguageModel = { modelId: 'nan-usage', generate: async () => ({ outputs: ['{"current_thinking": "4", "planning": [], "next_thought_needed": false}'], usage: { inputTokens: Number.NaN, outputTokens: 3 } }) };
    const budget = new Budget({ maxCalls: 5 });
    const result = await new ChainOfThoughtNode({ model, format: 'json', budget }).run('2+2?');
    expect(result.errors.map((e) => e.code)).toContain('GENERATION_FAILED');
    const used = budget.snapshot().used;
    expect(used.calls).toBe(1);
    expect(used.inputTokens).toBeGreaterThan(0);
    expect(result.stats).toMatchObject({ llmCalls: 1, inputTokens: used.inputTokens, outputTokens: used.outputTokens });
  });

  it('charges once a call that reaches a budget both through withBudget and through the runner', async () => {
    const provider = twoByTwo();
    const budget = new Budget({ maxCalls: 100 });
    const result = await explorerOn(withBudget(provider, { budget }), budget).run('R');
    expect(provider.callCount).toBe(9);
    expect(budget.snapshot().used.calls).toBe(9);
    expect(result.stats.llmCalls).toBe(9);
  });

  it('lets such a run make as many calls as its limit, not half', async () => {
    const provider = twoByTwo();
    const budget = new Budget({ maxCalls: 4 });
    const result = await explorerOn(withBudget(provider, { budget }), budget).run('R');
    expect(result.stopReason).toBe('budget_exceeded');
    expect(provider.callCount).toBe(4);
    expect(budget.snapshot().used.calls).toBe(4);
  });

  it('charges once even when a wrapper that is not middleware hides the withBudget inside', async () => {
    const provider = twoByTwo();
    const budget = new Budget({ maxCalls: 100 });
    const inner = withBudget(provider, { budget });
    // A hand-written wrapper: it passes the call options on but does not carry the model's marks.
    const hidden: LanguageModel = { modelId: 'hidden', generate: (request, options) => inner.generate(request, options) };
    await explorerOn(hidden, budget).run('R');
    expect(budget.snapshot().used.calls).toBe(provider.callCount);
  });

  it('counts as made only the calls that reached the provider when a withBudget of the same budget refuses one', async () => {
    const provider = twoByTwo();
    const budget = new Budget({ maxCalls: 4 });
    const result = await explorerOn(withBudget(provider, { budget }), budget).run('R');
    expect(result.stopReason).toBe('budget_exceeded');
    expect(result.stats.llmCalls).toBe(provider.callCount);
    expect(budget.snapshot().used.calls).toBe(provider.callCount);
  });

  it('names the limit that refused it when a shared budget was already spent', async () => {
    const budget = new Budget({ maxTotalTokens: 300 });
    const first = await explorerOn(twoByTwo(), budget).run('R');
    expect(first.detail).toEqual({ kind: 'budget', limit: 'totalTokens' });
    const second = await explorerOn(twoByTwo(), budget).run('R');
    expect(second.stopReason).toBe('budget_exceeded');
    expect(second.detail).toEqual({ kind: 'budget', limit: 'totalTokens' });
    expect(second.stats.llmCalls).toBe(0);
  });

  it('starts its deadline with the run, not when the budget was made', async () => {
    const budget = new Budget({ deadlineMs: 40 });
    await delay(80);
    const result = await explorerOn(twoByTwo(), budget).run('R');
    expect(result.stopReason).toBe('max_depth');
  });

  it('gives each run its own budget from budget.perRun(), deadline included', async () => {
    const explorer = explorerOn(twoByTwo(), new Budget({ maxCalls: 9, deadlineMs: 60 }).perRun());
    const first = await explorer.run('R');
    await delay(100);
    const second = await explorer.run('R');
    expect([first.stopReason, second.stopReason]).toEqual(['max_depth', 'max_depth']);
    expect([first.stats.llmCalls, second.stats.llmCalls]).toEqual([9, 9]);
  });

  it('gives each run its own budget from plain limits', async () => {
    const explorer = explorerOn(twoByTwo(), { maxCalls: 5 });
    const [a, b] = [await explorer.run('R'), await explorer.run('R')];
    expect([a.stopReason, b.stopReason]).toEqual(['budget_exceeded', 'budget_exceeded']);
    expect([a.stats.llmCalls, b.stats.llmCalls]).toEqual([5, 5]);
  });

  it('shares one Budget instance between the runs it is given to', async () => {
    const budget = new Budget({ maxCalls: 12 });
    const explorer = explorerOn(twoByTwo(), budget);
    const [a, b] = [await explorer.run('R'), await explorer.run('R')];
    expect(a.stats.llmCalls + b.stats.llmCalls).toBe(12);
    expect(b.stopReason).toBe('budget_exceeded');
  });

  it('rejects limits that a Budget would refuse, naming the runner option', () => {
    expect(() => explorerOn(twoByTwo(), { maxCost: 1 })).toThrow(/Explorer: options\.budget.*pricing/);
  });

  it('charges a model that reports no usage as the run stats count it: estimated, never 1,024 tokens against 0', async () => {
    const budget = new Budget({ maxTotalTokens: 1_000_000 });
    const result = await explorerOn(twoByTwo('unknown'), budget).run('R');
    const used = budget.snapshot().used;
    expect(used.totalTokens).toBeGreaterThan(0);
    expect(used.totalTokens).toBe(result.stats.inputTokens + result.stats.outputTokens);
    expect(used.outputTokens).toBeLessThan(9 * 1024);
    expect(result.stats.estimatedCalls).toBe(9);
  });

  it('charges each retried attempt as a call, and a refused retry ends the call', async () => {
    const flaky = mockModel([Object.assign(new Error('rate limited'), { status: 429, retryAfterMs: 0 }), Object.assign(new Error('rate limited'), { status: 429, retryAfterMs: 0 }), '{"type": "RETURN", "description": "done"}']);
    const budget = new Budget({ maxCalls: 2 });
    const result = await new FractalSolver({ model: withRetry(flaky, { maxRetries: 5, initialDelayMs: 0 }), budget }).run('goal');
    expect(flaky.callCount).toBe(2);
    expect(budget.snapshot().used.calls).toBe(2);
    expect(result).toMatchObject({ stopReason: 'budget_exceeded', detail: { kind: 'budget', limit: 'calls' } });
  });

  it('reports the run cost from the budget pricing', async () => {
    const model = mockModel('current_thinking: done\nplanning: []\nnext_thought_needed: false', { usage: { inputTokens: 1_000, outputTokens: 500 } });
    const result = await new ChainOfThoughtNode({ model, budget: { pricing: { inputPerMillionTokens: 2, outputPerMillionTokens: 10 } } }).run('p');
    expect(result.stats.costUsd).toBeCloseTo((1_000 * 2 + 500 * 10) / 1e6);
    const noPricing = await new ChainOfThoughtNode({ model }).run('p');
    expect(noPricing.stats.costUsd).toBeUndefined();
  });
});
