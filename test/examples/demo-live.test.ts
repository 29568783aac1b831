import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFixture } from '../helpers/bundle-fixture.js';
import { game24Oracle } from '../helpers/game24-oracle.js';
import { startWireServer, type WireServer } from '../helpers/openai-wire-server.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer(game24Oracle);
});
afterAll(() => server.close());

describe('npm run demo, live mode (OPENAI_BASE_URL set)', () => {
  it('solves the puzzles through @tot/core/openai against an OpenAI-compatible server', async () => {
    // Asynchronous: the server answering the demo runs in this process.
    const page = join(mkdtempSync(join(tmpdir(), 'tot-demo-live-')), 'run.html');
    const { stdout } = await promisify(execFile)(process.execPath, [await bundleFixture('examples/game24/main.ts'), '--out', page], {
      cwd: root,
      env: { ...process.env, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'test-key', OPENAI_MODEL: 'oracle-24' },
    });
    expect(stdout).toContain(`Live mode: oracle-24 at ${server.url}`);
    expect(stdout).toMatch(/Puzzle 900: 4 5 6 10 — solved/);
    expect(stdout).toContain('Solved 3 of 3.');
    expect(existsSync(page)).toBe(true);
    const chat = server.requests.filter((r) => r.path === '/v1/chat/completions');
    expect(chat.length).toBeGreaterThan(10);
    expect(chat.every((r) => r.body.model === 'oracle-24' && r.headers.authorization === 'Bearer test-key')).toBe(true);
    // The evaluator's three samples are one request with n = 3: the client speaks n natively.
    expect(chat.some((r) => r.body.n === 3)).toBe(true);
  }, 120_000);
});
