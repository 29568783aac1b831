import { canonicalJson } from '../internal/canonical-json.js';
import { sha256Hex } from '../internal/hex.js';

/**
 * What {@link failureSignature} reads of a failure.
 *
 * @example
 * ```ts
 * import type { FailureInput } from '@tot/core/sessions';
 *
 * const failure: FailureInput = { stderr: 'Error: listen EADDRINUSE: address already in use :::3000', exitCode: 1, tool: 'npm', args: { script: 'dev' } };
 * ```
 */
export interface FailureInput {
  stderr: string;
  exitCode?: number;
  /** The tool that failed (`pytest`, `npm`, …). */
  tool?: string;
  /** The tool's key arguments (compared canonically: key order does not matter). */
  args?: Record<string, unknown>;
}

/** The error's type: `FooError`/`FooException`, else an errno code, else the first word of the first line. */
export function errorType(stderr: string): string {
  return /\b([A-Z][A-Za-z0-9]*(?:Error|Exception))\b/.exec(stderr)?.[1] ?? /\b(E[A-Z]{2,})\b/.exec(stderr)?.[1] ?? '';
}

/**
 * The message with what changes from one occurrence to the next taken out: paths (Unix and
 * Windows), temporary names, addresses, timestamps, and every number (line numbers, pids, ports,
 * durations). What stays (names in quotes, words) tells one failure from another.
 */
export function normalizeFailureMessage(stderr: string): string {
  return (
    stderr
      .replace(/\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?/g, '<time>')
      .replace(/\b\d{1,2}:\d{2}:\d{2}(\.\d+)?\b/g, '<time>')
      .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>')
      .replace(/\b0x[0-9a-f]+\b/gi, '<addr>')
      .replace(/[A-Za-z]:\\[^\s'"`:]+/g, '<path>')
      // A path starts a word (a URL's path follows its host, and stays: it names what failed).
      .replace(/(?<![\w:/.-])(?:~|\.{1,2})?\/[^\s'"`:()]+/g, '<path>')
      .replace(/\b(tmp|temp)[\w.-]*/gi, '<tmp>')
      // Line and column numbers, pids, and long numbers (ports, counts, times) change; a short
      // number on its own (a status code, an errno) tells failures apart. A pid is written
      // `pid 123`, `pid=123`, `pid: 123` or `PID#7`: a short one after `=` must go too, or two
      // runs of one failure sign differently.
      .replace(/\b(line|pid|tid|process|port)\s*[=:#]?\s*\d+/gi, '$1 #')
      .replace(/:\d+(:\d+)?\b/g, ':#')
      .replace(/\[\d+\]/g, '[#]')
      .replace(/\d{4,}/g, '#')
      .replace(/\s+/g, ' ')
      .trim()
  );
}

/**
 * A stable 16-hex-character signature of a failure (SHA-256 of error type, normalised
 * message, tool, key arguments and exit code): the same failure gets the same signature when only
 * paths, line numbers, pids, temporary names or timestamps change; another failure gets another.
 *
 * @example
 * ```ts
 * import { failureSignature } from '@tot/core/sessions';
 *
 * const a = failureSignature({ stderr: 'File "/tmp/a1/x.py", line 3\nKeyError: \'id\'', exitCode: 1 });
 * const b = failureSignature({ stderr: 'File "/tmp/b7/x.py", line 9\nKeyError: \'id\'', exitCode: 1 });
 * a === b; // true
 * ```
 */
export function failureSignature(failure: FailureInput): string {
  const stderr = typeof failure.stderr === 'string' ? failure.stderr : String(failure.stderr ?? '');
  const data = [errorType(stderr), normalizeFailureMessage(stderr), failure.tool ?? '', canonicalJson(failure.args ?? {}), failure.exitCode ?? ''].join('|');
  return sha256Hex(data, 16);
}
