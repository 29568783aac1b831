import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fromFunction, generateStructured } from '../../src/index.js';
import { optionsSchema } from '../../src/structured/generate-structured.js';

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
    maxReplyChars: field(fc.integer({ min: 8, max: 2_000_000 }), fc.constantFrom(0, -5, 1.5, Number.POSITIVE_INFINITY)),
    temperature: field(fc.double({ min: 0, max: 2, noNaN: true }), fc.constantFrom(-0.5, Number.NaN, Number.POSITIVE_INFINITY)),
    maxOutputTokens: field(fc.integer({ min: 1, max: 5 }), fc.constantFrom(0, -1, 2.5)),
    seed: field(fc.integer(), fc.constant(0.5)),
    tags: field(fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }), fc.constantFrom({ k: 1 }, [], null)),
    signal: field(fc.constant(new AbortController().signal), fc.constant('signal')),
  },
  { requiredKeys: ['schema'] },
);

describe('generateStructured options', () => {
  it('accepts exactly the options its schema accepts, and names the field otherwise', async () => {
    let accepted = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(options, async (o) => {
        const valid = optionsSchema.safeParse(o).success;
        const model = fromFunction(() => '{"a": 1}');
        try {
          const result = await generateStructured(model, o as never);
          expect(valid).toBe(true);
          expect(result).toMatchObject({ value: { a: 1 } });
          accepted += 1;
        } catch (error) {
          expect(valid).toBe(false);
          expect((error as { code?: string }).code).toBe('INVALID_ARGUMENT');
          expect((error as Error).message).toMatch(/^generateStructured: options[.\w\[\]]*: /);
          refused += 1;
        }
      }),
      { numRuns: 1_000 },
    );
    expect(accepted).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(100);
  });
});
