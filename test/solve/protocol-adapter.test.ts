import { describe, expect, it } from 'vitest';
import { createProtocolHandler, Explorer, protocolEvaluator, protocolGenerator, protocolMessageSchema, type ProtocolMessage } from '../../src/index.js';
import { mockModel } from '../../src/testing/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';
import { scriptedRoles } from '../search/fixtures.js';

const envelope = { from: 'orchestrator' as const, to: 'explorer', task_id: 't1' };

describe('createProtocolHandler', () => {
  it('answers initialize_search with search_complete, in the seed format', async () => {
    const handler = createProtocolHandler(scriptedRoles());
    const reply = await handler.handle({
      ...envelope,
      type: 'initialize_search',
      payload: { problem: 'R', task_type: 'planning', search_config: { strategy: 'BFS', max_depth: 2, branching_factor: 5, pruning_threshold: 3 }, decomposition_result: {} },
    });
    expect(protocolMessageSchema.safeParse(reply).success).toBe(true);
    expect(reply).toMatchObject({ from: 'explorer', to: 'orchestrator', task_id: 't1', type: 'search_complete' });
    if (reply.type !== 'search_complete') throw new Error('unexpected reply');
    expect(reply.payload.best_path.map((n) => n.content)).toEqual(['R', 'B', 'B2']);
    expect(reply.payload.stats).toMatchObject({ total_nodes: 8, total_backtracks: 0, llm_calls: 0, stop_reason: 'max_depth' });
    expect(reply.payload.tree.search_config).toEqual({ strategy: 'BFS', max_depth: 2, branching_factor: 5, pruning_threshold: 3 });
  });

  it('answers decompose_task, generate_thoughts, evaluate_thoughts and synthesize_solution', async () => {
    const model = mockModel((r) => {
      const text = r.messages[0]!.content;
      if (text.includes('Analyse')) return '{"thought_granularity": "equation", "intermediate_steps": [], "depth_estimate": 3, "constraints": [], "success_criteria": "24"}';
      if (text.includes('Propose')) return '{"candidates": [{"content": "13 - 9 = 4", "actionType": "subtraction"}]}';
      if (text.includes('Candidate step')) return '{"score": 7.5, "confidence": 0.8, "reasoning": "multiple of 4"}';
      return '{"answer": "(10 - (13 - 9)) * 4 = 24", "reasoning_trace": ["13 - 9 = 4"], "confidence": 1}';
    });
    const handler = createProtocolHandler({ model, verify: () => true });
    const node = { id: 'node_1_1', parent_id: 'root', children_ids: [], depth: 1, content: '13 - 9 = 4', evaluation: null, status: 'pending' as const, metadata: {} };
    const replies = await Promise.all([
      handler.handle({ ...envelope, to: 'decomposer', type: 'decompose_task', payload: { problem: '4 9 10 13', task_type: 'math_reasoning' } }),
      handler.handle({ ...envelope, from: 'explorer', to: 'generator', type: 'generate_thoughts', payload: { parent_node: node, generation_strategy: 'sequential_proposal', num_candidates: 1, context: { problem: '4 9 10 13', goal: '24', constraints: [] } } }),
      handler.handle({ ...envelope, from: 'explorer', to: 'evaluator', type: 'evaluate_thoughts', payload: { candidates: [node], evaluation_strategy: 'independent_scoring', evaluation_criteria: [], context: { problem: '4 9 10 13', goal: '24', current_depth: 1, max_depth: 3 } } }),
      handler.handle({ ...envelope, from: 'explorer', to: 'synthesizer', type: 'synthesize_solution', payload: { best_path: [node], problem: '4 9 10 13', task_type: 'math_reasoning' } }),
    ]);
    expect(replies.map((r) => r.type)).toEqual(['decomposition_result', 'generated_thoughts', 'evaluation_results', 'final_solution']);
    for (const reply of replies) expect(protocolMessageSchema.safeParse(reply).success).toBe(true);
    expect(replies[1]!.payload).toEqual({ candidates: [{ temp_id: 'cand_1', content: '13 - 9 = 4', action_type: 'subtraction' }] });
    expect(replies[2]!.payload).toEqual({ evaluations: [{ node_id: 'node_1_1', score: 7.5, confidence: 0.8, reasoning: 'multiple of 4' }], ranking: ['node_1_1'], pruning_suggestions: [] });
    expect(replies[3]!.payload).toMatchObject({ answer: '(10 - (13 - 9)) * 4 = 24', verification: { is_valid: true } });
  });

  it('answers a role failure with the seed error object', async () => {
    const handler = createProtocolHandler({ ...scriptedRoles(), generator: { generate: async () => { throw new Error('down'); } } });
    const node = { id: 'n', parent_id: null, children_ids: [], depth: 0, content: 'R', evaluation: null, status: 'pending' as const, metadata: {} };
    const reply = await handler.handle({ ...envelope, type: 'generate_thoughts', payload: { parent_node: node, generation_strategy: 'sequential_proposal', num_candidates: 2, context: { problem: 'R', goal: 'g', constraints: [] } } });
    expect(reply).toMatchObject({ type: 'generated_thoughts', payload: { candidates: [] }, error: { code: 'GENERATION_FAILED', recoverable: true } });
  });

  it('throws INVALID_FORMAT for a message that is not protocol or is a reply', async () => {
    const handler = createProtocolHandler(scriptedRoles());
    await catchTotError(() => handler.handle({ type: 'decompose_task' }), 'INVALID_FORMAT');
    await catchTotError(() => handler.handle({ ...envelope, type: 'generated_thoughts', payload: { candidates: [] } }), 'INVALID_FORMAT');
  });
});

describe('protocolGenerator and protocolEvaluator', () => {
  it('let an Explorer use roles served by a remote peer over seed messages', async () => {
    const peer = createProtocolHandler(scriptedRoles());
    const sent: ProtocolMessage[] = [];
    const send = async (message: ProtocolMessage) => {
      sent.push(message);
      return JSON.parse(JSON.stringify(await peer.handle(JSON.parse(JSON.stringify(message)))));
    };
    const result = await new Explorer({ generator: protocolGenerator({ send }), evaluator: protocolEvaluator({ send }), maxDepth: 2, pruningThreshold: 3 }).run('R');
    expect(result.bestPath.map((n) => n.content)).toEqual(['R', 'B', 'B2']);
    expect(new Set(sent.map((m) => m.type))).toEqual(new Set(['generate_thoughts', 'evaluate_thoughts']));
  });

  it('turn a reply carrying an error into a TotError with its code', async () => {
    const generator = protocolGenerator({ send: async (m) => ({ from: 'generator', to: 'explorer', task_id: m.task_id, type: 'generated_thoughts', payload: { candidates: [] }, error: { code: 'EVALUATION_TIMEOUT', message: 'slow', recoverable: true } }) });
    const { tree } = { tree: new (await import('../../src/index.js')).ThoughtTree({ problem: 'p' }) };
    const error = await catchTotError(() => generator.generate({ tree, parent: tree.root, k: 1, context: { problem: 'p', taskType: 't', maxDepth: 1 } }), 'EVALUATION_TIMEOUT');
    expect(error.message).toContain('remote generator: slow');
  });
});
