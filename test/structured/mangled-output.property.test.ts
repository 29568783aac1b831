import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { generateStructured, TotError } from '../../src/index.js';
import { mockModel } from '../../src/testing/index.js';

const schema = z.object({
  score: z.number().min(0).max(10),
  reasoning: z.string(),
  tags: z.array(z.string()).optional(),
});

const valid = fc.record({
  score: fc.double({ min: 0, max: 10, noNaN: true }),
  reasoning: fc.string(),
  tags: fc.option(fc.array(fc.string(), { maxLength: 3 }), { nil: undefined }),
});

const anyJson = fc.jsonValue().map((v) => JSON.stringify(v));

/** Ways real models damage their answers. */
const mangle = fc.oneof(
  fc.constant((s: string) => s),
  fc.constant((s: string) => `Sure! Here you go:\n${s}\nHope that helps.`),
  fc.constant((s: string) => '```json\n' + s + '\n```'),
  fc.constant((s: string) => '```\n' + s),
  fc.constant((s: string) => '```yaml\n' + s + '\n```'),
  fc.integer({ min: 0, max: 200 }).map((n) => (s: string) => s.slice(0, n)),
  fc.constant((s: string) => s.replace(/"/g, "'")),
  fc.constant((s: string) => s.replace(/,/g, ',,')),
  fc.constant((s: string) => s.replace(/}/g, '')),
  fc.constant((s: string) => `${s}${s}`),
  fc.string().map((noise) => (s: string) => `${noise}${s}${noise}`),
  fc.integer({ min: 0, max: 50 }).map((n) => (s: string) => `${'['.repeat(n)}${s}`),
);

const output = fc.oneof(
  fc.tuple(valid.map((v) => JSON.stringify(v)), mangle).map(([s, f]) => f(s)),
  fc.tuple(anyJson, mangle).map(([s, f]) => f(s)),
  fc.string({ maxLength: 300 }),
  fc.string({ unit: 'binary', maxLength: 120 }),
);

describe('generateStructured on random and mangled model outputs', () => {
  it('either returns a value that satisfies the schema or fails with INVALID_FORMAT — nothing else (10,000 outputs)', async () => {
    let parsed = 0;
    let rejected = 0;
    await fc.assert(
      fc.asyncProperty(output, async (text) => {
        try {
          const result = await generateStructured(mockModel(text), { prompt: 'rate', schema, maxRepairs: 0 });
          expect(schema.safeParse(result.value).success).toBe(true);
          parsed++;
        } catch (error) {
          expect(TotError.isInstance(error) && error.code === 'INVALID_FORMAT', `unexpected ${String(error)}`).toBe(true);
          expect((error as TotError<'INVALID_FORMAT'>).details?.rawOutputs).toEqual([text]);
          rejected++;
        }
      }),
      { numRuns: 10_000 },
    );
    // Both branches must really have been exercised for the property to mean anything.
    expect(parsed).toBeGreaterThan(500);
    expect(rejected).toBeGreaterThan(500);
  });
});
