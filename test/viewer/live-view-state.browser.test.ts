// The live page in headless Chromium keeps what the person made of it when it loads again with new
// events: the pan and zoom they set, the node they selected (and its details) and the node that has
// the focus, through each reload while the run goes and into the finished run's page. A page nobody
// moved fits the grown graph instead. The run is a recorded wide search, appended to the followed
// store in three parts: about a fifth of its events (21 nodes), two fifths (30), then the rest (69,
// run.finished last). The panels a person opened or closed stay so, and the page stays scrolled
// where it was: a chain of thought, its plan after each thought a panel of its own (the last one
// open), followed from its second thought to its end.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryEventStore, type StoredEvent } from '@tot/core';
import { serveRunViewer, viewRun, type RunViewerServer } from '@tot/core/viewer';
import { hasChromium, launchChromium, viewerTab, warnIfNoChromium } from '../helpers/chromium.js';
import { recordChainOfThoughtRun, recordWideSearch, type RecordedRun } from './fixtures/runs.js';

warnIfNoChromium("the live page's view state test");

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Shown {
  nodes: number;
  live: boolean;
  viewBox: string | null;
  selected: string[];
  focused: string | null;
  title: string | null;
}

/** What the page shows once its script has drawn it, waiting through a reload under way. */
async function shown(page: Page): Promise<Shown> {
  for (;;) {
    try {
      await page.waitForSelector('body[data-ready=true]', { state: 'attached', timeout: 15_000 });
      return await page.evaluate(() => ({
        nodes: document.querySelectorAll('svg#graph g.node').length,
        live: document.querySelector('meta[name="tot-live"]') !== null,
        viewBox: document.getElementById('graph')!.getAttribute('viewBox'),
        selected: Array.from(document.querySelectorAll('svg#graph g.node.selected')).map((g) => g.getAttribute('data-id')!),
        focused: document.activeElement?.closest('g.node')?.getAttribute('data-id') ?? null,
        title: document.getElementById('details-title')?.textContent ?? null,
      }));
    } catch (error) {
      if (!/context was destroyed|navigation/i.test(String(error))) throw error;
    }
  }
}

/** The page once it has loaded again with more than `nodes` nodes. */
async function grownPast(page: Page, nodes: number): Promise<Shown> {
  for (;;) {
    const now = await shown(page);
    if (now.nodes > nodes) return now;
    await sleep(50);
  }
}

/** A point of the graph pane with no node under it, where a drag pans. */
async function emptyPoint(page: Page): Promise<{ x: number; y: number }> {
  return page.evaluate(() => {
    const svg = document.getElementById('graph')!;
    const r = svg.getBoundingClientRect();
    for (let y = r.top + 10; y < r.bottom - 10; y += 15) for (let x = r.left + 10; x < r.right - 10; x += 15) if (document.elementFromPoint(x, y) === svg) return { x, y };
    throw new Error('no empty point in the graph pane');
  });
}

describe.skipIf(!hasChromium)('the live page keeps its view state across reloads', () => {
  let browser: Browser;
  let events: StoredEvent[];
  let runId: string;
  let chain: RecordedRun;
  const servers: RunViewerServer[] = [];

  /** A store that holds the run's first `upTo` events, served live, and a way to append the next ones. */
  async function followed(upTo: number, run: { runId: string; events: StoredEvent[] } = { runId, events }) {
    const store = new InMemoryEventStore();
    let stored = 0;
    const appendTo = async (end: number) => {
      await store.append(run.runId, run.events.slice(stored, end).map((e) => ({ type: e.type, data: e.data, idempotencyKey: e.idempotencyKey })), { expectedVersion: stored === 0 ? 'no_stream' : stored - 1 });
      stored = end;
    };
    await appendTo(upTo);
    const viewer = await serveRunViewer({ store, pollMs: 20, refreshMs: 0 });
    servers.push(viewer);
    return { viewer, appendTo };
  }

  beforeAll(async () => {
    const run = await recordWideSearch();
    events = run.events;
    runId = run.runId;
    chain = await recordChainOfThoughtRun();
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    for (const s of servers) await s.close();
    await browser?.close();
  });

  const fifth = (k: number) => Math.round((events.length * k) / 5);

  it('keeps the pan, the zoom, the selected node and its details, and the focus, while nodes are added and once the run has finished', async () => {
    const { viewer, appendTo } = await followed(fifth(1));
    const { page } = await viewerTab(browser, { width: 1200, height: 800 });
    const errors: string[] = [];
    page.on('pageerror', (e) => void errors.push(e.message));
    await page.goto(viewer.urlOf(runId));
    const first = await shown(page);
    expect(first).toMatchObject({ nodes: 21, live: true, selected: [] });

    // Select a node (a click), then zoom in twice over the pane's middle and drag the drawing 120 px left and 40 px up.
    const node = page.locator('svg#graph g.node').nth(3);
    const id = (await node.getAttribute('data-id'))!;
    await node.click();
    const pane = (await page.locator('svg#graph').boundingBox())!;
    await page.mouse.move(pane.x + pane.width / 2, pane.y + pane.height / 2);
    await page.mouse.wheel(0, -100);
    await page.mouse.wheel(0, -100);
    const from = await emptyPoint(page);
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move(from.x - 60, from.y - 20, { steps: 3 });
    await page.mouse.move(from.x - 120, from.y - 40, { steps: 3 });
    await page.mouse.up();
    // The drag took the focus from the node, as a press on the pane does: Tab brings it back.
    await node.focus();
    const set = await shown(page);
    expect(set.viewBox).not.toBe(first.viewBox);
    expect(set).toMatchObject({ selected: [id], focused: id });

    await appendTo(fifth(2));
    const grown = await grownPast(page, first.nodes);
    expect(grown).toMatchObject({ nodes: 30, live: true, viewBox: set.viewBox, selected: [id], focused: id, title: set.title });

    await appendTo(events.length);
    const final = await grownPast(page, grown.nodes);
    expect(final).toMatchObject({ nodes: 69, live: false, viewBox: set.viewBox, selected: [id], focused: id, title: set.title });
    expect(errors).toEqual([]);
  });

  it('fits the grown graph when the person has not moved the view', async () => {
    const { viewer, appendTo } = await followed(fifth(1));
    const { page } = await viewerTab(browser, { width: 1200, height: 800 });
    await page.goto(viewer.urlOf(runId));
    const first = await shown(page);
    await appendTo(fifth(3));
    const grown = await grownPast(page, first.nodes);
    // The page a new tab opens on the same events: the whole graph, fitted.
    const { page: fresh } = await viewerTab(browser, { width: 1200, height: 800 });
    await fresh.goto(viewer.urlOf(runId));
    const fitted = await shown(fresh);
    expect(grown.nodes).toBe(fitted.nodes);
    expect(grown.viewBox).toBe(fitted.viewBox);
    expect(grown.viewBox).not.toBe(first.viewBox);
  });

  it('keeps the panels the person opened and closed, and the scroll, and opens a new panel as it opens on its own', async () => {
    const twoThoughts = chain.events.findIndex((_, k) => viewRun(chain.events.slice(0, k + 1)).nodes.length === 2) + 1;
    const { viewer, appendTo } = await followed(twoThoughts, chain);
    const { page } = await viewerTab(browser, { width: 1200, height: 800 });
    await page.goto(viewer.urlOf(chain.runId));
    const opened = () => page.evaluate(() => Array.from(document.querySelectorAll('#panels details')).map((d) => (d as HTMLDetailsElement).open));
    await shown(page);
    expect(await opened()).toEqual([false, true]);
    await page.locator('#panels details summary').nth(0).click();
    await page.locator('#panels details summary').nth(1).click();
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    const scrolled = await page.evaluate(() => window.scrollY);
    expect(scrolled).toBeGreaterThan(0);
    expect(await opened()).toEqual([true, false]);

    await appendTo(chain.events.length);
    const final = await grownPast(page, 2);
    expect(final.live).toBe(false);
    expect(await opened()).toEqual([true, false, true]);
    expect(await page.evaluate(() => window.scrollY)).toBe(scrolled);
  });
});
