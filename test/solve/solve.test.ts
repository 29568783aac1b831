import { describe, expect, it } from 'vitest';
import { Budget, InMemoryEventStore, replayRun, resumeSolve, solve, type SolveEvent } from '../../src/index.js';
import { collect } from '../helpers/collect.js';
import { mockModel, scriptedModel } from '../../src/testing/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';
import { scriptedRoles } from '../search/fixtures.js';

/** A model that plays every role for a two-step problem whose answer is "B2". */
function allRoles() {
  return scriptedModel({
    rules: [
      { name: 'decompose', when: 'Analyse how to solve', reply: '{"thought_granularity": "letter", "intermediate_steps": ["pick a letter", "pick a digit"], "depth_estimate": 2, "constraints": ["stay short"], "success_criteria": "ends in 2"}' },
      { name: 'propose-root', when: (r) => r.tags?.role === 'generator' && r.messages[0]!.content.includes('Steps so far:\n(none yet)'), reply: '{"candidates": [{"content": "A"}, {"content": "B"}]}' },
      { name: 'propose', when: (r) => r.tags?.role === 'generator', reply: '{"candidates": [{"content": "B1"}, {"content": "B2"}]}' },
      { name: 'score-2', when: /Candidate step: \w*2/, reply: '{"score": 9, "confidence": 0.9, "reasoning": "ends in 2"}' },
      { name: 'score', when: 'Candidate step', reply: '{"score": 5, "confidence": 0.5, "reasoning": "maybe"}' },
      { name: 'synthesize', when: 'best path', reply: '{"answer": "B2", "reasoning_trace": ["B", "B2"], "confidence": 0.9}' },
    ],
  });
}

describe('solve', () => {
  it('runs decompose → explore → synthesise with one model for every role', async () => {
    const model = allRoles();
    const result = await solve({ problem: 'Find the code', taskType: 'math_reasoning', model, verify: (answer) => answer.endsWith('2') });
    expect(result.decomposition).toMatchObject({ depthEstimate: 2, constraints: ['stay short'] });
    expect(result.bestPath.map((n) => n.content)).toEqual(['Find the code', 'A', 'B2']);
    expect(result.solution).toEqual({ answer: 'B2', reasoningTrace: ['B', 'B2'], confidence: 0.9, verification: { isValid: true } });
    expect(result.stats).toMatchObject({ totalBacktracks: 0 });
    expect(result.stats.llmCalls).toBeGreaterThan(0);
    expect(result.stats.inputTokens).toBeGreaterThan(0);
    expect(result.tree.searchConfig.maxDepth).toBe(2);
    // The decomposition's constraints and success criteria reach the prompts.
    const generatorPrompt = model.calls.find((c) => c.rule === 'propose-root')!.request.messages[0]!.content;
    expect(generatorPrompt).toContain('- stay short');
    expect(generatorPrompt).toContain('Goal: ends in 2');
  });

  it('works without a model, from plain roles, building the answer from the best path', async () => {
    const roles = scriptedRoles();
    const result = await solve({ problem: 'R', ...roles, maxDepth: 2, verify: (answer) => answer === 'B2' });
    expect(result.solution).toEqual({ answer: 'B2', reasoningTrace: ['B', 'B2'], confidence: 1, verification: { isValid: true } });
  });

  it('still answers from the best partial path when the budget stops the search', async () => {
    const model = mockModel((r) => (r.tags?.role === 'generator' ? '{"candidates": [{"content": "a"}]}' : '{"score": 6, "confidence": 1, "reasoning": ""}'));
    const result = await solve({ problem: 'p', model, decomposer: { decompose: async () => ({ thoughtGranularity: 's', intermediateSteps: [], depthEstimate: 5, constraints: [], successCriteria: '' }) }, budget: new Budget({ maxCalls: 3 }) });
    expect(result.stopReason).toBe('budget_exceeded');
    expect(result.solution?.answer).toBe('a');
    expect(result.solution?.verification.isValid).toBe(false);
  });

  it("still runs the host's verifier on that answer when the budget stopped the run", async () => {
    const model = mockModel((r) => (r.tags?.role === 'generator' ? '{"candidates": [{"content": "a"}]}' : '{"score": 6, "confidence": 1, "reasoning": ""}'));
    const decomposer = { decompose: async () => ({ thoughtGranularity: 's', intermediateSteps: [], depthEstimate: 5, constraints: [], successCriteria: '' }) };
    const result = await solve({ problem: 'p', model, decomposer, synthesizer: undefined, verify: (answer) => answer === 'a', budget: new Budget({ maxCalls: 3 }) });
    expect(result.stopReason).toBe('budget_exceeded');
    expect(result.solution?.verification).toEqual({ isValid: true });
  });

  it('falls back to the best path when the synthesizer fails, saying so', async () => {
    const roles = scriptedRoles();
    const result = await solve({ problem: 'R', ...roles, maxDepth: 1, synthesizer: { synthesize: async () => { throw new Error('no JSON'); } } });
    expect(result.solution?.answer).toBe('B');
    expect(result.solution?.verification.validationErrors).toContain('synthesizer failed: no JSON');
  });

  it('rejects ABORTED when aborted', async () => {
    await catchTotError(() => solve({ problem: 'R', ...scriptedRoles(), signal: AbortSignal.abort() }), 'ABORTED');
  });

  it('needs a model or both a generator and an evaluator', async () => {
    const error = await catchTotError(() => solve({ problem: 'R', generator: scriptedRoles().generator }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('options.model');
  });
});

describe('solve on the run kernel', () => {
  it('resolves with its errors when the decomposer returns no valid decomposition, the preset standing in', async () => {
    const roles = scriptedRoles();
    const events: SolveEvent[] = [];
    const result = await solve({ problem: 'R', ...roles, maxDepth: 2, decomposer: { decompose: async () => ({ depthEstimate: 'deep' }) as never }, onEvent: (e) => events.push(e) });
    expect(result.errors).toMatchObject([{ code: 'INVALID_FORMAT', where: { kind: 'phase', phase: 'decompose' } }]);
    expect(result.decomposition).toMatchObject({ thoughtGranularity: 'step', depthEstimate: 2 });
    expect(result.solution?.answer).toBe('B2');
    expect(events.find((e) => e.type === 'solve.decomposed')).toMatchObject({ fallback: true });
  });

  it('resolves with its errors when the decomposer throws', async () => {
    const result = await solve({ problem: 'R', ...scriptedRoles(), maxDepth: 1, decomposer: { decompose: async () => { throw new Error('planner down'); } } });
    expect(result.errors).toMatchObject([{ code: 'INTERNAL', message: 'planner down', where: { kind: 'phase', phase: 'decompose' } }]);
    expect(result.stopReason).toBe('max_depth');
  });

  it('resolves with error, not a rejection, when every model call fails', async () => {
    const result = await solve({ problem: 'p', model: mockModel(Object.assign(new Error('503 unavailable'), { status: 503 })) });
    expect(result.stopReason).toBe('error');
    expect(result.errors.map((e) => e.where?.kind)).toContain('phase');
    expect(result.solution).toBeUndefined();
  });

  it('with strict, rejects with the first role error', async () => {
    const error = await catchTotError(() => solve({ problem: 'R', ...scriptedRoles(), maxDepth: 1, strict: true, decomposer: { decompose: async () => { throw new Error('planner down'); } } }), 'INTERNAL');
    expect(error.message).toBe('decompose: planner down');
  });

  it('records the decomposition, the search and the solution in one stream that replays into its tree', async () => {
    const store = new InMemoryEventStore();
    const result = await solve({ problem: 'Find the code', taskType: 'math_reasoning', model: allRoles(), verify: (answer) => answer.endsWith('2'), store, runId: 'solve-1' });
    const types = (await collect(store.readStream('solve-1'))).map((e) => e.type);
    expect(types[0]).toBe('run.started');
    expect(types).toContain('solve.decomposed');
    expect(types.indexOf('solve.decomposed')).toBeLessThan(types.indexOf('search.started'));
    expect(types.at(-2)).toBe('solve.synthesized');
    expect(JSON.stringify((await replayRun(store, 'solve-1')).tree.toJSON())).toBe(JSON.stringify(result.tree.toJSON()));
    const again = await resumeSolve({ taskType: 'math_reasoning', model: allRoles(), verify: (answer) => answer.endsWith('2'), store, runId: 'solve-1' });
    expect(again.solution).toEqual(result.solution);
    expect(again.decomposition).toEqual(result.decomposition);
  });
});
