import type { ConfigDifference } from '../errors/index.js';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The fields in which two run configurations differ, as dotted paths (a JSON round trip first,
 * so that a configuration read back from a store compares equal to the one it was written from).
 */
export function configDifferences(recorded: unknown, current: unknown): ConfigDifference[] {
  const out: ConfigDifference[] = [];
  walk(JSON.parse(JSON.stringify(recorded ?? {})), JSON.parse(JSON.stringify(current ?? {})), '', out);
  return out;
}

function walk(a: unknown, b: unknown, path: string, out: ConfigDifference[]): void {
  if (isRecord(a) && isRecord(b)) {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) walk(a[key], b[key], path === '' ? key : `${path}.${key}`, out);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    a.forEach((item, i) => walk(item, b[i], `${path}[${i}]`, out));
    return;
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) out.push({ path: path || '(root)', recorded: a, current: b });
}

/**
 * A user function in a run's configuration: only that there is one (its code cannot be compared;
 * a resume's replay still checks that the run does what the log says).
 */
export function describeFunction(value: unknown): 'function' | undefined {
  return typeof value === 'function' ? 'function' : undefined;
}
