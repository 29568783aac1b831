import { z } from 'zod';
import type { StoredEvent } from '../events/store/types.js';
import { parseOptions } from '../internal/validate.js';
import type { RunEventBase } from '../run/run-event.js';
import type { RunView } from './view-model.js';
import { viewRun } from './view-run.js';
import { html, jsonScript, sha256Base64, trustedAsset } from './html.js';
import { VIEWER_CSS, VIEWER_SCRIPT } from './viewer-assets.js';
import { LIVE_SCRIPT } from './live-assets.js';

/**
 * Options of {@link renderRunHtml}.
 *
 * @example
 * ```ts
 * import type { RenderRunHtmlOptions } from '@tot/core/viewer';
 *
 * const options: RenderRunHtmlOptions = { title: 'Game of 24: 4 9 10 13' };
 * ```
 */
export interface RenderRunHtmlOptions {
  /** The page's title. Default: the run's kind and problem. */
  title?: string;
}

const optionsSchema = z.strictObject({ title: z.string().max(500).optional() });

/**
 * One self-contained HTML page for a recorded run — a search tree, an operation graph, fractal
 * frames, a chain of thought, a deliberation or an agent session — with inline CSS and script and a
 * Content-Security-Policy that forbids every request: it opens anywhere, offline. It opens with the
 * whole graph in view (again on `f` or the Fit button); the graph pans (drag) and zooms (wheel,
 * `+`/`-`), and a legend says what each border, line and colour means. A click (or Tab and Enter)
 * on a node shows its content and score, and the prompt and output of the model calls that made it
 * and scored it (or why it has none). Each distinct prompt or output is in the page once, however
 * many calls sent or got it. Below: the model calls in labelled lanes (concurrency at a glance; a
 * crash and its resume marked), tokens over time against the budget, and the panels of the run's
 * kind (consensus trend and similarity heatmaps; branch states and the audit bar; the plan after
 * each thought). A run that asked a person shows its questions — each with its id, words, where it
 * was asked, preview, and answer and who gave it, or pending — and, when it waits for answers,
 * says so at the top.
 *
 * @example
 * ```ts
 * import { writeFileSync } from 'node:fs';
 * import { renderRunHtml } from '@tot/core/viewer';
 *
 * const events = [];
 * for await (const e of store.readStream('run_01J…')) events.push(e);
 * writeFileSync('run.html', renderRunHtml(events, { title: 'My run' }));
 * ```
 */
export function renderRunHtml(events: readonly (RunEventBase | StoredEvent)[], options: RenderRunHtmlOptions = {}): string {
  const o = parseOptions(optionsSchema, options, 'renderRunHtml');
  const view: RunView = viewRun(events);
  const title = o.title ?? `${view.kind} run: ${view.problem.slice(0, 120)}`;
  return renderViewHtml(view, title);
}

/**
 * The page for a run's view. Every value is escaped by the `html` template; the run's data goes
 * in only as JSON, which the page's script reads and writes as text. The Content-Security-Policy
 * allows exactly the page's own inline script and style (their SHA-256 hashes, so no injected
 * script, inline handler or style runs) and no request at all.
 */
export function renderViewHtml(view: RunView, title: string, live?: { events: number }): string {
  // A live page (served by serveRunViewer while the run goes) also runs its own small script and
  // may ask its own origin for news of the run; an offline page may ask nothing of anyone.
  const scripts = live ? html`'sha256-${sha256Base64(VIEWER_SCRIPT)}' 'sha256-${sha256Base64(LIVE_SCRIPT)}'` : html`'sha256-${sha256Base64(VIEWER_SCRIPT)}'`;
  const connect = live ? html`; connect-src 'self'` : '';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src ${scripts}; style-src 'sha256-${sha256Base64(VIEWER_CSS)}'${connect}; base-uri 'none'; form-action 'none'">${live ? html`
<meta name="tot-live" content="${live.events}">` : ''}
<title>${title}</title>
<style>${trustedAsset(VIEWER_CSS, 'style')}</style>
</head>
<body>
<header><h1>${title}</h1><div id="summary"></div><div id="legend" role="list" aria-label="Legend"></div></header>
<main>
<section id="graph-pane" aria-label="The run's nodes">
<div id="toolbar"><button id="fit" type="button" title="Show the whole graph (f)">Fit</button><button id="zoom-in" type="button" title="Zoom in (+)" aria-label="Zoom in">+</button><button id="zoom-out" type="button" title="Zoom out (-)" aria-label="Zoom out">−</button><span class="hint">drag to pan · wheel or +/− to zoom · f to fit · Tab and Enter to select</span></div>
<svg id="graph" xmlns="http://www.w3.org/2000/svg" role="group" aria-label="Nodes: Tab to move between them, Enter to show one, drag to pan, wheel or + and - to zoom, f to fit"></svg>
</section>
<aside id="details" aria-live="polite"><h2>Details</h2><p>Select a node to see its content, score, prompt and model output.</p></aside>
</main>
<div id="below">
<section><h2>Model calls</h2><svg id="timeline" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="Model calls over time, in lanes"></svg><p class="caption" id="timeline-caption"></p></section>
<section><h2>Tokens</h2><svg id="tokens" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="Tokens over time"></svg></section>
</div>
<section id="panels"></section>
<script type="application/json" id="run-data">${jsonScript(view)}</script>
<script>${trustedAsset(VIEWER_SCRIPT, 'script')}</script>${live ? html`
<script>${trustedAsset(LIVE_SCRIPT, 'script')}</script>` : ''}
</body>
</html>
`.toString();
}
