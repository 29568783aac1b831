import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fromFunction, generateStructured } from '../../src/index.js';
import { optionsSchema, plainOptions } from '../../src/structured/generate-structured.js';

/** Usually absent or valid, sometimes invalid: every field is wrong in some runs, all are right in many. */
const field = <T>(valid: fc.Arbitrary<T>, invalid: fc.Arbitrary<unknown>) =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: valid, weight: 3 }, { arbitrary: invalid, weight: 1 });
const schema = z.object({ a: z.number() });
const options = fc.record(
  {
    schema: fc.oneof({ arbitrary: fc.constant<unknown>(schema), weight: 8 }, { arbitrary: fc.constant({ parse: () => 1 }), weight: 1 }),
    prompt: fc.oneof({ arbitrary: fc.string(), weight: 8 }, { arbitrary: fc.constant(3), weight: 1 }),
    messages: fc.oneof({ arbitrary: fc.constant(undefined), weight: 8 }, { arbitrary: fc.constant([{ role: 'user', content: 'q' }]), weight: 1 }),
    system: field(fc.string(), fc.constant(null)),
    format: field(fc.constantFrom('json', 'yaml'), fc.constant('xml')),
    maxRepairs: field(fc.integer({ min: 0, max: 20 }), fc.constantFrom(-1, 21, 1.5)),
    repairPrompt: field(fc.constant(() => 'fix'), fc.constant('fix')),
    fallback: field(fc.constant(() => undefined), fc.constant(1)),
    useResponseFormat: field(fc.boolean(), fc.constant('no')),
    temperature: field(fc.double({ min: 0, max: 2, noNaN: true }), fc.constantFrom(-0.5, Number.NaN, Number.POSITIVE_INFINITY)),
    maxOutputTokens: field(fc.integer({ min: 1, max: 5 }), fc.constantFrom(0, -1, 2.5)),
    seed: field(fc.integer(), fc.constant(0.5)),
    tags: field(fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }), fc.constantFrom({ k: 1 }, [], null)),
    signal: field(fc.constant(new AbortController().signal), fc.constant('signal')),
  },
  { requiredKeys: ['schema'] },
);

describe('generateStructured options', () => {
  it('checks the common options inline with the same verdict and defaults as the schema', async () => {
    let inline = 0;
    await fc.assert(
      fc.asyncProperty(options, async (o) => {
        const fast = plainOptions(o);
        if (fast !== undefined) {
          inline += 1;
          const parsed = optionsSchema.safeParse(o);
          expect(parsed.success).toBe(true);
          expect(fast).toMatchObject(parsed.data!);
        }
        const model = fromFunction(() => '{"a": 1}');
        let result: unknown;
        try {
          result = await generateStructured(model, o as never);
        } catch (error) {
          // Whatever the inline check accepts must not be refused by the schema.
          expect(fast).toBeUndefined();
          expect((error as { code?: string }).code).toBe('INVALID_ARGUMENT');
          return;
        }
        expect(result).toMatchObject({ value: { a: 1 } });
      }),
      { numRuns: 3_000 },
    );
    // Both paths were exercised.
    expect(inline).toBeGreaterThan(300);
  });
});
