import {
  createDecomposer,
  createEvaluator,
  createGenerator,
  createSynthesizer,
  parseStructured,
  ThoughtTree,
  TotError,
  type GenerateRequest,
} from '@tot/core';
import { criticReplySchema, plannerReplySchema, reporterReplySchema } from '@tot/core/deliberation';
import { evalReplySchema, thinkReplySchema } from '@tot/core/fractal';
import { chainOfThoughtReplySchema } from '@tot/core/cot';
import { roleModel } from '@tot/core/testing';
import { describe, expect, it } from 'vitest';

const ask = (role: string | undefined, tags: Record<string, string> = {}, extra: Partial<GenerateRequest> = {}): GenerateRequest => ({
  messages: [{ role: 'user', content: 'A prompt whose wording the model never reads.' }],
  tags: role === undefined ? tags : { role, ...tags },
  ...extra,
});

/** A tree with one candidate under the root, as the roles are given it. */
function treeWithCandidate(content: string) {
  const tree = new ThoughtTree({ problem: 'Use 4 9 10 13 to make 24.', taskType: 'math_reasoning' });
  const node = tree.addChild(tree.rootId, { content });
  const context = { problem: 'Use 4 9 10 13 to make 24.', taskType: 'math_reasoning', maxDepth: 3 };
  return { tree, node, context };
}

describe('roleModel replies', () => {
  it('answers every call of a role with its fixed value', async () => {
    const model = roleModel({ replies: { critic: 'The plan lacks a rollback.' } });
    const a = await model.generate(ask('critic'));
    const b = await model.generate(ask('critic'));
    expect([a.outputs, b.outputs]).toEqual([['The plan lacks a rollback.'], ['The plan lacks a rollback.']]);
  });

  it('serves an array of replies in call order, counted per role', async () => {
    const model = roleModel({ replies: { critic: ['first', 'second'], judge: 'verdict' } });
    const outputs = [];
    for (const role of ['critic', 'judge', 'critic']) outputs.push((await model.generate(ask(role))).outputs[0]);
    expect(outputs).toEqual(['first', 'verdict', 'second']);
  });

  it('tells a reply function what the call is about, from its tags', async () => {
    const seen: unknown[] = [];
    const model = roleModel({
      replies: {
        critic: (call) => {
          seen.push({ role: call.role, index: call.index, round: call.round, branch: call.branch });
          return 'ok';
        },
      },
    });
    await model.generate(ask('critic', { branch: 'b1', round: '2' }));
    expect(seen).toEqual([{ role: 'critic', index: 0, round: 2, branch: 'b1' }]);
  });

  it('fails the call with an Error given as the reply', async () => {
    const model = roleModel({ replies: { critic: new Error('provider down') } });
    await expect(model.generate(ask('critic'))).rejects.toThrow('provider down');
  });

  it('treats a flat list as one generator reply and a list of lists as replies in order', async () => {
    const model = roleModel({ replies: { generator: [['a'], ['b', 'c']] } });
    const first = await model.generate(ask('generator', { strategy: 'sequential_proposal' }));
    const second = await model.generate(ask('generator', { strategy: 'sequential_proposal' }));
    expect([JSON.parse(first.outputs[0]!), JSON.parse(second.outputs[0]!)]).toEqual([{ candidates: [{ content: 'a' }] }, { candidates: [{ content: 'b' }, { content: 'c' }] }]);
  });
});

describe('roleModel writes each role reply as the default parser reads it', () => {
  it('generator (one list of candidates): thoughts as strings', async () => {
    const model = roleModel({ replies: { generator: ['13 - 9 = 4 (left: 4 4 10)', '10 - 4 = 6 (left: 4 6 13)'] } });
    const { tree, context } = treeWithCandidate('unused');
    const candidates = await createGenerator({ model }).generate({ tree, parent: tree.root, k: 2, context });
    expect(candidates.map((c) => c.content)).toEqual(['13 - 9 = 4 (left: 4 4 10)', '10 - 4 = 6 (left: 4 6 13)']);
  });

  it('generator (independent samples): one thought per sample', async () => {
    const model = roleModel({ replies: { generator: ['first sample', 'second sample'] } });
    const { tree, context } = treeWithCandidate('unused');
    const candidates = await createGenerator({ model, strategy: 'independent_sampling' }).generate({ tree, parent: tree.root, k: 2, context });
    expect(candidates.map((c) => c.content)).toEqual(['first sample', 'second sample']);
  });

  it('evaluator (scoring): a number is the score of the thought', async () => {
    const model = roleModel({ replies: { evaluator: ({ thought }) => (thought.includes('24') ? 10 : 3) } });
    const { tree, node, context } = treeWithCandidate('4 * 6 = 24 (left: 24)');
    const batch = await createEvaluator({ model }).evaluate({ tree, candidates: [node], context });
    expect(batch.evaluations[0]?.score).toBe(10);
  });

  it('evaluator (voting): a number is the candidate voted for', async () => {
    const model = roleModel({ replies: { evaluator: 2 } });
    const { tree, node, context } = treeWithCandidate('first');
    const second = tree.addChild(tree.rootId, { content: 'second' });
    const batch = await createEvaluator({ model, strategy: 'comparative_voting' }).evaluate({ tree, candidates: [node, second], context });
    expect(batch.ranking).toEqual([second.id, node.id]);
  });

  it('decomposer: the decomposition', async () => {
    const model = roleModel({ replies: { decomposer: { thought_granularity: 'equation', intermediate_steps: ['a', 'b'], depth_estimate: 2, success_criteria: 'reaches 24' } } });
    const d = await createDecomposer({ model }).decompose({ problem: 'p', taskType: 'math_reasoning' });
    expect(d).toMatchObject({ thoughtGranularity: 'equation', depthEstimate: 2 });
  });

  it('synthesizer: a string is a confident, self-checked answer', async () => {
    const model = roleModel({ replies: { synthesizer: '(10 - 4) * (13 - 9) = 24' } });
    const s = await createSynthesizer({ model }).synthesize({ problem: 'p', taskType: 'math_reasoning', bestPath: [] });
    expect(s).toMatchObject({ answer: '(10 - 4) * (13 - 9) = 24', confidence: 1, verification: { isValid: true } });
  });

  it.each([
    ['think', thinkReplySchema, { type: 'TODO', description: '1. Outline' }],
    ['eval', evalReplySchema, { type: 'CALL', description: 'Outline' }],
    ['chain-of-thought', chainOfThoughtReplySchema, { current_thinking: 'x', planning: [{ description: 'y', status: 'Done' }], next_thought_needed: false }],
    ['planner', plannerReplySchema, { content: 'c', position: { conclusion: 'c', key_reasons: ['r'], confidence: 0.5 }, plan: { title: 't', phases: [{ phase_name: 'p' }] } }],
    ['critic', criticReplySchema, { content: 'c', position: { conclusion: 'c', key_reasons: ['r'], confidence: 0.5 }, critique: {} }],
    ['reporter', reporterReplySchema, { content: 'c', final_plan: { title: 't' }, summary: {} }],
  ] as const)('%s: the value, read back by its reply schema', async (role, schema, value) => {
    const model = roleModel({ replies: { [role]: value } });
    const text = (await model.generate(ask(role))).outputs[0]!;
    expect(parseStructured(text, { schema }).success).toBe(true);
  });
});

describe('roleModel in strict mode', () => {
  it('fails a call of a role with no reply naming the role, what the call is about and the roles that have replies', async () => {
    const model = roleModel({ replies: { generator: ['a'] } });
    const error = await model.generate(ask('evaluator', { node: 'node_1_2', depth: '1', thought: '13 - 9 = 4' })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TotError);
    expect((error as TotError).code).toBe('GENERATION_FAILED');
    expect((error as TotError).message).toBe(
      'roleModel "role-model": no reply for role "evaluator" (call #1: node "node_1_2", depth 1, thought "13 - 9 = 4"). Roles with replies: generator.',
    );
  });

  it('fails a call whose role has used up its replies', async () => {
    const model = roleModel({ replies: { critic: ['only one'] } });
    await model.generate(ask('critic'));
    await expect(model.generate(ask('critic'))).rejects.toThrow('the 1 replies for role "critic" are used up (call #2)');
  });

  it('fails a call with no role tag, showing its tags', async () => {
    const model = roleModel({ replies: { critic: 'x' } });
    await expect(model.generate(ask(undefined, { purpose: 'mine' }))).rejects.toThrow('call #1 has no role tag (tags: {"purpose":"mine"})');
  });

  it('repeats the last reply of a used-up list when not strict', async () => {
    const model = roleModel({ replies: { critic: ['first', 'last'] }, strict: false });
    const outputs = [];
    for (let i = 0; i < 3; i++) outputs.push((await model.generate(ask('critic'))).outputs[0]);
    expect(outputs).toEqual(['first', 'last', 'last']);
  });
});

describe('roleModel calls', () => {
  it('records every call with its role', async () => {
    const model = roleModel({ replies: { critic: 'c', judge: 'j' } });
    await model.generate(ask('critic'));
    await model.generate(ask('judge'));
    expect(model.roles()).toEqual(['critic', 'judge']);
    expect(model.callsFor('judge').map((c) => c.result?.outputs)).toEqual([['j']]);
  });

  it('ends a call with ABORTED when its signal fires, even while a reply function waits', async () => {
    const model = roleModel({ replies: { critic: () => new Promise<string>(() => {}) } });
    const controller = new AbortController();
    const call = model.generate(ask('critic'), { signal: controller.signal });
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'ABORTED' });
  });
});
