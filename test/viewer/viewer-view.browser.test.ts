// What the viewer shows on load and how it is read, in headless Chromium (Debian's chromium driven
// by playwright-core, as viewer.browser.test.ts): every node of the run in view when the page
// opens, for every kind of run and for a wide and a deep tree; `f` and the Fit button bring the
// whole graph back after panning and zooming; a legend with an entry for each visual encoding the
// page shows (drawn with the drawing's own styles); lanes labelled; and a run that crashed and
// was resumed, whose header and timeline show the calls in flight the run really had (its
// screenshot goes to docs/viewer-resumed.png, shown by docs/viewer.md, when TOT_UPDATE_SCREENSHOTS=1).
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderRunHtml, viewRun, type RunView } from '@tot/core/viewer';
import { hasChromium, launchChromium, viewerTab, warnIfNoChromium, type ViewerTab } from '../helpers/chromium.js';
import { recordAll, recordCrashedAndResumedSearch, recordDeepSearch, recordWideSearch, type FixtureKind, type RecordedRun } from './fixtures/runs.js';

warnIfNoChromium("the viewer's browser tests");

const KINDS: FixtureKind[] = ['search', 'graph', 'deliberation', 'got-session', 'fractal', 'chain-of-thought'];
type Shape = FixtureKind | 'wide' | 'deep' | 'crashed';
const root = fileURLToPath(new URL('../../', import.meta.url));
const artifacts = join(root, 'test-artifacts', 'viewer');

describe.skipIf(!hasChromium)('the run viewer on load', () => {
  let browser: Browser;
  let tab: ViewerTab;
  let runs: Record<Shape, RecordedRun>;
  let crashed: Awaited<ReturnType<typeof recordCrashedAndResumedSearch>>;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tot-viewer-view-'));
    crashed = await recordCrashedAndResumedSearch();
    runs = { ...(await recordAll()), wide: await recordWideSearch(), deep: await recordDeepSearch(), crashed };
    browser = await launchChromium();
    tab = await viewerTab(browser, { width: 1400, height: 900 });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Opens a run's page (rendered to a file once), in a new document of the file's one tab. */
  async function open(shape: Shape): Promise<{ page: Page; view: RunView; consoleErrors: string[] }> {
    const run = runs[shape];
    const file = join(dir, `${shape}.html`);
    if (!existsSync(file)) writeFileSync(file, renderRunHtml(run.events, { title: run.title }));
    const { page, consoleErrors } = await tab.open(file);
    return { page, view: viewRun(run.events), consoleErrors };
  }

  /** The ids of the nodes whose whole box is not inside the graph's visible area. */
  const outOfView = (page: Page) =>
    page.evaluate(() => {
      const svg = document.querySelector('svg#graph')!.getBoundingClientRect();
      return Array.from(document.querySelectorAll('svg#graph g.node'))
        .filter((g) => {
          const r = g.getBoundingClientRect();
          return !(r.width > 0 && r.left >= svg.left - 0.5 && r.right <= svg.right + 0.5 && r.top >= svg.top - 0.5 && r.bottom <= svg.bottom + 0.5);
        })
        .map((g) => g.getAttribute('data-id')!);
    });

  /** The graph's drawing is larger than its pane at 1:1: what makes fitting it a test. */
  const drawnLargerThanPane = (page: Page) =>
    page.evaluate(() => {
      const svg = document.querySelector('svg#graph') as SVGSVGElement;
      return svg.viewBox.baseVal.width > svg.clientWidth + 1 || svg.viewBox.baseVal.height > svg.clientHeight + 1;
    });

  for (const shape of [...KINDS, 'wide', 'deep'] as Shape[]) {
    it(`opens with every node of the run inside the graph's visible area (${shape})`, async () => {
      const { page, view, consoleErrors } = await open(shape);
      expect(await page.locator('svg#graph g.node').count()).toBe(view.nodes.length);
      expect(await outOfView(page)).toEqual([]);
      expect(consoleErrors).toEqual([]);
    });
  }

  it('fits a wide tree (a search with beam 12: 48 nodes side by side) and a deep one (15 levels) by zooming out', async () => {
    for (const shape of ['wide', 'deep'] as const) {
      const { page, view } = await open(shape);
      const depths = new Map<string, number>();
      for (const n of view.nodes) depths.set(n.id, n.parents.length ? depths.get(n.parents[0]!)! + 1 : 0);
      const widest = Math.max(...[...new Set(depths.values())].map((d) => [...depths.values()].filter((x) => x === d).length));
      if (shape === 'wide') expect(widest).toBe(48);
      else expect(Math.max(...depths.values())).toBe(14);
      expect(await drawnLargerThanPane(page)).toBe(true);
      expect(await outOfView(page)).toEqual([]);
    }
  }, 60_000);

  it('shows the whole graph again on f and on the Fit button, after zooming in and panning away; pan and zoom still work', async () => {
    const { page, view, consoleErrors } = await open('wide');
    const svg = await page.locator('svg#graph').boundingBox();
    const viewBox = () => page.locator('svg#graph').getAttribute('viewBox');
    const away = async () => {
      await page.mouse.move(svg!.x + svg!.width / 2, svg!.y + svg!.height / 2);
      for (let i = 0; i < 8; i++) await page.mouse.wheel(0, -100);
      // Drag from the top-left corner (no node there at this zoom), far to the right.
      await page.mouse.move(svg!.x + 4, svg!.y + 4);
      await page.mouse.down();
      await page.mouse.move(svg!.x + 600, svg!.y + 200, { steps: 5 });
      await page.mouse.up();
      expect((await outOfView(page)).length).toBeGreaterThan(view.nodes.length / 2);
    };
    const fitted = await viewBox();

    await away();
    expect(await viewBox()).not.toBe(fitted);
    await page.keyboard.press('f');
    expect(await viewBox()).toBe(fitted);
    expect(await outOfView(page)).toEqual([]);

    await away();
    await page.getByRole('button', { name: 'Fit' }).click();
    expect(await viewBox()).toBe(fitted);
    expect(await outOfView(page)).toEqual([]);

    // And zoom still works after a fit: the zoom-in button, then the wheel out.
    await page.getByRole('button', { name: 'Zoom in' }).click();
    const zoomedIn = (await page.locator('svg#graph').evaluate((s) => (s as SVGSVGElement).viewBox.baseVal.width))!;
    expect(zoomedIn).toBeLessThan(Number(fitted!.split(' ')[2]));
    expect(consoleErrors).toEqual([]);
  }, 60_000);

  const scale = (page: Page) => page.locator('svg#graph').evaluate((s) => (s as SVGSVGElement).clientWidth / (s as SVGSVGElement).viewBox.baseVal.width);
  /** How many nodes' boxes lie wholly inside the graph's visible area. */
  const nodesInView = (page: Page) =>
    page.evaluate(() => {
      const svg = document.querySelector('svg#graph')!.getBoundingClientRect();
      return Array.from(document.querySelectorAll('svg#graph g.node rect')).filter((rect) => {
        const r = rect.getBoundingClientRect();
        return r.width > 0 && r.left >= svg.left && r.right <= svg.right && r.top >= svg.top && r.bottom <= svg.bottom;
      }).length;
    });

  it('zooms in to natural size around the nearest node when a click off the nodes of a graph seen from afar lands in the empty band above it', async () => {
    const { page } = await open('wide');
    // Fitted, the 48 nodes side by side are drawn at under a quarter of their natural size.
    expect(await scale(page)).toBeLessThan(0.25);
    const svg = (await page.locator('svg#graph').boundingBox())!;
    // The top-left corner: far above the wide, shallow drawing, on no node.
    await page.mouse.click(svg.x + 4, svg.y + 4);
    expect(await scale(page)).toBeCloseTo(1, 5);
    expect(await nodesInView(page)).toBeGreaterThan(0);
    // Near enough to read, a click off the nodes zooms no further.
    await page.mouse.click(svg.x + 4, svg.y + 4);
    expect(await scale(page)).toBeCloseTo(1, 5);
  }, 60_000);

  it('selects a node clicked in a graph seen from afar, without zooming', async () => {
    const { page, view } = await open('wide');
    const fitted = await scale(page);
    expect(fitted).toBeLessThan(0.25);
    const leaf = view.nodes.at(-1)!;
    const box = (await page.locator(`svg#graph g.node[data-id="${leaf.id}"] rect`).boundingBox())!;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await expect.poll(() => page.locator('#details-content').textContent()).toBe(leaf.content);
    expect(await scale(page)).toBe(fitted);
  }, 60_000);

  /** What the page draws, as the keys of the legend entries that must explain it. */
  const drawnEncodings = (page: Page) =>
    page.evaluate(() => {
      const has = (selector: string) => document.querySelector(selector) !== null;
      const keys: string[] = [];
      for (const status of ['active', 'done', 'solution', 'pruned', 'failed', 'stale']) if (has(`svg#graph g.node.${status}`)) keys.push(status);
      if (has('svg#graph g.node.best')) keys.push('best');
      if (has('svg#graph g.node')) keys.push('selected');
      for (const outcome of ['completed', 'failed', 'open']) if (has(`svg#timeline rect.call.${outcome}`)) keys.push(`call-${outcome}`);
      if (has('svg#timeline line.crash-mark')) keys.push('crash', 'resume');
      if (has('svg#tokens polyline.tokens-line')) keys.push('tokens');
      if (has('svg#tokens line.budget-line')) keys.push('budget');
      if (has('table.heatmap')) keys.push('heatmap');
      return keys.sort();
    });

  for (const shape of [...KINDS, 'crashed'] as Shape[]) {
    it(`has a legend entry for each visual encoding the page shows, and none for one it does not (${shape})`, async () => {
      const { page } = await open(shape);
      const drawn = await drawnEncodings(page);
      const listed = (await page.locator('#legend .legend-item').evaluateAll((items) => items.map((i) => i.getAttribute('data-encoding')!))).sort();
      expect(listed).toEqual(drawn);
      for (const key of listed) expect((await page.locator(`#legend [data-encoding="${key}"]`).textContent())!.length, key).toBeGreaterThan(10);
    });
  }

  for (const shape of ['search', 'graph', 'deliberation', 'got-session', 'fractal'] as const) {
    it(`draws each node state's legend sample with the style the graph draws that state with (${shape})`, async () => {
      const { page } = await open(shape);
      const pairs = await page.evaluate(() => {
        const look = (rect: Element) => {
          const s = getComputedStyle(rect);
          return `${s.stroke} ${s.strokeWidth} ${s.strokeDasharray} ${s.fill}`;
        };
        const out: { key: string; sample: string; drawn: string }[] = [];
        for (const status of ['active', 'done', 'solution', 'pruned', 'failed', 'stale', 'best']) {
          const drawn = status === 'best' ? document.querySelector('svg#graph g.node.best:not(.selected) rect') : document.querySelector(`svg#graph g.node.${status}:not(.best):not(.selected) rect`);
          const sample = document.querySelector(`#legend [data-encoding="${status}"] g.node rect`);
          if (drawn && sample) out.push({ key: status, sample: look(sample), drawn: look(drawn) });
        }
        return out;
      });
      expect(pairs.length, shape).toBeGreaterThan(1);
      for (const p of pairs) expect(p.sample, `${shape}: ${p.key}`).toBe(p.drawn);
    });
  }

  it('labels each lane of the timeline and says what a lane is', async () => {
    const { page, view } = await open('search');
    const lanes = Math.max(...view.calls.map((c) => c.lane)) + 1;
    expect(lanes).toBe(16);
    expect(await page.locator('svg#timeline text.lane-label').allTextContents()).toEqual(Array.from({ length: lanes }, (_, i) => `lane ${i + 1}`));
    // Each label sits on its lane: level with the bars drawn in it.
    const offsets = await page.evaluate(() => {
      const labels = Array.from(document.querySelectorAll('svg#timeline text.lane-label'));
      return Array.from(document.querySelectorAll('svg#timeline rect.call')).map((bar) => {
        const b = bar.getBoundingClientRect();
        const l = labels[Number(bar.getAttribute('data-lane'))]!.getBoundingClientRect();
        return Math.abs(b.top + b.height / 2 - (l.top + l.height / 2));
      });
    });
    expect(Math.max(...offsets)).toBeLessThan(4);
    expect(await page.locator('#timeline-caption').textContent()).toMatch(/^Each lane holds one call at a time: .* \(16 lanes: at most 16 calls at once\)\.$/);
  });

  describe('a search with concurrency 2 that crashed with two calls in flight and was resumed', () => {
    /** The header's figures, as shown. */
    const header = async (page: Page) => Object.fromEntries((await page.locator('#summary span').allTextContents()).map((t) => t.split(': ') as [string, string]));

    it('shows in its header at most 2 calls in flight at once, the resume, and the calls the crash cut off', async () => {
      const { page, view } = await open('crashed');
      expect(view.calls.filter((c) => c.outcome === 'open')).toHaveLength(crashed.concurrency);
      const h = await header(page);
      expect(Number(h['max concurrent calls'])).toBeLessThanOrEqual(crashed.concurrency);
      expect(h).toMatchObject({ resumed: '1', 'calls cut off by a crash': '2' });
      expect(await page.locator('svg#timeline text.lane-label').count()).toBeLessThanOrEqual(crashed.concurrency);
      // The picture in docs/viewer.md.
      const png = await page.screenshot({ fullPage: true });
      mkdirSync(artifacts, { recursive: true });
      writeFileSync(join(artifacts, 'resumed.png'), png);
      if (process.env.TOT_UPDATE_SCREENSHOTS) writeFileSync(join(root, 'docs', 'viewer-resumed.png'), png);
    });

    it('ends the calls the crash cut off at the crash mark, before the resume, not at the end of the timeline', async () => {
      const { page } = await open('crashed');
      const geometry = await page.evaluate(() => {
        const x = (sel: string) => Array.from(document.querySelectorAll(sel)).map((e) => e.getBoundingClientRect());
        return { open: x('svg#timeline rect.call.open').map((r) => r.right), crash: x('svg#timeline line.crash-mark')[0]!.left, resume: x('svg#timeline line.resume-mark')[0]!.left, last: Math.max(...x('svg#timeline rect.call').map((r) => r.right)) };
      });
      expect(geometry.open).toHaveLength(2);
      for (const right of geometry.open) expect(Math.abs(right - geometry.crash)).toBeLessThan(2);
      expect(geometry.resume).toBeGreaterThan(geometry.crash);
      expect(geometry.last).toBeGreaterThan(geometry.resume);
    });

    it('gives a wall time equal to the span of its timeline, crash included', async () => {
      const { page, view } = await open('crashed');
      const t0 = (crashed.events[0]!.data as { at: number }).at;
      const span = Math.round((crashed.events.at(-1)!.data as { at: number }).at - t0);
      expect((await header(page))['wall ms']).toBe(String(span));
      expect(await page.locator('svg#timeline text.axis').last().textContent()).toBe(`${span} ms`);
      expect(Math.round(view.duration)).toBe(span);
    });
  });
});
