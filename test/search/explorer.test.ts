import { describe, expect, it } from 'vitest';
import { Budget, bfs, createEvaluator, createGenerator, dfs, Explorer, ThoughtTree, TotError, type ExplorationResult, type SearchContext, type SearchEvent, type ThoughtEvaluator, type ThoughtGenerator } from '../../src/index.js';
import { mockModel, scriptedModel, withLatency } from '../../src/testing/index.js';
import { catchTotError, delay } from '../helpers/expect-tot-error.js';
import { scriptedRoles } from './fixtures.js';

const evaluateAll = (score: number): ThoughtEvaluator => ({
  async evaluate({ candidates }) {
    return { evaluations: candidates.map((c) => ({ nodeId: c.id, score, confidence: 1, reasoning: '' })), ranking: [], pruningSuggestions: [] };
  },
});

describe('Explorer: efficiency', () => {
  it('evaluates equal states once per run (stateKey) and counts the reuse', async () => {
    const roles = scriptedRoles({ R: ['2+2', '3+1', '1+3'], '2+2': ['x'], '3+1': ['x'] }, { '2+2': 6, '3+1': 6, '1+3': 6, x: 5 });
    const result = await new Explorer({ ...roles, strategy: bfs({ beamWidth: 3 }), maxDepth: 1, stateKey: (n) => String(eval(n.content.replace(/[^\d+]/g, '')) as number) }).run('R');
    expect(roles.evaluated).toEqual([['2+2']]);
    expect(result.stats.dedupedStates).toBe(2);
    expect([...result.tree.all()].slice(1).map((n) => n.evaluation?.score)).toEqual([6, 6, 6]);
  });

  it('reuses an evaluation from an earlier level of the same run', async () => {
    const roles = scriptedRoles({ R: ['a'], a: ['same'], same: [] }, { a: 5, same: 5 });
    const keyed = new Explorer({ ...roles, maxDepth: 2, stateKey: () => 'one state' });
    const result = await keyed.run('R');
    expect(roles.evaluated).toEqual([['a']]);
    expect(result.stats.dedupedStates).toBe(1);
  });

  it('scores a duplicate sibling 0 without sending it to the evaluator', async () => {
    const roles = scriptedRoles({ R: ['dup', 'other', 'dup'] }, { dup: 7, other: 4 });
    const result = await new Explorer({ ...roles, maxDepth: 1, pruningThreshold: 0 }).run('R');
    expect(roles.evaluated).toEqual([['dup', 'other']]);
    expect(result.tree.node('node_1_3')).toMatchObject({ evaluation: { score: 0, reasoning: 'duplicate of node_1_1' }, metadata: { duplicateOf: 'node_1_1' } });
    expect(result.stats.duplicateCandidates).toBe(1);
  });

  it('runs a level’s generations and evaluations concurrently, within the concurrency limit', async () => {
    let inFlight = 0;
    let peak = 0;
    const model = withLatency(
      scriptedModel({
        rules: [
          { when: 'Propose', reply: '{"candidates": [{"content": "a"}, {"content": "b"}, {"content": "c"}]}' },
          { when: 'Score', reply: '{"score": 6, "confidence": 1, "reasoning": "ok"}' },
        ],
      }),
      20,
    );
    const counting = {
      modelId: 'counting',
      async generate(request: Parameters<typeof model.generate>[0], options?: Parameters<typeof model.generate>[1]) {
        inFlight++;
        peak = Math.max(peak, inFlight);
        try {
          return await model.generate(request, options);
        } finally {
          inFlight--;
        }
      },
    };
    const explorer = new Explorer({
      generator: createGenerator({ model: counting }),
      evaluator: createEvaluator({ model: counting }),
      strategy: bfs({ beamWidth: 3 }),
      maxDepth: 2,
      branchingFactor: 3,
      concurrency: 4,
    });
    const started = performance.now();
    const result = await explorer.run('R');
    const wall = performance.now() - started;
    // 1 + 3 generations and 3 + 9 evaluations, 16 calls of 20 ms: far less than 320 ms in sequence.
    expect(result.stats.llmCalls).toBe(16);
    expect(peak).toBe(4);
    expect(wall).toBeLessThan(16 * 20);
  });
});

describe('Explorer: stops', () => {
  it('stops cleanly when the budget refuses a call, returning the tree so far', async () => {
    const model = mockModel((r) => (r.tags?.role === 'generator' ? '{"candidates": [{"content": "a"}, {"content": "b"}]}' : '{"score": 6, "confidence": 1, "reasoning": ""}'));
    const budget = new Budget({ maxCalls: 4 });
    const result = await new Explorer({ generator: createGenerator({ model }), evaluator: createEvaluator({ model }), maxDepth: 3, branchingFactor: 2, budget }).run('R');
    expect(result.stopReason).toBe('budget_exceeded');
    expect(budget.snapshot().used.calls).toBeLessThanOrEqual(4);
    expect(model.callCount).toBeLessThanOrEqual(4);
    expect(result.tree.size).toBeGreaterThan(1);
  });

  it('rejects an aborted run with ABORTED, carrying the tree so far, and starts no new calls', async () => {
    const model = withLatency(mockModel((r) => (r.tags?.role === 'generator' ? '{"candidates": [{"content": "a"}]}' : '{"score": 6, "confidence": 1, "reasoning": ""}')), 30);
    const controller = new AbortController();
    const explorer = new Explorer({ generator: createGenerator({ model }), evaluator: createEvaluator({ model }), maxDepth: 10, branchingFactor: 1 });
    const finished: SearchEvent[] = [];
    explorer.on('run.finished', (e) => finished.push(e));
    const pending = explorer.run('R', { signal: controller.signal });
    await delay(45);
    controller.abort();
    const error = await catchTotError(() => pending, 'ABORTED');
    const result = error.details?.result as unknown as ExplorationResult;
    expect(result.stopReason).toBe('aborted');
    expect(result.tree.size).toBeGreaterThanOrEqual(1);
    expect(finished).toHaveLength(1);
  });

  it('does not start when the signal is already aborted', async () => {
    const roles = scriptedRoles();
    await catchTotError(() => new Explorer(roles).run('R', { signal: AbortSignal.abort() }), 'ABORTED');
    expect(roles.expanded).toEqual([]);
  });

  it('continues a search from an existing tree', async () => {
    const roles = scriptedRoles();
    const tree = new ThoughtTree({ problem: 'R' });
    const [a] = tree.addChildren('root', [{ content: 'A' }, { content: 'C' }]);
    tree.evaluate(a!.id, { score: 5, confidence: 1, reasoning: '' });
    tree.prune('node_1_2');
    const result = await new Explorer({ ...roles, maxDepth: 2 }).run(tree);
    expect(roles.expanded).toEqual(['A']);
    expect(result.tree).toBe(tree);
  });
});

describe('Explorer: bad input from roles', () => {
  // A generator that always fails leaves the search nothing to work with: `error`, not an unsolvable problem.
  const cases: [string, ThoughtGenerator | undefined, ThoughtEvaluator | undefined, RegExp, 'generator' | 'evaluator', string][] = [
    ['a generator that throws', { generate: async () => { throw new Error('provider down'); } }, undefined, /generation failed: provider down/, 'generator', 'error'],
    ['a generator that returns garbage', { generate: async () => 'not a list' as never }, undefined, /not an array/, 'generator', 'error'],
    ['an evaluator that throws', undefined, { evaluate: async () => { throw new Error('judge down'); } }, /evaluation failed: judge down/, 'evaluator', 'search_exhausted'],
    ['an evaluator with a score out of range', undefined, evaluateAll(11), /invalid evaluation: score/, 'evaluator', 'search_exhausted'],
    ['an evaluator with NaN scores', undefined, evaluateAll(Number.NaN), /invalid evaluation: score/, 'evaluator', 'search_exhausted'],
    ['an evaluator that leaves nodes out', undefined, { evaluate: async () => ({ evaluations: [], ranking: [], pruningSuggestions: [] }) }, /evaluation missing/, 'evaluator', 'search_exhausted'],
    ['an evaluator that returns nothing', undefined, { evaluate: async () => undefined as never }, /evaluation missing/, 'evaluator', 'search_exhausted'],
  ];
  for (const [name, generator, evaluator, error, role, stopReason] of cases) {
    it(`records ${name} on the node and in the result's errors, prunes the node and ends with ${stopReason}`, async () => {
      const roles = scriptedRoles();
      const result = await new Explorer({ generator: generator ?? roles.generator, evaluator: evaluator ?? roles.evaluator, maxDepth: 2 }).run('R');
      const failed = [...result.tree.all()].filter((n) => typeof n.metadata.error === 'string');
      expect(failed.length).toBeGreaterThan(0);
      expect(String(failed[0]!.metadata.error)).toMatch(error);
      expect(failed.every((n) => n.status === 'pruned')).toBe(true);
      expect(result.errors.map((e) => e.where)).toEqual(failed.map((n) => ({ kind: 'node', nodeId: n.id, role })));
      expect(result.stopReason).toBe(stopReason);
    });
  }

  it('drops malformed candidates and keeps the valid ones', async () => {
    const generator: ThoughtGenerator = { generate: async () => [{ content: 'ok' }, { text: 'no content' }, null, { content: 42 }] as never };
    const result = await new Explorer({ generator, evaluator: evaluateAll(5), maxDepth: 1 }).run('R');
    expect([...result.tree.all()].map((n) => n.content)).toEqual(['R', 'ok']);
    expect(result.stats.invalidCandidates).toBe(3);
  });

  it('treats an empty generation as a dead end', async () => {
    const result = await new Explorer({ generator: { generate: async () => [] }, evaluator: evaluateAll(5), maxDepth: 3 }).run('R');
    expect(result.tree.root.status).toBe('expanded');
    expect(result.stopReason).toBe('search_exhausted');
  });

  it('records a throwing verifier on the node and prunes it', async () => {
    const roles = scriptedRoles();
    const result = await new Explorer({ ...roles, maxDepth: 1, isSolution: (n) => { if (n.content === 'B') throw new Error('verifier crashed'); return false; } }).run('R');
    expect(result.tree.node('node_1_2').metadata.error).toBe('isSolution failed: verifier crashed');
    expect(result.tree.node('node_1_2').status).toBe('pruned');
  });

  it('takes the first of repeated evaluations of one node and ignores unknown ids', async () => {
    const evaluator: ThoughtEvaluator = {
      async evaluate({ candidates }) {
        const first = candidates.map((c) => ({ nodeId: c.id, score: 6, confidence: 1, reasoning: 'first' }));
        return { evaluations: [...first, { nodeId: 'ghost', score: 9, confidence: 1, reasoning: '' }, ...first.map((e) => ({ ...e, score: 1 }))], ranking: [], pruningSuggestions: [] };
      },
    };
    const result = await new Explorer({ generator: scriptedRoles().generator, evaluator, maxDepth: 1 }).run('R');
    expect([...result.tree.all()].slice(1).map((n) => n.evaluation?.score)).toEqual([6, 6, 6]);
  });

  it('validates its options, naming the field', async () => {
    const roles = scriptedRoles();
    const error = await catchTotError(() => new Explorer({ ...roles, maxDepth: 0 }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('options.maxDepth');
    await catchTotError(() => new Explorer({ ...roles, evaluator: {} as never }), 'INVALID_ARGUMENT');
    await catchTotError(() => new Explorer(roles).run(42 as never), 'INVALID_ARGUMENT');
  });
});

describe('Explorer: events and determinism', () => {
  it('emits the run as events, in order, also as a stream', async () => {
    const roles = scriptedRoles();
    const explorer = new Explorer({ ...roles, strategy: bfs({ beamWidth: 1 }), maxDepth: 1, now: () => 0 });
    const streamed: string[] = [];
    const reading = (async () => {
      for await (const e of explorer.stream()) streamed.push(e.type);
    })();
    await explorer.run('R', { runId: 'r1' });
    await reading;
    expect(streamed).toEqual([
      'run.started',
      'search.started',
      'node.created',
      'node.created',
      'node.created',
      'node.created',
      'node.expanded',
      'node.evaluated',
      'node.evaluated',
      'node.evaluated',
      'node.pruned',
      'node.pruned',
      'search.step',
      'node.terminal',
      'search.state',
      'run.finished',
    ]);
  });

  it('gives the same tree, ids and events for the same inputs', async () => {
    const once = async () => {
      const explorer = new Explorer({ ...scriptedRoles(), strategy: dfs(), maxDepth: 2, now: () => 0 });
      const events: SearchEvent[] = [];
      explorer.on('event', (e) => events.push(e));
      const result = await explorer.run('R', { runId: 'same' });
      return { tree: result.tree.toJSON(), events };
    };
    expect(await once()).toEqual(await once());
  });

  it('rejects a run whose strategy throws a TotError with that code, naming the strategy and carrying the partial result', async () => {
    const strategy = { name: 'broken', run: async () => { throw new TotError('ILLEGAL_STATE', 'bug'); } };
    const error = await catchTotError(() => new Explorer({ ...scriptedRoles(), strategy }).run('R'), 'ILLEGAL_STATE');
    expect(error.message).toBe('Search strategy "broken" failed: bug');
    expect(error.details?.result).toMatchObject({ stopReason: 'error', stats: { totalNodes: 1 } });
  });

  it('rejects a run whose custom strategy throws a plain error with INTERNAL, the cause and the partial result', async () => {
    const cause = new TypeError("Cannot read properties of undefined (reading 'id')");
    const strategy = { name: 'buggy', run: async (ctx: SearchContext) => { await ctx.evaluate(await ctx.expand([ctx.tree.root])); throw cause; } };
    const error = await catchTotError(() => new Explorer({ ...scriptedRoles(), strategy }).run('R'), 'INTERNAL');
    expect(error.message).toContain('Search strategy "buggy" failed');
    expect(error.cause).toBe(cause);
    const partial = error.details?.result as unknown as ExplorationResult;
    expect(partial.tree.size).toBe(4);
    expect(partial.stopReason).toBe('error');
  });
});
