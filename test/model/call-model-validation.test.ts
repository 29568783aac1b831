import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { callModel, TotError, type GenerateRequest, type GenerateResult, type LanguageModel } from '../../src/index.js';
import { generateRequestSchema, generateResultSchema } from '../../src/model/schemas.js';

// callModel checks the common shapes inline and leaves the rest to the schemas: whatever the path,
// the verdict must be the schema's.
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const count = fc.oneof(fc.nat(), fc.integer({ min: -3, max: -1 }), fc.double({ noDefaultInfinity: false }), fc.constant('3'));

const result = fc.record(
  {
    outputs: fc.oneof(fc.array(fc.string(), { minLength: 1, maxLength: 1 }), fc.array(fc.oneof(fc.string(), fc.integer(), fc.constant(null)), { maxLength: 2 }), fc.constant('text')),
    usage: fc.oneof(fc.record({ inputTokens: maybe(count), outputTokens: maybe(count) }, { requiredKeys: [] }), fc.constant(null), fc.constant([])),
    finishReason: maybe(fc.constantFrom('stop', 'length', 'content-filter', 'error', 'other', 'done', 3)),
    cacheHit: maybe(fc.constantFrom(true, false, 'yes')),
  },
  { requiredKeys: ['outputs'] },
);

const message = fc.record({ role: fc.constantFrom('system', 'user', 'assistant', 'tool'), content: fc.oneof(fc.string(), fc.constant(7)) });
const request = fc.record(
  {
    messages: fc.oneof(fc.array(message, { maxLength: 3 }), fc.constant('hi')),
    n: maybe(fc.oneof(fc.integer({ min: -1, max: 3 }), fc.constant(1.5))),
    temperature: maybe(fc.oneof(fc.double({ min: -1, max: 2, noNaN: true }), fc.constant(Number.NaN))),
    maxOutputTokens: maybe(count),
    stop: maybe(fc.oneof(fc.array(fc.string(), { maxLength: 2 }), fc.constant([1]))),
    seed: maybe(fc.oneof(fc.integer(), fc.constant(0.5))),
    responseFormat: maybe(fc.oneof(fc.constant({ type: 'text' }), fc.constant({ type: 'json' }), fc.constant({ type: 'json', schema: { type: 'object' } }), fc.constant({ type: 'xml' }), fc.constant({ type: 'json', extra: 1 }))),
    tags: maybe(fc.oneof(fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }), fc.constant({ a: 1 }), fc.constant(null))),
  },
  { requiredKeys: ['messages'] },
);

async function outcome(call: () => Promise<unknown>): Promise<string> {
  try {
    await call();
    return 'ok';
  } catch (error) {
    return TotError.isInstance(error) ? error.code : 'untyped';
  }
}

describe('callModel validation', () => {
  it('accepts a model result exactly when the result schema does (and its output count matches)', async () => {
    await fc.assert(
      fc.asyncProperty(result, async (r) => {
        const model: LanguageModel = { modelId: 'm', generate: async () => r as unknown as GenerateResult };
        const valid = generateResultSchema.safeParse(r).success && (r.outputs as unknown[]).length === 1;
        expect(await outcome(() => callModel(model, { messages: [{ role: 'user', content: 'q' }] }))).toBe(valid ? 'ok' : 'GENERATION_FAILED');
      }),
      { numRuns: 2_000 },
    );
  });

  it('accepts a request exactly when the request schema does', async () => {
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const model: LanguageModel = { modelId: 'm', capabilities: { multipleOutputs: true }, generate: async (q) => ({ outputs: Array.from({ length: q.n ?? 1 }, () => 'a'), usage: {} }) };
        const valid = generateRequestSchema.safeParse(r).success;
        expect(await outcome(() => callModel(model, r as unknown as GenerateRequest))).toBe(valid ? 'ok' : 'INVALID_ARGUMENT');
      }),
      { numRuns: 2_000 },
    );
  });
});
