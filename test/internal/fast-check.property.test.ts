import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { compileFastCheck, compileFastParse } from '../../src/internal/fast-check.js';
import { generateRequestSchema, generateResultSchema } from '../../src/model/schemas.js';
import { optionsSchema as generateStructuredOptionsSchema } from '../../src/structured/generate-structured.js';
import { evaluationSchema } from '../../src/tree/schemas.js';
import { aiSdkGenerateResultSchema, generateResultV2Schema, generateResultV3Schema } from '../../src/ai-sdk/ai-sdk-result.js';
import { chatCompletionSchema, embeddingsResponseSchema } from '../../src/openai/replies.js';

type Def = { type: string; checks?: { _zod: { def: Record<string, unknown> } }[] } & Record<string, unknown>;
const defOf = (s: unknown) => (s as { _zod: { def: Def } })._zod.def;

/** Values shaped by the schema, mostly valid, with junk, edge values, missing and unknown keys mixed in. */
function near(schema: unknown, depth = 0): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  const junk = fc.oneof(fc.constant(undefined), fc.constant(null), fc.string({ maxLength: 3 }), fc.integer(), fc.double(), fc.boolean(), fc.constant([]), fc.constant({}), fc.constant(Number.NaN), fc.constant(Object.create(null)));
  const valid = ((): fc.Arbitrary<unknown> => {
    switch (def.type) {
      case 'string':
        return fc.oneof({ arbitrary: fc.string({ minLength: 1, maxLength: 4 }), weight: 4 }, fc.string({ maxLength: 6 }));
      case 'number':
        // Mostly inside the usual bounds, with the edges and the values that are never valid.
        return fc.oneof({ arbitrary: fc.integer({ min: 1, max: 9 }), weight: 6 }, fc.integer({ min: -3, max: 12 }), fc.double({ min: -1, max: 11 }), fc.constantFrom(0, 1, 10, -0, 2 ** 53, Number.MAX_SAFE_INTEGER, Number.POSITIVE_INFINITY));
      case 'boolean':
        return fc.boolean();
      case 'enum':
        return fc.constantFrom(...Object.values(def.entries as object), 'other');
      case 'literal':
        return fc.constantFrom(...(def.values as unknown[]), 'other');
      case 'optional':
      case 'nullable':
        return fc.oneof(fc.constant(def.type === 'optional' ? undefined : null), near(def.innerType, depth));
      case 'array':
        return fc.array(near(def.element, depth + 1), { maxLength: depth > 2 ? 1 : 3 });
      case 'record':
        return fc.dictionary(fc.string({ maxLength: 4 }), near(def.valueType, depth + 1), { maxKeys: 3, noNullPrototype: true });
      case 'object': {
        const shape = def.shape as Record<string, unknown>;
        const fields = Object.fromEntries(Object.entries(shape).map(([k, s]) => [k, near(s, depth + 1)]));
        const required = Object.keys(shape).filter((k) => (shape[k] as { _zod: { optin?: string } })._zod.optin !== 'optional');
        const mutation = fc.oneof({ arbitrary: fc.constant('none'), weight: 10 }, fc.constantFrom('drop', 'extra'));
        return fc.tuple(fc.record(fields, { requiredKeys: required, noNullPrototype: true }), mutation, junk, fc.constantFrom('', ...Object.keys(shape))).map(([a, m, j, key]) => {
          if (m === 'drop') {
            const { [key]: _gone, ...rest } = a as Record<string, unknown>;
            return rest;
          }
          return m === 'extra' ? { ...a, extra: j } : a;
        });
      }
      case 'union':
        return fc.oneof(...(def.options as unknown[]).map((o) => near(o, depth)));
      case 'default':
        return fc.oneof(fc.constant(undefined), near(def.innerType, depth));
      case 'custom':
        // Custom checks here test for a function, a zod schema or an AbortSignal: offer each.
        return fc.constantFrom(() => 'x', z.string(), new AbortController().signal, 'x', 1);
      default:
        return fc.anything();
    }
  })();
  // Junk is rare at each level, so that whole values are often valid however deep they are.
  return fc.oneof({ arbitrary: valid, weight: depth === 0 ? 6 : 40 }, { arbitrary: junk, weight: 1 });
}

/** Every feature the compiler knows, in one schema. */
const kitchenSink = z.object({
  s: z.string().min(1).max(4),
  n: z.number().int().positive().max(10),
  f: z.number().min(0).lt(10).optional(),
  b: z.boolean(),
  e: z.enum(['a', 'b']),
  l: z.literal('x'),
  a: z.array(z.string()).min(1).max(2),
  r: z.record(z.string(), z.number()),
  u: z.union([z.object({ kind: z.literal('one'), v: z.number() }), z.object({ kind: z.literal('two'), w: z.string().optional() })]).optional(),
  o: z.object({ deep: z.string() }).loose().nullable(),
  st: z.strictObject({ k: z.number() }).optional(),
  any: z.unknown(),
  c: z.custom<() => unknown>((v) => typeof v === 'function').optional(),
}).refine((o) => o.s !== o.e, 'differs from e');

/** Every feature of options objects: strict, defaults, custom checks, a refinement over the defaulted value. */
const optionsSink = z
  .strictObject({
    name: z.string().min(1),
    format: z.enum(['json', 'yaml']).default('json'),
    retries: z.number().int().min(0).max(5).default(2),
    on: z.boolean().default(true),
    tags: z.record(z.string(), z.string()).optional(),
    fn: z.custom<() => unknown>((v) => typeof v === 'function').optional(),
  })
  .refine((o) => o.format === 'json' || o.retries < 5, 'yaml allows at most 4 retries');

const schemas: [string, z.ZodType][] = [
  ['GenerateRequest', generateRequestSchema],
  ['GenerateResult', generateResultSchema],
  ['Evaluation', evaluationSchema],
  ['chat completion (openai adapter)', chatCompletionSchema],
  ['embeddings response (openai adapter)', embeddingsResponseSchema],
  ['doGenerate result (AI SDK v3, v4)', generateResultV3Schema],
  ['doGenerate result (AI SDK v2)', generateResultV2Schema],
  ['every supported feature', kitchenSink],
];

describe('compiled fast checks', () => {
  it.each(schemas)('accept a %s only when the schema accepts it and would return it unchanged', (_name, schema) => {
    const check = compileFastCheck(schema)!;
    expect(check).toBeDefined();
    let fast = 0;
    let slowValid = 0;
    let invalid = 0;
    fc.assert(
      fc.property(near(schema), (value) => {
        const parsed = schema.safeParse(value);
        if (check(value)) {
          fast += 1;
          expect(parsed.success).toBe(true);
          expect(parsed.data).toStrictEqual(value);
        } else if (parsed.success) slowValid += 1;
        else invalid += 1;
      }),
      { numRuns: 8_000 },
    );
    // Every path was taken: the check answers most valid values itself.
    expect(fast).toBeGreaterThan(150);
    expect(invalid).toBeGreaterThan(150);
    expect(slowValid).toBeLessThan(fast);
  });

  it.each(schemas)('give, generated as code, the verdict the closures give on every %s-shaped value', (_name, schema) => {
    const closures = compileFastCheck(schema, { generated: false })!;
    const generated = compileFastCheck(schema)!;
    expect(generated).not.toBe(closures);
    // Holes and accessors: the generated code must read an array's slots and an object's keys as the closures do.
    const sparse = fc.array(near(schema), { maxLength: 2 }).map((a) => [...a, , 1]);
    fc.assert(
      fc.property(fc.oneof({ arbitrary: near(schema), weight: 6 }, sparse, fc.anything()), (value) => {
        expect(generated(value)).toBe(closures(value));
      }),
      { numRuns: 4_000 },
    );
  });

  it('fall back to the closures where code generation is forbidden, with the same verdicts', () => {
    const forbidden = function () {
      throw new EvalError('Code generation from strings disallowed for this context');
    };
    vi.stubGlobal('Function', forbidden);
    let check: ReturnType<typeof compileFastCheck>;
    try {
      check = compileFastCheck(generateRequestSchema);
    } finally {
      vi.unstubAllGlobals();
    }
    const closures = compileFastCheck(generateRequestSchema, { generated: false })!;
    expect(check).toBeDefined();
    fc.assert(
      fc.property(near(generateRequestSchema), (value) => {
        expect(check!(value)).toBe(closures(value));
      }),
      { numRuns: 1_000 },
    );
    expect(check!({ messages: [{ role: 'user', content: 'hi' }] })).toBe(true);
    expect(check!({ messages: [] })).toBe(false);
  });

  it("accept an AI SDK result by either version's shape only when the adapter's lenient schema takes it unchanged", () => {
    const checks = [compileFastCheck(generateResultV3Schema)!, compileFastCheck(generateResultV2Schema)!];
    let fast = 0;
    fc.assert(
      fc.property(fc.oneof(near(generateResultV3Schema), near(generateResultV2Schema)), (value) => {
        if (!checks.some((check) => check(value))) return;
        fast += 1;
        const parsed = aiSdkGenerateResultSchema.safeParse(value);
        expect(parsed.success).toBe(true);
        expect(parsed.data).toStrictEqual(value);
      }),
      { numRuns: 4_000 },
    );
    expect(fast).toBeGreaterThan(150);
  });

  it('refuse to compile what they do not know: transforms, defaults, async or conditional refinements, other checks', () => {
    for (const schema of [
      z.string().transform((s) => s.length),
      z.number().default(1),
      z.object({ a: z.string() }).refine(() => true, { when: () => true }),
      z.string().email(),
      z.number().multipleOf(2),
    ]) {
      expect(compileFastCheck(schema as z.ZodType)).toBeUndefined();
    }
  });

  it('say "not sure" about an async custom check rather than pass it', () => {
    const check = compileFastCheck(z.custom<string>(async () => true))!;
    expect(check('x')).toBe(false);
  });

  it('refuse a union zod might resolve to another option', () => {
    expect(compileFastCheck(z.union([z.object({ a: z.string() }), z.object({ b: z.string() })]))).toBeUndefined();
  });
});

describe('compiled fast option parsers', () => {
  it.each<[string, z.ZodType]>([
    ['generateStructured options', generateStructuredOptionsSchema],
    ['options with every supported feature', optionsSink],
  ])('return for %s exactly what the schema returns, defaults filled in, or say they are not sure', (_name, schema) => {
    // Options objects have many optional fields, so fewer generated values are wholly valid.
    const parse = compileFastParse(schema)!;
    expect(parse).toBeDefined();
    let fast = 0;
    let invalid = 0;
    fc.assert(
      fc.property(near(schema), (value) => {
        const parsed = schema.safeParse(value);
        const out = parse(value);
        if (out !== undefined) {
          fast += 1;
          expect(parsed.success).toBe(true);
          expect(out).toStrictEqual(parsed.data);
        } else if (!parsed.success) invalid += 1;
      }),
      // A fixed seed: the counts below check that the generator reaches both kinds of value, and
      // a random one left the fast count on the threshold now and then.
      { numRuns: 8_000, seed: 20_261_123 },
    );
    expect(fast).toBeGreaterThan(40);
    expect(invalid).toBeGreaterThan(150);
  });

  it('never change the value they were given', () => {
    const value = { name: 'n' };
    expect(compileFastParse(optionsSink)!(value)).toEqual({ name: 'n', format: 'json', retries: 2, on: true });
    expect(value).toEqual({ name: 'n' });
  });

  it('refuse schemas that are not plain option objects', () => {
    expect(compileFastParse(z.string())).toBeUndefined();
    expect(compileFastParse(z.object({ a: z.string().transform((s) => s.length) }))).toBeUndefined();
  });
});
