import { execFile } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFixture } from '../helpers/bundle-fixture.js';
import { errorBody, startWireServer, type WireServer } from '../helpers/openai-wire-server.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** `npm run demo` in live mode against `baseURL`: its exit code and what it printed. */
const demo = async (baseURL: string) => {
  // Bundled with its sources under plain node: tsx would compile them on every start.
  const script = await bundleFixture('examples/game24/main.ts');
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(process.execPath, [script, '--out', '/dev/null'], { cwd: root, env: { ...process.env, OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: 'wrong-key', OPENAI_MODEL: 'gpt-test' } }, (_error, stdout, stderr) =>
      resolve({ code: child.exitCode, stdout, stderr }),
    );
  });
};

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer(() => ({ status: 401, json: errorBody('Incorrect API key provided: wrong-key.', 'invalid_request_error', 'invalid_api_key') }));
});
afterAll(() => server.close());

describe('npm run demo against a provider that refuses every call', () => {
  it('prints the 401 and its cause and exits non-zero, after one request', async () => {
    const { code, stdout, stderr } = await demo(server.url);
    expect(code).not.toBe(0);
    expect(stderr).toContain('Puzzle 900: 4 5 6 10 — the run failed: Model "gpt-test" failed: HTTP 401 invalid_api_key: Incorrect API key provided: wrong-key.');
    expect(stderr).toContain('cause: 401 Incorrect API key provided: wrong-key.');
    expect(stdout).not.toContain('Solved 0 of');
    expect(server.requests).toHaveLength(1);
  }, 120_000);

  it('prints that the provider cannot be reached and exits non-zero', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const { code, stderr } = await demo(`http://127.0.0.1:${port}/v1`);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/the run failed: Model "gpt-test" failed: Connection error\. \(ECONNREFUSED\) \(after 4 attempts\)/);
    expect(stderr).toContain('cause: Connection error.');
  }, 120_000);
});
