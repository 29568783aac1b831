import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { callModel, TotError, type GenerateRequest, type GenerateResult, type LanguageModel } from '../../src/index.js';
import { generateRequestSchema, generateResultSchema } from '../../src/model/schemas.js';

// callModel checks the common shapes inline and leaves the rest to the schemas: whatever the path,
// the verdict must be the schema's.
/** Usually absent or valid, sometimes invalid: every field is wrong in some runs, all are right in many. */
const field = <T>(valid: fc.Arbitrary<T>, invalid: fc.Arbitrary<unknown>) =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: valid, weight: 3 }, { arbitrary: invalid, weight: 1 });
const count = fc.oneof(fc.nat(), fc.constant(Number.MAX_SAFE_INTEGER));
const badCount = fc.constantFrom(-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '3');

const result = fc.record(
  {
    outputs: fc.oneof({ arbitrary: fc.array(fc.string(), { minLength: 1, maxLength: 1 }), weight: 6 }, fc.array(fc.oneof(fc.string(), fc.integer(), fc.constant(null)), { maxLength: 2 }), fc.constant('text')),
    usage: fc.oneof({ arbitrary: fc.record({ inputTokens: field(count, badCount), outputTokens: field(count, badCount) }, { requiredKeys: [] }), weight: 6 }, fc.constant(null), fc.constant([])),
    finishReason: field(fc.constantFrom('stop', 'length', 'content-filter', 'error', 'other'), fc.constantFrom('done', 3)),
    cacheHit: field(fc.boolean(), fc.constant('yes')),
  },
  { requiredKeys: ['outputs'] },
);

const message = fc.oneof(
  { arbitrary: fc.record({ role: fc.constantFrom('system', 'user', 'assistant'), content: fc.string() }), weight: 8 },
  fc.record({ role: fc.constantFrom('tool', 'user'), content: fc.oneof(fc.string(), fc.constant(7)) }),
);
const request = fc.record(
  {
    messages: fc.oneof({ arbitrary: fc.array(message, { minLength: 1, maxLength: 3 }), weight: 8 }, fc.constant([]), fc.constant('hi')),
    n: field(fc.integer({ min: 1, max: 3 }), fc.constantFrom(0, -1, 1.5, 2 ** 53)),
    temperature: field(fc.double({ min: 0, max: 2, noNaN: true }), fc.constantFrom(-0.5, Number.NaN, Number.POSITIVE_INFINITY)),
    maxOutputTokens: field(fc.oneof(fc.integer({ min: 1, max: 4096 }), fc.constant(Number.MAX_SAFE_INTEGER)), fc.constantFrom(0, 2.5, 2 ** 53)),
    stop: field(fc.constant(undefined), fc.oneof(fc.array(fc.string(), { maxLength: 2 }), fc.constant([1]))),
    seed: field(fc.oneof(fc.integer(), fc.constant(-Number.MAX_SAFE_INTEGER)), fc.constantFrom(0.5, 2 ** 53, -(2 ** 53))),
    responseFormat: field(fc.constantFrom({ type: 'text' }, { type: 'json' }, { type: 'json', schema: { type: 'object' } }), fc.constantFrom({ type: 'xml' }, { type: 'json', extra: 1 })),
    tags: field(fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }), fc.constantFrom({ a: 1 }, null)),
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
