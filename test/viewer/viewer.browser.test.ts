// The run viewer in a real browser: Debian's chromium, driven by playwright-core (never a
// downloaded browser). For a recorded Game of 24 search, a Graph-of-Operations run, a deliberation
// and a GoT session, the page renders with no console errors and no requests but its own file,
// draws the run's own nodes, highlights the best path, and shows a node's content on a click and
// on Enter. Screenshots go to test-artifacts/viewer/ and to docs/ (shown by docs/viewer.md).
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { renderRunHtml, viewRun, type RunView } from '@tot/core/viewer';
import { recordAll, type FixtureKind, type RecordedRun } from './fixtures/runs.js';

// TOT_CHROMIUM points elsewhere (or nowhere, to see the skip).
const CHROMIUM = process.env.TOT_CHROMIUM ?? '/usr/bin/chromium';
const hasBrowser = existsSync(CHROMIUM);
if (!hasBrowser) {
  console.warn(
    [
      '',
      '#'.repeat(78),
      `# SKIPPED: the viewer's browser tests need Chromium at ${CHROMIUM} (Debian: apt-get install chromium).`,
      '# No browser is ever downloaded; the screenshots in docs/ were not retaken.',
      '#'.repeat(78),
      '',
    ].join('\n'),
  );
}

const root = fileURLToPath(new URL('../../', import.meta.url));
const artifacts = join(root, 'test-artifacts', 'viewer');
const docs = join(root, 'docs');
const KINDS: FixtureKind[] = ['search', 'graph', 'deliberation', 'got-session'];

interface Opened {
  page: Page;
  view: RunView;
  run: RecordedRun;
  consoleErrors: string[];
  requests: string[];
  url: string;
}

describe.skipIf(!hasBrowser)('the run viewer in headless Chromium', () => {
  let browser: Browser;
  let runs: Record<FixtureKind, RecordedRun>;
  let dir: string;
  const pages: Page[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tot-viewer-'));
    mkdirSync(artifacts, { recursive: true });
    // Recorded first, alone: the runs' timelines show their own timing, not the browser's start.
    runs = await recordAll();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] });
  }, 120_000);

  afterEach(async () => {
    for (const p of pages.splice(0)) await p.close().catch(() => undefined);
  });

  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Renders a run to a file and opens it, recording console errors and every request. */
  async function open(kind: FixtureKind): Promise<Opened> {
    const run = runs[kind];
    const view = viewRun(run.events);
    const file = join(dir, `${kind}.html`);
    writeFileSync(file, renderRunHtml(run.events, { title: run.title }));
    const url = pathToFileURL(file).href;
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    pages.push(page);
    const consoleErrors: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.message}`));
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(url);
    await page.waitForSelector('body[data-ready=true]', { state: 'attached', timeout: 15_000 });
    return { page, view, run, consoleErrors, requests, url };
  }

  const node = (id: string) => `svg#graph g.node[data-id="${id.replace(/["\\]/g, '\\$&')}"]`;
  const details = async (page: Page) => ({
    title: await page.locator('#details-title').textContent(),
    content: await page.locator('#details-content').textContent(),
  });

  /** The ids of the nodes drawn wholly inside the graph's visible area. */
  const visibleNodes = (page: Page) =>
    page.evaluate(() => {
      const svg = document.querySelector('svg#graph')!.getBoundingClientRect();
      return Array.from(document.querySelectorAll('svg#graph g.node'))
        .filter((g) => {
          const r = g.getBoundingClientRect();
          return r.width > 0 && r.left >= svg.left && r.right <= svg.right && r.top >= svg.top && r.bottom <= svg.bottom;
        })
        .map((g) => g.getAttribute('data-id')!);
    });

  /** A node drawn inside the graph's visible area, the first of `prefer` that is. */
  async function visibleNode(page: Page, prefer: string[]): Promise<string> {
    const all = await visibleNodes(page);
    const ids = [...prefer.filter((id) => all.includes(id)), ...all];
    expect(ids.length, 'no node is drawn inside the visible graph').toBeGreaterThan(0);
    return ids[0]!;
  }

  async function screenshot(page: Page, kind: FixtureKind): Promise<void> {
    const png = await page.screenshot({ fullPage: true });
    writeFileSync(join(artifacts, `${kind}.png`), png);
    writeFileSync(join(docs, `viewer-${kind}.png`), png);
  }

  for (const kind of KINDS) {
    describe(kind, () => {
      it('loads with no console errors and no request but its own file, and draws exactly the run\'s nodes with the best path highlighted', async () => {
        const { page, view, run, consoleErrors, requests, url } = await open(kind);

        expect(consoleErrors).toEqual([]);
        expect(requests.filter((r) => r !== url)).toEqual([]);
        // The viewer's nodes are the run's own: the count the run itself reported.
        expect(view.nodes.length).toBe(run.ownNodeCount);
        expect(await page.locator('svg#graph g.node').count()).toBe(view.nodes.length);
        // Every node is keyboard-focusable.
        expect(await page.locator('svg#graph g.node[tabindex="0"]').count()).toBe(view.nodes.length);
        // Classes by status, and the best path.
        for (const status of ['pruned', 'solution', 'failed', 'stale', 'done', 'active'] as const) {
          expect(await page.locator(`svg#graph g.node.${status}`).count(), status).toBe(view.nodes.filter((n) => n.status === status).length);
        }
        expect(view.bestPath.length).toBeGreaterThan(0);
        expect(await page.locator('svg#graph g.node.best').count()).toBe(view.bestPath.length);
        for (const id of view.bestPath) await expect(page.locator(node(id)).getAttribute('class')).resolves.toMatch(/\bbest\b/);
        // The best path ends on the run's own answer.
        if (run.bestLeaf) expect(view.bestPath.at(-1)).toBe(run.bestLeaf);

        // A small run opens with every node in view, at a zoom no larger than 1:1.
        if (view.nodes.length <= 10) expect(await visibleNodes(page)).toHaveLength(view.nodes.length);

        // The screenshot, with the deepest node of the best path in the opening view selected.
        await page.locator(node(await visibleNode(page, [...view.bestPath].reverse()))).click();
        await screenshot(page, kind);
        expect(consoleErrors).toEqual([]);
        expect(requests.filter((r) => r !== url)).toEqual([]);
      });

      it('shows a node\'s content when it is clicked, and when it is focused and Enter is pressed', async () => {
        const { page, view, consoleErrors } = await open(kind);
        const byId = new Map(view.nodes.map((n) => [n.id, n]));

        const clicked = await visibleNode(page, [...view.bestPath].reverse());
        await page.locator(node(clicked)).click();
        expect(await details(page)).toEqual({ title: byId.get(clicked)!.label, content: byId.get(clicked)!.content });
        await expect(page.locator(node(clicked)).getAttribute('class')).resolves.toMatch(/\bselected\b/);

        // Another node, possibly out of view: focus brings it into view, Enter shows it.
        const other = view.nodes.find((n) => n.id !== clicked && n.content !== byId.get(clicked)!.content) ?? view.nodes.find((n) => n.id !== clicked)!;
        await page.locator(node(other.id)).focus();
        await page.keyboard.press('Enter');
        expect(await details(page)).toEqual({ title: other.label, content: other.content });
        expect(await page.evaluate(() => document.activeElement?.getAttribute('data-id'))).toBe(other.id);
        expect(consoleErrors).toEqual([]);
      });

      it('draws the timeline and the panels of its kind', async () => {
        const { page, view, consoleErrors } = await open(kind);
        expect(await page.locator('svg#timeline rect.call').count()).toBe(view.calls.length);
        if (kind === 'search') {
          expect(view.calls.length).toBeGreaterThan(0);
          // The replay's calls overlap: more than one lane.
          expect(new Set(view.calls.map((c) => c.lane)).size).toBeGreaterThan(1);
        }
        if (kind === 'deliberation') {
          const panel = view.panels.find((p) => p.kind === 'consensus');
          expect(panel?.kind).toBe('consensus');
          if (panel?.kind !== 'consensus') return;
          expect(await page.locator('#consensus-trend').count()).toBe(1);
          expect(await page.locator('table.heatmap').count()).toBe(panel.heatmaps.length);
          expect(panel.heatmaps.length).toBeGreaterThan(0);
          // Each heatmap: a header row and one row per agent.
          expect(await page.locator('table.heatmap').first().locator('tr').count()).toBe(panel.heatmaps[0]!.labels.length + 1);
        }
        if (kind === 'got-session') {
          const panel = view.panels.find((p) => p.kind === 'branches');
          expect(panel?.kind).toBe('branches');
          if (panel?.kind !== 'branches') return;
          expect(await page.locator('table#branches tr').count()).toBe(panel.branches.length + 1);
          expect(panel.branches.length).toBe(2);
          expect(await page.locator('pre#audit-bar').textContent()).toBe(panel.auditBar);
          expect(panel.auditBar.length).toBeGreaterThan(0);
        }
        expect(consoleErrors).toEqual([]);
      });
    });
  }
});
