// The run viewer against hostile runs, in headless Chromium (Debian's chromium driven by
// playwright-core: test/helpers/chromium.ts). For every kind of run the viewer draws and every
// payload of fixtures/hostile.ts, the payload is put into every string and number field:
// - of the recorded events (walked generically), rendered by renderRunHtml: the fields whose
//   hostile value leaves the run's outline as it was all at once in one page, those that change
//   what is drawn (a runner's or an event's type) in a second;
// - of the view itself (every string, then every number: a string where a number is expected),
//   rendered by the same page code: what the page does with a value no upstream check saw (the
//   views of every kind side by side in one page);
// - and of events stored in SQLite: each payload's run, read back as `tot view` reads it, makes the
//   very page audited above; and `tot view` itself (one run of each kind, a payload of its own in
//   every field, the run's id too) writes the page renderRunHtml writes, audited again.
// One payload in one page, each page in a tab of its own, a few tabs at a time (a page mostly
// waits for the browser). Each page is opened, every node's details shown, and then: no payload
// ran (the probe function never called, no flag set, the title unchanged, no dialog, no
// navigation, no frame), no request left the page, no element or attribute came from the data
// (only the viewer's own elements, no on* handler, no src or href: watched from before the page's
// first byte to the end, so one that came and went counts too), and no console error at all. A
// payload never becomes an element, so the Content-Security-Policy never has anything to block: a
// CSP violation in the console would mean the escaping failed, and fails the test like any other
// error. The payload is shown as text.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '@tot/core';
import { SqliteEventStore } from '@tot/core/sqlite';
import { renderRunHtml, viewRun, type RunView } from '@tot/core/viewer';
import { renderViewHtml } from '../../src/viewer/render-run-html.js';
import { hasChromium, launchChromium, warnIfNoChromium } from '../helpers/chromium.js';
import { ensureCli, totCli } from '../helpers/tot-cli.js';
import { eventPaths, mutateEvents, mutateView, PAYLOADS, sideBySide, sortPaths, withEveryField } from './fixtures/hostile.js';
import { readAll, recordAll, recordAskingSearch, type FixtureKind, type RecordedRun } from './fixtures/runs.js';

warnIfNoChromium("the viewer's injection tests");

/** Each kind of run the viewer draws, and a search that asked a person (its questions, previews and answers). */
type Kind = FixtureKind | 'questions';
const KINDS: Kind[] = ['search', 'graph', 'deliberation', 'got-session', 'fractal', 'chain-of-thought', 'questions'];
/** Pages audited at once: enough to keep both cores busy while a page waits for its frames. */
const TABS = 4;

/** What a hostile page did, as seen from outside and from inside. */
interface Audit {
  /** Calls of the probe, dialogs, popups: anything a payload did by running. */
  ran: string[];
  requests: string[];
  consoleErrors: string[];
  /** Elements and attributes that are not the viewer's own, at any time from the first byte on. */
  foreign: string[];
  /** Whether the page's script finished drawing. */
  ready: boolean;
  /** The page's title, its heading, and whether it stayed on its own file with no frame. */
  title: string;
  heading: string;
  stayed: boolean;
  /** Whether some text node of the page held the payload, in what is drawn or in a node's details. */
  shownAsText: boolean;
  nodes: number;
  panels: number;
}

/** A page to audit: its HTML, the payload it must show as text, and what it is, for the failure messages. */
interface Check {
  html: string;
  payload: string;
  what: string;
}

/**
 * Installed in every page before its first byte (an init script, which the page's CSP does not
 * govern): records every element and attribute the document ever gets that is not the viewer's
 * own, whether the parser or a script made it, and even if it is gone again by the end.
 */
function watchForeign(): void {
  // The viewer's own elements; anything else came from the data.
  const OWN = new Set(['html', 'head', 'meta', 'title', 'style', 'script', 'body', 'header', 'h1', 'h2', 'h3', 'div', 'main', 'section', 'aside', 'p', 'dl', 'dt', 'dd', 'pre', 'button', 'span', 'b', 'table', 'tbody', 'tr', 'th', 'td', 'details', 'summary', 'ul', 'li', 'svg', 'g', 'path', 'rect', 'text', 'polyline', 'line']);
  const LOADS = /^(on|src|srcdoc|srcset|href|xlink:href|action|formaction|data|autofocus|background|poster|ping)/i;
  const foreign = new Set<string>();
  const audit = { phase: 'drawn', foreign, flush: () => undefined as void, scan: () => undefined as void };
  const attribute = (el: Element, a: string) => {
    if (LOADS.test(a) && !a.startsWith('data-')) foreign.add(`${audit.phase}: <${el.localName} ${a}>`);
  };
  const element = (el: Element) => {
    if (!OWN.has(el.localName)) foreign.add(`${audit.phase}: <${el.localName}>`);
    for (const a of el.getAttributeNames()) attribute(el, a);
  };
  const added = (node: Node) => {
    if (node.nodeType !== Node.ELEMENT_NODE) return;
    element(node as Element);
    for (const el of Array.from((node as Element).querySelectorAll('*'))) element(el);
  };
  const seen = (records: MutationRecord[]) => {
    for (const r of records) {
      if (r.type === 'childList') r.addedNodes.forEach(added);
      else if (r.attributeName && (r.target as Element).hasAttribute?.(r.attributeName)) attribute(r.target as Element, r.attributeName);
    }
  };
  const observer = new MutationObserver(seen);
  observer.observe(document, { childList: true, subtree: true, attributes: true });
  audit.flush = () => seen(observer.takeRecords());
  audit.scan = () => document.querySelectorAll('*').forEach(element);
  Object.defineProperty(window, '__audit', { value: audit });
}

describe.skipIf(!hasChromium)('the run viewer keeps hostile runs inert', () => {
  let browser: Browser;
  let context: BrowserContext;
  let runs: Record<Kind, RecordedRun>;
  let dir: string;
  const fields = {} as Record<Kind, ReturnType<typeof sortPaths>>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tot-viewer-hostile-'));
    runs = { ...(await recordAll()), questions: await recordAskingSearch() };
    for (const kind of KINDS) fields[kind] = sortPaths(runs[kind].events, PAYLOADS[0]!);
    browser = await launchChromium();
    // A small window, which Chromium paints less of: for runs this small (far below the 1,500 nodes
    // from which the viewer draws an overview sized to the window) what is drawn is the same.
    context = await browser.newContext({ viewport: { width: 400, height: 300 } });
    // Nothing leaves the machine even if a page asked: every http(s) request is aborted (and recorded by its tab).
    await context.route(/^https?:/, (route) => route.abort());
    await context.addInitScript(watchForeign);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A tab, reused page after page (a new tab costs more than the page): each audit starts its own lists. */
  interface Tab {
    page: Page;
    current: { ran: string[]; requests: string[]; consoleErrors: string[]; url: string };
  }
  const idle: Tab[] = [];
  let pages = 0;

  async function newTab(): Promise<Tab> {
    const page = await context.newPage();
    const tab: Tab = { page, current: { ran: [], requests: [], consoleErrors: [], url: '' } };
    await page.exposeFunction('__pwned', (what: unknown) => void tab.current.ran.push(`__pwned(${String(what)})`));
    page.on('dialog', (d) => {
      tab.current.ran.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    page.on('popup', (p) => void tab.current.ran.push(`popup: ${p.url()}`));
    page.on('console', (m) => void (m.type() === 'error' && tab.current.consoleErrors.push(m.text())));
    page.on('pageerror', (e) => void tab.current.consoleErrors.push(`pageerror: ${e.message}`));
    page.on('request', (r) => void (r.url() !== tab.current.url && tab.current.requests.push(r.url())));
    return tab;
  }

  /** Runs `use` with a tab of its own, and gives the tab back for the next page. */
  async function withTab<T>(use: (tab: Tab) => Promise<T>): Promise<T> {
    const tab = idle.pop() ?? (await newTab());
    try {
      return await use(tab);
    } finally {
      idle.push(tab);
    }
  }

  /** Writes the page to a file of its own and opens it in the tab, with fresh lists. */
  async function open(tab: Tab, html: string): Promise<string> {
    const file = join(dir, `page-${pages++}.html`);
    writeFileSync(file, html);
    const url = pathToFileURL(file).href;
    tab.current = { ran: [], requests: [], consoleErrors: [], url };
    // The page's script is inline at the end of its body: it has drawn the page by the load event.
    await tab.page.goto(url);
    return url;
  }

  /** Opens a page, shows every node's details, and reports what happened. */
  async function audit(tab: Tab, html: string, payload: string): Promise<Audit> {
    const url = await open(tab, html);
    const { ran, requests, consoleErrors } = tab.current;
    const inside = await tab.page.evaluate(async (text) => {
      const HTML_NS = 'http://www.w3.org/1999/xhtml';
      const audit = (window as unknown as { __audit?: { phase: string; foreign: Set<string>; flush(): void; scan(): void } }).__audit;
      if (!audit) throw new Error('the watch for foreign elements was not installed before the page');
      const ready = document.body?.getAttribute('data-ready') === 'true';
      // Text the page shows, the script's JSON aside.
      const shows = (root: Node) => {
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        for (let t = walker.nextNode(); t; t = walker.nextNode()) if (t.parentElement?.localName !== 'script' && (t.nodeValue ?? '').includes(text)) return true;
        return false;
      };
      let shownAsText = shows(document.body);
      const details = document.getElementById('details');
      const nodes = Array.from(document.querySelectorAll('svg#graph g.node'));
      for (const g of nodes) {
        audit.flush();
        audit.phase = `details of ${g.getAttribute('data-id')}`;
        g.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
        if (!shownAsText && details) shownAsText = shows(details);
      }
      // Handlers a payload would have set up fire after a frame or a timer.
      await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
      await new Promise((resolve) => setTimeout(resolve, 50));
      audit.flush();
      audit.phase = 'at the end';
      // What is there now, whatever the watch saw; and the head as the viewer wrote it.
      audit.scan();
      const count = (tag: string) => document.getElementsByTagNameNS(HTML_NS, tag).length;
      if (count('script') !== 2 || count('style') !== 1 || count('meta') !== 3 || count('title') !== 1 || count('base') !== 0) audit.foreign.add('at the end: extra head elements');
      return {
        ready,
        foreign: [...audit.foreign].slice(0, 20),
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
      ready: inside.ready,
      title: inside.title,
      heading: inside.heading,
      stayed: tab.page.url() === url && tab.page.frames().length === 1 && inside.frames === 0,
      shownAsText: inside.shownAsText,
      nodes: inside.nodes,
      panels: inside.panels,
    };
  }

  /** Audits every page, each in a tab of its own, TABS at a time; the audits in the checks' order. */
  async function auditAll(checks: readonly Check[]): Promise<Audit[]> {
    const audits: Audit[] = [];
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < checks.length; i = next++) audits[i] = await withTab((tab) => audit(tab, checks[i]!.html, checks[i]!.payload));
    };
    await Promise.all(Array.from({ length: Math.min(TABS, checks.length) }, worker));
    return audits;
  }

  /** Nothing ran, loaded, erred or came from the data; the title is the heading's text; the payload is there as text. */
  function expectInert(a: Audit, what: string): void {
    expect({ ran: a.ran, requests: a.requests, consoleErrors: a.consoleErrors, foreign: a.foreign, ready: a.ready, stayed: a.stayed }, what).toEqual({ ran: [], requests: [], consoleErrors: [], foreign: [], ready: true, stayed: true });
    // document.title strips and collapses ASCII whitespace; a payload that set it would differ from the heading.
    expect(a.title, what).toBe(a.heading.replace(/[\t\n\f\r ]+/g, ' ').trim());
    expect(a.shownAsText, `${what}: the payload is shown as text`).toBe(true);
  }

  /** Every payload at once, one after the other: for the fields tried once per kind rather than once per payload. */
  const ALL = PAYLOADS.join(' ');

  /** The run of `kind` with `payload` in every field that leaves it drawn as it was. */
  const hostileRun = (kind: Kind, payload: string) => mutateEvents(runs[kind].events, new Set(fields[kind].together), payload);

  for (const kind of KINDS) {
    describe(kind, () => {
      it('sorts every field of its events: most leave the run drawn as it was, a few change what is drawn', () => {
        const { together, reshaping, refused } = fields[kind];
        expect(together.length).toBeGreaterThan(10);
        // Each field in one group, and none left out.
        expect([...together, ...reshaping, ...refused].sort()).toEqual(eventPaths(runs[kind].events).sort());
      });

      it(`each of the ${PAYLOADS.length} payloads, in a page of its own, in every field of the events, through renderRunHtml: inert, shown as text`, async () => {
        const drawn = viewRun(runs[kind].events).nodes.length;
        const checks = PAYLOADS.map((payload, i) => {
          const events = hostileRun(kind, payload);
          // This payload too leaves the run drawn as it was: every node is drawn and shown.
          expect(viewRun(events).nodes, `payload ${i}`).toHaveLength(drawn);
          return { html: renderRunHtml(events), payload, what: `${kind}, events, payload ${i}` };
        });
        for (const [i, a] of (await auditAll(checks)).entries()) {
          expectInert(a, checks[i]!.what);
          expect(a.nodes, checks[i]!.what).toBe(drawn);
        }
        // Twenty pages: about 8 s on a quiet machine, over 20 s when other test files load both cores.
      }, 120_000);

      it('every payload at once in the fields that change what is drawn: inert, shown as text', async () => {
        const { together, reshaping } = fields[kind];
        const [a] = await auditAll([{ html: renderRunHtml(mutateEvents(runs[kind].events, new Set([...together, ...reshaping]), ALL)), payload: ALL, what: `${kind}, events reshaped` }]);
        expectInert(a!, `${kind}, events reshaped`);
      });
    });
  }

  // The page draws a view's fields the same whatever its kind says (a hostile kind names none), so
  // the views of every kind, side by side in one view, put every field of every kind in one page.
  /** The view of every kind with every field present, side by side. */
  const everyView = () => sideBySide(Object.fromEntries(KINDS.map((kind) => [kind, withEveryField(viewRun(runs[kind].events))])));

  it(`each of the ${PAYLOADS.length} payloads, in a page of its own, in every string and every number of the views of every kind side by side, every field present (a string where a number belongs): inert, shown as text`, async () => {
    const view = everyView();
    const checks = PAYLOADS.map((payload, i) => ({ html: renderViewHtml(mutateView(view, payload), `views ${payload}`), payload, what: `views, payload ${i}` }));
    for (const [i, a] of (await auditAll(checks)).entries()) {
      expectInert(a, checks[i]!.what);
      expect(a.nodes, checks[i]!.what).toBe(view.nodes.length);
      expect(a.panels, checks[i]!.what).toBe(view.panels.length);
    }
  }, 120_000);

  it('every payload at once in every field of the views of every kind side by side (panel kinds and references too): inert, shown as text, no panel drawn', async () => {
    const [a] = await auditAll([{ html: renderViewHtml(mutateView(everyView(), ALL, { all: true }), 'views'), payload: ALL, what: 'views, every field' }]);
    expectInert(a!, 'views, every field');
    expect(a!.panels).toBe(0);
  });

  /** Opens a page (after `before`, if given) and returns the text of each element `selector` finds. */
  function texts(html: string, selector: string, before?: (page: Page) => Promise<void>): Promise<string[]> {
    return withTab(async (tab) => {
      await open(tab, html);
      await tab.page.waitForSelector('body[data-ready=true]', { state: 'attached', timeout: 10_000 });
      await before?.(tab.page);
      return tab.page.locator(selector).allTextContents();
    });
  }

  const PAYLOAD = PAYLOADS[0]!;
  type Panel<K extends string> = Extract<RunView['panels'][number], { kind: K }>;

  it("shows a deliberation's consensus values and similarity values that arrive as text (the host's analysis recorded as given), as that text", async () => {
    const events = hostileRun('deliberation', PAYLOAD);
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
    const events = hostileRun('search', PAYLOAD);
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

  it("shows a question's hostile words, id, key, place, preview and answer, and the ids a waiting run waits for, as that text", async () => {
    // The fields of the questions only, each id alike wherever it is named, so that the answer
    // stays tied to its question and the run still waits (its banner drawn).
    const asking = runs.questions;
    const paths = new Set([
      'run.asked.data.questionId',
      'run.answered.data.questionId',
      'run.finished.data.detail.questions.[]',
      'run.asked.data.key',
      'run.asked.data.question',
      'run.asked.data.where.kind',
      'run.asked.data.where.name',
      'run.asked.data.preview.[]',
      'run.asked.data.preview.path.[]',
      'run.asked.data.preview.score',
      'run.answered.data.answer',
    ]);
    const events = mutateEvents(asking.events, paths, PAYLOAD);
    const view = viewRun(events);
    const panel = view.panels.find((p): p is Panel<'questions'> => p.kind === 'questions')!;
    expect(view.waiting).toHaveLength(1);
    expect(view.waiting![0]).toContain(PAYLOAD);
    const [answered, pending] = panel.questions;
    for (const q of [answered!, pending!]) for (const field of ['id', 'key', 'question', 'where'] as const) expect(q[field], field).toContain(PAYLOAD);
    // A preview and an answer are shown as JSON: a string in them is quoted, its quotes escaped.
    for (const q of [answered!, pending!]) expect(q.preview).toContain(JSON.stringify(PAYLOAD).slice(1, -1));
    expect(answered!.answer).toBe(JSON.stringify(PAYLOAD));
    const html = renderRunHtml(events);
    const [a] = await auditAll([{ html, payload: PAYLOAD, what: 'questions' }]);
    expectInert(a!, 'questions');
    expect(await texts(html, '.question .question-id')).toEqual([answered!.id, pending!.id]);
    expect(await texts(html, '.question .question-text')).toEqual([answered!.question, pending!.question]);
    expect(await texts(html, '.question .question-where')).toEqual([answered!.where, pending!.where]);
    expect(await texts(html, '.question .question-preview')).toEqual([answered!.preview, pending!.preview]);
    expect(await texts(html, '.question .question-answer')).toEqual([answered!.answer]);
    expect(await texts(html, '.question .answer-pending')).toEqual(['pending']);
    expect((await texts(html, '#waiting b'))).toEqual(view.waiting);
  });

  /** Stores the events in a SQLite store (a stream of their own), under idempotency keys named after `name`. */
  async function store(database: Database.Database, events: readonly StoredEvent[], name: string): Promise<void> {
    await new SqliteEventStore({ database }).append(events[0]!.streamId, events.map((e, i) => ({ type: e.type, data: e.data, idempotencyKey: `${name}:${i}`, metadata: e.metadata })), { expectedVersion: 'no_stream' });
  }

  // The runs of the small kinds (a search's or a graph's hundreds of events, twenty times over, take seconds to store).
  for (const kind of ['deliberation', 'got-session', 'fractal', 'chain-of-thought', 'questions'] as const) {
    it(`each payload's run of ${kind === 'got-session' ? 'a GoT session' : kind === 'questions' ? 'a search that asked a person' : `a ${kind} run`}, and one with every payload at once but in its id, stored in SQLite and read back read-only as tot view reads it, makes the page renderRunHtml made of it before it was stored`, async () => {
      const db = join(dir, `${kind}-each.db`);
      const database = new Database(db);
      const withoutId = new Set(fields[kind].together.filter((path) => path !== 'streamId'));
      const stored = [...PAYLOADS.map((payload) => hostileRun(kind, payload)), mutateEvents(runs[kind].events, withoutId, ALL)];
      for (const [i, events] of stored.entries()) await store(database, events, `${kind}-${i}`);
      database.close();
      // Opened as `tot view` opens a store: read-only, the file must exist.
      const readOnly = new Database(db, { readonly: true, fileMustExist: true });
      try {
        const reader = new SqliteEventStore({ database: readOnly });
        for (const [i, events] of stored.entries()) expect(renderRunHtml(await readAll(reader, events[0]!.streamId)), i < PAYLOADS.length ? `payload ${i}` : 'every payload').toBe(renderRunHtml(events));
      } finally {
        readOnly.close();
      }
    });
  }

  describe('tot view', () => {
    /** For each kind: the hostile run stored, and what `tot view` did with it. */
    const viewed = {} as Record<Kind, { events: StoredEvent[]; status: number | null; stderr: string; html: string }>;

    beforeAll(async () => {
      // Building the command from the sources, when dist is older than they are, takes minutes on a busy machine.
      await ensureCli();
      const db = join(dir, 'tot-view.db');
      const database = new Database(db);
      // A payload of its own for each kind, in the run's id too (given to tot view as --run).
      for (const [k, kind] of KINDS.entries()) {
        viewed[kind] = { events: hostileRun(kind, PAYLOADS[k]!), status: null, stderr: '', html: '' };
        await store(database, viewed[kind].events, kind);
      }
      database.close();
      // One `tot view` per kind, all at once: each a process of its own, mostly starting up.
      await Promise.all(
        KINDS.map(async (kind) => {
          const out = join(dir, `tot-view-${kind}.html`);
          const r = await promisify(execFile)(process.execPath, [totCli(), 'view', db, '--run', viewed[kind].events[0]!.streamId, '--out', out], { encoding: 'utf8', timeout: 60_000 }).then(
            ({ stderr }) => ({ status: 0, stderr }),
            (e: { code?: number; stderr?: string }) => ({ status: e.code ?? null, stderr: e.stderr ?? String(e) }),
          );
          Object.assign(viewed[kind], r, r.status === 0 ? { html: readFileSync(out, 'utf8') } : {});
        }),
      );
    }, 600_000);

    for (const [k, kind] of KINDS.entries()) {
      it(`payload ${k} in every field of ${kind === 'got-session' ? 'a recorded GoT session' : kind === 'questions' ? 'a recorded search that asked a person' : `a recorded ${kind} run`}, its id too, through tot view: the page renderRunHtml writes, inert, shown as text`, async () => {
        const { events, status, stderr, html } = viewed[kind];
        expect(stderr).toBe('');
        expect(status).toBe(0);
        expect(html).toBe(renderRunHtml(events));
        const [a] = await auditAll([{ html, payload: PAYLOADS[k]!, what: `tot view, ${kind}` }]);
        expectInert(a!, `tot view, ${kind}`);
        expect(a!.nodes).toBe(viewRun(events).nodes.length);
      });
    }
  });
});
