import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { compileFastCheck } from './fast-check.js';

export type { StandardSchemaV1 };

/**
 * The value a schema gives back once it accepts an input: zod's `z.output`, valibot's
 * `InferOutput`, arktype's `.infer`, read from the Standard Schema types every one of them carries.
 *
 * @example
 * ```ts
 * import * as v from 'valibot';
 * import type { SchemaOutput } from '@tot/core';
 *
 * const Score = v.object({ score: v.number(), note: v.optional(v.string(), '') });
 * type Score = SchemaOutput<typeof Score>; // { score: number; note: string }
 * ```
 */
export type SchemaOutput<S extends StandardSchemaV1> = StandardSchemaV1.InferOutput<S>;

/**
 * One thing a schema found wrong with a value: where (`path`, keys from the root; empty for the
 * value itself) and what (`message`). A zod 4 schema's issues are zod's own, with `code` and the
 * rest of its fields; another library's are reduced to these two, so that no issue carries the
 * offending input along into an error or a log.
 *
 * @example
 * ```ts
 * import type { SchemaIssue } from '@tot/core';
 *
 * const line = (issue: SchemaIssue) => `${issue.path.map(String).join('.') || '(the value)'}: ${issue.message}`;
 * ```
 */
export interface SchemaIssue {
  readonly message: string;
  readonly path: readonly PropertyKey[];
}

/** What {@link validatorOf}'s function finds: the schema's output, or its issues. */
export type Validation<T = unknown> = { ok: true; value: T } | { ok: false; issues: SchemaIssue[] };

type Validator = (value: unknown) => Validation | Promise<Validation>;

/** The words every refusal of a non-schema uses, naming the libraries known to work. */
export const NOT_A_SCHEMA = 'expected a Standard Schema (zod 3.24+, zod 4, valibot, arktype, …)';

/** Whether `value` implements Standard Schema v1 (https://standardschema.dev): `~standard.validate`. */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const props = (value as { '~standard'?: unknown })['~standard'];
  return typeof props === 'object' && props !== null && (props as { version?: unknown }).version === 1 && typeof (props as { validate?: unknown }).validate === 'function';
}

/** An option that takes a schema: any Standard Schema, refused with {@link NOT_A_SCHEMA} otherwise. */
export const standardSchemaOption = z.custom<StandardSchemaV1>(isStandardSchema, NOT_A_SCHEMA);

type Zod4Internals = { _zod: { def: unknown; version?: { major: number; minor: number } } };

const ours = z.core.version;

/**
 * A zod 4 schema of the zod this library runs with (same major and minor version): the only kind
 * whose definition the compiled fast check may read. A schema of another zod 4 copy is validated
 * through its own `~standard.validate`, as any other library's.
 */
function isOurZod4(schema: object): schema is Zod4Internals {
  const internals = (schema as Partial<Zod4Internals>)._zod;
  return typeof internals === 'object' && internals !== null && internals.version?.major === ours.major && internals.version.minor === ours.minor;
}

/** Whether `schema` is a zod 4 schema (of any zod 4 copy): its issues are zod's own, kept whole. */
function isZod4(schema: object): boolean {
  const internals = (schema as Partial<Zod4Internals>)._zod;
  return typeof internals === 'object' && internals !== null && internals.version?.major === 4;
}

function toPath(path: StandardSchemaV1.Issue['path']): PropertyKey[] {
  if (path === undefined) return [];
  return path.map((segment) => (typeof segment === 'object' && segment !== null ? segment.key : segment));
}

function toValidation(result: StandardSchemaV1.Result<unknown>, keepIssues: boolean): Validation {
  if (!result.issues) return { ok: true, value: result.value };
  const issues = keepIssues ? (result.issues as SchemaIssue[]) : result.issues.map((issue) => ({ message: String(issue.message), path: toPath(issue.path) }));
  return { ok: false, issues };
}

const validators = new WeakMap<object, Validator>();

type SafeParse = (value: unknown) => { success: true; data: unknown } | { success: false; error: { issues: SchemaIssue[] } };

/** zod 4's own words when a synchronous parse meets an async check. */
const isZodAsyncError = (error: unknown) => error instanceof Error && error.message.startsWith('Encountered Promise during synchronous parse');

/**
 * The function that validates a value with `schema`, built once per schema: its
 * `~standard.validate`, or for a zod 4 schema its `safeParse` (a check that throws then throws
 * here, where `~standard.validate` would turn it into a rejected promise), answered first by the
 * compiled fast check when the schema calls no code of the user's. Its result is a promise only
 * when the schema's own validation is (an async refinement).
 *
 * Why the fast check: structured output validates every model reply, and a role's replies are
 * the library's own zod 4 schemas, where the compiled check is several times faster than a parse.
 * A refinement is left to zod, so that a user's check runs once per value, as zod runs it.
 */
export function validatorOf(schema: StandardSchemaV1): Validator {
  let validator = validators.get(schema);
  if (validator !== undefined) return validator;
  const zod4 = isZod4(schema);
  const standard: Validator = (value) => {
    const result = schema['~standard'].validate(value);
    return result instanceof Promise ? result.then((r) => toValidation(r, zod4)) : toValidation(result, zod4);
  };
  let full = standard;
  const safeParse = zod4 ? (schema as unknown as { safeParse?: SafeParse }).safeParse : undefined;
  if (typeof safeParse === 'function') {
    full = (value) => {
      let result: ReturnType<SafeParse>;
      try {
        result = safeParse.call(schema, value);
      } catch (error) {
        if (isZodAsyncError(error)) return standard(value);
        throw error;
      }
      return result.success ? { ok: true, value: result.data } : { ok: false, issues: result.error.issues };
    };
  }
  const check = isOurZod4(schema) ? compileFastCheck(schema as unknown as z.ZodType, { userCode: false }) : undefined;
  validator = check === undefined ? full : (value) => (check(value) ? { ok: true, value } : full(value));
  validators.set(schema, validator);
  return validator;
}

/**
 * Validates `value` with `schema` where nothing can wait (a synchronous function): a schema whose
 * validation returns a promise is refused with `INVALID_ARGUMENT`, naming `where`.
 */
export function validateSync(schema: StandardSchemaV1, value: unknown, where: string): Validation {
  const result = validatorOf(schema)(value);
  if (!(result instanceof Promise)) return result;
  // Nobody will read it: a rejection must not surface as an unhandled one.
  result.catch(() => undefined);
  throw new TotError('INVALID_ARGUMENT', `${where}: the schema validates asynchronously (it returned a Promise), which ${where} cannot wait for; use a schema without async checks`, {
    details: { field: 'schema' },
  });
}

/**
 * Issues as lines for a person or a model to read (zod's `prettifyError` format, which takes any
 * Standard Schema issues): `✖ Invalid input: expected number\n  → at score`.
 */
export function describeIssues(issues: readonly SchemaIssue[]): string {
  return z.prettifyError({ issues: issues as StandardSchemaV1.Issue[] });
}

/** Issues as `path: message` sentences, at most `limit` of them. */
export function issueSentences(issues: readonly SchemaIssue[], limit = Infinity): string[] {
  return issues.slice(0, limit).map((issue) => (issue.path.length === 0 ? issue.message : `${issue.path.map(String).join('.')}: ${issue.message}`));
}

const jsonSchemas = { input: new WeakMap<object, object | null>(), output: new WeakMap<object, object | null>() };

/**
 * The JSON Schema of what `schema` accepts (`io: 'input'`) or gives (`'output'`), or `undefined`
 * when none can be derived: zod 4's `z.toJSONSchema` for a zod 4 schema (parts JSON Schema cannot
 * express become `{}`), the schema's own converter when it has one (Standard JSON Schema,
 * `~standard.jsonSchema`), nothing otherwise (zod 3, valibot without a converter). Converted once
 * per schema: that costs more than validating a typical reply.
 */
export function jsonSchemaOf(schema: StandardSchemaV1, io: 'input' | 'output' = 'output'): object | undefined {
  const cache = jsonSchemas[io];
  let cached = cache.get(schema);
  if (cached === undefined) {
    cached = convert(schema, io) ?? null;
    cache.set(schema, cached);
  }
  return cached ?? undefined;
}

function convert(schema: StandardSchemaV1, io: 'input' | 'output'): object | undefined {
  try {
    if (isZod4(schema)) return z.toJSONSchema(schema as unknown as z.ZodType, { io, unrepresentable: 'any' }) as object;
    const converter = (schema['~standard'] as Partial<StandardJSONSchemaV1.Props>).jsonSchema;
    if (typeof converter?.[io] !== 'function') return undefined;
    const json: unknown = converter[io]({ target: 'draft-2020-12' });
    return typeof json === 'object' && json !== null ? json : undefined;
  } catch {
    // A schema JSON Schema cannot describe (a transform, a custom check): JSON mode goes without one.
    return undefined;
  }
}
