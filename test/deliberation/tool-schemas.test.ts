import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod-v3';
import { runToolCall, toolInstructions, type AgentTool } from '../../src/deliberation/tools/index.js';
import { Deliberation } from '../../src/deliberation/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';
import { fixedRounds, scriptedAgent } from './fixtures/scripted-debate.js';

// An agent tool whose input, `{ a: number, b: number }`, is written in each schema library.
const inputs = {
  'zod 4': z.object({ a: z.number(), b: z.number() }),
  'zod 3': z3.object({ a: z3.number(), b: z3.number() }),
  valibot: v.object({ a: v.number(), b: v.number() }),
};
const add = (input: AgentTool['input']): AgentTool => ({ name: 'add', description: 'Adds two numbers.', input, run: (value) => ({ sum: (value as { a: number }).a + (value as { b: number }).b }) });

describe("an agent tool's input schema", () => {
  it.each(Object.keys(inputs) as (keyof typeof inputs)[])('may be a %s schema: a good request is answered, a bad one told which field is wrong', async (library) => {
    const tools = [add(inputs[library])];
    expect(await runToolCall(tools, { tool: 'add', a: 2, b: 3 })).toEqual({ tool: 'add', success: true, data: { sum: 5 } });
    const bad = await runToolCall(tools, { tool: 'add', a: 2, b: 'three' });
    expect(bad).toMatchObject({ tool: 'add', success: false });
    expect(bad.error).toMatch(/^Invalid input for add: b: .*number/i);
  });

  it('may validate asynchronously', async () => {
    const positive = v.objectAsync({ a: v.pipeAsync(v.number(), v.checkAsync(async (a) => a > 0, 'a must be positive')), b: v.number() });
    expect(await runToolCall([add(positive)], { tool: 'add', a: -1, b: 3 })).toMatchObject({ success: false, error: expect.stringContaining('a: a must be positive') });
  });

  it("shows the model a zod 4 schema's fields, and a schema without a JSON Schema by name only", () => {
    expect(toolInstructions([add(inputs['zod 4'])])).toContain('Send {"tool": "add", "a": number, "b": number}. Fields: a (required); b (required).');
    expect(toolInstructions([add(inputs.valibot)])).toContain('- add: Adds two numbers. Send {"tool": "add"}.');
  });

  it('must be a Standard Schema: a deliberation refuses a tool without one with INVALID_ARGUMENT naming the field', async () => {
    const tool = { name: 'add', description: 'Adds.', input: { a: 'number' }, run: () => 0 };
    const error = await catchTotError(() => new Deliberation({ agents: [scriptedAgent('a', ['x'])], host: fixedRounds(1), tools: [tool as never] }), 'INVALID_ARGUMENT');
    expect(error.message).toBe('Deliberation: options.tools[0].input: expected a Standard Schema (zod 3.24+, zod 4, valibot, arktype, …)');
  });
});
