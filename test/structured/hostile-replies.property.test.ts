import fc from 'fast-check';
import { parse as parseYamlPackage, stringify as stringifyYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { generateStructured, parseStructured, TotError } from '../../src/index.js';
import { mockModel } from '../../src/testing/index.js';
import { hostileReplies } from './fixtures/hostile-replies.js';

const schema = z.object({ score: z.number().min(0).max(10), reasoning: z.string() });
const formats = fc.constantFrom('json' as const, 'yaml' as const);

/** Pieces of pathological text, repeated up to thousands of times, glued in any order. */
const fragment = fc.oneof(
  fc.constantFrom(...hostileReplies).chain((h) => fc.integer({ min: 1, max: 20_000 }).map((n) => h.make(n))),
  fc.tuple(fc.constantFrom('{', '[', '}', ']', '"', '\\', '`', '```', '```json\n', '```yaml\n', '- ', '? ', ': ', '&a ', '*a ', '\n', ' ', '#', '\t'), fc.integer({ min: 1, max: 5_000 })).map(([s, n]) => s.repeat(n)),
  fc.string({ maxLength: 200 }),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
);
const hostile = fc.array(fragment, { minLength: 1, maxLength: 6 }).map((parts) => parts.join(''));

const answer = fc.record({ score: fc.integer({ min: 0, max: 10 }), reasoning: fc.string({ maxLength: 40 }) });

describe('parseStructured on pathological replies', () => {
  it('returns a value of the schema or a failure with a reason, and never throws (both formats)', () => {
    fc.assert(
      fc.property(hostile, formats, (text, format) => {
        const r = parseStructured(text, { schema, format });
        if (r.success) expect(schema.safeParse(r.value).success).toBe(true);
        else expect(['empty', 'syntax', 'schema']).toContain(r.reason);
      }),
      { numRuns: 300 },
    );
  });

  it('finds a fenced answer whatever junk without backticks surrounds it', () => {
    const junk = hostile.map((t) => t.replaceAll('`', "'"));
    fc.assert(
      fc.property(junk, junk, answer, formats, (before, after, value, format) => {
        const body = format === 'json' ? JSON.stringify(value) : stringifyYaml(value);
        const r = parseStructured(`${before}\n\`\`\`${format}\n${body}\n\`\`\`\n${after}`, { schema, format });
        expect(r).toMatchObject({ success: true, value });
      }),
      { numRuns: 200 },
    );
  });
});

describe('generateStructured on pathological replies', () => {
  it('resolves with a value or rejects with INVALID_FORMAT, nothing else (both formats)', async () => {
    await fc.assert(
      fc.asyncProperty(hostile, formats, async (text, format) => {
        try {
          const { value } = await generateStructured(mockModel(text), { prompt: 'p', schema, format, maxRepairs: 1 });
          expect(schema.safeParse(value).success).toBe(true);
        } catch (error) {
          expect(TotError.isInstance(error) && error.code).toBe('INVALID_FORMAT');
        }
      }),
      { numRuns: 100 },
    );
  });
});

describe('the YAML reader agrees with the yaml package where the package is safe', () => {
  it('on JSON texts (read through the JSON shortcut)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }).filter((v) => v !== null && typeof v === 'object'), (value) => {
        const text = JSON.stringify(value);
        const r = parseStructured(text, { schema: z.unknown(), format: 'yaml' });
        expect(r.success && r.value).toEqual(parseYamlPackage(text));
      }),
      { numRuns: 500 },
    );
  });

  it('on documents the yaml package writes (read through the full reader)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }).filter((v) => v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0), (value) => {
        // A comment first sends the text past the fast reader to the full one.
        const text = `# reply\n${stringifyYaml(value)}`;
        const r = parseStructured(text, { schema: z.unknown(), format: 'yaml' });
        expect(r.success && r.value).toEqual(parseYamlPackage(text));
      }),
      { numRuns: 500 },
    );
  });
});
