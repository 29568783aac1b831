import { describe, expect, it } from 'vitest';
import { classifyFailure, FailureDeduplicator, failureSignature, HealingEngine, type FailureCategory } from '../../src/sessions/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

// Real-looking stderr of Python, Node, the shell, pytest and npm, each with the category it is.
const SAMPLES: [string, string, number, FailureCategory][] = [
  ['python: open a file the user may not write', "Traceback (most recent call last):\n  File \"/srv/app/main.py\", line 12, in <module>\n    open('/etc/hosts', 'w')\nPermissionError: [Errno 13] Permission denied: '/etc/hosts'", 1, 'permission_denied'],
  ['node: write a root-owned file', "node:fs:581\n  handleErrorFromBinding(ctx);\nError: EACCES: permission denied, open '/usr/lib/app.conf'\n    at Object.openSync (node:fs:581:3)", 1, 'permission_denied'],
  ['shell: run a file without the execute bit', 'bash: ./deploy.sh: Permission denied', 126, 'permission_denied'],
  ['npm: publish without access', 'npm ERR! code E403\nnpm ERR! 403 403 Forbidden - PUT https://registry.npmjs.org/@acme%2fcore - You do not have permission to publish', 1, 'access_forbidden'],
  ['git: push to a protected repository', 'remote: Permission to acme/app.git denied to bot.\nfatal: unable to access \'https://github.com/acme/app.git/\': The requested URL returned error: 403', 128, 'access_forbidden'],
  ['npm: no such package', 'npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/leftpadd - Not found\nnpm error 404  \'leftpadd@*\' is not in this registry.', 1, 'missing_dependency'],
  ['pytest: a failure under the timeout plugin', 'platform linux -- Python 3.12.1, pytest-8.0.0\nplugins: timeout-2.1.0\nFAILED tests/test_api.py::test_list - KeyError: \'items\'\n1 failed, 20 passed in 1.02s', 1, 'test_failed'],
  ['node: an assertion about a timeout', 'AssertionError [ERR_ASSERTION]: timeout should be 30\n    at Object.<anonymous> (/app/check.js:3:8)', 1, 'assertion_error'],
  ['node: a TypeError raised from a timer', "TypeError: cb is not a function\n    at listOnTimeout (node:internal/timers:573:17)\n    at process.processTimers (node:internal/timers:514:7)", 1, 'unknown'],
  ['python: read a missing file', "Traceback (most recent call last):\n  File \"/tmp/tmpa81x/run.py\", line 3, in <module>\nFileNotFoundError: [Errno 2] No such file or directory: 'config.yaml'", 1, 'file_not_found'],
  ['node: read a missing file', "Error: ENOENT: no such file or directory, open '/home/dev/app/.env'\n    at Object.openSync (node:fs:596:3) {\n  errno: -2,\n  code: 'ENOENT'", 1, 'file_not_found'],
  ['shell: cat a missing file', 'cat: notes.txt: No such file or directory', 1, 'file_not_found'],
  ['node: listen on a busy port', "Error: listen EADDRINUSE: address already in use :::3000\n    at Server.setupListenHandle [as _listen2] (node:net:1817:16)", 1, 'port_in_use'],
  ['python: bind a busy port', 'OSError: [Errno 98] Address already in use', 1, 'port_in_use'],
  ['apt: lock held', 'E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4211 (apt)', 100, 'lock_held'],
  ['git: index lock', "fatal: Unable to create '/repo/.git/index.lock': File exists.\nAnother git process seems to be running in this repository", 128, 'lock_held'],
  ['sqlite: database locked', 'sqlite3.OperationalError: database is locked', 1, 'lock_held'],
  ['shell: disk full', 'cp: error writing \'/data/backup.tar\': No space left on device', 1, 'disk_full'],
  ['npm: disk full', 'npm ERR! code ENOSPC\nnpm ERR! syscall write\nnpm ERR! errno -28', 228, 'disk_full'],
  ['python: missing module', "Traceback (most recent call last):\n  File \"app.py\", line 1, in <module>\n    import requests\nModuleNotFoundError: No module named 'requests'", 1, 'missing_dependency'],
  ['node: missing package', "node:internal/modules/cjs/loader:1080\n  throw err;\nError: Cannot find module 'express'\nRequire stack:\n- /srv/app/server.js", 1, 'missing_dependency'],
  ['shell: missing command', 'bash: rg: command not found', 127, 'missing_dependency'],
  ['pip: no such version', 'ERROR: Could not find a version that satisfies the requirement tensorflw (from versions: none)', 1, 'missing_dependency'],
  ['npm: peer conflict', 'npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree\nnpm ERR! Found: react@18.2.0', 1, 'version_mismatch'],
  ['npm: engine', 'npm WARN EBADENGINE Unsupported engine {\nnpm WARN EBADENGINE   package: \'vite@6.0.0\',\nnpm WARN EBADENGINE   required: { node: \'^18.0.0 || >=20.0.0\' }', 1, 'version_mismatch'],
  ['pip: python too old', 'ERROR: Package \'numpy\' requires Python >=3.10 but the running Python is 3.8.10', 1, 'version_mismatch'],
  ['python: name not in module', "Traceback (most recent call last):\n  File \"main.py\", line 2, in <module>\n    from utils import parse_config\nImportError: cannot import name 'parse_config' from 'utils' (/app/utils.py)", 1, 'import_error'],
  ['node: missing ES export', "file:///app/index.js:1\nimport { helper } from './lib.js';\n         ^^^^^^\nSyntaxError: The requested module './lib.js' does not provide an export named 'helper'", 1, 'import_error'],
  ['python: syntax', '  File "/app/main.py", line 7\n    def broken(:\n               ^\nSyntaxError: invalid syntax', 1, 'syntax_error'],
  ['python: indentation', '  File "job.py", line 4\n    return x\n    ^\nIndentationError: unexpected indent', 1, 'syntax_error'],
  ['node: unexpected token', "/app/config.js:3\n  port: 3000,,\n             ^\n\nSyntaxError: Unexpected token ','", 1, 'syntax_error'],
  ['shell: syntax', "deploy.sh: line 12: syntax error near unexpected token `fi'", 2, 'syntax_error'],
  ['pytest: failing test', "============================= FAILURES ==============================\n_____________________________ test_total _____________________________\n    def test_total():\n>       assert total([1, 2]) == 4\nE       assert 3 == 4\ntests/test_cart.py:8: AssertionError\n=========================== short test summary info ===========================\nFAILED tests/test_cart.py::test_total - assert 3 == 4\n========================= 1 failed, 12 passed in 0.31s =========================", 1, 'test_failed'],
  ['jest: failing suite', "FAIL src/cart.test.ts\n  ● cart › totals\n    expect(received).toBe(expected) // Object.is equality\n    Expected: 4\n    Received: 3\nTests:       1 failed, 11 passed, 12 total", 1, 'test_failed'],
  ['node: bare assertion', "node:assert:399\n    throw err;\nAssertionError [ERR_ASSERTION]: The expression evaluated to a falsy value:\n  assert(user.id)", 1, 'assertion_error'],
  ['python: bare assertion', 'Traceback (most recent call last):\n  File "check.py", line 5, in <module>\n    assert len(rows) > 0, "no rows"\nAssertionError: no rows', 1, 'assertion_error'],
  ['python: timeout', 'requests.exceptions.ReadTimeout: HTTPSConnectionPool(host=\'api.acme.io\', port=443): Read timed out. (read timeout=10)', 1, 'timeout'],
  ['node: connect timeout', 'Error: connect ETIMEDOUT 10.0.0.5:5432\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16)', 1, 'timeout'],
  ['coreutils timeout', '', 124, 'timeout'],
  ['node: heap', '<--- Last few GCs --->\nFATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory', 134, 'out_of_memory'],
  ['python: memory', 'Traceback (most recent call last):\n  File "load.py", line 9, in <module>\nMemoryError', 1, 'out_of_memory'],
  ['python: recursion', 'RecursionError: maximum recursion depth exceeded while calling a Python object', 1, 'recursion_limit'],
  ['node: call stack', 'RangeError: Maximum call stack size exceeded\n    at walk (/app/tree.js:4:10)', 1, 'recursion_limit'],
  ['tool: path outside the project', 'refused: /etc/passwd is outside the project root', 1, 'path_outside_project'],
  ['something else', 'segmentation fault (core dumped)', 139, 'unknown'],
  // What the seed's patterns catch and the first rules missed (an audit), and the words around them
  // that must not be caught.
  ['pytest -v: a FAILED verdict at the end of the line', 'tests/test_api.py::test_create PASSED                          [ 50%]\ntests/test_api.py::test_delete FAILED                          [100%]', 1, 'test_failed'],
  ['unittest: FAILED summary', 'Ran 12 tests in 0.031s\n\nFAILED (failures=1, errors=1)', 1, 'test_failed'],
  ['ci: the test suite failed', 'error: the test suite failed, see the log above', 1, 'test_failed'],
  ['npm: the test script failed', 'npm ERR! code ELIFECYCLE\nnpm ERR! errno 1\nnpm ERR! app@1.0.0 test: `mocha`\nnpm ERR! Exit status 1\nnpm ERR! Failed at the app@1.0.0 test script.', 1, 'test_failed'],
  ['curl: a line starting "Failed" that is a timeout, not a test', 'Failed to fetch https://api.acme.io/v1/items: connect ETIMEDOUT 10.0.0.7:443', 1, 'timeout'],
  ['http: a lowercase "failed" is not a test', 'Error: request failed with status code 503', 1, 'unknown'],
  ['db: "test" only in a name, then "failed"', 'connection to test-db failed: Permission denied (publickey)', 255, 'permission_denied'],
  ['shell: "test" and "failed" on different lines', 'running test\nupload failed: connection reset by peer', 1, 'unknown'],
  ['javac: cannot find symbol', 'src/main/java/App.java:14: error: cannot find symbol\n    Gson gson = new Gson();\n    ^\n  symbol:   class Gson\n  location: class App', 1, 'missing_dependency'],
  ['go: cannot find package', 'main.go:4:2: cannot find package "github.com/acme/kit" in any of:\n\t/usr/local/go/src/github.com/acme/kit (from $GOROOT)', 1, 'missing_dependency'],
  ['ld: cannot find a library', '/usr/bin/ld: cannot find -lssl: No such file or directory\ncollect2: error: ld returned 1 exit status', 1, 'missing_dependency'],
  ['windows: cannot find the file', 'The system cannot find the file specified.', 1, 'file_not_found'],
  ['node: access denied on a file (EACCES)', "Error: Access denied to /var/run/docker.sock (EACCES)\n    at PipeConnectWrap.afterConnect (node:net:1555:16)", 1, 'permission_denied'],
  ['python: operation not permitted (EPERM)', "PermissionError: [Errno 1] Operation not permitted: '/sys/kernel/mm' (EPERM)", 1, 'permission_denied'],
  ['s3: access denied without an errno stays forbidden', 'An error occurred (AccessDenied) when calling the PutObject operation: Access Denied', 1, 'access_forbidden'],
  ['git: a path outside the repository', "fatal: /tmp/patch.diff: '/tmp/patch.diff' is outside repository at '/home/dev/app'", 128, 'path_outside_project'],
  ['tool: a path outside the workspace', 'refused to write ../../etc/cron.d/job: path is outside of this workspace', 1, 'path_outside_project'],
  ['docs: a non-compliant path', 'doc-lint: non-compliant path docs/Guide.MD: expected docs/<area>/<kebab-name>.md (Epic-002)', 1, 'path_non_compliant'],
  ['docs: a naming rule', 'error: docs/howto/Setup Notes.md violates the naming convention: kebab-case file names only', 1, 'path_non_compliant'],
  ['docs: a placement policy', 'Epic-002: docs/adr-7.md violates the placement policy: ADRs live under docs/decisions/', 1, 'path_non_compliant'],
  // FAILED is a runner's verdict only where a runner writes one; elsewhere the rules after it decide.
  ['rsync: FAILED after a connection timeout is a timeout', 'ssh: connect to host backup.acme.io port 22: Connection timed out\nrsync: connection unexpectedly closed (0 bytes received so far) [sender]\nrsync error: unexplained error (code 255) at io.c(232) [sender=3.2.7]\nbackup: rsync FAILED', 255, 'timeout'],
  ['ant: BUILD FAILED on a compilation failure is no test', 'BUILD FAILED\n/home/dev/app/build.xml:42: Compilation failed; see the compiler error output for details.\n\nTotal time: 2 seconds', 1, 'unknown'],
  ['ant: BUILD FAILED over javac\'s missing symbol', 'compile:\n    [javac] Compiling 12 source files to /home/dev/app/build/classes\n    [javac] /home/dev/app/src/App.java:14: error: cannot find symbol\n    [javac]     Gson gson = new Gson();\n    [javac] 1 error\n\nBUILD FAILED\n/home/dev/app/build.xml:42: Compilation failed; see the compiler error output for details.', 1, 'missing_dependency'],
  ['db: "test connection failed" is a timeout, not a test', 'test connection failed: connect ETIMEDOUT 10.0.0.5:5432', 1, 'timeout'],
  ['pytest: a summary line alone', 'FAILED tests/test_api.py::test_delete - AssertionError: 404 != 204', 1, 'test_failed'],
  ['unittest -v: a test id, then FAILED', 'test_empty (test_cart.CartTest.test_empty) ... ok\ntest_total (test_cart.CartTest.test_total) ... FAILED', 1, 'test_failed'],
  ['cargo: a test id, then FAILED', 'running 2 tests\ntest cart::adds ... ok\ntest cart::totals ... FAILED', 101, 'test_failed'],
  ['ctest: tests failed', 'The following tests FAILED:\n\t  3 - cart_totals (Failed)\nErrors while running CTest', 8, 'test_failed'],
  ['ci: a test name, then failed', 'test_checkout_flow failed after 3 retries', 1, 'test_failed'],
];

describe('classifyFailure (seed 004)', () => {
  it.each(SAMPLES)('%s → the right category', (_name, stderr, exitCode, category) => {
    expect(classifyFailure(stderr, exitCode)).toBe(category);
  });

  it('holds at least 30 samples over Python, Node, the shell, pytest and npm', () => {
    expect(SAMPLES.length).toBeGreaterThanOrEqual(30);
  });

  it('tries rules given in the options first', () => {
    expect(classifyFailure('pidfile /run/app.pid exists', 1)).toBe('unknown');
    expect(classifyFailure('pidfile /run/app.pid exists', 1, { rules: [{ category: 'lock_held', pattern: /pidfile .* exists/ }] })).toBe('lock_held');
  });

  it('refuses a rule without a known shape, naming the field', async () => {
    const error = await catchTotError(() => classifyFailure('x', 1, { rules: [{ category: 'lock_held', pattern: 'lock' as unknown as RegExp }] }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('rules');
  });
});

describe('failureSignature', () => {
  it('is 16 hex characters', () => {
    expect(failureSignature({ stderr: 'KeyError: "id"', exitCode: 1 })).toMatch(/^[0-9a-f]{16}$/);
  });

  it('stays the same when paths, line numbers, pids, temporary names and timestamps change', () => {
    const at = (path: string, line: number, pid: number, tmp: string, time: string) =>
      failureSignature({ stderr: `${time} [pid ${pid}] Traceback:\n  File "${path}/${tmp}/job.py", line ${line}, in run\nKeyError: 'customer_id'`, exitCode: 1, tool: 'python', args: { script: 'job.py', retries: 2 } });
    const a = at('/home/ci/build-17', 42, 3121, 'tmpx8a1q', '2026-11-24T10:01:02Z');
    expect(at('/Users/dev/work', 57, 99, 'tmp_0z9', '2026-11-25 08:00:59')).toBe(a);
  });

  it('stays the same when a pid changes, however the pid is written (pid=, pid:, pid and a space)', () => {
    const sig = (stderr: string) => failureSignature({ stderr, exitCode: 1, tool: 'worker' });
    expect(sig('worker pid=123 exited: KeyError: \'job\'')).toBe(sig('worker pid=45 exited: KeyError: \'job\''));
    expect(sig('worker pid=7 exited: KeyError: \'job\'')).toBe(sig('worker pid=98765 exited: KeyError: \'job\''));
    expect(sig('worker pid: 12 exited')).toBe(sig('worker pid: 345 exited'));
    expect(sig('[PID=12] lock held')).toBe(sig('[PID=31] lock held'));
    expect(sig('worker pid 123 exited')).toBe(sig('worker pid 9 exited'));
    // What follows the pid still tells failures apart.
    expect(sig('worker pid=123 exited: KeyError: \'job\'')).not.toBe(sig('worker pid=123 exited: KeyError: \'user\''));
  });

  it('stays the same when a request id changes, and tells status codes and packages apart', () => {
    const req = (id: string) => failureSignature({ stderr: `Error: request ${id} failed with status code 503`, exitCode: 1 });
    expect(req('3f2b8a10-1c2d-4e5f-8a9b-0c1d2e3f4a5b')).toBe(req('9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d'));
    expect(failureSignature({ stderr: 'Error: status code 401' })).not.toBe(failureSignature({ stderr: 'Error: status code 503' }));
    const e404 = (pkg: string) => failureSignature({ stderr: `npm error 404 Not Found - GET https://registry.npmjs.org/${pkg} - Not found`, exitCode: 1 });
    expect(e404('leftpadd')).not.toBe(e404('lodahs'));
  });

  it('does not depend on the order of the arguments\' keys', () => {
    expect(failureSignature({ stderr: 'x', args: { a: 1, b: 2 } })).toBe(failureSignature({ stderr: 'x', args: { b: 2, a: 1 } }));
  });

  it('differs when the failure differs: another missing module, exit code, tool or argument', () => {
    const base = { stderr: "ModuleNotFoundError: No module named 'requests'", exitCode: 1, tool: 'python', args: { script: 'a.py' } };
    const sig = failureSignature(base);
    expect(failureSignature({ ...base, stderr: "ModuleNotFoundError: No module named 'numpy'" })).not.toBe(sig);
    expect(failureSignature({ ...base, exitCode: 2 })).not.toBe(sig);
    expect(failureSignature({ ...base, tool: 'python3' })).not.toBe(sig);
    expect(failureSignature({ ...base, args: { script: 'b.py' } })).not.toBe(sig);
  });
});

describe('HealingEngine', () => {
  it('starts every action at 0.5 and moves it by an EMA with α 0.3', () => {
    const healing = new HealingEngine();
    expect(healing.successRate('timeout', 'batch_reduce')).toBe(0.5);
    // 0.5 → 0.65 → 0.755 → 0.5285 → 0.66995
    const rates = [true, true, false, true].map((ok) => healing.record('timeout', 'batch_reduce', ok));
    expect(rates.map((r) => Math.round(r * 1e6) / 1e6)).toEqual([0.65, 0.755, 0.5285, 0.66995]);
  });

  it('selects the best-rated strategy of the category, the table\'s first on a tie', () => {
    const healing = new HealingEngine();
    expect(healing.select('lock_held')).toEqual({ action: 'reduce_concurrency', max_parallel: 1 });
    healing.record('lock_held', 'reduce_concurrency', false);
    expect(healing.select('lock_held').action).toBe('retry_with_backoff');
  });

  it('asks the user for a category the table has no row for', () => {
    expect(new HealingEngine().select('recursion_limit')).toEqual({ action: 'ask_user', include_stderr: true });
  });

  it('keeps what it learnt across instances through toJSON and history', () => {
    const a = new HealingEngine();
    a.record('syntax_error', 'rollback', false);
    const b = new HealingEngine({ history: a.toJSON() });
    expect(b.successRate('syntax_error', 'rollback')).toBeCloseTo(0.35, 12);
    expect(b.select('syntax_error').action).toBe('parse_error');
  });

  it('refuses a learning rate outside (0, 1]', async () => {
    await catchTotError(() => new HealingEngine({ alpha: 0 }), 'INVALID_ARGUMENT');
  });
});

describe('FailureDeduplicator', () => {
  it('allows `maxRetries` retries of a signature, then says to change the strategy', () => {
    const dedup = new FailureDeduplicator({ maxRetries: 2 });
    expect(dedup.shouldRetry('abcdef0123456789', 'timeout')).toEqual({ retry: true, attempt: 1 });
    expect(dedup.shouldRetry('abcdef0123456789', 'timeout')).toEqual({ retry: true, attempt: 2 });
    expect(dedup.shouldRetry('abcdef0123456789', 'timeout')).toMatchObject({ retry: false, reason: 'max_retries' });
    expect(dedup.shouldRetry('0000000000000000', 'timeout')).toEqual({ retry: true, attempt: 1 });
  });

  it('never retries a syntax error or a path outside the project, and does not count them', () => {
    const dedup = new FailureDeduplicator();
    expect(dedup.shouldRetry('s', 'syntax_error')).toMatchObject({ retry: false, reason: 'not_retryable' });
    expect(dedup.shouldRetry('p', 'path_outside_project')).toMatchObject({ retry: false, reason: 'not_retryable' });
    expect(dedup.retries('s')).toBe(0);
  });
});
