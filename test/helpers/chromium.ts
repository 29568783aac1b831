// Headless Chromium for the viewer's browser tests: Debian's chromium (or the one TOT_CHROMIUM
// names) driven by playwright-core. No browser is ever downloaded; without one, the browser tests
// skip and say so.
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

/** The browser the tests drive: TOT_CHROMIUM, else Debian's /usr/bin/chromium. Point TOT_CHROMIUM nowhere to see the skip. */
export const CHROMIUM = process.env.TOT_CHROMIUM ?? '/usr/bin/chromium';

/** Whether there is a browser to test in (`describe.skipIf(!hasChromium)`). */
export const hasChromium = existsSync(CHROMIUM);

/**
 * Says, once per test file that calls it, that `what` is skipped for want of a browser, with any
 * `notes` below (what else did not happen); silent when there is one.
 */
export function warnIfNoChromium(what: string, notes: string[] = []): void {
  if (hasChromium) return;
  const bar = '#'.repeat(78);
  console.warn(['', bar, `# SKIPPED: ${what} need Chromium at ${CHROMIUM} (Debian: apt-get install chromium).`, ...notes.map((n) => `# ${n}`), bar, ''].join('\n'));
}

/**
 * Launches the browser headless, with nothing of its own going out: no background networking, no
 * component updates, no first-run work. One per test file (launch it in beforeAll, close it in
 * afterAll): a launch costs more than every page a file opens.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] });
}

/** A page opened in a {@link ViewerTab}, with what it logged and asked for since it was opened. */
export interface OpenedPage {
  page: Page;
  url: string;
  /** Console errors and uncaught exceptions. */
  consoleErrors: string[];
  /** Every request the page made, its own file first. */
  requests: string[];
}

/** One tab that opens page after page: each page a new document, with lists of its own. */
export interface ViewerTab {
  page: Page;
  /** Opens the HTML file and waits until the viewer's script has drawn it. */
  open(file: string): Promise<OpenedPage>;
}

/**
 * A tab of its own context (a viewport, no state shared with other tabs), reused page after page:
 * a new context or tab per test costs more than the page itself (a renderer's start), while a new
 * document already starts from nothing but the mouse's place, which each open puts back in the
 * corner.
 */
export async function viewerTab(browser: Browser, viewport: { width: number; height: number }): Promise<ViewerTab> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  let current: OpenedPage = { page, url: '', consoleErrors: [], requests: [] };
  page.on('console', (m) => void (m.type() === 'error' && current.consoleErrors.push(m.text())));
  page.on('pageerror', (e) => void current.consoleErrors.push(`pageerror: ${e.message}`));
  page.on('request', (r) => void current.requests.push(r.url()));
  return {
    page,
    async open(file) {
      current = { page, url: pathToFileURL(file).href, consoleErrors: [], requests: [] };
      const opened = current;
      await page.mouse.move(0, 0);
      await page.goto(opened.url);
      await page.waitForSelector('body[data-ready=true]', { state: 'attached', timeout: 15_000 });
      return opened;
    },
  };
}
