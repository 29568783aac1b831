import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bestFirst, bfs, Budget, createEvaluator, createGenerator, dfs, Explorer, mcts, seededRandom, ThoughtTree, type GenerateRequest, type LanguageModel } from '../../src/index.js';

/** A model that misbehaves at random (seeded): valid, empty, garbage or failing replies, random latency. */
function chaoticModel(seed: number) {
  const random = seededRandom(seed);
  let inFlight = 0;
  let peak = 0;
  let calls = 0;
  const model: LanguageModel = {
    modelId: 'chaos',
    async generate(request: GenerateRequest) {
      calls++;
      inFlight++;
      peak = Math.max(peak, inFlight);
      try {
        if (random() < 0.5) await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 3)));
        const roll = random();
        if (roll < 0.05) throw new Error('provider error');
        if (roll < 0.1) return { outputs: ['garbage {'], usage: {} };
        if (request.tags?.role === 'generator') {
          const n = Math.floor(random() * 5);
          const candidates = Array.from({ length: n }, () => ({ content: `s${Math.floor(random() * 6)}` }));
          return { outputs: [JSON.stringify({ candidates })], usage: { inputTokens: 10, outputTokens: 5 } };
        }
        const score = roll < 0.15 ? 42 : Math.round(random() * 100) / 10;
        return { outputs: [JSON.stringify({ score, confidence: random(), reasoning: 'r' })], usage: { inputTokens: 10, outputTokens: 5 } };
      } finally {
        inFlight--;
      }
    },
  };
  return { model, peak: () => peak, calls: () => calls };
}

const strategies = {
  bfs: (b: number) => bfs({ beamWidth: b }),
  dfs: () => dfs({ maxStates: 15 }),
  bestFirst: () => bestFirst({ maxStates: 15 }),
  mcts: () => mcts({ iterations: 15 }),
};

describe('Explorer with random, misbehaving roles (property)', () => {
  it('keeps the tree valid and never exceeds maxDepth, beamWidth, the budget or concurrency', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          seed: fc.integer(),
          strategy: fc.constantFrom(...(Object.keys(strategies) as (keyof typeof strategies)[])),
          maxDepth: fc.integer({ min: 1, max: 4 }),
          beamWidth: fc.integer({ min: 1, max: 4 }),
          branchingFactor: fc.integer({ min: 1, max: 4 }),
          concurrency: fc.integer({ min: 1, max: 4 }),
          maxCalls: fc.integer({ min: 1, max: 40 }),
          pruningThreshold: fc.integer({ min: 0, max: 5 }),
          dedup: fc.boolean(),
        }),
        async (p) => {
          const chaos = chaoticModel(p.seed);
          const budget = new Budget({ maxCalls: p.maxCalls });
          const explorer = new Explorer({
            generator: createGenerator({ model: chaos.model, maxRepairs: 1 }),
            evaluator: createEvaluator({ model: chaos.model, maxRepairs: 1 }),
            strategy: strategies[p.strategy](p.beamWidth),
            maxDepth: p.maxDepth,
            branchingFactor: p.branchingFactor,
            concurrency: p.concurrency,
            pruningThreshold: p.pruningThreshold,
            budget,
            ...(p.dedup ? { stateKey: (n) => n.content } : {}),
          });
          const beams: number[] = [];
          explorer.on('search.step', (e) => beams.push(e.frontier.length));
          const result = await explorer.run('random problem');

          expect(['solution_found', 'max_depth', 'search_exhausted', 'budget_exceeded', 'max_states', 'iterations', 'error']).toContain(result.stopReason);
          // `error` only when the search could not work: every model call, or every role call, failed.
          if (result.stopReason === 'error') expect(result.errors.length).toBeGreaterThan(0);
          // Every call that reached the model is counted, whatever became of it.
          expect(result.stats.llmCalls).toBe(chaos.calls());
          for (const node of result.tree.all()) expect(node.depth).toBeLessThanOrEqual(p.maxDepth);
          if (p.strategy === 'bfs') for (const width of beams) expect(width).toBeLessThanOrEqual(p.beamWidth);
          expect(chaos.calls()).toBeLessThanOrEqual(p.maxCalls);
          expect(budget.snapshot().used.calls).toBeLessThanOrEqual(p.maxCalls);
          expect(chaos.peak()).toBeLessThanOrEqual(p.concurrency);
          for (const node of result.tree.all()) if (node.parentId !== null) expect(result.tree.node(node.parentId).childrenIds).toContain(node.id);
          // The structure survives a validated round trip.
          expect(ThoughtTree.fromJSON(JSON.stringify(result.tree)).toJSON()).toEqual(result.tree.toJSON());
          expect(result.bestPath[0]!.id).toBe(result.tree.rootId);
          expect(result.stats.totalNodes).toBe(result.tree.size);
        },
      ),
      { numRuns: 80 },
    );
  }, 60_000);
});
