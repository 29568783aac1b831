// The run viewer against hostile runs, in headless Chromium (Debian's chromium driven by
// playwright-core, as viewer.browser.test.ts). For every kind of run the viewer draws and every
// payload of fixtures/hostile.ts, the payload is put into every string and number field:
// - of the recorded events (walked generically), rendered by renderRunHtml: the fields whose
//   hostile value leaves the run's outline as it was all at once in one page, those that change
//   what is drawn (a runner's or an event's type) in a second;
// - of the view itself (every string, then every number: a string where a number is expected),
//   rendered by the same page code: what the page does with a value no upstream check saw;
// - and, for a deliberation and a GoT session, of events stored in SQLite and rendered by `tot view`.
// Each page is opened, every node's details shown, and then: no payload ran (the probe function
// never called, no flag set, the title unchanged, no dialog, no navigation, no frame), no request
// left the page, no element or attribute came from the data (only the viewer's own elements, no
// on* handler, no src or href), and no console error at all. A payload never becomes an element,
// so the Content-Security-Policy never has anything to block: a CSP violation in the console would
// mean the escaping failed, and fails the test like any other error. The payload is shown as text.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '@tot/core';
import { SqliteEventStore } from '@tot/core/sqlite';
import { renderRunHtml, viewRun, type RunView } from '@tot/core/viewer';
import { renderViewHtml } from '../../src/viewer/render-run-html.js';
import { ensureCli, totCli } from '../helpers/tot-cli.js';
import { eventPaths, mutateEvents, mutateView, PAYLOADS, sortPaths, withEveryField } from './fixtures/hostile.js';
import { recordAll, type FixtureKind, type RecordedRun } from './fixtures/runs.js';

const CHROMIUM = process.env.TOT_CHROMIUM ?? '/usr/bin/chromium';
const hasBrowser = existsSync(CHROMIUM);
if (!hasBrowser) console.warn(`\n# SKIPPED: the viewer's injection tests need Chromium at ${CHROMIUM} (Debian: apt-get install chromium).\n`);

const KINDS: FixtureKind[] = ['search', 'graph', 'deliberation', 'got-session', 'fractal', 'chain-of-thought'];

/** What a hostile page did, as seen from outside and from inside. */
interface Audit {
  /** Calls of the probe, dialogs, popups: anything a payload did by running. */
  ran: string[];
  requests: string[];
  consoleErrors: string[];
  /** Elements and attributes that are not the viewer's own. */
  foreign: string[];
  /** The page's title, its heading, and whether it stayed on its own file with no frame. */
  title: string;
  heading: string;
  stayed: boolean;
  /** Whether some text node of the page holds the payload. */
  shownAsText: boolean;
  nodes: number;
  panels: number;
}

describe.skipIf(!hasBrowser)('the run viewer keeps hostile runs inert', () => {
  let browser: Browser;
  let runs: Record<FixtureKind, RecordedRun>;
  let dir: string;
  const fields = {} as Record<FixtureKind, ReturnType<typeof sortPaths>>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tot-viewer-hostile-'));
    runs = await recordAll();
    for (const kind of KINDS) fields[kind] = sortPaths(runs[kind].events, PAYLOADS[0]!);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  // One tab for every page (a new tab costs more than the page): each audit starts its own lists.
  let page: Page;
  let current = { ran: [] as string[], requests: [] as string[], consoleErrors: [] as string[], url: '' };
  let pages = 0;
  beforeAll(async () => {
    page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    await page.exposeFunction('__pwned', (what: unknown) => void current.ran.push(`__pwned(${String(what)})`));
    page.on('dialog', (d) => {
      current.ran.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    page.on('popup', (p) => void current.ran.push(`popup: ${p.url()}`));
    page.on('console', (m) => void (m.type() === 'error' && current.consoleErrors.push(m.text())));
    page.on('pageerror', (e) => void current.consoleErrors.push(`pageerror: ${e.message}`));
    page.on('request', (r) => void (r.url() !== current.url && current.requests.push(r.url())));
    // Nothing leaves the machine even if the page asked: every http(s) request is aborted (and recorded above).
    await page.route(/^https?:/, (route) => route.abort());
  });

  /** Opens a page from a file, shows every node's details, and reports what happened. */
  async function audit(html: string, payload: string): Promise<Audit> {
    const file = join(dir, `page-${pages++}.html`);
    writeFileSync(file, html);
    const url = pathToFileURL(file).href;
    current = { ran: [], requests: [], consoleErrors: [], url };
    const { ran, requests, consoleErrors } = current;
    await page.goto(url);
    await page.waitForSelector('body[data-ready=true]', { state: 'attached', timeout: 10_000 });
    const inside = await page.evaluate(async (text) => {
      const HTML_NS = 'http://www.w3.org/1999/xhtml';
      // The viewer's own elements; anything else came from the data.
      const OWN = new Set(['html', 'head', 'meta', 'title', 'style', 'script', 'body', 'header', 'h1', 'h2', 'h3', 'div', 'main', 'section', 'aside', 'p', 'dl', 'dt', 'dd', 'pre', 'button', 'span', 'b', 'table', 'tbody', 'tr', 'th', 'td', 'details', 'summary', 'ul', 'li', 'svg', 'g', 'path', 'rect', 'text', 'polyline', 'line']);
      const LOADS = /^(on|src|srcdoc|srcset|href|xlink:href|action|formaction|data|autofocus|background|poster|ping)/i;
      const foreign = new Set<string>();
      const check = (where: string) => {
        for (const el of Array.from(document.querySelectorAll('*'))) {
          if (!OWN.has(el.localName)) foreign.add(`${where}: <${el.localName}>`);
          for (const a of el.getAttributeNames()) if (LOADS.test(a) && !a.startsWith('data-')) foreign.add(`${where}: <${el.localName} ${a}>`);
        }
        const count = (tag: string) => document.getElementsByTagNameNS(HTML_NS, tag).length;
        if (count('script') !== 2 || count('style') !== 1 || count('meta') !== 3 || count('title') !== 1 || count('base') !== 0) foreign.add(`${where}: extra head elements`);
      };
      check('drawn');
      const nodes = Array.from(document.querySelectorAll('svg#graph g.node'));
      for (const g of nodes) {
        g.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
        check(`details of ${g.getAttribute('data-id')}`);
      }
      // Handlers a payload would have set up fire after a frame or a timer.
      await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
      await new Promise((resolve) => setTimeout(resolve, 50));
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      let shownAsText = false;
      for (let t = walker.nextNode(); t && !shownAsText; t = walker.nextNode()) if (t.parentElement?.localName !== 'script' && (t.nodeValue ?? '').includes(text)) shownAsText = true;
      return {
        foreign: [...foreign].slice(0, 20),
        flag: (window as unknown as { __pwnedFlag?: unknown }).__pwnedFlag,
        title: document.title,
        heading: document.querySelector('h1')?.textContent ?? '',
        frames: document.querySelectorAll('iframe, frame, object, embed').length,
        shownAsText,
        nodes: nodes.length,
        panels: document.querySelectorAll('#panels .panel').length,
      };
    }, payload);
    if (inside.flag !== undefined) ran.push(`flag: ${String(inside.flag)}`);
    return {
      ran,
      requests,
      consoleErrors,
      foreign: inside.foreign,
      title: inside.title,
      heading: inside.heading,
      stayed: page.url() === url && page.frames().length === 1 && inside.frames === 0,
      shownAsText: inside.shownAsText,
      nodes: inside.nodes,
      panels: inside.panels,
    };
  }

  /** Nothing ran, loaded, erred or came from the data; the title is the heading's text; the payload is there as text. */
  function expectInert(a: Audit, what: string): void {
    expect({ ran: a.ran, requests: a.requests, consoleErrors: a.consoleErrors, foreign: a.foreign, stayed: a.stayed }, what).toEqual({ ran: [], requests: [], consoleErrors: [], foreign: [], stayed: true });
    // document.title strips and collapses ASCII whitespace; a payload that set it would differ from the heading.
    expect(a.title, what).toBe(a.heading.replace(/[\t\n\f\r ]+/g, ' ').trim());
    expect(a.shownAsText, `${what}: the payload is shown as text`).toBe(true);
  }

  /** Every payload at once, one after the other: for the fields tried once per kind rather than once per payload. */
  const ALL = PAYLOADS.join(' ');

  for (const kind of KINDS) {
    describe(kind, () => {
      it('sorts every field of its events: most leave the run drawn as it was, a few change what is drawn', () => {
        const { together, reshaping, refused } = fields[kind];
        expect(together.length).toBeGreaterThan(10);
        // Each field in one group, and none left out.
        expect([...together, ...reshaping, ...refused].sort()).toEqual(eventPaths(runs[kind].events).sort());
      });

      it.each(PAYLOADS.map((p, i) => [i, p] as const))('payload %i in every field of the events, through renderRunHtml: inert, shown as text', async (_, payload) => {
        const run = runs[kind];
        const events = mutateEvents(run.events, new Set(fields[kind].together), payload);
        // This payload too leaves the run drawn as it was: every node is drawn and shown.
        const view = viewRun(events);
        expect(view.nodes).toHaveLength(viewRun(run.events).nodes.length);
        const a = await audit(renderRunHtml(events), payload);
        expectInert(a, `${kind}, events`);
        expect(a.nodes).toBe(view.nodes.length);
      });

      it.each(PAYLOADS.map((p, i) => [i, p] as const))('payload %i in every string and every number of the view, every field present (a string where a number belongs): inert, shown as text', async (_, payload) => {
        const view = withEveryField(viewRun(runs[kind].events));
        const a = await audit(renderViewHtml(mutateView(view, payload), `${kind} ${payload}`), payload);
        expectInert(a, `${kind}, view`);
        expect(a.nodes).toBe(view.nodes.length);
      });

      it('every payload at once in the fields that change what is drawn, and in every field of the view (panel kinds and references too): inert, shown as text', async () => {
        const run = runs[kind];
        const { together, reshaping } = fields[kind];
        expectInert(await audit(renderRunHtml(mutateEvents(run.events, new Set([...together, ...reshaping]), ALL)), ALL), `${kind}, events reshaped`);
        const a = await audit(renderViewHtml(mutateView(withEveryField(viewRun(run.events)), ALL, { all: true }), kind), ALL);
        expectInert(a, `${kind}, whole view`);
        expect(a.panels).toBe(0);
      });
    });
  }

  /** Opens a page (after `before`, if given) and returns the text of each element `selector` finds. */
  async function texts(html: string, selector: string, before?: (page: Page) => Promise<void>): Promise<string[]> {
    const file = join(dir, `page-${pages++}.html`);
    writeFileSync(file, html);
    current = { ran: [], requests: [], consoleErrors: [], url: pathToFileURL(file).href };
    await page.goto(current.url);
    await page.waitForSelector('body[data-ready=true]', { state: 'attached', timeout: 10_000 });
    await before?.(page);
    return page.locator(selector).allTextContents();
  }

  const PAYLOAD = PAYLOADS[0]!;
  type Panel<K extends string> = Extract<RunView['panels'][number], { kind: K }>;

  it("shows a deliberation's consensus values and similarity values that arrive as text (the host's analysis recorded as given), as that text", async () => {
    const events = mutateEvents(runs.deliberation.events, new Set(fields.deliberation.together), PAYLOAD);
    const panel = viewRun(events).panels[0] as Panel<'consensus'>;
    expect(panel.trend.length).toBeGreaterThan(0);
    expect(panel.trend.every((v) => (v as unknown) === PAYLOAD)).toBe(true);
    const html = renderRunHtml(events);
    expect(await texts(html, '#panels .panel > p')).toEqual([`By round: ${panel.trend.join(' → ')}`]);
    const cells = await texts(html, 'table.heatmap td.cell');
    expect(cells.length).toBeGreaterThan(0);
    expect(new Set(cells)).toEqual(new Set([PAYLOAD]));
  });

  it("shows a GoT session's branch names and states, rewards and token budget, whatever they hold, as that text", async () => {
    const view = mutateView(viewRun(runs['got-session'].events), PAYLOAD);
    const html = renderViewHtml(view, 'GoT session');
    expect(await texts(html, 'svg#tokens text.axis')).toContain(`budget ${PAYLOAD}`);
    const branches = (view.panels[0] as Panel<'branches'>).branches;
    const rows = await texts(html, 'table#branches td');
    expect(rows).toEqual(branches.flatMap((b) => [b.id, b.name, b.state, String(b.reward ?? '')]));
    expect(rows.filter((cell) => cell === PAYLOAD).length).toBeGreaterThan(0);
    expect(rows.filter((cell) => cell.endsWith(PAYLOAD) && cell !== PAYLOAD).length).toBeGreaterThan(0);
  });

  it("shows a node's hostile content, label and model output as that text in its details", async () => {
    const events = mutateEvents(runs.search.events, new Set(fields.search.together), PAYLOAD);
    const view = viewRun(events);
    const leaf = view.nodes.find((n) => n.id === view.bestPath.at(-1))!;
    expect(leaf.content).toContain(PAYLOAD);
    expect(leaf.madeBy).toHaveLength(1);
    const shown = await texts(renderRunHtml(events), '#details-title, #details-content, #details-calls div.call-detail:first-of-type pre.output', async (p) => {
      await p.locator(`svg#graph g.node[data-id="${leaf.id.replace(/["\\]/g, '\\$&')}"]`).focus();
      await p.keyboard.press('Enter');
    });
    const call = view.calls[leaf.madeBy![0]!]!;
    expect(shown).toEqual([leaf.label, leaf.content, view.texts[call.outputs![leaf.pick ?? 0]!]!]);
    expect(shown[2]).toContain(PAYLOAD);
  });

  describe('tot view', () => {
    beforeAll(async () => {
      await ensureCli();
      // Building the command from the sources, when dist is older than they are, takes minutes on a busy machine.
    }, 600_000);

    /** Stores the events in a SQLite file (a stream of its own) and writes the page with `tot view`. */
    async function totView(events: readonly StoredEvent[], name: string): Promise<string> {
      const db = join(dir, `${name}.db`);
      const database = new Database(db);
      const streamId = events[0]!.streamId;
      await new SqliteEventStore({ database }).append(streamId, events.map((e, i) => ({ type: e.type, data: e.data, idempotencyKey: `${name}:${i}`, metadata: e.metadata })), { expectedVersion: 'no_stream' });
      database.close();
      const out = join(dir, `${name}.html`);
      const r = spawnSync(process.execPath, [totCli(), 'view', db, '--run', streamId, '--out', out], { encoding: 'utf8', timeout: 60_000 });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      return readFileSync(out, 'utf8');
    }

    it.each(PAYLOADS.map((p, i) => [i, p] as const))('payload %i in every field of a recorded deliberation, through tot view: the page renderRunHtml writes, inert, shown as text', async (i, payload) => {
      const events = mutateEvents(runs.deliberation.events, new Set(fields.deliberation.together), payload);
      const html = await totView(events, `deliberation-${i}`);
      expect(html).toBe(renderRunHtml(events));
      const a = await audit(html, payload);
      expectInert(a, 'tot view, deliberation');
      expect(a.nodes).toBe(viewRun(events).nodes.length);
    });

    it('every payload at once in every field of a recorded GoT session but its id, through tot view: inert, shown as text', async () => {
      // A store takes stream ids of 512 characters at most: the session's id, each payload in turn, is in the renderRunHtml tests above.
      const events = mutateEvents(runs['got-session'].events, new Set(fields['got-session'].together.filter((path) => path !== 'streamId')), ALL);
      const html = await totView(events, 'got-session');
      expect(html).toBe(renderRunHtml(events));
      const a = await audit(html, ALL);
      expectInert(a, 'tot view, GoT session');
      expect(a.nodes).toBe(viewRun(events).nodes.length);
    });
  });
});
