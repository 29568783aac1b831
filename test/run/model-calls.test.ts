import { describe, expect, it } from 'vitest';
import { bfs, createEvaluator, createGenerator, Explorer, type GenerateRequest, type LlmRequestedEvent, type RunEventBase } from '../../src/index.js';
import { ChainOfThoughtNode } from '../../src/cot/index.js';
import { mockModel } from '../../src/testing/index.js';

const requested = (events: RunEventBase[]) => events.filter((e): e is LlmRequestedEvent => e.type === 'llm.requested');

describe('the model-call log', () => {
  it('logs each request as the caller asked it, before a token budget capped its output', async () => {
    const model = mockModel((r) => (r.tags?.role === 'generator' ? '{"candidates": [{"content": "a"}]}' : '{"score": 6, "confidence": 1, "reasoning": ""}'));
    const events: RunEventBase[] = [];
    const explorer = new Explorer({ generator: createGenerator({ model }), evaluator: createEvaluator({ model }), strategy: bfs({ beamWidth: 1 }), maxDepth: 1, budget: { maxTotalTokens: 100_000 } });
    await explorer.run('R', { onEvent: (e) => events.push(e) });
    const sent: GenerateRequest[] = model.calls.map((c) => c.request);
    expect(sent.every((r) => r.maxOutputTokens !== undefined)).toBe(true);
    expect(requested(events).map((e) => e.request.maxOutputTokens)).toEqual(sent.map(() => undefined));
    expect(requested(events).map((e) => e.request.messages)).toEqual(sent.map((r) => r.messages));
  });

  it('keeps each logged request as it was when its call was made, also when a repair follows', async () => {
    const model = mockModel(['not JSON at all', '{"current_thinking": "4", "planning": [], "next_thought_needed": false}']);
    const events: RunEventBase[] = [];
    await new ChainOfThoughtNode({ model, format: 'json' }).run('2 + 2?', { onEvent: (e) => events.push(structuredClone(e)) });
    const atEmission = requested(events).map((e) => e.request.messages.length);
    expect(atEmission).toEqual([1, 3]);
    const emitted: RunEventBase[] = [];
    await new ChainOfThoughtNode({ model: mockModel(['not JSON at all', '{"current_thinking": "4", "planning": [], "next_thought_needed": false}']), format: 'json' }).run('2 + 2?', { onEvent: (e) => emitted.push(e) });
    // The same event objects, read after the run: unchanged.
    expect(requested(emitted).map((e) => e.request.messages.length)).toEqual(atEmission);
  });
});
