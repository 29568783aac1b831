import { describe, expect, it } from 'vitest';
import {
  withUsage,
  type LanguageModel,
  createDecomposer,
  createEvaluator,
  createGenerator,
  createSynthesizer,
  rankEvaluations,
  renderPrompt,
  TASK_PRESETS,
  taskPreset,
  ThoughtTree,
  UsageMeter,
  type TaskContext,
} from '../../src/index.js';
import { mockModel, scriptedModel } from '../../src/testing/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

const context: TaskContext = { problem: '4 9 10 13', taskType: 'math_reasoning', goal: 'reach 24', constraints: ['use each number once'], maxDepth: 3, pruningThreshold: 3 };

function treeWithStep() {
  const tree = new ThoughtTree({ problem: '4 9 10 13' });
  const step = tree.addChild('root', { content: '13 - 9 = 4 (left: 4 4 10)' });
  const [a, b] = tree.addChildren(step.id, [{ content: '10 - 4 = 6 (left: 4 6)' }, { content: '4 + 4 = 8 (left: 8 10)' }]);
  return { tree, step, a: a!, b: b! };
}

describe('renderPrompt', () => {
  it('fills placeholders and refuses unknown ones', async () => {
    expect(renderPrompt('Numbers: {{ numbers }}!', { numbers: '4 9' })).toBe('Numbers: 4 9!');
    expect(renderPrompt((v) => `x${v.a}`, { a: '1' })).toBe('x1');
    const error = await catchTotError(() => renderPrompt('{{nope}}', { a: '1' }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('{{nope}}');
  });
});

describe('task presets', () => {
  it('carry the seed table', () => {
    expect(Object.keys(TASK_PRESETS)).toEqual(['math_reasoning', 'creative_writing', 'planning', 'debugging', 'architecture_design']);
    expect(taskPreset('math_reasoning')).toMatchObject({ granularity: 'equation', depth: [3, 4], strategy: 'bfs', evaluation: 'independent_scoring' });
    expect(taskPreset('debugging')).toMatchObject({ granularity: 'hypothesis', depth: null, strategy: 'dfs' });
    expect(taskPreset('architecture_design')?.evaluation).toBe('comparative_voting');
    expect(taskPreset('unknown')).toBeUndefined();
  });
});

describe('createGenerator', () => {
  it('sequential_proposal: one call whose prompt shows the problem, the path and k, parsed into candidates', async () => {
    const model = mockModel('Sure:\n```json\n{"candidates": [{"content": "4 * 6 = 24 (left: 24)", "actionType": "*"}, {"content": "6 - 4 = 2 (left: 2)"}, {"content": "extra"}]}\n```');
    const { tree, a } = treeWithStep();
    const candidates = await createGenerator({ model }).generate({ tree, parent: a, k: 2, context });
    expect(candidates).toEqual([{ content: '4 * 6 = 24 (left: 24)', actionType: '*' }, { content: '6 - 4 = 2 (left: 2)' }]);
    expect(model.callCount).toBe(1);
    const prompt = model.prompts()[0]!;
    expect(prompt).toContain('Problem: 4 9 10 13');
    expect(prompt).toContain('1. 13 - 9 = 4 (left: 4 4 10)\n2. 10 - 4 = 6 (left: 4 6)');
    expect(prompt).toContain('Propose 2 different');
    expect(prompt).toContain('- use each number once');
    expect(model.calls[0]!.request.tags).toMatchObject({ role: 'generator' });
  });

  it('independent_sampling: k separate calls, each a distinct sample', async () => {
    const model = mockModel((_r, { callIndex }) => `{"content": "idea ${callIndex}"}`);
    const { tree, step } = treeWithStep();
    const candidates = await createGenerator({ model, strategy: 'independent_sampling' }).generate({ tree, parent: step, k: 3, context });
    expect(candidates.map((c) => c.content)).toEqual(['idea 0', 'idea 1', 'idea 2']);
    expect(new Set(model.calls.map((c) => c.request.tags?.sampleIndex))).toEqual(new Set(['0', '1', '2']));
  });

  it('independent_sampling: one call with n = k when the model can, keeping the valid samples', async () => {
    const model = mockModel({ outputs: ['{"content": "a"}', 'garbage', '{"content": "c"}'] }, { multipleOutputs: true });
    const { tree, step } = treeWithStep();
    const candidates = await createGenerator({ model, strategy: 'independent_sampling' }).generate({ tree, parent: step, k: 3, context });
    expect(candidates).toEqual([{ content: 'a' }, { content: 'c' }]);
    expect(model.calls[0]!.request.n).toBe(3);
  });

  it("calls its model through the run's runModel, once per call", async () => {
    const model = mockModel('{"candidates": [{"content": "x"}]}');
    const meter = new UsageMeter();
    const seen: LanguageModel[] = [];
    const { tree, step } = treeWithStep();
    const runModel = (m: LanguageModel) => (seen.push(m), withUsage(m, { meter }));
    await createGenerator({ model }).generate({ tree, parent: step, k: 1, context }, { runModel });
    expect(seen).toEqual([model]);
    expect(meter.snapshot().calls).toBe(1);
  });

  it('describes itself for a run configuration: kind, model, strategy and prompt', () => {
    const generator = createGenerator({ model: mockModel('x', { modelId: 'm1' }), strategy: 'independent_sampling', prompt: 'Next step for {{problem}}' });
    expect(generator.config).toMatchObject({ kind: 'llm-generator', modelId: 'm1', strategy: 'independent_sampling', prompt: 'Next step for {{problem}}' });
    expect(createEvaluator({ model: mockModel('x'), prompt: () => 'p' }).config).toMatchObject({ kind: 'llm-evaluator', prompt: 'function' });
  });

  it('fails with INVALID_FORMAT when the reply never parses', async () => {
    const { tree, step } = treeWithStep();
    await catchTotError(() => createGenerator({ model: mockModel('no json here'), maxRepairs: 1 }).generate({ tree, parent: step, k: 1, context }), 'INVALID_FORMAT');
  });

  it('rejects a bad strategy name', async () => {
    const error = await catchTotError(() => createGenerator({ model: mockModel('x'), strategy: 'magic' as never }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('options.strategy');
  });
});

describe('createEvaluator', () => {
  it('independent_scoring: scores each candidate, averages the samples, ranks and suggests pruning', async () => {
    const model = scriptedModel({
      rules: [
        { when: 'Candidate step: 10 - 4 = 6', reply: ['{"score": 9, "confidence": 0.9, "reasoning": "4 * 6", "dimensionScores": {"progress": 8}}', '{"score": 7, "confidence": 0.7, "reasoning": "b", "dimensionScores": {"progress": 6}}'] },
        { when: 'Candidate step: 4 + 4 = 8', reply: ['{"score": 2, "confidence": 0.5, "reasoning": "far"}', '{"score": 1, "confidence": 0.5, "reasoning": "far"}'] },
      ],
    });
    const { tree, a, b } = treeWithStep();
    const batch = await createEvaluator({ model, samples: 2 }).evaluate({ tree, candidates: [b, a], context });
    expect(batch.evaluations).toEqual([
      { nodeId: b.id, score: 1.5, confidence: 0.5, reasoning: 'far' },
      { nodeId: a.id, score: 8, confidence: 0.8, reasoning: '4 * 6', dimensionScores: { progress: 7 } },
    ]);
    expect(batch.ranking).toEqual([a.id, b.id]);
    expect(batch.pruningSuggestions).toEqual([b.id]);
  });

  it('independent_scoring: one call with n samples when the model can', async () => {
    const model = mockModel({ outputs: ['{"score": 10, "confidence": 1, "reasoning": ""}', '{"score": 4, "confidence": 1, "reasoning": ""}', 'bad'] }, { multipleOutputs: true });
    const { tree, a } = treeWithStep();
    const batch = await createEvaluator({ model, samples: 3 }).evaluate({ tree, candidates: [a], context });
    expect(batch.evaluations[0]!.score).toBe(7);
    expect(model.callCount).toBe(1);
  });

  it('comparative_voting: one prompt with every candidate, votes tallied into scores', async () => {
    const model = mockModel(['{"best": 2, "reasoning": "leaves 4 and 6"}', '{"best": 2, "reasoning": "x"}', '{"best": 1, "reasoning": "y"}', '{"best": 9, "reasoning": "not a candidate"}']);
    const { tree, a, b } = treeWithStep();
    const batch = await createEvaluator({ model, strategy: 'comparative_voting', samples: 4 }).evaluate({ tree, candidates: [b, a], context });
    expect(model.prompts()[0]).toContain('1. 4 + 4 = 8 (left: 8 10)\n2. 10 - 4 = 6 (left: 4 6)');
    expect(batch.evaluations.map((e) => [e.nodeId, e.score, e.confidence])).toEqual([
      [b.id, 2.5, 0.75],
      [a.id, 5, 0.75],
    ]);
    expect(batch.evaluations[1]!.reasoning).toBe('2 of 4 votes: leaves 4 and 6');
    expect(batch.ranking).toEqual([a.id, b.id]);
  });

  it('comparative_voting: fails with INVALID_FORMAT when no vote names a candidate', async () => {
    const { tree, a } = treeWithStep();
    await catchTotError(() => createEvaluator({ model: mockModel('{"best": 5}'), strategy: 'comparative_voting' }).evaluate({ tree, candidates: [a], context }), 'INVALID_FORMAT');
  });

  it('ranks ties in candidate order', () => {
    const e = (nodeId: string, score: number) => ({ nodeId, score, confidence: 1, reasoning: '' });
    expect(rankEvaluations([e('a', 5), e('b', 7), e('c', 5)]).ranking).toEqual(['b', 'a', 'c']);
  });
});

describe('createDecomposer', () => {
  it("returns the seed's decomposition_result in camelCase", async () => {
    const model = mockModel('{"thought_granularity": "equation", "intermediate_steps": ["pick two", "combine"], "depth_estimate": 3, "constraints": ["each once"], "success_criteria": "= 24"}');
    const d = await createDecomposer({ model }).decompose({ problem: '4 9 10 13', taskType: 'math_reasoning' });
    expect(d).toEqual({ thoughtGranularity: 'equation', intermediateSteps: ['pick two', 'combine'], depthEstimate: 3, constraints: ['each once'], successCriteria: '= 24' });
    expect(model.prompts()[0]).toContain('a thought is usually one equation');
  });
});

describe('createSynthesizer', () => {
  const reply = '{"answer": "(10 - (13 - 9)) * 4 = 24", "reasoning_trace": ["13 - 9 = 4"], "confidence": 0.9, "verification": {"is_valid": true}}';

  it('uses the host verifier when there is one', async () => {
    const { tree, a } = treeWithStep();
    const s = await createSynthesizer({ model: mockModel(reply), verify: (answer) => ({ isValid: false, validationErrors: [`checked ${answer}`] }) }).synthesize({ bestPath: tree.path(a.id), problem: 'p', taskType: 't' });
    expect(s.verification).toEqual({ isValid: false, validationErrors: ['checked (10 - (13 - 9)) * 4 = 24'] });
    expect(s.answer).toBe('(10 - (13 - 9)) * 4 = 24');
  });

  it("reports a throwing verifier as not valid, with the error", async () => {
    const { tree, a } = treeWithStep();
    const s = await createSynthesizer({ model: mockModel(reply), verify: () => { throw new Error('parser crashed'); } }).synthesize({ bestPath: tree.path(a.id), problem: 'p', taskType: 't' });
    expect(s.verification).toEqual({ isValid: false, validationErrors: ['verifier failed: parser crashed'] });
  });

  it("falls back to the model's own check without a verifier", async () => {
    const { tree, a } = treeWithStep();
    const s = await createSynthesizer({ model: mockModel(reply) }).synthesize({ bestPath: tree.path(a.id), problem: 'p', taskType: 't' });
    expect(s.verification).toEqual({ isValid: true });
    expect(s.reasoningTrace).toEqual(['13 - 9 = 4']);
  });
});
