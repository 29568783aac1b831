import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { abortable, throwIfAborted } from '../internal/abort.js';
import { compileFastCheck } from '../internal/fast-check.js';
import { parseOptions } from '../internal/validate.js';
import { describeIssues, isStandardSchema, NOT_A_SCHEMA, validatorOf, type SchemaIssue, type SchemaOutput, type StandardSchemaV1, type Validation } from '../internal/standard-schema.js';
import { extractCandidates, type StructuredFormat } from './extract-candidates.js';
import { readYaml, type SyntaxResult } from './read-yaml.js';
import { DEFAULT_MAX_REPLY_CHARS, jsonNestsDeeperThan, MAX_NESTING, type Steps } from './syntax-limits.js';

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
      /** What the schema found wrong (`message`, `path`; a zod 4 schema's issues are zod's own, whole). */
      issues: SchemaIssue[];
      /** `schema`: a value was read but does not match the schema; `syntax`: no value could be read; `empty`: the reply was empty. */
      reason: 'empty' | 'syntax' | 'schema';
    };

/**
 * Options of {@link parseStructured}. `schema` is any Standard Schema: zod 3.24+, zod 4, valibot,
 * arktype, …
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
export interface ParseStructuredOptions<S extends StandardSchemaV1> {
  schema: S;
  /** Default `'json'`. */
  format?: StructuredFormat;
  /**
   * The longest reply read, in characters; a longer one fails unread (`reason: 'syntax'`, the
   * error naming the limit). Default 1,000,000 (about 250,000 tokens).
   */
  maxReplyChars?: number;
}

/** Why a reply over `maxReplyChars` was not read. */
export function tooLongError(length: number, maxReplyChars: number): string {
  return `the reply is ${length} characters long, more than the ${maxReplyChars} that maxReplyChars allows; it was not read`;
}

function* readSyntax(text: string, format: StructuredFormat): Steps<SyntaxResult> {
  if (format === 'yaml') return yield* readYaml(text);
  // V8's JSON.parse does not recurse, but validating and copying a deep value would.
  if (yield* jsonNestsDeeperThan(text, MAX_NESTING)) return { ok: false, error: `invalid JSON: nested deeper than ${MAX_NESTING} levels` };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: `invalid JSON: ${(error as Error).message}` };
  }
}

/**
 * A schema's validation that returned a promise: the driver awaits it and puts what it settled
 * to in `settled` before resuming the search.
 */
interface PendingCheck {
  pending: Promise<Validation>;
  settled?: { value: Validation } | { error: unknown };
}

/**
 * The search of {@link parseStructured} as a generator that yields wherever it may pause: every
 * 64 KiB a scan reads, between candidates and every 1,024 lexemes of YAML the full reader
 * parses, and where a schema validates asynchronously (a {@link PendingCheck}, to be answered
 * with its result). Run to the end it is `parseStructured`; {@link parseStructuredAsync} gives
 * way to the event loop at those points and stops on abort.
 */
function* searchReply<T>(text: string, schema: StandardSchemaV1, format: StructuredFormat, maxReplyChars: number): Steps<ParseStructuredResult<T>, number | PendingCheck> {
  if (typeof text === 'string' && text.length > maxReplyChars) return { success: false, error: tooLongError(text.length, maxReplyChars), issues: [], reason: 'syntax' };
  if (typeof text !== 'string' || text.trim() === '') return { success: false, error: 'the reply was empty', issues: [], reason: 'empty' };
  const validate = validatorOf(schema);
  let validationFailure: { error: string; issues: SchemaIssue[] } | undefined;
  let syntaxError: string | undefined;
  const candidates = yield* extractCandidates(text, format);
  for (const candidate of candidates) {
    yield 0;
    try {
      const parsed = yield* readSyntax(candidate, format);
      // JSON.parse (or the fast YAML reader) just read the candidate in one go.
      yield candidate.length;
      if (!parsed.ok) {
        syntaxError ??= parsed.error;
        continue;
      }
      let checked = validate(parsed.value);
      if (checked instanceof Promise) {
        const check: PendingCheck = { pending: checked };
        yield check;
        if (check.settled === undefined || 'error' in check.settled) throw check.settled?.error;
        checked = check.settled.value;
      }
      if (checked.ok) return { success: true, value: checked.value as T, text: candidate };
      validationFailure ??= { error: `the ${format.toUpperCase()} does not match the schema:\n${describeIssues(checked.issues)}`, issues: checked.issues };
    } catch (error) {
      // Anything a parser or schema still throws (a custom refinement, say) fails like any other bad reply.
      syntaxError ??= `unparseable ${format.toUpperCase()}: ${(error as Error).message}`;
    }
  }
  if (validationFailure) return { success: false, ...validationFailure, reason: 'schema' };
  return { success: false, error: syntaxError ?? `no ${format.toUpperCase()} found in the reply`, issues: [], reason: 'syntax' };
}

// `schema` is checked by checkedSchema, with its own message.
const optionsSchema = z.strictObject({ schema: z.unknown(), format: z.enum(['json', 'yaml']).optional(), maxReplyChars: z.number().int().positive().optional() });
const isValidOptions = compileFastCheck(optionsSchema) ?? (() => false);

function checkedSchema(options: { schema?: unknown } | undefined, where: string): StandardSchemaV1 {
  const schema = options?.schema;
  if (isStandardSchema(schema)) return schema;
  throw new TotError('INVALID_ARGUMENT', `${where}: options.schema: ${NOT_A_SCHEMA}`, { details: { field: 'options.schema' } });
}

/**
 * Finds a value of `schema` in a model's text without calling any model: tries fenced blocks,
 * the whole text and embedded spans (see {@link generateStructured}) and returns the first that
 * parses and validates, or the most useful error to show the model in a repair request.
 * Never throws on malformed text, and is safe on hostile text: the time taken grows linearly
 * with the reply's length, values nested deeper than 128 levels, YAML with more than 100
 * aliases and replies longer than `maxReplyChars` (default 1,000,000) are refused
 * (`reason: 'syntax'`). {@link generateStructured} reads long replies in slices and stops when
 * its signal aborts.
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
export function parseStructured<S extends StandardSchemaV1>(text: string, options: ParseStructuredOptions<S>): ParseStructuredResult<SchemaOutput<S>> {
  if (typeof options === 'object' && options !== null && !isValidOptions(options)) parseOptions(optionsSchema, options, 'parseStructured');
  const schema = checkedSchema(options, 'parseStructured');
  const steps = searchReply<SchemaOutput<S>>(text, schema, options.format ?? 'json', options.maxReplyChars ?? DEFAULT_MAX_REPLY_CHARS);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (typeof step.value === 'number') continue;
    // Nobody will read it: a rejection must not surface as an unhandled one.
    step.value.pending.catch(() => undefined);
    throw new TotError(
      'INVALID_ARGUMENT',
      'parseStructured: options.schema validates asynchronously (it returned a Promise), which parseStructured cannot wait for; use generateStructured, or a schema without async checks',
      { details: { field: 'options.schema' } },
    );
  }
}

/** Work between two pauses of {@link parseStructuredAsync}, in milliseconds. */
const SLICE_MS = 8;

/**
 * Characters read between two pauses of {@link parseStructuredAsync}, at most: a pause per MiB
 * whatever the clock says (a few milliseconds of reading), so a long reply gives way as often
 * on a fast machine as on a slow one.
 */
const SLICE_CHARS = 1 << 20;

const giveWay = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * {@link parseStructured} for callers holding a signal: the same result, but a long reply is read
 * in slices of a few milliseconds with the event loop free in between, and an abort rejects with
 * `ABORTED` at the next pause. Short replies never pause. Not exported from the package.
 */
export async function parseStructuredAsync<S extends StandardSchemaV1>(
  text: string,
  options: ParseStructuredOptions<S> & { signal?: AbortSignal | undefined },
): Promise<ParseStructuredResult<SchemaOutput<S>>> {
  const { signal } = options;
  throwIfAborted(signal, 'parse');
  const steps = searchReply<SchemaOutput<S>>(text, options.schema, options.format ?? 'json', options.maxReplyChars ?? DEFAULT_MAX_REPLY_CHARS);
  let sliceStart = performance.now();
  let read = 0;
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    throwIfAborted(signal, 'parse');
    if (typeof step.value !== 'number') {
      // An async schema (a check against a database, say): waited for, but never past an abort.
      const check = step.value;
      check.settled = await abortable(signal, () => check.pending, 'parse').then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
      throwIfAborted(signal, 'parse');
      continue;
    }
    read += step.value;
    if (read >= SLICE_CHARS || performance.now() - sliceStart >= SLICE_MS) {
      await giveWay();
      throwIfAborted(signal, 'parse');
      sliceStart = performance.now();
      read = 0;
    }
  }
}
