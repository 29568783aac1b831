/**
 * The run viewer at 10,000 nodes (issue #16): a real search run recorded to an InMemoryEventStore
 * (Explorer, BFS with beam 100 and branching 10 on instant roles whose every call goes through a
 * model, stopped at exactly 10,000 nodes), rendered with renderRunHtml, opened from a file in
 * headless Chromium (Debian's /usr/bin/chromium through playwright-core; no browser is ever
 * downloaded). Per run (5, each in a fresh browser context): the time from navigation start until
 * the page is drawn (`body[data-ready=true]`) and until a click on a node shows its details
 * (interactive). Target: interactive ≤ 2,000 ms (median). Also the HTML's size and the time
 * renderRunHtml takes.
 *
 * npm run bench:viewer [-- --nodes 10000 --runs 5]
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { bfs, callModel, Explorer, fromFunction, InMemoryEventStore, type StoredEvent, type ThoughtEvaluator, type ThoughtGenerator } from '../src/index.js';
import { renderRunHtml, viewRun } from '../src/viewer/index.js';
import { figure, median, passRounds, pooled, report, ROUNDS } from './harness.js';

// TOT_CHROMIUM points elsewhere (or nowhere, to see the skip).
const CHROMIUM = process.env.TOT_CHROMIUM ?? '/usr/bin/chromium';
const TARGET_MS = 2000;

const { values } = parseArgs({ options: { nodes: { type: 'string', default: '10000' }, runs: { type: 'string', default: String(ROUNDS) } } });
const NODES = Number(values.nodes);
const RUNS = Number(values.runs);
if (!Number.isInteger(NODES) || NODES < 2) throw new Error('--nodes: send a whole number of at least 2');
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error('--runs: send a whole number of at least 1');
const log = (line: string) => process.stderr.write(`[bench:viewer] ${line}\n`);

if (!existsSync(CHROMIUM)) {
  log(`SKIPPED: no browser at ${CHROMIUM} (Debian: apt-get install chromium); nothing was measured and no result was written.`);
  process.exit(0);
}

/** A search of exactly `nodes` nodes: every generation and every evaluation a model call. */
async function recordRun(nodes: number): Promise<{ events: StoredEvent[]; totalNodes: number; llmCalls: number }> {
  const model = fromFunction(() => 'ok');
  let left = nodes - 1;
  const generator: ThoughtGenerator = {
    async generate({ parent, k }, options = {}) {
      // Taken before the call, in the order the search asks: the same tree every time.
      const n = Math.min(k, left);
      left -= n;
      await callModel(options.runModel ? options.runModel(model) : model, { messages: [{ role: 'user', content: `propose after ${parent.id}` }], tags: { role: 'generator' } });
      return Array.from({ length: n }, (_, i) => ({ content: `${parent.depth + 1}.${i}: combine ${i + 1} with the state of ${parent.id} (left: ${(i * 7) % 13} ${(i * 5) % 11})` }));
    },
  };
  const evaluator: ThoughtEvaluator = {
    async evaluate({ candidates }, options = {}) {
      await callModel(options.runModel ? options.runModel(model) : model, { messages: [{ role: 'user', content: `value ${candidates.length} states` }], tags: { role: 'evaluator' } });
      return { evaluations: candidates.map((c, i) => ({ nodeId: c.id, score: ((i * 7 + c.depth) % 10) + 0.5, confidence: 1, reasoning: `value ${(i * 7) % 10}` })), ranking: [], pruningSuggestions: [] };
    },
  };
  const explorer = new Explorer({ generator, evaluator, strategy: bfs({ beamWidth: 100 }), maxDepth: 50, branchingFactor: 10, pruningThreshold: 0, concurrency: 16 });
  const store = new InMemoryEventStore();
  const result = await explorer.run('a synthetic search of 10,000 thoughts', { store, runId: 'viewer-bench' });
  const events: StoredEvent[] = [];
  for await (const e of store.readStream('viewer-bench')) events.push(e);
  return { events, totalNodes: result.stats.totalNodes, llmCalls: result.stats.llmCalls };
}

const { events, totalNodes, llmCalls } = await recordRun(NODES);
const view = viewRun(events);
if (view.nodes.length !== totalNodes) throw new Error(`the viewer has ${view.nodes.length} nodes, the run made ${totalNodes}`);
log(`recorded ${totalNodes} nodes, ${llmCalls} model calls, ${events.length} events`);

// renderRunHtml in Node (after a warm-up).
renderRunHtml(events);
// This pass's share of the runs (bench/run.ts runs the list in passes); the figures are of every pass's.
const PASS_RUNS = passRounds(RUNS).length;
const passRenderMs: number[] = [];
let html = '';
for (let i = 0; i < PASS_RUNS; i++) {
  const started = performance.now();
  html = renderRunHtml(events, { title: `${totalNodes} nodes` });
  passRenderMs.push(performance.now() - started);
}
const renderMs = pooled('renderMs', passRenderMs);
const dir = mkdtempSync(join(tmpdir(), 'tot-viewer-bench-'));
const file = join(dir, 'run.html');
writeFileSync(file, html);
const url = pathToFileURL(file).href;

// Loaded from node_modules at run time, never bundled: bench/run.ts bundles each benchmark with
// esbuild, and playwright-core finds its own files from where it is installed.
const load = createRequire(import.meta.url);
const { chromium } = load('playwright-core') as typeof import('playwright-core');
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] });
const passRuns: { readyMs: number; interactiveMs: number; readyInPageMs: number; consoleErrors: number; requests: number }[] = [];
try {
  // One untimed load: the browser's own first-start costs are not the page's.
  {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForSelector('body[data-ready=true]', { state: 'attached', timeout: 60_000 });
    await context.close();
  }
  for (let i = 0; i < PASS_RUNS; i++) {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    let consoleErrors = 0;
    let requests = 0;
    page.on('console', (m) => void (m.type() === 'error' && (consoleErrors += 1)));
    page.on('pageerror', () => void (consoleErrors += 1));
    page.on('request', (r) => void (r.url() !== url && (requests += 1)));
    const started = performance.now();
    await page.goto(url, { waitUntil: 'commit' });
    await page.waitForSelector('body[data-ready=true]', { state: 'attached', timeout: 60_000 });
    const readyMs = performance.now() - started;
    // A mouse click in the middle of a node in the opening view (as a user clicks: no waiting
    // for the page to be still first); interactive once the details show that node's content.
    // The middle of the node's box, not of its group: fitted, a wide run's nodes are a pixel or two
    // high, and the browser draws their labels at a least size, so the group's box reaches past
    // the node's and its middle can fall off the node (at 500 nodes, on every node).
    const target = await page.evaluate(() => {
      const svg = document.querySelector('svg#graph')!.getBoundingClientRect();
      for (const g of Array.from(document.querySelectorAll('svg#graph g.node'))) {
        const r = g.querySelector('rect')!.getBoundingClientRect();
        if (r.width === 0 || r.left < svg.left || r.right > svg.right || r.top < svg.top || r.bottom > svg.bottom) continue;
        const x = r.left + r.width / 2;
        const y = r.top + r.height / 2;
        if (document.elementFromPoint(x, y)?.closest('g.node') === g) return { id: g.getAttribute('data-id')!, x, y };
      }
      return null;
    });
    if (!target) throw new Error('no node in the opening view can be clicked in its middle');
    await page.mouse.click(target.x, target.y);
    const expected = view.nodes.find((n) => n.id === target.id)!.content;
    await page.waitForFunction((content) => document.getElementById('details-content')?.textContent === content, expected, { timeout: 60_000, polling: 'raf' });
    const interactiveMs = performance.now() - started;
    // The page's own clock: navigation start to the end of DOMContentLoaded (the viewer's script runs inline, before it).
    const readyInPageMs = await page.evaluate(() => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).domContentLoadedEventEnd);
    passRuns.push({ readyMs: Math.round(readyMs), interactiveMs: Math.round(interactiveMs), readyInPageMs: Math.round(readyInPageMs), consoleErrors, requests });
    log(`run ${i + 1}: drawn ${Math.round(readyMs)} ms, interactive ${Math.round(interactiveMs)} ms`);
    await context.close();
  }
} finally {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}

const runs = pooled('runs', passRuns);
const interactive = median(runs.map((r) => r.interactiveMs));
report('viewer', {
  nodes: totalNodes,
  modelCalls: llmCalls,
  events: events.length,
  runs: runs.length,
  browser: CHROMIUM,
  viewport: '1400x900',
  htmlBytes: Buffer.byteLength(html),
  htmlMiB: Math.round((Buffer.byteLength(html) / 2 ** 20) * 100) / 100,
  renderRunHtmlMs: figure(renderMs),
  readyMs: figure(runs.map((r) => r.readyMs)),
  readyInPageMs: figure(runs.map((r) => r.readyInPageMs)),
  interactiveMs: figure(runs.map((r) => r.interactiveMs)),
  consoleErrors: runs.reduce((n, r) => n + r.consoleErrors, 0),
  requestsOtherThanThePage: runs.reduce((n, r) => n + r.requests, 0),
  perRun: runs,
  target: { interactiveMs: TARGET_MS, met: interactive <= TARGET_MS },
});
