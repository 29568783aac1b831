import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod-v3';
import { generateStructured, parseStructured } from '../../src/index.js';
import { mockModel } from '../../src/testing/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

// The same answer, `{ score: 0–10 }`, in each schema library.
const schemas = {
  'zod 4': z.object({ score: z.number().min(0).max(10) }),
  'zod 3': z3.object({ score: z3.number().min(0).max(10) }),
  valibot: v.object({ score: v.pipe(v.number(), v.minValue(0), v.maxValue(10)) }),
};
const libraries = Object.keys(schemas) as (keyof typeof schemas)[];

/** `{ score }` checked by a hand-written Standard Schema that also converts itself to JSON Schema (as Standard JSON Schema says). */
const withConverter: StandardSchemaV1<unknown, { score: number }> & StandardJSONSchemaV1 = {
  '~standard': {
    version: 1,
    vendor: 'example',
    validate: (value) =>
      typeof value === 'object' && value !== null && typeof (value as { score?: unknown }).score === 'number'
        ? { value: { score: (value as { score: number }).score } }
        : { issues: [{ message: 'expected a score', path: [{ key: 'score' }] }] },
    jsonSchema: {
      input: () => ({ type: 'object', properties: { score: { type: 'number' } }, required: ['score'] }),
      output: () => ({ type: 'object', properties: { score: { type: 'number' } }, required: ['score'] }),
    },
  },
};

describe('generateStructured with any Standard Schema', () => {
  it.each(libraries)('returns the value a %s schema accepts', async (library) => {
    const result = await generateStructured(mockModel('Here: {"score": 7}'), { prompt: 'Rate it', schema: schemas[library] });
    expect(result.value).toEqual({ score: 7 });
  });

  it.each(libraries)('asks for a repair naming the field a %s schema refused, then takes the corrected reply', async (library) => {
    const model = mockModel(['{"score": 11}', '{"score": 9}']);
    const result = await generateStructured(model, { prompt: 'Rate it', schema: schemas[library] });
    expect(result).toMatchObject({ value: { score: 9 }, attempts: 2 });
    expect(model.calls[1]!.request.messages[2]!.content).toContain('→ at score');
  });

  it.each(libraries)('fails with INVALID_FORMAT carrying the issues (path and message) when a %s schema refuses every reply', async (library) => {
    const error = await catchTotError(() => generateStructured(mockModel('{"score": "high"}'), { prompt: 'Rate it', schema: schemas[library], maxRepairs: 0 }), 'INVALID_FORMAT');
    expect(error.message).toContain('did not produce a reply matching the schema');
    const issues = error.details?.issues as { path: PropertyKey[]; message: string }[];
    expect(issues).toHaveLength(1);
    expect(issues[0]!.path).toEqual(['score']);
    expect(issues[0]!.message).toMatch(/number/i);
  });

  it('refuses a schema that is not a Standard Schema with INVALID_ARGUMENT naming the libraries it takes', async () => {
    const error = await catchTotError(() => generateStructured(mockModel('{}'), { prompt: 'p', schema: { parse: (x: unknown) => x } as never }), 'INVALID_ARGUMENT');
    expect(error.message).toBe('generateStructured: options.schema: expected a Standard Schema (zod 3.24+, zod 4, valibot, arktype, …)');
  });

  it('waits for a schema whose validation is asynchronous', async () => {
    const known = new Set(['alice']);
    const user = v.objectAsync({ name: v.pipeAsync(v.string(), v.checkAsync(async (name) => known.has(name), 'unknown user')) });
    const model = mockModel(['{"name": "mallory"}', '{"name": "alice"}']);
    const result = await generateStructured(model, { prompt: 'Who?', schema: user });
    expect(result).toMatchObject({ value: { name: 'alice' }, attempts: 2 });
    expect(model.calls[1]!.request.messages[2]!.content).toContain('unknown user');
  });
});

describe("JSON mode's schema", () => {
  const responseFormatFor = async (schema: StandardSchemaV1) => {
    const model = mockModel('{"score": 1}');
    await generateStructured(model, { prompt: 'p', schema });
    return model.calls[0]!.request.responseFormat;
  };

  it("is zod 4's own JSON Schema of a zod 4 schema", async () => {
    expect(await responseFormatFor(schemas['zod 4'])).toMatchObject({ type: 'json', schema: { type: 'object', properties: { score: { type: 'number', minimum: 0, maximum: 10 } }, required: ['score'] } });
  });

  it("is the schema's own conversion when it offers one (Standard JSON Schema)", async () => {
    expect(await responseFormatFor(withConverter)).toEqual({ type: 'json', schema: { type: 'object', properties: { score: { type: 'number' } }, required: ['score'] } });
  });

  it.each(['zod 3', 'valibot'] as const)('is left out for a %s schema, which has no converter: JSON mode without a schema', async (library) => {
    expect(await responseFormatFor(schemas[library])).toEqual({ type: 'json' });
  });
});

describe('parseStructured with any Standard Schema', () => {
  it.each(libraries)('reads a value a %s schema accepts from a fenced block', (library) => {
    expect(parseStructured('```json\n{"score": 3}\n```', { schema: schemas[library] })).toMatchObject({ success: true, value: { score: 3 } });
  });

  it("reduces another library's issues to their path and message", () => {
    const result = parseStructured('{"score": "x"}', { schema: withConverter });
    expect(result).toEqual({ success: false, reason: 'schema', error: 'the JSON does not match the schema:\n✖ expected a score\n  → at score', issues: [{ message: 'expected a score', path: ['score'] }] });
  });

  it('refuses a schema whose validation is asynchronous with INVALID_ARGUMENT, as it cannot wait', async () => {
    const later = v.objectAsync({ score: v.pipeAsync(v.number(), v.checkAsync(async () => true)) });
    const error = await catchTotError(() => parseStructured('{"score": 1}', { schema: later }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('validates asynchronously');
  });

  it('refuses a value that is not a schema with INVALID_ARGUMENT', async () => {
    const error = await catchTotError(() => parseStructured('{}', { schema: 'score' as never }), 'INVALID_ARGUMENT');
    expect(error.message).toBe('parseStructured: options.schema: expected a Standard Schema (zod 3.24+, zod 4, valibot, arktype, …)');
  });
});
