import { z } from 'zod';
import { TotError } from '../errors/index.js';

function describePath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '';
  return path
    .map((key, i) => (typeof key === 'number' ? `[${key}]` : i === 0 ? String(key) : `.${String(key)}`))
    .join('');
}

function fieldName(root: string, path: readonly PropertyKey[]): string {
  const field = describePath(path);
  return field === '' ? root : field.startsWith('[') ? `${root}${field}` : `${root}.${field}`;
}

type Issue = z.core.$ZodIssue;
type NestedUnknownKey = { unknownKey?: string; suggestion?: string };
type Schema = z.core.$ZodType;

/**
 * The first unknown key anywhere in `issues`, looking into the branches of a failed union too
 * (their issues carry full paths), so that a typo is named before a missing or mistyped field.
 */
function firstUnknownKey(issues: readonly Issue[]): { path: PropertyKey[]; key: string; suggestion?: string } | undefined {
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys' && issue.keys.length > 0) return { path: [...issue.path], key: issue.keys[0]! };
    const nested = issue.code === 'custom' ? (issue.params as NestedUnknownKey | undefined) : undefined;
    if (nested?.unknownKey !== undefined) return { path: [...issue.path], key: nested.unknownKey, ...(nested.suggestion === undefined ? {} : { suggestion: nested.suggestion }) };
  }
  for (const issue of issues) {
    if (issue.code !== 'invalid_union') continue;
    for (const branch of issue.errors) {
      const found = firstUnknownKey(branch);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** The schemas a value is checked against once wrappers (optional, default, pipe, lazy…) are removed. */
function unwrap(schema: Schema, seen = new Set<Schema>()): Schema[] {
  if (seen.has(schema)) return [];
  seen.add(schema);
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
    case 'catch':
    case 'success':
      return unwrap(def.innerType as Schema, seen);
    case 'pipe':
      return [...unwrap(def.in as Schema, seen), ...unwrap(def.out as Schema, seen)];
    case 'lazy':
      return unwrap((def.getter as () => Schema)(), seen);
    case 'union':
      return (def.options as Schema[]).flatMap((option) => unwrap(option, seen));
    case 'intersection':
      return [...unwrap(def.left as Schema, seen), ...unwrap(def.right as Schema, seen)];
    default:
      return [schema];
  }
}

/** The schemas that check the value found at `key` of a value checked by `schema`. */
function child(schema: Schema, key: PropertyKey): Schema[] {
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  switch (def.type) {
    case 'object': {
      const shape = def.shape as Record<string, Schema>;
      return typeof key === 'string' && Object.hasOwn(shape, key) ? [shape[key]!] : def.catchall !== undefined ? [def.catchall as Schema] : [];
    }
    case 'array':
      return [def.element as Schema];
    case 'tuple':
      return typeof key === 'number' && (def.items as Schema[])[key] !== undefined ? [(def.items as Schema[])[key]!] : def.rest ? [def.rest as Schema] : [];
    case 'record':
    case 'map':
      return [def.valueType as Schema];
    default:
      return [];
  }
}

/** The option names an object schema accepts at `path` (every branch's, where a union allows several shapes). */
function knownKeysAt(schema: Schema, path: readonly PropertyKey[]): string[] {
  let here = unwrap(schema);
  for (const key of path) here = here.flatMap((s) => child(s, key)).flatMap((s) => unwrap(s));
  const keys = new Set<string>();
  for (const s of here) if (s._zod.def.type === 'object') for (const key of Object.keys((s as z.ZodObject).shape)) keys.add(key);
  return [...keys];
}

/** Levenshtein distance; a few lines on the error path only, so no dependency for it. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The known key nearest to `key`, ignoring case, or `undefined` when none is close: within a
 * third of the longer name's length (at least one edit), so `maxCall` finds `maxCalls` but
 * `foo` finds nothing among `limit` and `signal`.
 */
export function nearestKey(key: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(key.toLowerCase(), name.toLowerCase());
    if (distance > Math.max(1, Math.floor(Math.max(key.length, name.length) / 3))) continue;
    if (best === undefined || distance < best.distance) best = { name, distance };
  }
  return best?.name;
}

/**
 * Parses `value` with `schema`, or throws `INVALID_ARGUMENT` naming the first offending field:
 * `withRetry: options.maxRetries: Too small: expected number to be >=0`.
 *
 * An unknown key (a strict object schema's `unrecognized_keys`) is reported before any other
 * issue, so a misspelt option is named even when a required one is missing too, with the nearest
 * known key at that place: `Budget: options.maxCall: unknown option; did you mean \`maxCalls\`?`.
 */
export function parseOptions<S extends z.ZodType>(schema: S, value: unknown, where: string, root = 'options'): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues;
  const unknown = firstUnknownKey(issues);
  if (unknown !== undefined) {
    const name = fieldName(root, [...unknown.path, unknown.key]);
    const suggestion = unknown.suggestion ?? nearestKey(unknown.key, knownKeysAt(schema, unknown.path));
    const hint = suggestion === undefined ? '' : `; did you mean \`${suggestion}\`?`;
    throw new TotError('INVALID_ARGUMENT', `${where}: ${name}: unknown option${hint}`, {
      details: { field: name, issues, ...(suggestion === undefined ? {} : { suggestion }) },
    });
  }
  const issue = issues[0]!;
  const name = fieldName(root, issue.path);
  throw new TotError('INVALID_ARGUMENT', `${where}: ${name}: ${issue.message}`, {
    details: { field: name, issues },
  });
}

/**
 * The zod issue for an `INVALID_ARGUMENT` that `parseOptions` threw while a schema checked a
 * nested value with another parser (in a transform), so that the outer `parseOptions` names the
 * same field, below its own, with the same message, and still puts an unknown key first.
 */
export function nestedIssue(error: TotError<'INVALID_ARGUMENT'>, input: unknown): z.core.$ZodRawIssue {
  const issues = (error.details?.issues ?? []) as Issue[];
  const unknown = firstUnknownKey(issues);
  if (unknown !== undefined) {
    const params: NestedUnknownKey = { unknownKey: unknown.key, ...(error.details?.suggestion === undefined ? {} : { suggestion: error.details.suggestion }) };
    return { code: 'custom', message: 'unknown option', input, path: unknown.path, params };
  }
  const first = issues[0];
  return { code: 'custom', message: first?.message ?? error.message, input, path: first ? [...first.path] : [] };
}

/** A zod schema for an optional `AbortSignal`. */
export const signalSchema = z.custom<AbortSignal>((v) => v instanceof AbortSignal, 'expected an AbortSignal').optional();

/** A zod schema for a function of any shape (typed by the caller). */
export function fnSchema<F extends (...args: never[]) => unknown>(message = 'expected a function') {
  return z.custom<F>((v) => typeof v === 'function', message);
}
