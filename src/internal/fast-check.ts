import type { z } from 'zod';

/**
 * A predicate compiled from a zod schema: `true` means the value is valid AND parsing it would
 * give back an equal value (no unknown keys stripped, no defaults, no transforms), so the caller
 * may use it as it is. `false` means "not sure": parse it with the schema, which names what is
 * wrong or returns the cleaned value.
 *
 * Why: every model call validates its request and its result. A zod parse of them costs about
 * 1–3 µs with the copies it makes, which the Game of 24 replay benchmark (a 0 ms model) shows as
 * a fifth of the framework's time per node. The schema stays the one source of truth: this is
 * derived from it, never written by hand, and held to `safeParse` by a differential property test.
 */
export type FastCheck = (value: unknown) => boolean;

type Def = { type: string; checks?: { _zod: { def: CheckDef } }[] } & Record<string, unknown>;
type CheckDef = { check: string; value?: number; inclusive?: boolean; minimum?: number; maximum?: number; format?: string };

const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  // Not a null-prototype object: zod hands those back as plain objects, so they would not be returned unchanged.
  return Object.getPrototypeOf(v) === Object.prototype;
};

const defOf = (schema: unknown): Def => (schema as { _zod: { def: Def } })._zod.def;

/**
 * Compiles `schema`, or returns `undefined` when it uses anything the compiler does not know.
 * With `userCode: false`, also when it has a refinement or a `z.custom` predicate: a check
 * that says "not sure" would have that code run twice for one value (a user's schema, whose
 * checks may count, log or cost). With `generated: false`, the check is the closures even where
 * code generation is allowed (the generated check is held to them by a property test).
 */
export function compileFastCheck(schema: z.ZodType, options: { userCode?: boolean; generated?: boolean } = {}): FastCheck | undefined {
  let check: FastCheck;
  try {
    check = compile(defOf(schema), options.userCode ?? true);
  } catch {
    return undefined;
  }
  if (options.generated === false) return check;
  // The same check as straight-line code with each key's read written out (about 55 ns a request
  // against 185 ns for the closures, which read keys from a list). Where code generation is
  // forbidden (a page's CSP, `--disallow-code-generation-from-strings`), the closures serve.
  try {
    return generated(defOf(schema), options.userCode ?? true);
  } catch {
    return check;
  }
}

class Unsupported extends Error {}

/** One predicate for a list of them, without a loop for the common short lists. */
function allOf<T>(checks: ((v: T) => boolean)[]): (v: T) => boolean {
  if (checks.length === 0) return () => true;
  if (checks.length === 1) return checks[0]!;
  if (checks.length === 2) {
    const [a, b] = checks as [(v: T) => boolean, (v: T) => boolean];
    return (v) => a(v) && b(v);
  }
  return (v) => checks.every((c) => c(v));
}

function checksOf(def: Def): CheckDef[] {
  return (def.checks ?? []).map((c) => c._zod.def);
}

/** `userCode`: whether the check may call the schema's predicates (see {@link compileFastCheck}). */
function compile(def: Def, userCode: boolean): FastCheck {
  switch (def.type) {
    case 'string': {
      const bounds = allOf(
        checksOf(def).map((c) => {
          if (c.check === 'min_length') return (v: string) => v.length >= c.minimum!;
          if (c.check === 'max_length') return (v: string) => v.length <= c.maximum!;
          throw new Unsupported(c.check);
        }),
      );
      return (v) => typeof v === 'string' && bounds(v);
    }
    case 'number': {
      const bounds = allOf(
        checksOf(def).map((c): ((v: number) => boolean) => {
          if (c.check === 'number_format' && c.format === 'safeint') return Number.isSafeInteger;
          if (c.check === 'greater_than') return c.inclusive ? (v) => v >= c.value! : (v) => v > c.value!;
          if (c.check === 'less_than') return c.inclusive ? (v) => v <= c.value! : (v) => v < c.value!;
          throw new Unsupported(c.check);
        }),
      );
      return (v) => typeof v === 'number' && Number.isFinite(v) && bounds(v);
    }
    case 'boolean':
      if (checksOf(def).length > 0) throw new Unsupported('boolean checks');
      return (v) => typeof v === 'boolean';
    case 'unknown':
    case 'any':
      return () => true;
    case 'custom': {
      // z.custom(fn): a predicate that never changes the value. A promise means an async check: not sure.
      if (checksOf(def).length > 0) throw new Unsupported('custom checks');
      return refinement(def, userCode);
    }
    case 'enum': {
      const values = new Set(Object.values(def.entries as Record<string, unknown>));
      return (v) => values.has(v);
    }
    case 'literal': {
      const values = new Set(def.values as unknown[]);
      return (v) => values.has(v);
    }
    case 'optional': {
      const inner = compile(defOf(def.innerType), userCode);
      return (v) => v === undefined || inner(v);
    }
    case 'nullable': {
      const inner = compile(defOf(def.innerType), userCode);
      return (v) => v === null || inner(v);
    }
    case 'array': {
      const element = compile(defOf(def.element), userCode);
      const bounds = allOf(
        checksOf(def).map((c) => {
          if (c.check === 'min_length') return (v: unknown[]) => v.length >= c.minimum!;
          if (c.check === 'max_length') return (v: unknown[]) => v.length <= c.maximum!;
          throw new Unsupported(c.check);
        }),
      );
      return (v) => {
        if (!Array.isArray(v) || !bounds(v)) return false;
        for (let i = 0; i < v.length; i++) if (!(i in v) || !element(v[i])) return false;
        return true;
      };
    }
    case 'record': {
      if (defOf(def.keyType).type !== 'string' || checksOf(defOf(def.keyType)).length > 0) throw new Unsupported('record key');
      const value = compile(defOf(def.valueType), userCode);
      return (v) => {
        if (!isPlainObject(v)) return false;
        for (const key in v) if (!value(v[key])) return false;
        return true;
      };
    }
    case 'object': {
      const refinements = allOf(checksOf(def).map((c) => refinement(c, userCode)));
      const entries = Object.entries(def.shape as Record<string, unknown>);
      const keys = entries.map(([key]) => key);
      const checks = entries.map(([, s]) => compile(defOf(s), userCode));
      // zod's own verdict on which keys may be absent (an `unknown` field may not, an optional one may).
      const mayBeAbsent = entries.map(([, s]) => (s as { _zod: { optin?: string } })._zod.optin === 'optional');
      const known = new Set(keys);
      // A catchall of `unknown` (a loose object) keeps unknown keys as they are; none strips them
      // and `never` (a strict object) refuses them, so a value with one is not sure; any other may change them.
      const catchall = def.catchall === undefined ? undefined : defOf(def.catchall).type;
      if (catchall !== undefined && catchall !== 'unknown' && catchall !== 'never') throw new Unsupported('catchall');
      const strict = catchall !== 'unknown';
      return (v) => {
        if (!isPlainObject(v)) return false;
        if (strict) for (const key in v) if (!known.has(key)) return false;
        for (let i = 0; i < keys.length; i++) {
          const key = keys[i]!;
          const value = v[key];
          if (value === undefined) {
            if (mayBeAbsent[i]) continue;
            if (!(key in v)) return false;
          }
          if (!checks[i]!(value)) return false;
        }
        return refinements(v);
      };
    }
    case 'union': {
      // Only unions whose options exclude each other by a literal key: zod keeps the first option
      // that parses, and that must be the one this check found.
      const options = (def.options as unknown[]).map(defOf);
      const key = discriminator(options);
      if (key === undefined) throw new Unsupported('union');
      const byValue = new Map<unknown, FastCheck>();
      for (const option of options) {
        const check = compile(option, userCode);
        for (const value of (defOf((option.shape as Record<string, unknown>)[key]).values as unknown[])) {
          if (byValue.has(value)) throw new Unsupported('union overlap');
          byValue.set(value, check);
        }
      }
      return (v) => isPlainObject(v) && (byValue.get(v[key])?.(v) ?? false);
    }
    default:
      throw new Unsupported(def.type);
  }
}

/** A `z.custom` or `.refine` predicate: it sees the parsed value, which is the value itself here. */
function refinement(def: CheckDef | Def, userCode: boolean): FastCheck {
  const d = def as { check?: string; fn?: unknown; when?: unknown };
  if (!userCode) throw new Unsupported('user code');
  if (d.check !== 'custom' || typeof d.fn !== 'function' || d.when !== undefined) throw new Unsupported('check');
  const fn = d.fn as (v: unknown) => unknown;
  return (v) => {
    const verdict = fn(v);
    return !(verdict instanceof Promise) && Boolean(verdict);
  };
}

/**
 * `schema.safeParse`, answered by the schema's compiled check when it can: a value the check
 * accepts comes back as it is, anything else goes through zod. For replies read on every model
 * call (a provider adapter's), where zod's parse was most of the adapter's time per call.
 */
export function compileSafeParse<S extends z.ZodType>(schema: S): (value: unknown) => z.ZodSafeParseResult<z.output<S>> {
  const check = compileFastCheck(schema);
  if (check === undefined) return (value) => schema.safeParse(value);
  return (value) => (check(value) ? { success: true, data: value as z.output<S> } : schema.safeParse(value));
}

/**
 * Like {@link compileFastCheck}, for an options object whose fields may have defaults: returns
 * the value zod's parse would give (the value itself, or a shallow copy with the absent defaults
 * filled in), or `undefined` for "not sure: parse it with the schema".
 *
 * Why: `generateStructured` checks its options on every call, and a chain-of-thought step makes
 * one such call; the zod parse of them was a tenth of a step's framework time.
 */
export function compileFastParse<S extends z.ZodType>(schema: S): ((value: unknown) => z.output<S> | undefined) | undefined {
  try {
    return compileOptions(defOf(schema)) as (value: unknown) => z.output<S> | undefined;
  } catch {
    return undefined;
  }
}

function compileOptions(def: Def): (value: unknown) => unknown {
  if (def.type !== 'object' || (def.catchall !== undefined && defOf(def.catchall).type !== 'never')) throw new Unsupported('options');
  const shape = def.shape as Record<string, unknown>;
  const defaults: [string, () => unknown][] = [];
  const plain: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(shape)) {
    const fieldDef = defOf(field);
    if (fieldDef.type !== 'default') {
      plain[key] = field;
      continue;
    }
    // A default replaces `undefined`; any other value must pass the inner schema unchanged.
    plain[key] = { _zod: { def: { type: 'optional', innerType: fieldDef.innerType }, optin: 'optional' } };
    defaults.push([key, () => (fieldDef as unknown as { defaultValue: unknown }).defaultValue]);
  }
  const fields = compile({ type: 'object', shape: plain }, true);
  const refinements = allOf(checksOf(def).map((c) => refinement(c, true)));
  return (value) => {
    if (!fields(value)) return undefined;
    let out = value as Record<string, unknown>;
    for (const [key, defaultValue] of defaults) {
      if (out[key] !== undefined) continue;
      if (out === value) out = { ...out };
      out[key] = defaultValue();
    }
    return refinements(out) ? out : undefined;
  };
}

function discriminator(options: Def[]): string | undefined {
  if (!options.every((o) => o.type === 'object')) return undefined;
  const first = options[0]!.shape as Record<string, unknown>;
  return Object.keys(first).find((key) => options.every((o) => defOf((o.shape as Record<string, unknown>)[key] ?? { _zod: { def: { type: 'none' } } }).type === 'literal'));
}

/** The source of a check: its functions (`f0` checks the value), and the values they refer to. */
interface Source {
  functions: string[];
  constants: unknown[];
}

/** {@link compile} as JavaScript source, compiled with `new Function`: the verdicts are the same, one for one. */
function generated(def: Def, userCode: boolean): FastCheck {
  const source: Source = { functions: [], constants: [] };
  emit(def, userCode, source);
  const locals = source.constants.map((_, i) => `const k${i} = k[${i}];`).join('\n');
  // Nothing of a value checked reaches the source: it is built from the schema's shape alone (keys
  // JSON-quoted, numbers finite literals, sets, maps and predicates passed in as constants).
  const factory = new Function('k', 'isPlainObject', `'use strict';\n${locals}\n${source.functions.join('\n')}\nreturn f0;`) as (k: unknown[], p: typeof isPlainObject) => FastCheck;
  return factory(source.constants, isPlainObject);
}

/** A finite number as a literal, or Unsupported. */
function literal(n: unknown): string {
  if (typeof n !== 'number' || !Number.isFinite(n)) throw new Unsupported('bound');
  return Object.is(n, -0) ? '-0' : String(n);
}

function constant(source: Source, value: unknown): string {
  source.constants.push(value);
  return `k${source.constants.length - 1}`;
}

/** Adds the function that checks `def` to `source`; returns its name. */
function emit(def: Def, userCode: boolean, source: Source): string {
  const name = `f${source.functions.length}`;
  source.functions.push('');
  const lengthBounds = (): string[] =>
    checksOf(def).map((c) => {
      if (c.check === 'min_length') return `v.length >= ${literal(c.minimum)}`;
      if (c.check === 'max_length') return `v.length <= ${literal(c.maximum)}`;
      throw new Unsupported(c.check);
    });
  let body: string;
  switch (def.type) {
    case 'string':
      body = `return ${["typeof v === 'string'", ...lengthBounds()].join(' && ')};`;
      break;
    case 'number': {
      const bounds = checksOf(def).map((c) => {
        if (c.check === 'number_format' && c.format === 'safeint') return ' && Number.isSafeInteger(v)';
        if (c.check === 'greater_than') return ` && v ${c.inclusive ? '>=' : '>'} ${literal(c.value)}`;
        if (c.check === 'less_than') return ` && v ${c.inclusive ? '<=' : '<'} ${literal(c.value)}`;
        throw new Unsupported(c.check);
      });
      body = `return typeof v === 'number' && Number.isFinite(v)${bounds.join('')};`;
      break;
    }
    case 'boolean':
      if (checksOf(def).length > 0) throw new Unsupported('boolean checks');
      body = `return typeof v === 'boolean';`;
      break;
    case 'unknown':
    case 'any':
      body = 'return true;';
      break;
    case 'custom':
      if (checksOf(def).length > 0) throw new Unsupported('custom checks');
      body = `return ${emitRefinement(def, userCode, source)}(v);`;
      break;
    case 'enum':
      body = `return ${constant(source, new Set(Object.values(def.entries as Record<string, unknown>)))}.has(v);`;
      break;
    case 'literal':
      body = `return ${constant(source, new Set(def.values as unknown[]))}.has(v);`;
      break;
    case 'optional':
      body = `return v === undefined || ${emit(defOf(def.innerType), userCode, source)}(v);`;
      break;
    case 'nullable':
      body = `return v === null || ${emit(defOf(def.innerType), userCode, source)}(v);`;
      break;
    case 'array': {
      const element = emit(defOf(def.element), userCode, source);
      body = `if (!Array.isArray(v)${lengthBounds().map((c) => ` || !(${c})`).join('')}) return false;
  for (let i = 0; i < v.length; i++) if (!(i in v) || !${element}(v[i])) return false;
  return true;`;
      break;
    }
    case 'record': {
      if (defOf(def.keyType).type !== 'string' || checksOf(defOf(def.keyType)).length > 0) throw new Unsupported('record key');
      const value = emit(defOf(def.valueType), userCode, source);
      body = `if (!isPlainObject(v)) return false;
  for (const key in v) if (!${value}(v[key])) return false;
  return true;`;
      break;
    }
    case 'object': {
      const refinements = checksOf(def).map((c) => emitRefinement(c, userCode, source));
      const entries = Object.entries(def.shape as Record<string, unknown>);
      const catchall = def.catchall === undefined ? undefined : defOf(def.catchall).type;
      if (catchall !== undefined && catchall !== 'unknown' && catchall !== 'never') throw new Unsupported('catchall');
      const lines = ['if (!isPlainObject(v)) return false;'];
      if (catchall !== 'unknown') lines.push(`for (const key in v) if (!${constant(source, new Set(entries.map(([key]) => key)))}.has(key)) return false;`);
      entries.forEach(([key, s], i) => {
        const check = emit(defOf(s), userCode, source);
        const quoted = JSON.stringify(key);
        lines.push(`const x${i} = v[${quoted}];`);
        if ((s as { _zod: { optin?: string } })._zod.optin === 'optional') lines.push(`if (x${i} !== undefined && !${check}(x${i})) return false;`);
        else lines.push(`if ((x${i} === undefined && !(${quoted} in v)) || !${check}(x${i})) return false;`);
      });
      for (const r of refinements) lines.push(`if (!${r}(v)) return false;`);
      lines.push('return true;');
      body = lines.join('\n  ');
      break;
    }
    case 'union': {
      const options = (def.options as unknown[]).map(defOf);
      const key = discriminator(options);
      if (key === undefined) throw new Unsupported('union');
      const byValue = new Map<unknown, number>();
      const cases: string[] = [];
      options.forEach((option, i) => {
        cases.push(`case ${i}: return ${emit(option, userCode, source)}(v);`);
        for (const value of defOf((option.shape as Record<string, unknown>)[key]).values as unknown[]) {
          if (byValue.has(value)) throw new Unsupported('union overlap');
          byValue.set(value, i);
        }
      });
      body = `if (!isPlainObject(v)) return false;
  switch (${constant(source, byValue)}.get(v[${JSON.stringify(key)}])) {
    ${cases.join('\n    ')}
    default: return false;
  }`;
      break;
    }
    default:
      throw new Unsupported(def.type);
  }
  source.functions[Number(name.slice(1))] = `function ${name}(v) {\n  ${body}\n}`;
  return name;
}

/** A `z.custom` or `.refine` predicate as a function of the source (see {@link refinement}). */
function emitRefinement(def: CheckDef | Def, userCode: boolean, source: Source): string {
  return constant(source, refinement(def, userCode));
}
