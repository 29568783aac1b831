import { describe, expect, expectTypeOf, it } from 'vitest';
import { Explorer, solve, RunEmitter, type ExplorationResult, type RunResult, type RunStats, type SolveResult } from '../../src/index.js';
import { FractalSolver, type FractalResult } from '../../src/fractal/index.js';
import { ChainOfThoughtNode, type ChainOfThoughtResult } from '../../src/cot/index.js';
import { mockModel } from '../../src/testing/index.js';
import { scriptedRoles } from '../search/fixtures.js';
import { collect } from '../helpers/collect.js';

const runners = {
  Explorer: () => new Explorer({ ...scriptedRoles(), maxDepth: 2 }).run('R'),
  'solve()': () => solve({ problem: 'R', ...scriptedRoles(), maxDepth: 2 }),
  FractalSolver: () => new FractalSolver({ think: () => ({ type: 'RETURN', description: 'done' }), eval: () => ({ type: 'RETURN', description: 'done' }) }).run('goal'),
  ChainOfThoughtNode: () => new ChainOfThoughtNode({ model: mockModel('{"current_thinking": "4", "planning": [], "next_thought_needed": false}'), format: 'json' }).run('2 + 2?'),
};

describe('every runner', () => {
  it.each(Object.entries(runners))('%s returns runId, stopReason, errors and stats with the shared counters', async (_name, run) => {
    const result: RunResult = await run();
    expect(result.runId).toMatch(/^run_[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(typeof result.stopReason).toBe('string');
    expect(result.errors).toEqual([]);
    for (const key of ['llmCalls', 'failedCalls', 'retries', 'resumedCalls', 'inputTokens', 'outputTokens', 'estimatedCalls', 'cacheHits', 'wallMs'] satisfies (keyof RunStats)[]) {
      expect(typeof result.stats[key], key).toBe('number');
    }
  });

  it('types its result as a RunResult', () => {
    expectTypeOf<ExplorationResult>().toExtend<RunResult>();
    expectTypeOf<SolveResult>().toExtend<RunResult>();
    expectTypeOf<FractalResult>().toExtend<RunResult>();
    expectTypeOf<ChainOfThoughtResult>().toExtend<RunResult>();
  });

  it('gives two runs two different ids', async () => {
    const explorer = new Explorer({ ...scriptedRoles(), maxDepth: 1 });
    const [a, b] = [await explorer.run('R'), await explorer.run('R')];
    expect(a.runId).not.toBe(b.runId);
  });

  it.each([
    ['Explorer', new Explorer({ ...scriptedRoles(), maxDepth: 2 }), (r: Explorer) => r.run('R')],
    ['FractalSolver', new FractalSolver({ think: () => ({ type: 'RETURN', description: 'done' }), eval: () => ({ type: 'RETURN', description: 'done' }) }), (r: FractalSolver) => r.run('goal')],
    ['ChainOfThoughtNode', new ChainOfThoughtNode({ model: mockModel('{"current_thinking": "4", "planning": [], "next_thought_needed": false}'), format: 'json' }), (r: ChainOfThoughtNode) => r.run('p')],
  ] as const)('%s: stream() called after run() started still yields run.started first, then every event', async (_name, runner, start) => {
    const all: { type: string; seq: number }[] = [];
    (runner as unknown as RunEmitter).on('event', (e) => all.push(e));
    const done = (start as (r: typeof runner) => Promise<unknown>)(runner);
    const streamed = await collect(runner.stream() as AsyncIterable<{ type: string; seq: number }>);
    await done;
    expect(streamed[0]!.type).toBe('run.started');
    expect(streamed.map((e) => e.seq)).toEqual(all.map((e) => e.seq));
    expect(streamed.at(-1)!.type).toBe('run.finished');
  });
});
