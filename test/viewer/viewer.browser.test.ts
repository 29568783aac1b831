// The run viewer in a real browser: Debian's chromium, driven by playwright-core (never a
// downloaded browser). For a recorded Game of 24 search, a Graph-of-Operations run, a deliberation,
// a GoT session, a FractalSolver run and a chain of thought, the page renders with no console
// errors and no requests but its own file, draws the run's own nodes, highlights the best path,
// draws pruned nodes dashed, and shows a node's content on a click and on Enter, with its score
// and the prompt and output of the model calls behind it (or why there are none). Screenshots go
// to test-artifacts/viewer/ and to docs/ (shown by docs/viewer.md).
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderRunHtml, viewRun, type RunView, type ViewNode } from '@tot/core/viewer';
import { hasChromium, launchChromium, viewerTab, warnIfNoChromium, type ViewerTab } from '../helpers/chromium.js';
import { recordAll, type FixtureKind, type RecordedRun } from './fixtures/runs.js';

warnIfNoChromium("the viewer's browser tests", ['No browser is ever downloaded; the screenshots in docs/ were not retaken.']);

const root = fileURLToPath(new URL('../../', import.meta.url));
const artifacts = join(root, 'test-artifacts', 'viewer');
const docs = join(root, 'docs');
const KINDS: FixtureKind[] = ['search', 'graph', 'deliberation', 'got-session', 'fractal', 'chain-of-thought'];

/** A call's prompt and output as the details pane prints them (one message as it is; else each with its role). */
function callText(view: RunView, index: number, pick?: number): { prompt: string; output: string } {
  const c = view.calls[index]!;
  const text = (i: number) => view.texts[i]!;
  const messages = c.messages ?? [];
  const outputs = c.outputs ?? [];
  const prompt = messages.length === 1 ? text(messages[0]!.text) : messages.map((m) => `[${m.role}]\n${text(m.text)}`).join('\n\n');
  const output = pick !== undefined ? text(outputs[pick]!) : outputs.length === 1 ? text(outputs[0]!) : outputs.map((o, k) => `[output ${k + 1} of ${outputs.length}]\n${text(o)}`).join('\n\n');
  return { prompt, output };
}

/** The calls the details pane shows for a node as having made it: its own, or those of the node it carries. */
function madeCalls(view: RunView, n: ViewNode): { calls: number[]; pick?: number } {
  const origin = n.madeBy?.length ? n : n.from ? view.nodes.find((x) => x.id === n.from)! : n;
  return { calls: origin.madeBy ?? [], ...(origin.pick === undefined ? {} : { pick: origin.pick }) };
}

interface Opened {
  page: Page;
  view: RunView;
  run: RecordedRun;
  consoleErrors: string[];
  requests: string[];
  url: string;
}

describe.skipIf(!hasChromium)('the run viewer in headless Chromium', () => {
  let browser: Browser;
  let tab: ViewerTab;
  let runs: Record<FixtureKind, RecordedRun>;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tot-viewer-'));
    mkdirSync(artifacts, { recursive: true });
    // Recorded first, alone: the runs' timelines show their own timing, not the browser's start.
    runs = await recordAll();
    browser = await launchChromium();
    tab = await viewerTab(browser, { width: 1400, height: 900 });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Opens a run's page (rendered to a file once), in a new document of the file's one tab, recording console errors and every request. */
  async function open(kind: FixtureKind): Promise<Opened> {
    const run = runs[kind];
    const view = viewRun(run.events);
    const file = join(dir, `${kind}.html`);
    if (!existsSync(file)) writeFileSync(file, renderRunHtml(run.events, { title: run.title }));
    const { page, consoleErrors, requests, url } = await tab.open(file);
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
    // The guides' pictures change only when asked: a test run leaves the repository as it was.
    if (process.env.TOT_UPDATE_SCREENSHOTS) writeFileSync(join(docs, `viewer-${kind}.png`), png);
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

      it('shows the prompt and model output of the calls behind a node, or says plainly why it has none', async () => {
        const { page, view, consoleErrors } = await open(kind);
        // A node on the best path, deepest first, that a call made (itself or the node it carries); else any.
        const candidates = [...view.bestPath].reverse().map((id) => view.nodes.find((n) => n.id === id)!);
        const n = candidates.find((x) => madeCalls(view, x).calls.length > 0) ?? view.nodes.find((x) => madeCalls(view, x).calls.length > 0) ?? view.nodes[0]!;
        await page.locator(node(n.id)).focus();
        await page.keyboard.press('Enter');
        expect(await page.locator('#details-title').textContent()).toBe(n.label);
        const { calls, pick } = madeCalls(view, n);
        const blocks = page.locator('#details-calls .call-detail');
        if (kind === 'got-session') {
          // Hand-written thoughts: no model call, said plainly.
          expect(calls).toEqual([]);
          expect(await blocks.count()).toBe(0);
          expect(await page.locator('#details-calls .no-call').textContent()).toBe(n.noCall);
          expect(n.noCall).toMatch(/no model call/);
        } else {
          expect(calls.length, `${kind}: no node has a call`).toBeGreaterThan(0);
          expect(await blocks.count()).toBe(calls.length + (n.judgedBy?.length ?? 0));
          for (const [i, c] of calls.entries()) {
            const want = callText(view, c, calls.length === 1 ? pick : undefined);
            expect(await blocks.nth(i).locator('pre.prompt').textContent()).toBe(want.prompt);
            expect(await blocks.nth(i).locator('pre.output').textContent()).toBe(want.output);
            expect(await blocks.nth(i).getAttribute('data-call')).toBe(view.calls[c]!.id);
          }
        }
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
        if (kind === 'chain-of-thought') {
          const plan = view.panels.find((p) => p.kind === 'plan');
          expect(plan?.kind).toBe('plan');
          if (plan?.kind !== 'plan') return;
          // The plan after each thought, and the solution.
          expect(await page.locator('#panels details').count()).toBe(plan.versions.length);
          expect(plan.versions.length).toBe(3);
          await page.locator('#panels details summary').nth(1).click();
          expect(await page.locator('#panels details').nth(1).locator('li').count()).toBe(plan.versions[1]!.steps.length);
          expect(await page.locator('#panels .panel pre').last().textContent()).toBe('17 * 23 = 391.');
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

  /** Opens a node's details by focus and Enter (focus brings it into view). */
  async function select(page: Page, id: string): Promise<void> {
    await page.locator(node(id)).focus();
    await page.keyboard.press('Enter');
    expect(await page.locator('#details-title').count()).toBe(1);
  }

  it('shows a search node\'s score, and the prompt and output of the generator call that made it and of the evaluator call that scored it', async () => {
    const { page, view, consoleErrors } = await open('search');
    const leaf = view.nodes.find((n) => n.id === view.bestPath.at(-1))!;
    expect(leaf.score).toBe(10);
    await select(page, leaf.id);
    expect(await page.locator('#details-score').textContent()).toBe('10');
    const blocks = page.locator('#details-calls .call-detail');
    expect(await blocks.count()).toBe(2);
    // Made by: the generator call for its parent, whose prompt is the parent's state.
    const made = callText(view, leaf.madeBy![0]!);
    expect(made.prompt).toBe('4 * 5 = 20 (left: 6 10 20)\n10 - 6 = 4 (left: 4 20)\n4 + 20 = 24 (left: 24)\n');
    expect(await blocks.nth(0).locator('pre.prompt').textContent()).toBe(made.prompt);
    expect(await blocks.nth(0).locator('pre.output').textContent()).toBe('ok');
    expect(await blocks.nth(0).locator('.call-head').textContent()).toMatch(/^call c\d+ · generator · \d+ ms · \d+ in \/ \d+ out tokens$/);
    // Scored by: the evaluator call for it, whose prompt is its own state.
    expect(await page.locator('#details-calls h2').allTextContents()).toEqual(['Made by a model call', 'Scored by a model call']);
    expect(await blocks.nth(1).locator('pre.prompt').textContent()).toBe(`${made.prompt}${leaf.content}\n`);
    expect(await blocks.nth(1).locator('.call-head').textContent()).toMatch(/ · evaluator · /);
    // The root says it is the problem.
    await select(page, view.nodes[0]!.id);
    expect(await page.locator('#details-calls .no-call').textContent()).toBe('The problem the search started from: no model made it.');
    expect(consoleErrors).toEqual([]);
  });

  it('shows a graph thought\'s score, and the prompt and its own output of the call that made the state it carries', async () => {
    const { page, view, consoleErrors } = await open('graph');
    const byId = new Map(view.nodes.map((n) => [n.id, n]));
    // A scored thought of the best path (a local score: it carries a sort's state).
    const scored = view.bestPath.map((id) => byId.get(id)!).find((n) => n.score !== undefined && n.from)!;
    const origin = byId.get(scored.from!)!;
    expect(origin.pick).toBeDefined();
    await select(page, scored.id);
    expect(await page.locator('#details-score').textContent()).toBe(String(scored.score));
    expect(await page.locator('#details-calls button.goto').textContent()).toBe(origin.id);
    const block = page.locator('#details-calls .call-detail');
    expect(await block.count()).toBe(1);
    const want = callText(view, origin.madeBy![0]!, origin.pick);
    expect(await block.locator('pre.prompt').textContent()).toBe(want.prompt);
    expect(want.prompt).toMatch(/^Sort this list of numbers in ascending order\./);
    expect(await block.locator('pre.output').textContent()).toBe(want.output);
    const outputs = view.calls[origin.madeBy![0]!]!.outputs!.length;
    expect(await block.locator('h3').last().textContent()).toBe(`Model output (output ${origin.pick! + 1} of ${outputs})`);
    // The link goes to the thought the call made.
    await block.page().locator('#details-calls button.goto').click();
    expect(await page.locator('#details-title').textContent()).toBe(origin.label);
    expect(await page.locator('#details-calls .call-detail pre.output').textContent()).toBe(want.output);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-id'))).toBe(origin.id);
    expect(consoleErrors).toEqual([]);
  });

  for (const kind of ['search', 'graph'] as const) {
    it(`draws pruned nodes and their edges dashed, and the others solid (${kind})`, async () => {
      const { page, view } = await open(kind);
      const pruned = view.nodes.filter((n) => n.status === 'pruned');
      expect(pruned.length).toBeGreaterThan(0);
      const solid = view.nodes.find((n) => n.status !== 'pruned' && n.parents.length > 0)!;
      const style = (id: string) =>
        page.locator(node(id)).evaluate((g) => {
          const rect = getComputedStyle(g.querySelector('rect')!);
          return { dash: rect.strokeDasharray, fill: rect.fill };
        });
      const dashed = await style(pruned[0]!.id);
      expect(dashed.dash).toMatch(/^5(px)?,? 4(px)?$/);
      expect(dashed.fill).toBe('rgb(246, 248, 250)');
      expect((await style(solid.id)).dash).toBe('none');
      // Every pruned node drawn, and every edge into one, dashed.
      const dashes = await page.evaluate(() => Array.from(document.querySelectorAll('svg#graph g.node.pruned rect, svg#graph path.edge.pruned')).map((e) => getComputedStyle(e).strokeDasharray));
      expect(dashes.length).toBeGreaterThanOrEqual(pruned.length);
      expect(dashes.every((d) => d !== 'none')).toBe(true);
    });
  }
});
