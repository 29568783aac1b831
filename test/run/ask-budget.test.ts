import { describe, expect, it } from 'vitest';
import { bfs, Budget, createEvaluator, createGenerator, Explorer, InMemoryEventStore, type ExplorationResult } from '../../src/index.js';
import { worldModel } from '../events/fixtures/world.js';
import { collect } from '../helpers/collect.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

// The world's search (beam 2, branching 3, depth 2) makes 12 model calls.
const explorer = (budget?: { maxCalls: number; onExhausted?: 'stop' | 'ask' }) => {
  const model = worldModel();
  return new Explorer({ generator: createGenerator({ model }), evaluator: createEvaluator({ model }), strategy: bfs({ beamWidth: 2 }), maxDepth: 2, branchingFactor: 3, now: () => 0, ...(budget ? { budget } : {}) });
};
const tree = (r: ExplorationResult) => [...r.tree.all()].map((n) => [n.id, n.content, n.status, n.evaluation?.score]);

describe('a budget that asks for more (onExhausted: ask)', () => {
  it('asks at 80% of its limit; granted more, the run finishes as an unlimited run does', async () => {
    const unlimited = await explorer().run('p');
    expect(unlimited.stats.llmCalls).toBe(12);
    const questions: unknown[] = [];
    const granted = await explorer({ maxCalls: 10, onExhausted: 'ask' }).run('p', {
      onAsk: (q) => {
        questions.push(q.preview);
        return { more: 10 };
      },
    });
    expect(questions).toEqual([{ limit: 'calls', used: 8, max: 10 }]);
    expect(granted.stopReason).toBe(unlimited.stopReason);
    expect(tree(granted)).toEqual(tree(unlimited));
  });

  it('denied, stops with budget_exceeded at the original limit', async () => {
    const denied = await explorer({ maxCalls: 10, onExhausted: 'ask' }).run('p', { onAsk: () => ({ more: 0 }) });
    expect(denied.stopReason).toBe('budget_exceeded');
    expect(denied.detail).toEqual({ kind: 'budget', limit: 'calls' });
    expect(denied.stats.llmCalls).toBe(10);
  });

  it('recorded without a handler, waits at the limit; resumed with a grant it finishes as an unlimited run does, no call made twice', async () => {
    const unlimited = await explorer().run('p');
    const store = new InMemoryEventStore();
    const waiting = await explorer({ maxCalls: 10, onExhausted: 'ask' }).run('p', { store, runId: 'b' });
    expect(waiting.stopReason).toBe('waiting');
    expect(waiting.pending!.map((q) => q.id)).toEqual(['budget-calls-10']);
    expect(waiting.stats.llmCalls).toBe(10);
    const done = await explorer({ maxCalls: 10, onExhausted: 'ask' }).resume({ store, runId: 'b', answers: { 'budget-calls-10': { more: 6 } } });
    expect(done.stopReason).toBe(unlimited.stopReason);
    expect(tree(done)).toEqual(tree(unlimited));
    const log = await collect(store.readStream('b'));
    expect(log.filter((e) => e.type === 'llm.completed')).toHaveLength(12);
  });

  it('asks again at 80% of each raised limit', async () => {
    const unlimited = await explorer().run('p');
    const asked: string[] = [];
    const r = await explorer({ maxCalls: 5, onExhausted: 'ask' }).run('p', {
      onAsk: (q) => {
        asked.push(q.id);
        return { more: 5 };
      },
    });
    // 4 of 5, 8 of 10, 12 of 15: the run's 12 calls reach the third warning as they end.
    expect(asked).toEqual(['budget-calls-5', 'budget-calls-10', 'budget-calls-15']);
    expect(r.stats.llmCalls).toBe(12);
    expect(r.stopReason).toBe(unlimited.stopReason);
  });

  it('stops hard by default, asking nobody', async () => {
    let asked = 0;
    const r = await explorer({ maxCalls: 10 }).run('p', { onAsk: () => ((asked += 1), { more: 10 }) });
    expect(asked).toBe(0);
    expect(r.stopReason).toBe('budget_exceeded');
  });

  it('with nobody to answer (no onAsk, no store), stops at the limit as a budget that stops does', async () => {
    const r = await explorer({ maxCalls: 10, onExhausted: 'ask' }).run('p');
    expect(r.stopReason).toBe('budget_exceeded');
    expect(r.stats.llmCalls).toBe(10);
  });

  it('refuses a fractional grant of calls before writing anything, and the run still waits', async () => {
    const store = new InMemoryEventStore();
    await explorer({ maxCalls: 10, onExhausted: 'ask' }).run('p', { store, runId: 'frac' });
    const before = await collect(store.readStream('frac'));
    await catchTotError(() => explorer({ maxCalls: 10, onExhausted: 'ask' }).resume({ store, runId: 'frac', answers: { 'budget-calls-10': { more: 1.5 } } }), 'INVALID_ARGUMENT');
    expect(await collect(store.readStream('frac'))).toEqual(before);
    const done = await explorer({ maxCalls: 10, onExhausted: 'ask' }).resume({ store, runId: 'frac', answers: { 'budget-calls-10': { more: 2 } } });
    expect(done.stopReason).not.toBe('waiting');
  });

  it('refuses a grant that is not a number of more', async () => {
    const store = new InMemoryEventStore();
    await explorer({ maxCalls: 10, onExhausted: 'ask' }).run('p', { store, runId: 'x' });
    await catchTotError(() => explorer({ maxCalls: 10, onExhausted: 'ask' }).resume({ store, runId: 'x', answers: { 'budget-calls-10': { more: -1 } } }), 'INVALID_ARGUMENT');
  });
});

describe('Budget.extend', () => {
  it('raises a limit, which then admits again and warns again', () => {
    const budget = new Budget({ maxCalls: 2 });
    const warnings: number[] = [];
    budget.on('budget.warning', (w) => warnings.push(w.max));
    budget.reserve({ calls: 2 }).settle({ calls: 2 });
    expect(() => budget.reserve({ calls: 1 })).toThrow(/calls/);
    budget.extend({ maxCalls: 3 });
    budget.reserve({ calls: 3 }).settle({ calls: 3 });
    expect(warnings).toEqual([2, 5]);
    expect(budget.snapshot().remaining.calls).toBe(0);
  });

  it('refuses a limit the budget does not have', async () => {
    await catchTotError(() => new Budget({ maxCalls: 2 }).extend({ maxCost: 1 }), 'INVALID_ARGUMENT');
  });
});
