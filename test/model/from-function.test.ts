import { describe, expect, it } from 'vitest';
import { callModel, fromFunction, messagesToPrompt } from '../../src/index.js';
import { ask, catchTotError } from '../helpers/expect-tot-error.js';

describe('fromFunction', () => {
  it('turns a prompt function into a model that passes a lone user message as the prompt', async () => {
    const seen: string[] = [];
    const model = fromFunction(async (prompt) => {
      seen.push(prompt);
      return prompt.toUpperCase();
    });
    const result = await callModel(model, ask('hello'));
    expect(result).toEqual({ outputs: ['HELLO'], usage: {} });
    expect(seen).toEqual(['hello']);
    expect(model.modelId).toBe('function');
  });

  it('flattens a conversation into labelled paragraphs', () => {
    expect(
      messagesToPrompt([
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello' },
      ]),
    ).toBe('System: Be brief.\n\nUser: Hi\n\nAssistant: Hello');
  });

  it('passes the whole request to a request function and accepts string, array or result', async () => {
    const model = fromFunction(async (request) => (request.n === 2 ? ['a', 'b'] : 'single'), {
      input: 'request',
      modelId: 'req',
      capabilities: { multipleOutputs: true },
    });
    expect((await callModel(model, ask('x'))).outputs).toEqual(['single']);
    expect((await callModel(model, ask('x', { n: 2 }))).outputs).toEqual(['a', 'b']);
    const full = fromFunction(async () => ({ outputs: ['r'], usage: { inputTokens: 3 } }), { input: 'request' });
    expect(await callModel(full, ask('x'))).toEqual({ outputs: ['r'], usage: { inputTokens: 3 } });
  });

  it('forwards the abort signal to the function', async () => {
    let received: AbortSignal | undefined;
    const model = fromFunction(async (_prompt, { signal }) => {
      received = signal;
      return 'ok';
    });
    const controller = new AbortController();
    await callModel(model, ask('x'), { signal: controller.signal });
    expect(received).toBe(controller.signal);
  });

  it('rejects bad options naming the field', async () => {
    await catchTotError(() => fromFunction('nope' as never), 'INVALID_ARGUMENT');
    const error = await catchTotError(() => fromFunction(async () => 'x', { input: 'stream' as never }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('options.input');
  });
});
