import { z } from 'zod';
import { parseOptions } from '../internal/validate.js';

/**
 * What went wrong when a plan was executed, from its stderr and exit code.
 *
 * @example
 * ```ts
 * import type { FailureCategory } from '@tot/core/sessions';
 *
 * const retryable = (c: FailureCategory) => c !== 'syntax_error' && c !== 'path_outside_project';
 * ```
 */
export type FailureCategory =
  | 'permission_denied'
  | 'access_forbidden'
  | 'file_not_found'
  | 'port_in_use'
  | 'lock_held'
  | 'disk_full'
  | 'missing_dependency'
  | 'version_mismatch'
  | 'import_error'
  | 'path_non_compliant'
  | 'path_outside_project'
  | 'test_failed'
  | 'assertion_error'
  | 'syntax_error'
  | 'timeout'
  | 'out_of_memory'
  | 'recursion_limit'
  | 'unknown';

/**
 * A classification rule: the first rule whose pattern matches the stderr (or whose exit code
 * matches, when it gives one) names the category.
 *
 * @example
 * ```ts
 * import type { FailureRule } from '@tot/core/sessions';
 *
 * const rule: FailureRule = { category: 'lock_held', pattern: /Could not get lock/i };
 * ```
 */
export interface FailureRule {
  category: FailureCategory;
  pattern?: RegExp;
  exitCode?: number;
}

/**
 * The built-in rules, in the order they are tried. The original design's patterns, completed for every
 * category; the specific before the general (a missing module before a missing file, a test
 * runner's summary before the assertion inside it, an ES module's missing export before a syntax
 * error, a failed test before a timeout, an errno `EACCES`/`EPERM` before the words "access
 * denied"), and the shell's exit codes last (124 timeout, 126 not executable, 127 not found).
 *
 * Where the rules depart from the original design's table, and why:
 * - **AssertionError.** That table maps `AssertionError` to `test_failed`, yet its enum also
 *   has `assertion_error`, which that table could never produce. Here a test runner's verdict
 *   (pytest's `FAILED` lines and `N failed` summary, jest's `FAIL` and `Tests: N failed`, TAP's
 *   `not ok`) is `test_failed` and is tried first, so a test that failed on an AssertionError under
 *   a runner is still `test_failed` and gets the healing table's test strategies (`analyze_diff`, …); an
 *   `AssertionError` with no runner around it (a script's own `assert`, Node's `assert`) is
 *   `assertion_error`, a broken invariant rather than a failing test, which the healing table has
 *   no row for (the user is asked, with the stderr).
 * - **`FAILED` is a runner's verdict only where a runner writes one** (the original table matches the word
 *   anywhere, ignoring case): case-sensitive, at the start of a line (`FAILED tests/x.py::test_a`,
 *   `FAILED (failures=1)`) or after a test's id (`tests/x.py::test_a FAILED`,
 *   `test_a (module.Class) ... FAILED`). Anywhere else the word is a tool's own verdict on
 *   something else ("BUILD FAILED" over a compiler error, "rsync FAILED" after "Connection timed
 *   out"), and the rules after this one say what went wrong; a lowercase "failed" is in ordinary
 *   messages ("request failed with status code 503", "Failed to fetch …: connect ETIMEDOUT").
 * - **`test.*failed` is "test" next to "failed"**: the word `test`, `tests`, `testing` or a test's
 *   name (`test_total`), then at most a noun of a test run (suite, run, case, script, step, job,
 *   target, stage) and a verb ("has", "were", …), then `failed` or `failing`, on one line. "The test
 *   suite failed" and "3 tests failed" are failed tests; "test connection failed: connect
 *   ETIMEDOUT" is a timeout, "Latest upload failed" and "running test" followed by an unrelated
 *   "failed" are not tests; nor is a name that only starts with it ("test-db", "test.py").
 * - **`cannot find`** is `missing_dependency` (a symbol, a package, a module, a library) except
 *   "cannot find the file/path", which is `file_not_found` (Windows' "The system cannot find the
 *   file specified").
 *
 * @example
 * ```ts
 * import { FAILURE_RULES } from '@tot/core/sessions';
 *
 * FAILURE_RULES.filter((r) => r.category === 'timeout').length;
 * ```
 */
export const FAILURE_RULES: readonly FailureRule[] = Object.freeze([
  { category: 'out_of_memory', pattern: /MemoryError|JavaScript heap out of memory|Cannot allocate memory|\bENOMEM\b|OutOfMemoryError|out of memory/i },
  { category: 'recursion_limit', pattern: /RecursionError|maximum recursion depth|Maximum call stack size exceeded|stack overflow/i },
  { category: 'disk_full', pattern: /No space left on device|\bENOSPC\b|Disk quota exceeded|\bEDQUOT\b/i },
  { category: 'port_in_use', pattern: /Address already in use|\bEADDRINUSE\b|port \d+ is (already )?in use/i },
  { category: 'lock_held', pattern: /Could not get lock|database is locked|index\.lock|\bEBUSY\b|lock(file)? is held|another (git )?process (seems to be|is) running|Resource temporarily unavailable/i },
  // git says "'/tmp/x' is outside repository at '/repo'", without an article.
  { category: 'path_outside_project', pattern: /outside (of )?(the |this )?(project|workspace|repository|repo|working tree)\b|path traversal|escapes the project root/i },
  { category: 'path_non_compliant', pattern: /non-compliant path|path is not compliant|violates the (path|naming|placement) (rules?|conventions?|policy)/i },
  { category: 'version_mismatch', pattern: /\bEBADENGINE\b|\bERESOLVE\b|Unsupported engine|requires Python|incompatible (version|with)|version conflict|VersionConflict|conflicting (peer )?dependenc|unsupported (python|node) version/i },
  { category: 'missing_dependency', pattern: /ModuleNotFoundError|No module named|Cannot find module|ERR_MODULE_NOT_FOUND|command not found|not installed|Could not find a version that satisfies|\bE404\b|404 Not Found - GET|\bcannot find (?!(the )?(file|path|director))/i },
  { category: 'import_error', pattern: /ImportError|does not provide an export named|is not exported by|cannot import name|ERR_PACKAGE_PATH_NOT_EXPORTED/i },
  { category: 'syntax_error', pattern: /SyntaxError|IndentationError|TabError|syntax error|Unexpected token|ParseError|unterminated string/i },
  // A runner's summary, or the words "test(s)" (a test's name, "testing", "the test suite/run/…") with
  // "failed"/"failing" next to them: not "test connection failed", whose test is not a test run.
  { category: 'test_failed', pattern: /\b\d+ failed\b|Tests?:\s+\d+ failed|\b(?:tests?|testing|test_\w+)(?![-./\w])(?: (?:suites?|runs?|cases?|scripts?|steps?|jobs?|targets?|stages?))?(?: (?:has|have|was|were|is|are))? (?:failed|failing)\b|\bFAIL\s+\S+\.(test|spec)\.|not ok \d+|Failed at the \S+ test script/i },
  // Case-sensitive, and only where a runner writes its verdict: a line that starts with it (pytest's
  // `FAILED tests/x.py::t - …`, unittest's `FAILED (failures=1)`), or after a test's id (pytest -v's
  // `tests/x.py::t FAILED`, unittest -v's `test_a (module.Class) ... FAILED`, cargo's
  // `test a::b ... FAILED`). Not "BUILD FAILED", nor "rsync FAILED" after a timeout.
  { category: 'test_failed', pattern: /^FAILED(?= \S+::| \((?:failures|errors)=)|^\S+::\S[^\n]*? FAILED\b|^test\w*\b[^\n]*? \.\.\. FAIL(?:ED)?\b/m },
  { category: 'assertion_error', pattern: /AssertionError|ERR_ASSERTION|assert(ion)? failed|expect\(received\)/i },
  // After the test rules: a test that timed out is a failed test, and "timeout" in a plugin's or a
  // test's name is not a timeout.
  { category: 'timeout', pattern: /\bTimeoutError\b|\btimed out\b|\bETIMEDOUT\b|deadline exceeded|Exceeded timeout of/i },
  // An errno says what the system refused: "Access denied … (EACCES)" is a file's permission, not an HTTP 403.
  { category: 'permission_denied', pattern: /\b(EACCES|EPERM)\b/ },
  { category: 'access_forbidden', pattern: /403 Forbidden|\bE403\b|HTTP 403|status code 403|returned error: 403|Access denied|AccessDenied|forbidden/i },
  { category: 'permission_denied', pattern: /PermissionError|Permission denied|\bEACCES\b|\bEPERM\b|Operation not permitted/i },
  { category: 'file_not_found', pattern: /FileNotFoundError|No such file|\bENOENT\b|does not exist|cannot open|cannot find the (file|path)/i },
  { category: 'timeout', exitCode: 124 },
  { category: 'permission_denied', exitCode: 126 },
  { category: 'missing_dependency', exitCode: 127 },
] satisfies FailureRule[]);

/**
 * Options of {@link classifyFailure}.
 *
 * @example
 * ```ts
 * import type { ClassifyFailureOptions } from '@tot/core/sessions';
 *
 * const options: ClassifyFailureOptions = { rules: [{ category: 'lock_held', pattern: /pidfile exists/ }] };
 * ```
 */
export interface ClassifyFailureOptions {
  /** Rules tried before the built-in ones. */
  rules?: readonly FailureRule[];
}

const optionsSchema = z.strictObject({
  rules: z
    .array(z.strictObject({ category: z.string(), pattern: z.instanceof(RegExp).optional(), exitCode: z.number().int().optional() }))
    .default([]),
});

/**
 * The category of a failure from its stderr and exit code: the first matching rule of
 * `options.rules`, then of {@link FAILURE_RULES}; `unknown` when none matches.
 *
 * @example
 * ```ts
 * import { classifyFailure } from '@tot/core/sessions';
 *
 * classifyFailure("ModuleNotFoundError: No module named 'requests'", 1); // 'missing_dependency'
 * classifyFailure('', 124);                                               // 'timeout'
 * ```
 */
export function classifyFailure(stderr: string, exitCode?: number, options: ClassifyFailureOptions = {}): FailureCategory {
  const o = parseOptions(optionsSchema, options, 'classifyFailure');
  const text = typeof stderr === 'string' ? stderr : String(stderr ?? '');
  for (const rule of [...(o.rules as FailureRule[]), ...FAILURE_RULES]) {
    if (rule.pattern) {
      rule.pattern.lastIndex = 0;
      if (rule.pattern.test(text)) return rule.category;
    } else if (rule.exitCode !== undefined && rule.exitCode === exitCode) return rule.category;
  }
  return 'unknown';
}
