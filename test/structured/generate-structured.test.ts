import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { generateStructured, TotError } from '../../src/index.js';
import { mockModel, scriptedModel } from '../../src/testing/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

const score = z.object({ score: z.number().min(0).max(10) });

describe('generateStructured', () => {
  it('returns the typed value, the attempts and the usage', async () => {
    const model = mockModel('{"score": 7}', { usage: { inputTokens: 10, outputTokens: 4 } });
    const result = await generateStructured(model, { prompt: 'Rate it', schema: score });
    expect(result).toEqual({ value: { score: 7 }, attempts: 1, rawOutputs: ['{"score": 7}'], usage: { inputTokens: 10, outputTokens: 4 } });
  });

  it('re-asks with the error and the bad reply, then succeeds', async () => {
    const model = mockModel(['{"score": 11}', '{"score": 9}']);
    const result = await generateStructured(model, { prompt: 'Rate it', schema: score });
    expect(result.value).toEqual({ score: 9 });
    expect(result.attempts).toBe(2);
    const repair = model.calls[1]!.request.messages;
    expect(repair.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(repair[1]!.content).toBe('{"score": 11}');
    expect(repair[2]!.content).toContain('score');
    expect(repair[2]!.content).toContain('could not be used');
  });

  it('throws INVALID_FORMAT with every raw output when repairs run out', async () => {
    const model = mockModel(['nope', 'still nope', '{"score": -1}']);
    const error = await catchTotError(() => generateStructured(model, { prompt: 'Rate it', schema: score, maxRepairs: 2 }), 'INVALID_FORMAT');
    expect(error.details?.rawOutputs).toEqual(['nope', 'still nope', '{"score": -1}']);
    expect((error.details?.issues as { path: string[] }[])[0]?.path).toEqual(['score']);
    expect(model.callCount).toBe(3);
  });

  it('says the reply did not match the schema when it was valid JSON of the wrong shape', async () => {
    const error = await catchTotError(() => generateStructured(mockModel('{"score": "high"}'), { prompt: 'Rate it', schema: score, maxRepairs: 0 }), 'INVALID_FORMAT');
    expect(error.message).toContain('did not produce a reply matching the schema after 1 attempt(s)');
    expect(error.message).not.toContain('valid JSON');
  });

  it('says the reply was not valid JSON when it could not be read', async () => {
    const error = await catchTotError(() => generateStructured(mockModel('{"score": '), { prompt: 'Rate it', schema: score, maxRepairs: 0 }), 'INVALID_FORMAT');
    expect(error.message).toContain('did not produce valid JSON after 1 attempt(s)');
  });

  it('makes exactly one call when maxRepairs is 0', async () => {
    const model = mockModel(['bad', '{"score": 1}']);
    await catchTotError(() => generateStructured(model, { prompt: 'x', schema: score, maxRepairs: 0 }), 'INVALID_FORMAT');
    expect(model.callCount).toBe(1);
  });

  it('uses a custom repair prompt', async () => {
    const model = mockModel(['bad', '{"score": 1}']);
    await generateStructured(model, { prompt: 'x', schema: score, repairPrompt: (c) => `FIX #${c.attempt}: ${c.format}` });
    expect(model.prompts()[1]).toBe('FIX #1: json');
  });

  it('asks the provider for JSON with the schema attached', async () => {
    const model = mockModel('{"score": 1}');
    await generateStructured(model, { prompt: 'x', schema: score, temperature: 0, tags: { role: 'evaluator' } });
    const request = model.calls[0]!.request;
    expect(request.responseFormat).toMatchObject({ type: 'json', schema: { type: 'object', required: ['score'] } });
    expect(request.temperature).toBe(0);
    expect(request.tags).toEqual({ role: 'evaluator' });
  });

  it('sends no responseFormat for YAML', async () => {
    const model = mockModel('score: 3');
    const result = await generateStructured(model, { prompt: 'x', schema: score, format: 'yaml' });
    expect(result.value).toEqual({ score: 3 });
    expect(model.calls[0]!.request.responseFormat).toBeUndefined();
  });

  it('puts the system prompt first', async () => {
    const model = mockModel('{"score": 1}');
    await generateStructured(model, { system: 'You are a strict judge.', prompt: 'x', schema: score });
    expect(model.calls[0]!.request.messages).toEqual([
      { role: 'system', content: 'You are a strict judge.' },
      { role: 'user', content: 'x' },
    ]);
  });

  it('keeps the code of a model failure', async () => {
    const model = scriptedModel({ rules: [{ when: 'never matches', reply: 'x' }] });
    await catchTotError(() => generateStructured(model, { prompt: 'x', schema: score }), 'GENERATION_FAILED');
  });

  it('stops with ABORTED when the signal is aborted', async () => {
    await catchTotError(() => generateStructured(mockModel('{"score":1}'), { prompt: 'x', schema: score, signal: AbortSignal.abort() }), 'ABORTED');
  });

  it('requires exactly one of prompt or messages', async () => {
    const error = await catchTotError(() => generateStructured(mockModel('x'), { schema: score } as never), 'INVALID_ARGUMENT');
    expect(error.message).toContain('options.messages');
    await catchTotError(() => generateStructured(mockModel('x'), { schema: score, prompt: 'a', messages: [{ role: 'user', content: 'b' }] }), 'INVALID_ARGUMENT');
  });

  it('requires a zod schema', async () => {
    const error = await catchTotError(() => generateStructured(mockModel('x'), { prompt: 'x', schema: { parse() {} } as never }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('options.schema');
    expect(TotError.isInstance(error)).toBe(true);
  });
});
