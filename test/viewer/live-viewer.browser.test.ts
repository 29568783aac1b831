// The live viewer in headless Chromium: a search runs in another process, recording to SQLite;
// serveRunViewer serves its page on localhost, and the page grows while the run goes (nodes counted
// at two moments before the run ends), then, once the run has finished, shows the same nodes as
// the offline page of the same events. The list page names the run with its status.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '@tot/core/sqlite';
import { renderRunHtml, serveRunViewer, type RunViewerServer } from '@tot/core/viewer';
import { bundleFixture } from '../helpers/bundle-fixture.js';
import { collect } from '../helpers/collect.js';
import { hasChromium, launchChromium, viewerTab, warnIfNoChromium } from '../helpers/chromium.js';

warnIfNoChromium("the live viewer's browser test");

const root = fileURLToPath(new URL('../../', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The page's node ids once its script has drawn it (a reload may be under way: then it waits for the next page). */
async function drawnNodes(page: Page): Promise<{ ids: string[]; live: boolean }> {
  for (;;) {
    try {
      await page.waitForSelector('body[data-ready=true]', { state: 'attached', timeout: 15_000 });
      return await page.evaluate(() => ({
        ids: Array.from(document.querySelectorAll('svg#graph g.node')).map((g) => g.getAttribute('data-id')!),
        live: document.querySelector('meta[name="tot-live"]') !== null,
      }));
    } catch (error) {
      if (!/context was destroyed|navigation/i.test(String(error))) throw error;
    }
  }
}

describe.skipIf(!hasChromium)('the live viewer in headless Chromium', () => {
  let browser: Browser;
  let child: ChildProcess;
  let store: SqliteEventStore;
  let viewer: RunViewerServer;
  let path: string;
  const moments: { ids: string[]; live: boolean }[] = [];
  let final: { ids: string[]; live: boolean };
  let offline: string[];
  let listed: string;
  let stopReason: string;
  const consoleErrors: string[] = [];
  const requests: string[] = [];

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tot-live-'));
    path = join(dir, 'runs.db');
    browser = await launchChromium();
    // 96 calls, two at a time, 120 ms each: about six seconds of run to watch.
    child = spawn(process.execPath, [await bundleFixture('test/viewer/fixtures/live-search.ts'), path, '120'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    // The run has started once its first events are in the store.
    while (!existsSync(path)) await sleep(20);
    store = new SqliteEventStore({ path });
    while ((await collect(store.readStream('live-search'))).length === 0) await sleep(20);
    viewer = await serveRunViewer({ store, pollMs: 50 });
    const tab = await viewerTab(browser, { width: 1200, height: 800 });
    tab.page.on('console', (m) => void (m.type() === 'error' && consoleErrors.push(m.text())));
    tab.page.on('pageerror', (e) => void consoleErrors.push(e.message));
    tab.page.on('request', (r) => void requests.push(r.url()));
    await tab.page.goto(viewer.urlOf('live-search'));
    moments.push(await drawnNodes(tab.page));
    // A second moment: the page has loaded again with more nodes, the run still going.
    for (;;) {
      await sleep(100);
      const now = await drawnNodes(tab.page);
      if (now.ids.length > moments[0]!.ids.length || !now.live) {
        moments.push(now);
        break;
      }
    }
    await exited;
    for (;;) {
      final = await drawnNodes(tab.page);
      if (!final.live) break;
      await sleep(100);
    }
    const events = await collect(store.readStream('live-search'));
    stopReason = String((events.at(-1)!.data as { stopReason: string }).stopReason);
    const offlineFile = join(dir, 'offline.html');
    writeFileSync(offlineFile, renderRunHtml(events));
    const opened = await (await viewerTab(browser, { width: 1200, height: 800 })).open(offlineFile);
    offline = await opened.page.evaluate(() => Array.from(document.querySelectorAll('svg#graph g.node')).map((g) => g.getAttribute('data-id')!));
    await tab.page.goto(viewer.url);
    listed = await tab.page.locator('table').innerText();
  }, 90_000);

  afterAll(async () => {
    child?.kill();
    await viewer?.close();
    await store?.close();
    await browser?.close();
  });

  it('shows nodes appear while the run goes: more at the second moment than at the first, both before the run ended', () => {
    expect(moments).toHaveLength(2);
    expect(moments[0]!.live && moments[1]!.live).toBe(true);
    expect(moments[1]!.ids.length).toBeGreaterThan(moments[0]!.ids.length);
    expect(moments[1]!.ids).toEqual(expect.arrayContaining(moments[0]!.ids));
  });

  it('ends on the page the offline viewer draws for the same run: the same nodes', () => {
    expect(final.live).toBe(false);
    expect(final.ids.length).toBe(81);
    expect([...final.ids].sort()).toEqual([...offline].sort());
  });

  it('asks nothing of anyone but its own server, and logs no error', () => {
    const origin = new URL(viewer.url).origin;
    expect(requests.filter((r) => !r.startsWith(origin) && !r.startsWith('file:'))).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });

  it('lists the run with its runner and status (its stop reason)', () => {
    expect(stopReason).toBe('max_depth');
    expect(listed).toContain('live-search');
    expect(listed).toContain('search');
    expect(listed).toContain(stopReason);
  });
});
