// `tot view` serving: --follow serves one run's page on localhost and stops on Ctrl-C; with no
// --run it serves the list of the store's runs. A finished run's served page is the offline page.
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '@tot/core';
import { SqliteEventStore } from '@tot/core/sqlite';
import { renderRunHtml } from '@tot/core/viewer';
import { bundleFixture } from '../helpers/bundle-fixture.js';
import { collect } from '../helpers/collect.js';
import { ensureCli, totCli } from '../helpers/tot-cli.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
let db: string;
let events: StoredEvent[];

beforeAll(async () => {
  await ensureCli();
  db = join(mkdtempSync(join(tmpdir(), 'tot-live-cli-')), 'runs.db');
  // The fixture bundled with its sources, under plain node: tsx would compile them on every start.
  await promisify(execFile)(process.execPath, [await bundleFixture('test/viewer/fixtures/live-search.ts'), db, '0'], { cwd: root });
  const store = new SqliteEventStore({ path: db });
  events = await collect(store.readStream('live-search'));
  await store.close();
}, 120_000);

/** Starts `tot view` with these arguments, returns the address it prints and a way to stop it as Ctrl-C does. */
async function serve(args: string[]): Promise<{ url: string; stop(): Promise<number | null> }> {
  const child = spawn(process.execPath, [totCli(), 'view', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      if (out.includes('\n')) resolve(out.trim());
    });
    child.once('exit', (code) => reject(new Error(`tot view exited ${code} before serving`)));
  });
  return {
    url,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', (code) => resolve(code));
        child.kill('SIGINT');
      }),
  };
}

describe('tot view, serving', () => {
  it('--follow serves the run\'s page on localhost, the offline page once the run has finished, and exits 0 on Ctrl-C', async () => {
    const viewer = await serve([db, '--run', 'live-search', '--follow']);
    expect(viewer.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/run\/live-search$/);
    const page = await (await fetch(viewer.url)).text();
    expect(page).toBe(renderRunHtml(events));
    expect(await viewer.stop()).toBe(0);
  });

  it('with no --run, serves the list of runs, each a link to its page', async () => {
    const viewer = await serve([db]);
    const page = await (await fetch(viewer.url)).text();
    expect(page).toContain('<a href="/run/live-search">live-search</a>');
    expect(page).toContain('<td>search</td>');
    expect(await viewer.stop()).toBe(0);
  });
});
