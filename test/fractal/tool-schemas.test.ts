import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod-v3';
import { FractalSolver, type FractalTool, type ThinkFunction } from '../../src/fractal/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

// A tool whose input, `{ text: string }`, is written in each schema library.
const inputs = {
  'zod 4': z.object({ text: z.string() }),
  'zod 3': z3.object({ text: z3.string() }),
  valibot: v.object({ text: v.string() }),
};

const words = (input: FractalTool['input']): FractalTool => ({ input, run: (value) => (value as { text: string }).text.split(' ').length });

/** Think calls the tool with a good input and a bad one, and returns what the good call answered. */
const think: ThinkFunction = async ({ callTool }) => {
  const count = await callTool('words', { text: 'one two three' });
  await callTool('words', { text: 42 }).catch(() => undefined);
  return { type: 'RETURN', description: `${String(count)} words` };
};

describe("a fractal tool's input schema", () => {
  it.each(Object.keys(inputs) as (keyof typeof inputs)[])('may be a %s schema: a good input runs the tool, a bad one is refused naming the field', async (library) => {
    const result = await new FractalSolver({ think, eval: () => ({ type: 'RETURN', description: 'x' }), tools: { words: words(inputs[library]) } }).run('count');
    expect(result.result).toBe('3 words');
    const [good, bad] = result.root.get('f0')!.toolCalls;
    expect(good).toEqual({ tool: 'words', input: { text: 'one two three' }, output: 3 });
    expect(bad!.error).toMatch(/^tool "words": ✖ .*\n {2}→ at text$/);
  });

  it('may validate asynchronously', async () => {
    const known = v.objectAsync({ text: v.pipeAsync(v.string(), v.checkAsync(async (text) => text.startsWith('one'), 'must start with one')) });
    const result = await new FractalSolver({ think, eval: () => ({ type: 'RETURN', description: 'x' }), tools: { words: words(known) } }).run('count');
    expect(result.result).toBe('3 words');
  });

  it('must be a Standard Schema: anything else is refused with INVALID_ARGUMENT naming the tool', async () => {
    const error = await catchTotError(() => new FractalSolver({ think, eval: () => ({ type: 'RETURN', description: 'x' }), tools: { words: { input: { text: 'string' }, run: () => 0 } as never } }), 'INVALID_ARGUMENT');
    expect(error.message).toBe('FractalSolver: options.tools.words.input: expected a Standard Schema (zod 3.24+, zod 4, valibot, arktype, …)');
  });
});
