import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { callModel, generateStructured } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { ask, catchTotError, delay } from '../helpers/expect-tot-error.js';
import { settlesWithin } from '../helpers/settles-within.js';

describe('scriptedModel', () => {
  it('answers with the first matching rule', async () => {
    const model = scriptedModel({
      rules: [
        { name: 'propose', when: 'Possible next steps', reply: '4 + 9 = 13' },
        { name: 'value', when: /Evaluate/i, reply: 'sure' },
      ],
    });
    expect((await callModel(model, ask('Input: 4 9 10 13\nPossible next steps:'))).outputs).toEqual(['4 + 9 = 13']);
    expect((await callModel(model, ask('evaluate 10 14'))).outputs).toEqual(['sure']);
    expect(model.calls.map((c) => c.rule)).toEqual(['propose', 'value']);
    expect(model.usesByRule()).toEqual({ propose: 1, value: 1 });
  });

  it('matches on the whole conversation, the system prompt included', async () => {
    const model = scriptedModel({ rules: [{ when: 'strict judge', reply: 'ok' }] });
    const request = { messages: [{ role: 'system' as const, content: 'You are a strict judge.' }, { role: 'user' as const, content: 'go' }] };
    expect((await callModel(model, request)).outputs).toEqual(['ok']);
  });

  it('matches with a predicate on the request', async () => {
    const model = scriptedModel({ rules: [{ when: (r) => r.tags?.role === 'evaluator', reply: '7' }] });
    expect((await callModel(model, ask('x', { tags: { role: 'evaluator' } }))).outputs).toEqual(['7']);
  });

  it('spends a rule after `times` uses or after its replies, then falls through', async () => {
    const model = scriptedModel({
      rules: [
        { name: 'once', when: 'q', reply: 'first', times: 1 },
        { name: 'list', when: 'q', reply: ['second', 'third'] },
        { name: 'fallback', when: 'q', reply: 'rest' },
      ],
    });
    const outputs = [];
    for (let i = 0; i < 5; i++) outputs.push((await callModel(model, ask('q'))).outputs[0]);
    expect(outputs).toEqual(['first', 'second', 'third', 'rest', 'rest']);
  });

  it('fails an unmatched request with an error that prints the request and the rules', async () => {
    const model = scriptedModel({ rules: [{ name: 'propose', when: 'Possible next steps', reply: 'x' }] });
    const error = await catchTotError(() => callModel(model, ask('Something unexpected', { temperature: 0.7 })), 'GENERATION_FAILED');
    expect(error.message).toContain('no rule matches call #1');
    expect(error.message).toContain('[user] Something unexpected');
    expect(error.message).toContain('temperature=0.7');
    expect(error.message).toContain('propose (0/∞ uses)');
    expect(error.recoverable).toBe(false);
  });

  it('fails with INTERNAL naming the rule when a `when` predicate throws', async () => {
    const crash = new TypeError("Cannot read properties of undefined (reading 'role')");
    const model = scriptedModel({
      rules: [
        { name: 'propose', when: 'Possible next steps', reply: 'x' },
        {
          name: 'judge',
          when: () => {
            throw crash;
          },
          reply: 'y',
        },
      ],
    });
    const error = await catchTotError(() => model.generate(ask('Evaluate 4 9 10 13')), 'INTERNAL');
    expect(error.message).toContain('scriptedModel "scripted": the `when` of rule "judge" threw on call #1');
    expect(error.message).toContain("reading 'role'");
    expect(error.cause).toBe(crash);
    expect(model.calls[0]?.error).toBe(error);
    const unnamed = scriptedModel({ rules: [{ when: 'never', reply: 'x' }, { when: () => JSON.parse('{'), reply: 'y' }] });
    expect((await catchTotError(() => unnamed.generate(ask('q')), 'INTERNAL')).message).toContain('the `when` of rule #2 threw');
  });

  it('ends a call with ABORTED when its signal fires, even if a reply function ignores it', async () => {
    const model = scriptedModel({ rules: [{ when: 'q', reply: () => new Promise<string>(() => undefined) }] });
    const controller = new AbortController();
    const pending = model.generate(ask('q'), { signal: controller.signal });
    await delay(1);
    controller.abort();
    await catchTotError(() => settlesWithin(pending), 'ABORTED');
  });

  it('drives a repair loop: a rule can answer the repair request', async () => {
    const model = scriptedModel({
      rules: [
        { name: 'repair', when: 'could not be used', reply: '{"score": 8}' },
        { name: 'first try', when: 'Rate', reply: 'eight out of ten' },
      ],
    });
    const { value, attempts } = await generateStructured(model, { prompt: 'Rate it', schema: z.object({ score: z.number() }) });
    expect(value).toEqual({ score: 8 });
    expect(attempts).toBe(2);
  });

  it('validates its rules', async () => {
    const error = await catchTotError(() => scriptedModel({ rules: [] }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('options.rules');
    await catchTotError(() => scriptedModel({ rules: [{ when: 42 as never, reply: 'x' }] }), 'INVALID_ARGUMENT');
  });
});
