// Type-level checks, read by `npm run typecheck` (tsc over test/): a schema of zod 3, zod 4 or
// valibot is taken wherever a schema is, and the value comes back typed as the schema's output.
import * as v from 'valibot';
import { expectTypeOf } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod-v3';
import { generateStructured, parseStructured, type GenerateStructuredOptions, type LanguageModel } from '../../src/index.js';
import { assessPlan } from '../../src/sessions/index.js';
import type { AgentTool } from '../../src/deliberation/index.js';
import type { FractalTool } from '../../src/fractal/index.js';

declare const model: LanguageModel;

// zod 3: the output type, with a default filled in and a transform applied.
const zod3 = z3.object({ score: z3.number(), note: z3.string().default(''), tags: z3.string().transform((s) => s.split(',')) });
expectTypeOf(generateStructured(model, { prompt: 'p', schema: zod3 })).resolves.toEqualTypeOf<{
  value: { score: number; note: string; tags: string[] };
  attempts: number;
  rawOutputs: string[];
  usage: { inputTokens?: number; outputTokens?: number };
}>();
const parsed3 = parseStructured('{}', { schema: zod3 });
if (parsed3.success) expectTypeOf(parsed3.value).toEqualTypeOf<{ score: number; note: string; tags: string[] }>();

// valibot: likewise, an optional key with a default is there in the output.
const valibot = v.object({ score: v.number(), note: v.optional(v.string(), '') });
expectTypeOf(generateStructured(model, { prompt: 'p', schema: valibot })).resolves.toHaveProperty('value').toEqualTypeOf<{ score: number; note: string }>();
const parsedV = parseStructured('{}', { schema: valibot });
if (parsedV.success) expectTypeOf(parsedV.value).toEqualTypeOf<{ score: number; note: string }>();

// zod 4, as before: the options may still be typed by the schema's type.
const zod4 = z.object({ score: z.number() });
const options: GenerateStructuredOptions<typeof zod4> = { prompt: 'p', schema: zod4 };
expectTypeOf(generateStructured(model, options)).resolves.toHaveProperty('value').toEqualTypeOf<{ score: number }>();

// A tool's run gets the schema's output, whichever library wrote it.
const fractalTool: FractalTool<typeof valibot> = { input: valibot, run: (input) => expectTypeOf(input).toEqualTypeOf<{ score: number; note: string }>() };
const agentTool: AgentTool<typeof zod3> = { name: 't', description: 'd', input: zod3, run: (input) => expectTypeOf(input).toEqualTypeOf<{ score: number; note: string; tags: string[] }>() };
export const tools = [fractalTool, agentTool];

// A custom plan schema of another library.
assessPlan({}, { schema: v.looseObject({ owner: v.string() }) });

// Not a schema: refused by the types too.
// @ts-expect-error a plain object is not a Standard Schema
generateStructured(model, { prompt: 'p', schema: { score: 'number' } });
