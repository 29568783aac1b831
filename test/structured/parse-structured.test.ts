import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseStructured } from '../../src/index.js';

const score = z.object({ score: z.number().min(0).max(10), reasoning: z.string() });

describe('parseStructured', () => {
  it('parses bare JSON', () => {
    expect(parseStructured('{"score": 7, "reasoning": "ok"}', { schema: score })).toMatchObject({ success: true, value: { score: 7, reasoning: 'ok' } });
  });

  it('parses a fenced JSON block with prose around it', () => {
    const text = 'Here is my evaluation:\n```json\n{"score": 8, "reasoning": "close"}\n```\nLet me know!';
    expect(parseStructured(text, { schema: score })).toMatchObject({ success: true, value: { score: 8 } });
  });

  it('finds a JSON object embedded in prose without a fence', () => {
    const text = 'I think {"score": 3, "reasoning": "the {hard} part"} is fair.';
    expect(parseStructured(text, { schema: score })).toMatchObject({ success: true, value: { score: 3, reasoning: 'the {hard} part' } });
  });

  it('skips an embedded object that does not match and takes the next that does', () => {
    const text = 'Example: {"foo": 1}. Answer: {"score": 5, "reasoning": "mid"}';
    expect(parseStructured(text, { schema: score })).toMatchObject({ success: true, value: { score: 5 } });
  });

  it('prefers a fence in the requested format over other fences', () => {
    const text = '```yaml\nscore: 1\nreasoning: yaml\n```\n```json\n{"score": 9, "reasoning": "json"}\n```';
    expect(parseStructured(text, { schema: score, format: 'json' })).toMatchObject({ success: true, value: { reasoning: 'json' } });
  });

  it('parses fenced YAML', () => {
    const text = 'Sure.\n```yaml\nscore: 6\nreasoning: |\n  two lines\n  of reasons\n```';
    expect(parseStructured(text, { schema: score, format: 'yaml' })).toMatchObject({ success: true, value: { score: 6, reasoning: 'two lines\nof reasons\n' } });
  });

  it('reads a YAML key of three backticks as a key, not as a fence opening', () => {
    // As the yaml package writes the key "```": the rest of the reply is no fenced block.
    const text = '# reply\n"```": null\n"": false\n';
    expect(parseStructured(text, { schema: z.unknown(), format: 'yaml' })).toMatchObject({ success: true, value: { '```': null, '': false } });
  });

  it('still opens a fence whose language word is followed by more words on its line', () => {
    const text = 'Here:\n```yaml title="score"\nscore: 5\nreasoning: ok\n```';
    expect(parseStructured(text, { schema: score, format: 'yaml' })).toMatchObject({ success: true, value: { score: 5, reasoning: 'ok' } });
  });

  it('parses bare YAML with prose before and after', () => {
    const text = 'My answer follows.\nscore: 4\nreasoning: fine\n\nThanks for asking!';
    expect(parseStructured(text, { schema: score, format: 'yaml' })).toMatchObject({ success: true, value: { score: 4, reasoning: 'fine' } });
  });

  it('accepts JSON when YAML is asked for (YAML is a superset)', () => {
    expect(parseStructured('{"score": 2, "reasoning": "r"}', { schema: score, format: 'yaml' })).toMatchObject({ success: true });
  });

  it('reads a truncated reply whose fence never closes', () => {
    const text = '```json\n{"score": 7, "reasoning": "cut"}';
    expect(parseStructured(text, { schema: score })).toMatchObject({ success: true, value: { score: 7 } });
  });

  it('reports a schema mismatch with the zod issues', () => {
    const result = parseStructured('{"score": 42, "reasoning": "too high"}', { schema: score });
    expect(result.success).toBe(false);
    if (!result.success) {
      expect(result.error).toContain('score');
      expect(result.issues[0]?.path).toEqual(['score']);
    }
  });

  it('reports a syntax error when nothing parses', () => {
    const result = parseStructured('{"score": 7, "reasoning": ', { schema: score });
    expect(result).toMatchObject({ success: false, issues: [] });
    if (!result.success) expect(result.error).toMatch(/invalid JSON/);
  });

  it('reports an empty reply', () => {
    expect(parseStructured('   ', { schema: score })).toEqual({ success: false, error: 'the reply was empty', issues: [], reason: 'empty' });
  });

  it('survives pathological nesting without throwing', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    expect(parseStructured(deep, { schema: score }).success).toBe(false);
  });
});
