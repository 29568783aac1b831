import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  createProtocolMessage,
  parseProtocolMessage,
  protocolErrorSchema,
  protocolMessageSchema,
  protocolPayloadSchemas,
  ThoughtTree,
  TotError,
  type ProtocolMessageType,
} from '../../src/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

const examples = JSON.parse(readFileSync(new URL('./fixtures/seed-000-examples.json', import.meta.url), 'utf8')) as Record<string, unknown>;
const templates = JSON.parse(readFileSync(new URL('./fixtures/seed-000-templates.json', import.meta.url), 'utf8')) as Record<string, unknown>;

const envelope = (type: string, payload: unknown, from = 'explorer') => ({ from, to: 'orchestrator', task_id: 'game24-1', type, payload });

describe('seed-000 protocol schemas', () => {
  for (const type of ['decomposition_result', 'generated_thoughts', 'evaluation_results', 'final_solution'] as const) {
    it(`accepts the seed's ${type} example as written`, () => {
      expect(protocolPayloadSchemas[type].safeParse(examples[type]).success).toBe(true);
      expect(protocolMessageSchema.safeParse(envelope(type, examples[type])).success).toBe(true);
    });
  }

  it("rejects the seed's type templates, whose fields are type names rather than values", () => {
    expect(protocolErrorSchema.safeParse(templates.error).success).toBe(false);
    expect(protocolPayloadSchemas.decomposition_result.safeParse(templates.decomposition_result).success).toBe(false);
    expect(protocolPayloadSchemas.final_solution.safeParse(templates.final_solution).success).toBe(false);
  });

  it('has a schema for every message of the seed', () => {
    expect(Object.keys(protocolPayloadSchemas).sort()).toEqual(
      [
        'decompose_task',
        'decomposition_result',
        'evaluate_thoughts',
        'evaluation_results',
        'final_solution',
        'generate_thoughts',
        'generated_thoughts',
        'initialize_search',
        'search_complete',
        'synthesize_solution',
      ].sort(),
    );
  });

  it('validates the request messages of the Game of 24 flow', () => {
    const tree = new ThoughtTree({ problem: '用4、9、10、13得到24', taskType: 'math_reasoning', taskId: 'game24-1' });
    const child = tree.addChild(tree.rootId, { content: '13 - 9 = 4, 剩余: 4, 4, 10', actionType: 'subtraction' });
    const wire = tree.toProtocol();
    const messages: [ProtocolMessageType, unknown][] = [
      ['decompose_task', { problem: '用4、9、10、13得到24', task_type: 'math_reasoning' }],
      ['initialize_search', { problem: 'p', task_type: 'math_reasoning', search_config: wire.search_config, decomposition_result: examples.decomposition_result }],
      ['initialize_search', { problem: 'p', task_type: 'math_reasoning', search_config: wire.search_config, decomposition_result: {} }],
      [
        'generate_thoughts',
        { parent_node: wire.nodes.root, generation_strategy: 'sequential_proposal', num_candidates: 5, context: { problem: 'p', goal: '24', constraints: [] } },
      ],
      [
        'evaluate_thoughts',
        {
          candidates: [wire.nodes[child.id]],
          evaluation_strategy: 'independent_scoring',
          evaluation_criteria: ['correctness', 'progress'],
          context: { problem: 'p', goal: '24', current_depth: 1, max_depth: 3 },
        },
      ],
      ['search_complete', { best_path: [wire.nodes.root], tree: wire, stats: { total_nodes: 2, total_backtracks: 0, llm_calls: 2, input_tokens: 120 } }],
      ['synthesize_solution', { best_path: [wire.nodes.root], problem: 'p', task_type: 'math_reasoning' }],
    ];
    for (const [type, payload] of messages) {
      const result = protocolMessageSchema.safeParse(envelope(type, payload));
      expect(result.success, `${type}: ${result.success ? '' : result.error.message}`).toBe(true);
    }
  });

  it('keeps extra counters in search_complete stats', () => {
    const tree = new ThoughtTree({ problem: 'p' }).toProtocol();
    const parsed = protocolPayloadSchemas.search_complete.parse({ best_path: [], tree, stats: { total_nodes: 1, total_backtracks: 0, llm_calls: 0, input_tokens: 5 } });
    expect(parsed.stats.input_tokens).toBe(5);
  });

  it('rejects a payload that does not match its type', () => {
    expect(protocolMessageSchema.safeParse(envelope('final_solution', examples.decomposition_result)).success).toBe(false);
    expect(protocolMessageSchema.safeParse(envelope('no_such_type', {})).success).toBe(false);
    expect(protocolMessageSchema.safeParse({ ...envelope('final_solution', examples.final_solution), from: 'stranger' }).success).toBe(false);
  });

  it('rejects out-of-range scores and confidences', () => {
    const bad = structuredClone(examples.evaluation_results) as { evaluations: { score: number; confidence: number }[] };
    bad.evaluations[0]!.score = 11;
    expect(protocolPayloadSchemas.evaluation_results.safeParse(bad).success).toBe(false);
    bad.evaluations[0]!.score = 5;
    bad.evaluations[0]!.confidence = 1.5;
    expect(protocolPayloadSchemas.evaluation_results.safeParse(bad).success).toBe(false);
  });

  it('accepts an error object on any message', () => {
    const message = { ...envelope('generated_thoughts', { candidates: [] }, 'generator'), error: { code: 'GENERATION_FAILED', message: 'provider down', recoverable: true } };
    expect(protocolMessageSchema.safeParse(message).success).toBe(true);
  });
});

describe('parseProtocolMessage', () => {
  it('parses JSON text into a typed message', () => {
    const message = parseProtocolMessage(JSON.stringify(envelope('final_solution', examples.final_solution, 'synthesizer')));
    expect(message.type).toBe('final_solution');
    if (message.type === 'final_solution') expect(message.payload.answer).toBe('(10 - (13 - 9)) × 4 = 24');
  });

  it('throws INVALID_FORMAT for text that is not JSON or not a protocol message', async () => {
    await catchTotError(() => parseProtocolMessage('{not json'), 'INVALID_FORMAT');
    const error = await catchTotError(() => parseProtocolMessage(envelope('final_solution', { answer: 1 })), 'INVALID_FORMAT');
    expect(error.details?.issues).toBeDefined();
  });
});

describe('createProtocolMessage', () => {
  it('builds a valid envelope with a TotError converted to the wire error', () => {
    const message = createProtocolMessage({
      from: 'generator',
      to: 'explorer',
      taskId: 't1',
      type: 'generated_thoughts',
      payload: { candidates: [] },
      error: new TotError('GENERATION_FAILED', 'down'),
    });
    expect(message).toEqual({
      from: 'generator',
      to: 'explorer',
      task_id: 't1',
      type: 'generated_thoughts',
      payload: { candidates: [] },
      error: { code: 'GENERATION_FAILED', message: 'down', recoverable: true },
    });
  });

  it('refuses a payload that does not match the type, naming the field', async () => {
    const error = await catchTotError(
      () => createProtocolMessage({ from: 'synthesizer', to: 'x', taskId: 't', type: 'final_solution', payload: { answer: 'a' } as never }),
      'INVALID_ARGUMENT',
    );
    expect(error.message).toContain('options.payload.reasoning_trace');
  });
});
