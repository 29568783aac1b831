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

/** Compiles `schema`, or returns `undefined` when it uses anything the compiler does not know. */
export function compileFastCheck(schema: z.ZodType): FastCheck | undefined {
  try {
    return compile(defOf(schema));
  } catch {
    return undefined;
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

function compile(def: Def): FastCheck {
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
    case 'enum': {
      const values = new Set(Object.values(def.entries as Record<string, unknown>));
      return (v) => values.has(v);
    }
    case 'literal': {
      const values = new Set(def.values as unknown[]);
      return (v) => values.has(v);
    }
    case 'optional': {
      const inner = compile(defOf(def.innerType));
      return (v) => v === undefined || inner(v);
    }
    case 'nullable': {
      const inner = compile(defOf(def.innerType));
      return (v) => v === null || inner(v);
    }
    case 'array': {
      const element = compile(defOf(def.element));
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
      const value = compile(defOf(def.valueType));
      return (v) => {
        if (!isPlainObject(v)) return false;
        for (const key in v) if (!value(v[key])) return false;
        return true;
      };
    }
    case 'object': {
      if (checksOf(def).length > 0) throw new Unsupported('object checks');
      const entries = Object.entries(def.shape as Record<string, unknown>);
      const keys = entries.map(([key]) => key);
      const checks = entries.map(([, s]) => compile(defOf(s)));
      // zod's own verdict on which keys may be absent (an `unknown` field may not, an optional one may).
      const mayBeAbsent = entries.map(([, s]) => (s as { _zod: { optin?: string } })._zod.optin === 'optional');
      const known = new Set(keys);
      // A catchall of `unknown` (a loose object) keeps unknown keys as they are; anything else may change them.
      const catchall = def.catchall === undefined ? undefined : defOf(def.catchall).type;
      if (catchall !== undefined && catchall !== 'unknown') throw new Unsupported('catchall');
      const strict = catchall === undefined;
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
        return true;
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
        const check = compile(option);
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

function discriminator(options: Def[]): string | undefined {
  if (!options.every((o) => o.type === 'object')) return undefined;
  const first = options[0]!.shape as Record<string, unknown>;
  return Object.keys(first).find((key) => options.every((o) => defOf((o.shape as Record<string, unknown>)[key] ?? { _zod: { def: { type: 'none' } } }).type === 'literal'));
}
