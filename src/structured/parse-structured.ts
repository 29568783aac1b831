import { parseDocument } from 'yaml';
import { z } from 'zod';
import { extractCandidates, type StructuredFormat } from './extract-candidates.js';
import { parseSimpleYaml } from './simple-yaml.js';

/**
 * The outcome of {@link parseStructured}.
 *
 * @example
 * ```ts
 * import { parseStructured, type ParseStructuredResult } from '@tot/core';
 * import { z } from 'zod';
 *
 * const result: ParseStructuredResult<{ score: number }> = parseStructured('{"score": 7}', { schema: z.object({ score: z.number() }) });
 * ```
 */
export type ParseStructuredResult<T> =
  | { success: true; value: T; text: string }
  | {
      success: false;
      error: string;
      issues: z.core.$ZodIssue[];
      /** `schema`: a value was read but does not match the schema; `syntax`: no value could be read; `empty`: the reply was empty. */
      reason: 'empty' | 'syntax' | 'schema';
    };

/**
 * Options of {@link parseStructured}.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import type { ParseStructuredOptions } from '@tot/core';
 *
 * const options: ParseStructuredOptions<z.ZodObject<{ answer: z.ZodString }>> = {
 *   schema: z.object({ answer: z.string() }),
 *   format: 'yaml',
 * };
 * ```
 */
export interface ParseStructuredOptions<S extends z.ZodType> {
  schema: S;
  /** Default `'json'`. */
  format?: StructuredFormat;
}

function parseSyntax(text: string, format: StructuredFormat): { ok: true; value: unknown } | { ok: false; error: string } {
  if (format === 'json') {
    try {
      return { ok: true, value: JSON.parse(text) };
    } catch (error) {
      return { ok: false, error: `invalid JSON: ${(error as Error).message}` };
    }
  }
  const simple = parseSimpleYaml(text);
  if (simple) return { ok: true, value: simple.value };
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: false });
  if (doc.errors.length > 0) return { ok: false, error: `invalid YAML: ${doc.errors[0]!.message.split('\n')[0]}` };
  return { ok: true, value: doc.toJS({ maxAliasCount: 100 }) };
}

/**
 * Finds a value of `schema` in a model's text without calling any model: tries fenced blocks,
 * the whole text and embedded spans (see {@link generateStructured}) and returns the first that
 * parses and validates, or the most useful error to show the model in a repair request.
 * Never throws on malformed text.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { parseStructured } from '@tot/core';
 *
 * const r = parseStructured('Sure! ```json\n{"score": 8}\n``` Hope it helps.', { schema: z.object({ score: z.number() }) });
 * if (r.success) r.value.score; // 8
 * ```
 */
export function parseStructured<S extends z.ZodType>(text: string, options: ParseStructuredOptions<S>): ParseStructuredResult<z.output<S>> {
  const format = options.format ?? 'json';
  if (typeof text !== 'string' || text.trim() === '') return { success: false, error: 'the reply was empty', issues: [], reason: 'empty' };
  let validationFailure: { error: string; issues: z.core.$ZodIssue[] } | undefined;
  let syntaxError: string | undefined;
  for (const candidate of extractCandidates(text, format)) {
    try {
      const parsed = parseSyntax(candidate, format);
      if (!parsed.ok) {
        syntaxError ??= parsed.error;
        continue;
      }
      const checked = options.schema.safeParse(parsed.value);
      if (checked.success) return { success: true, value: checked.data, text: candidate };
      validationFailure ??= { error: `the ${format.toUpperCase()} does not match the schema:\n${z.prettifyError(checked.error)}`, issues: checked.error.issues };
    } catch (error) {
      // Pathological input (deep nesting, alias bombs) must fail like any other bad reply.
      syntaxError ??= `unparseable ${format.toUpperCase()}: ${(error as Error).message}`;
    }
  }
  if (validationFailure) return { success: false, ...validationFailure, reason: 'schema' };
  return { success: false, error: syntaxError ?? `no ${format.toUpperCase()} found in the reply`, issues: [], reason: 'syntax' };
}
