// The page's own CSS and script, inlined into every rendered run: the page needs nothing else
// (its Content-Security-Policy forbids any request, and runs no script and applies no style but
// these two, by their hashes). Plain ES2019 for any browser.

const BASE_CSS = `
:root { color-scheme: light; --fg: #1b1f24; --muted: #57606a; --line: #8c959f; --bg: #ffffff; --panel: #f6f8fa; --accent: #0550ae; --best: #bf3989; --ok: #1a7f37; --bad: #cf222e; --stale: #9a6700; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { padding: 12px 16px; border-bottom: 1px solid #d0d7de; }
h1 { font-size: 18px; margin: 0 0 4px; }
h2 { font-size: 15px; margin: 12px 0 6px; }
#summary { display: flex; flex-wrap: wrap; gap: 6px 18px; color: var(--muted); }
#summary b { color: var(--fg); font-weight: 600; }
main { display: grid; grid-template-columns: minmax(0, 1fr) 360px; height: 62vh; min-height: 320px; border-bottom: 1px solid #d0d7de; }
#graph-pane { position: relative; overflow: hidden; background: var(--bg); display: flex; flex-direction: column; }
#toolbar { display: flex; align-items: center; gap: 8px; padding: 4px 8px; border-bottom: 1px solid #eaeef2; color: var(--muted); font-size: 12px; }
#toolbar button { font: inherit; font-size: 13px; padding: 1px 10px; border: 1px solid #d0d7de; border-radius: 4px; background: var(--panel); color: var(--fg); cursor: pointer; }
#toolbar button:focus-visible { outline: 2px solid var(--accent); }
#graph { flex: 1; min-height: 0; width: 100%; cursor: grab; user-select: none; touch-action: none; }
#graph.dragging { cursor: grabbing; }
#details { overflow: auto; padding: 8px 14px; background: var(--panel); border-left: 1px solid #d0d7de; }
#details pre, .panel pre { white-space: pre-wrap; word-break: break-word; background: #fff; border: 1px solid #d0d7de; padding: 6px 8px; border-radius: 4px; max-height: 40vh; overflow: auto; font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; }
.call-detail { border-left: 3px solid #d0d7de; padding-left: 8px; margin: 6px 0 10px; }
.call-head { color: var(--muted); font-size: 12px; margin: 4px 0; }
.call-error { color: var(--bad); }
.no-call { color: var(--muted); }
h3 { font-size: 13px; margin: 8px 0 4px; }
button.goto { font: inherit; color: var(--accent); background: none; border: 0; padding: 0; text-decoration: underline; cursor: pointer; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 10px; margin: 6px 0; }
dt { color: var(--muted); }
dd { margin: 0; }
.edge { fill: none; stroke: var(--line); stroke-width: 1.2; }
.node rect { fill: #fff; stroke: var(--line); stroke-width: 1.2; rx: 6; }
.node text { font-size: 12px; fill: var(--fg); pointer-events: none; }
.node text.score { fill: var(--muted); font-size: 11px; }
.node:focus { outline: none; }
#below { display: grid; grid-template-columns: minmax(0, 2fr) minmax(0, 1fr); gap: 0 24px; padding: 4px 16px 16px; }
#timeline, #tokens { width: 100%; background: var(--panel); border: 1px solid #d0d7de; border-radius: 4px; }
.call { fill: var(--accent); opacity: .8; }
.lane-label, .mark-label { fill: var(--muted); font-size: 10px; }
.caption { color: var(--muted); font-size: 12px; margin: 4px 0 0; }
#legend { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 14px; margin-top: 6px; font-size: 12px; color: var(--muted); }
#legend .legend-group { color: var(--fg); font-weight: 600; }
.legend-block { display: inline-flex; flex-wrap: wrap; align-items: center; gap: 4px 12px; }
.legend-item { display: inline-flex; align-items: center; gap: 5px; }
.legend-item svg { overflow: visible; }
.axis { fill: var(--muted); font-size: 11px; }
.panel { padding: 0 16px 16px; }
table { border-collapse: collapse; font-size: 13px; }
th, td { border: 1px solid #d0d7de; padding: 3px 8px; text-align: left; }
td.cell { text-align: center; min-width: 44px; }
.sr { position: absolute; left: -9999px; }
#waiting { margin: 6px 0 0; padding: 4px 8px; border-left: 3px solid var(--stale); background: #fff8c5; }
.question { border-left: 3px solid #d0d7de; padding-left: 8px; margin: 6px 0 12px; }
.question.pending { border-left-color: var(--stale); }
.question .answer-pending { color: var(--stale); font-weight: 600; }
`;

/**
 * Every visual encoding the page uses to say something about the run, each with the CSS that
 * draws it, the sample the legend draws with the same classes, and when the page shows it. The
 * page's stylesheet is made from this table and the legend is drawn from it, so the two cannot
 * drift: a state drawn differently has an entry here or no style at all.
 */
export interface Encoding {
  /** Its key (the legend entry's `data-encoding`). */
  key: string;
  /** Which part of the page it is in. */
  group: 'Nodes' | 'Model calls' | 'Tokens' | 'Similarity';
  /** What it means, as the legend says it. */
  text: string;
  /** The rules that draw it. */
  css: string;
  /** The legend's sample, drawn with the drawing's own classes: a node box, an edge, a call bar, a line, a band, a heatmap cell. */
  sample: { node?: string; edge?: string; box?: string; call?: string; line?: string; band?: string; cell?: number };
  /**
   * When the page shows it, and the legend lists it: `status:<s>` when a node has that status,
   * `call:<outcome>` when a call ended so, `best`, `nodes`, `overview` (a run large enough to be
   * seen from afar), `crash`, `tokens`, `budget`, `heatmap`.
   */
  shows: string;
}

// In the cascade's order: a node on the best path is drawn as such whatever its state, and the
// selected node as selected.
export const ENCODINGS: readonly Encoding[] = [
  { key: 'active', group: 'Nodes', text: 'grey border: a node', css: '', sample: { node: 'active' }, shows: 'status:active' },
  { key: 'done', group: 'Nodes', text: 'grey border: done (a frame that returned, a decision)', css: '', sample: { node: 'done' }, shows: 'status:done' },
  { key: 'solution', group: 'Nodes', text: 'green border: a solution', css: '.node.solution rect { stroke: var(--ok); stroke-width: 2; }', sample: { node: 'solution' }, shows: 'status:solution' },
  { key: 'pruned', group: 'Nodes', text: 'dashed grey: pruned or left behind (with the edge into it)', css: '.edge.pruned { stroke-dasharray: 5 4; opacity: .6; }\n.node.pruned rect { stroke-dasharray: 5 4; fill: #f6f8fa; }\n.node.pruned text { fill: var(--muted); }', sample: { node: 'pruned', edge: 'pruned' }, shows: 'status:pruned' },
  { key: 'failed', group: 'Nodes', text: 'red border: failed (invalid, rejected)', css: '.node.failed rect { stroke: var(--bad); }', sample: { node: 'failed' }, shows: 'status:failed' },
  { key: 'stale', group: 'Nodes', text: 'amber, dotted: stale (an outdated position)', css: '.node.stale rect { stroke: var(--stale); stroke-dasharray: 2 3; }', sample: { node: 'stale' }, shows: 'status:stale' },
  { key: 'best', group: 'Nodes', text: 'magenta, thick: the best path', css: '.edge.best { stroke: var(--best); stroke-width: 3; }\n.node.best rect { stroke: var(--best); stroke-width: 3; fill: #ffeff7; }', sample: { node: 'active best', edge: 'best' }, shows: 'best' },
  { key: 'skim', group: 'Nodes', text: "grey boxes: the nodes of a large run zoomed far out (click near one to zoom in; the best path's nodes are drawn one by one, and open on a click)", css: '.skim { fill: #eaeef2; stroke: var(--line); stroke-width: 1; vector-effect: non-scaling-stroke; }', sample: { box: 'skim' }, shows: 'overview' },
  { key: 'selected', group: 'Nodes', text: 'blue border: the selected or focused node', css: '.node:focus rect, .node.selected rect { stroke: var(--accent); stroke-width: 3; }', sample: { node: 'active selected' }, shows: 'nodes' },
  { key: 'call-completed', group: 'Model calls', text: 'blue bar: a call that answered', css: '.call.completed { fill: var(--accent); }', sample: { call: 'completed' }, shows: 'call:completed' },
  { key: 'call-failed', group: 'Model calls', text: 'red bar: a call that failed', css: '.call.failed { fill: var(--bad); }', sample: { call: 'failed' }, shows: 'call:failed' },
  { key: 'call-open', group: 'Model calls', text: 'amber bar: a call never answered (cut off)', css: '.call.open { fill: var(--stale); }', sample: { call: 'open' }, shows: 'call:open' },
  { key: 'crash', group: 'Model calls', text: 'red dashed line: the crash; pale band: until the run resumed', css: '.crash-mark { stroke: var(--bad); stroke-width: 1.5; stroke-dasharray: 3 2; }\n.downtime { fill: var(--bad); opacity: .08; }', sample: { band: 'downtime', line: 'crash-mark' }, shows: 'crash' },
  { key: 'resume', group: 'Model calls', text: 'green line: the run resumed from its log', css: '.resume-mark { stroke: var(--ok); stroke-width: 1.5; }', sample: { line: 'resume-mark' }, shows: 'crash' },
  { key: 'tokens', group: 'Tokens', text: 'blue line: tokens charged so far', css: '.tokens-line { fill: none; stroke: var(--accent); stroke-width: 2; }', sample: { line: 'tokens-line' }, shows: 'tokens' },
  { key: 'budget', group: 'Tokens', text: 'red dashed line: the token budget', css: '.budget-line { stroke: var(--bad); stroke-dasharray: 6 4; }', sample: { line: 'budget-line' }, shows: 'budget' },
  { key: 'heatmap', group: 'Similarity', text: 'darker blue: more similar outputs', css: '', sample: { cell: 0.9 }, shows: 'heatmap' },
];

export const VIEWER_CSS = BASE_CSS + ENCODINGS.map((e) => e.css).filter(Boolean).join('\n') + '\n';

export const VIEWER_SCRIPT = `
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('run-data').textContent);
  var NS = 'http://www.w3.org/2000/svg';
  // The page's visual encodings (viewer-assets.ts): its stylesheet was made from the same table.
  var ENCODINGS = ${JSON.stringify(ENCODINGS.map(({ key, group, text, sample, shows }) => ({ key, group, text, sample, shows })))};

  // The one way this page writes the run's data: elements it makes itself, every value a text node
  // or an attribute value, never markup. A value of the run is only ever text, whatever it holds.
  // No attribute that loads or runs anything is set at all; styles go through the CSSOM.
  var FORBIDDEN = /^(on|src|href$|xlink:href$|action$|formaction$|style$)/i;
  function build(node, attrs, children) {
    if (attrs) Object.keys(attrs).forEach(function (k) {
      var v = attrs[k];
      if (v === undefined || v === null || v === false) return;
      if (k === 'css') { Object.keys(v).forEach(function (prop) { node.style.setProperty(prop, String(v[prop])); }); return; }
      if (FORBIDDEN.test(k)) throw new Error('the viewer sets no ' + k + ' attribute');
      node.setAttribute(k, String(v));
    });
    add(node, children);
    return node;
  }
  function add(node, children) {
    if (children === undefined || children === null || children === false) return;
    if (Array.isArray(children)) { children.forEach(function (c) { add(node, c); }); return; }
    node.appendChild(children instanceof Node ? children : document.createTextNode(String(children)));
  }
  function elem(tag, attrs, children) { return build(document.createElement(tag), attrs, children); }
  function svgElem(tag, attrs, children) { return build(document.createElementNS(NS, tag), attrs, children); }
  function fill(node, children) { node.textContent = ''; add(node, children); }
  // Values the layout computes with: a number, or 0 for anything else the data holds.
  function num(x) { return typeof x === 'number' && isFinite(x) ? x : 0; }
  function list(x) { return Array.isArray(x) ? x : []; }
  function oneOf(x, allowed) { return allowed.indexOf(x) >= 0 ? x : ''; }
  // The node statuses and call outcomes the page draws: those the encodings name.
  var STATUSES = ENCODINGS.filter(function (e) { return e.shows.indexOf('status:') === 0; }).map(function (e) { return e.shows.slice(7); });
  var OUTCOMES = ENCODINGS.filter(function (e) { return e.shows.indexOf('call:') === 0; }).map(function (e) { return e.shows.slice(5); });
  // One formatter for the whole page: toLocaleString builds one per call, a quarter of the drawing time at 10,000 nodes.
  var numbers = new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 });
  function fmt(x) { return typeof x === 'number' ? numbers.format(x) : String(x); }

  var nodesOfRun = list(data.nodes);
  var bestPath = list(data.bestPath);

  // Summary.
  var items = [elem('span', null, [data.kind + ' run ', elem('b', null, data.runId)])];
  Object.keys(data.summary || {}).forEach(function (k) { items.push(elem('span', null, [k + ': ', elem('b', null, fmt(data.summary[k]))])); });
  items.push(elem('span', null, ['nodes: ', elem('b', null, nodesOfRun.length)]));
  fill(document.getElementById('summary'), items);

  // Layout: a node's depth is one more than its deepest parent; within a depth, nodes sit in the
  // order of their parents' places (one barycentric pass), so children stay under their parents.
  // Maps keyed by a node's id have no prototype: an id is the run's text, "__proto__" included.
  var W = 170, H = 46, GX = 24, GY = 54;
  var byId = Object.create(null), depth = Object.create(null), rows = [];
  nodesOfRun.forEach(function (n) {
    byId[n.id] = n;
    var d = 0;
    list(n.parents).forEach(function (p) { if (depth[p] !== undefined && depth[p] + 1 > d) d = depth[p] + 1; });
    depth[n.id] = d;
    (rows[d] = rows[d] || []).push(n);
  });
  var place = Object.create(null);
  rows.forEach(function (row, d) {
    if (d > 0) {
      row.forEach(function (n, i) {
        var known = list(n.parents).filter(function (p) { return place[p] !== undefined; });
        n._k = known.length ? known.reduce(function (s, p) { return s + place[p]; }, 0) / known.length : i;
      });
      row.sort(function (a, b) { return a._k - b._k; });
    }
    row.forEach(function (n, i) { place[n.id] = i; });
  });
  var widest = rows.reduce(function (m, r) { return Math.max(m, r.length); }, 1);
  var pos = Object.create(null);
  rows.forEach(function (row, d) {
    var offset = (widest - row.length) * (W + GX) / 2;
    row.forEach(function (n, i) { pos[n.id] = { x: offset + i * (W + GX), y: d * (H + GY) }; });
  });
  var best = Object.create(null);
  bestPath.forEach(function (id) { best[id] = true; });

  var svg = document.getElementById('graph');
  // A large run draws only what is near the view, again after each pan or zoom: laying out and
  // painting 10,000 nodes at once took seconds, and every click relaid them all. A smaller run is
  // drawn whole, so every node can be reached with Tab.
  var CULL = nodesOfRun.length > 1500;
  var selectedId = null;
  // The drawn node elements by id: found without a selector built from an id.
  var drawn = Object.create(null);
  function edgeOf(n, p) {
    var from = pos[p], to = pos[n.id];
    var x1 = from.x + W / 2, y1 = from.y + H, x2 = to.x + W / 2, y2 = to.y, my = (y1 + y2) / 2;
    var cls = 'edge' + (n.status === 'pruned' ? ' pruned' : '') + (best[n.id] && best[p] ? ' best' : '');
    return svgElem('path', { class: cls, d: 'M' + x1 + ' ' + y1 + 'C' + x1 + ' ' + my + ' ' + x2 + ' ' + my + ' ' + x2 + ' ' + y2 });
  }
  function nodeOf(n, far) {
    var p = pos[n.id];
    var label = String(n.label);
    var cls = 'node ' + oneOf(n.status, STATUSES) + (best[n.id] ? ' best' : '') + (n.id === selectedId ? ' selected' : '');
    var name = label + (n.score !== undefined ? ', score ' + fmt(n.score) : '') + ', ' + n.status + (best[n.id] ? ', on the best path' : '');
    // In the overview, a label would be a pixel high: the box is drawn without it.
    var g = svgElem('g', { class: cls, 'data-id': n.id, tabindex: '0', role: 'button', 'aria-label': name, transform: 'translate(' + p.x + ',' + p.y + ')' }, [
      svgElem('rect', { width: W, height: H }),
      far ? null : svgElem('text', { x: 8, y: 18 }, label.length > 26 ? label.slice(0, 25) + '…' : label),
      far ? null : svgElem('text', { class: 'score', x: 8, y: 36 }, (n.kind ? n.kind + ' ' : '') + (n.score !== undefined ? '· ' + fmt(n.score) : '')),
    ]);
    drawn[n.id] = g;
    return g;
  }
  function near(p, margin) { return p.x + W >= view.x - margin && p.x <= view.x + view.w + margin && p.y + H >= view.y - margin && p.y <= view.y + view.h + margin; }
  // Zoomed far out (fitted, say), a large run is drawn as an overview: every node a bare box and
  // every edge a line, all in two paths, and only the best path's nodes as nodes of their own.
  // Ten thousand nodes drawn one by one took Chromium seconds, at a size where no label is legible.
  // From afar: the nodes drawn at under a quarter of their natural size, where no label can be read.
  function far() { return svg.clientWidth / view.w < 0.25; }
  function skim() {
    var boxes = [], lines = [], edges = [], nodes = [];
    drawn = Object.create(null);
    nodesOfRun.forEach(function (n) {
      var p = pos[n.id];
      if (!best[n.id]) boxes.push('M' + p.x + ' ' + p.y + 'h' + W + 'v' + H + 'h' + -W + 'z');
      list(n.parents).forEach(function (q) {
        if (!pos[q]) return;
        if (best[n.id] && best[q]) edges.push(edgeOf(n, q));
        else lines.push('M' + (pos[q].x + W / 2) + ' ' + (pos[q].y + H) + 'L' + (p.x + W / 2) + ' ' + p.y);
      });
    });
    bestPath.forEach(function (id) { if (byId[id] && pos[id]) nodes.push(nodeOf(byId[id], true)); });
    fill(svg, [svgElem('path', { class: 'edge', d: lines.join('') }), svgElem('path', { class: 'skim', d: boxes.join('') }), edges, nodes]);
    selected = selectedId === null ? null : drawn[selectedId] || null;
  }
  function draw() {
    var margin = view.w / 2;
    if (CULL && far()) { skim(); return; }
    var edges = [], nodes = [];
    drawn = Object.create(null);
    nodesOfRun.forEach(function (n) {
      var shown = !CULL || near(pos[n.id], margin);
      list(n.parents).forEach(function (p) { if (pos[p] && (shown || (CULL && near(pos[p], margin)))) edges.push(edgeOf(n, p)); });
      if (shown) nodes.push(nodeOf(n, false));
    });
    fill(svg, [edges, nodes]);
    selected = selectedId === null ? null : drawn[selectedId] || null;
  }
  var pending = false;
  function redraw() { if (!CULL || pending) return; pending = true; requestAnimationFrame(function () { pending = false; draw(); }); }

  // Pan and zoom through the viewBox, kept at the pane's own proportions (so a unit is as wide as it is tall).
  // The drawing spans [0, totalW] × [0, totalH]: the widest row, the deepest level.
  var totalW = Math.max(widest * (W + GX) - GX, W), totalH = Math.max(rows.length * (H + GY) - GY, H);
  var PAD = 16;
  var view = { x: -PAD, y: -PAD, w: totalW + 2 * PAD, h: totalH + 2 * PAD };
  // Whether the view is the fitted one (on load, f, Fit, a resize) rather than one the person set:
  // a live page loading again with more nodes fits them all in the first case, and keeps the view
  // in the second.
  var fitted = true;
  // The whole drawing in view, centred, never enlarged past 1:1: on load, on f, on the Fit button, on a resize.
  function fit() {
    var r = svg.getBoundingClientRect();
    var pw = Math.max(r.width, 1), ph = Math.max(r.height, 1);
    var scale = Math.min(1, pw / (totalW + 2 * PAD), ph / (totalH + 2 * PAD));
    view.w = pw / scale; view.h = ph / scale;
    view.x = totalW / 2 - view.w / 2; view.y = totalH / 2 - view.h / 2;
    apply();
    fitted = true;
  }
  function apply() { fitted = false; svg.setAttribute('viewBox', view.x + ' ' + view.y + ' ' + view.w + ' ' + view.h); redraw(); }
  function zoom(factor, cx, cy) {
    var nw = Math.min(Math.max(view.w * factor, 100), Math.max(totalW + 2 * PAD, (totalH + 2 * PAD) * view.w / Math.max(view.h, 1)) * 4 + 400);
    var f = nw / view.w;
    view.x = cx - (cx - view.x) * f; view.y = cy - (cy - view.y) * f; view.w = nw; view.h = view.h * f; apply();
  }
  function toSvg(ev) { var r = svg.getBoundingClientRect(); return { x: view.x + (ev.clientX - r.left) / r.width * view.w, y: view.y + (ev.clientY - r.top) / r.height * view.h }; }
  svg.addEventListener('wheel', function (ev) { ev.preventDefault(); var p = toSvg(ev); zoom(ev.deltaY > 0 ? 1.15 : 1 / 1.15, p.x, p.y); }, { passive: false });
  var drag = null;
  var moved = false;
  svg.addEventListener('pointerdown', function (ev) { moved = false; if (ev.target.closest && ev.target.closest('.node')) return; drag = { x: ev.clientX, y: ev.clientY, vx: view.x, vy: view.y }; svg.classList.add('dragging'); svg.setPointerCapture(ev.pointerId); });
  svg.addEventListener('pointermove', function (ev) { if (!drag) return; if (Math.abs(ev.clientX - drag.x) + Math.abs(ev.clientY - drag.y) > 3) moved = true; var r = svg.getBoundingClientRect(); view.x = drag.vx - (ev.clientX - drag.x) / r.width * view.w; view.y = drag.vy - (ev.clientY - drag.y) / r.height * view.h; apply(); });
  function endDrag() { drag = null; svg.classList.remove('dragging'); }
  svg.addEventListener('pointerup', endDrag);
  svg.addEventListener('pointercancel', endDrag);

  // Details of the selected node.
  var details = document.getElementById('details');
  var selected = null;
  function show(id) {
    var n = byId[id];
    if (!n) return;
    selectedId = id;
    if (selected) selected.classList.remove('selected');
    selected = drawn[id] || null;
    if (selected) selected.classList.add('selected');
    var facts = [elem('dt', null, 'id'), elem('dd', null, n.id), elem('dt', null, 'status'), elem('dd', null, n.status + (best[n.id] ? ' (best path)' : ''))];
    if (n.kind) facts.push(elem('dt', null, 'kind'), elem('dd', null, n.kind));
    if (n.score !== undefined) facts.push(elem('dt', null, 'score'), elem('dd', { id: 'details-score' }, fmt(n.score)));
    var more = n.details && typeof n.details === 'object' ? n.details : {};
    Object.keys(more).forEach(function (k) { facts.push(elem('dt', null, k), elem('dd', null, more[k])); });
    var parts = [elem('h2', { id: 'details-title' }, n.label), elem('dl', null, facts), elem('h2', null, 'Content'), elem('pre', { id: 'details-content' }, n.content)];
    parts.push(elem('div', { id: 'details-calls' }, callsOfNode(n)));
    if (n.prompt) parts.push(elem('h2', null, 'Prompt'), elem('pre', { class: 'prompt' }, n.prompt));
    if (n.output) parts.push(elem('h2', null, 'Model output'), elem('pre', { class: 'output' }, n.output));
    fill(details, parts);
  }
  // A node's model calls: those that made it (or, for a node that carries another's content, that
  // node's), those that scored it, or why it has none. Calls hold indices into data.texts.
  var texts = list(data.texts), calls = list(data.calls);
  function text(i) { return typeof i === 'number' && texts[i] !== undefined ? texts[i] : ''; }
  function callOf(ci, pick) {
    var c = typeof ci === 'number' ? calls[ci] : undefined;
    if (!c || typeof c !== 'object') return null;
    var msgs = list(c.messages), outs = list(c.outputs);
    var head = 'call ' + c.id + (c.tag ? ' · ' + c.tag : '') + ' · ' + Math.round(num(c.end) - num(c.start)) + ' ms · ' + c.inputTokens + ' in / ' + c.outputTokens + ' out tokens' + (c.outcome === 'completed' ? '' : ' · ' + c.outcome);
    var prompt = msgs.map(function (m) { return msgs.length > 1 ? '[' + m.role + ']\\n' + text(m.text) : text(m.text); }).join('\\n\\n');
    var one = typeof pick === 'number' && outs[pick] !== undefined;
    var output = one ? text(outs[pick]) : outs.length === 1 ? text(outs[0]) : outs.map(function (o, k) { return '[output ' + (k + 1) + ' of ' + outs.length + ']\\n' + text(o); }).join('\\n\\n');
    var parts = [elem('p', { class: 'call-head' }, head), elem('h3', null, 'Prompt'), elem('pre', { class: 'prompt' }, prompt)];
    if (outs.length) parts.push(elem('h3', null, 'Model output' + (one ? ' (output ' + (pick + 1) + ' of ' + outs.length + ')' : '')), elem('pre', { class: 'output' }, output));
    if (c.error) parts.push(elem('p', { class: 'call-error' }, c.error));
    return elem('div', { class: 'call-detail', 'data-call': c.id }, parts);
  }
  function callList(ids, pick) { return ids.map(function (ci) { return callOf(ci, ids.length === 1 ? pick : undefined); }); }
  function madeCount(k) { return k === 1 ? 'a model call' : k + ' model calls'; }
  function callsOfNode(n) {
    var out = [];
    var made = list(n.madeBy), judged = list(n.judgedBy);
    if (made.length) out.push(elem('h2', null, 'Made by ' + madeCount(made.length)), callList(made, n.pick));
    else if (n.from !== undefined && byId[n.from]) {
      var o = byId[n.from], theirs = list(o.madeBy);
      out.push(elem('h2', null, 'Made by'), elem('p', { class: 'no-call' }, ['No model call of its own: it carries the content of ', elem('button', { type: 'button', class: 'goto', 'data-goto': o.id }, o.id), ' over unchanged' + (theirs.length ? ', which ' + (theirs.length === 1 ? 'this call' : 'these calls') + ' made:' : '.')]));
      out.push(theirs.length ? callList(theirs, o.pick) : elem('p', { class: 'no-call' }, o.noCall || 'No model call is linked to it.'));
    } else out.push(elem('h2', null, 'Made by'), elem('p', { class: 'no-call' }, n.noCall || 'No model call is linked to this node.'));
    if (judged.length) out.push(elem('h2', null, 'Scored by ' + madeCount(judged.length)), callList(judged));
    return out;
  }
  details.addEventListener('click', function (ev) {
    var b = ev.target.closest && ev.target.closest('button.goto');
    if (!b) return;
    var id = b.getAttribute('data-goto');
    show(id);
    if (drawn[id]) drawn[id].focus();
  });
  svg.addEventListener('click', function (ev) {
    var g = ev.target.closest && ev.target.closest('.node');
    if (g) { g.focus(); show(g.getAttribute('data-id')); return; }
    // Off the nodes of a graph seen from afar (the overview, or a few hundred nodes fitted: a pixel
    // or two high each, too small to aim at), a click zooms in to natural size, keeping the node
    // nearest the click where it is: around the click itself, a click in the empty band beside a
    // wide run's drawing, or in a corner of it, zoomed into empty space.
    if (far() && !moved) {
      var p = toSvg(ev), aim = null, closest = Infinity;
      nodesOfRun.forEach(function (n) {
        var q = pos[n.id];
        if (!q) return;
        var dx = q.x + W / 2 - p.x, dy = q.y + H / 2 - p.y;
        if (dx * dx + dy * dy < closest) { closest = dx * dx + dy * dy; aim = q; }
      });
      if (aim) zoom(svg.clientWidth / view.w, aim.x + W / 2, aim.y + H / 2);
    }
  });
  svg.addEventListener('keydown', function (ev) {
    var g = ev.target.closest && ev.target.closest('.node');
    if (g && (ev.key === 'Enter' || ev.key === ' ')) { ev.preventDefault(); show(g.getAttribute('data-id')); return; }
    var step = view.w / 10;
    if (ev.key === '+' || ev.key === '=') zoom(1 / 1.2, view.x + view.w / 2, view.y + view.h / 2);
    else if (ev.key === '-') zoom(1.2, view.x + view.w / 2, view.y + view.h / 2);
    else if (ev.key === 'ArrowLeft') { view.x -= step; apply(); }
    else if (ev.key === 'ArrowRight') { view.x += step; apply(); }
    else if (ev.key === 'ArrowUp') { view.y -= step; apply(); }
    else if (ev.key === 'ArrowDown') { view.y += step; apply(); }
  });
  svg.addEventListener('focusin', function (ev) {
    var g = ev.target.closest && ev.target.closest('.node');
    if (!g || restoring) return;
    var p = pos[g.getAttribute('data-id')];
    if (p && (p.x < view.x || p.x + W > view.x + view.w || p.y < view.y || p.y + H > view.y + view.h)) { view.x = p.x + W / 2 - view.w / 2; view.y = p.y + H / 2 - view.h / 2; apply(); }
  });
  document.getElementById('fit').addEventListener('click', fit);
  document.getElementById('zoom-in').addEventListener('click', function () { zoom(1 / 1.2, view.x + view.w / 2, view.y + view.h / 2); });
  document.getElementById('zoom-out').addEventListener('click', function () { zoom(1.2, view.x + view.w / 2, view.y + view.h / 2); });
  document.addEventListener('keydown', function (ev) {
    if ((ev.key === 'f' || ev.key === 'F') && !ev.ctrlKey && !ev.metaKey && !ev.altKey) { ev.preventDefault(); fit(); }
  });
  // A live page (served while the run goes) loads again with each batch of new events. What the
  // person made of the page (pan and zoom, the selected or focused node, the open panels, the
  // scroll) goes to the next page through the tab's sessionStorage, taken once by the page that
  // loads; an offline page writes none, so it opens fitted as ever. The values are checked as any
  // data: numbers, and a node id looked up among the run's nodes.
  var LIVE = document.querySelector('meta[name="tot-live"]') !== null;
  var KEPT_KEY = 'tot-viewer:' + location.pathname;
  var kept = null, restoring = false;
  try {
    var raw = window.sessionStorage.getItem(KEPT_KEY);
    if (raw !== null) { window.sessionStorage.removeItem(KEPT_KEY); kept = JSON.parse(raw); }
  } catch (e) { kept = null; }
  if (!kept || typeof kept !== 'object') kept = null;
  function finite(x) { return typeof x === 'number' && isFinite(x); }
  function keptId(id) { return typeof id === 'string' && byId[id] !== undefined ? id : null; }
  if (LIVE) window.addEventListener('pagehide', function () {
    var active = document.activeElement;
    var node = active && active.closest && svg.contains(active) ? active.closest('.node') : null;
    var state = {
      view: fitted ? null : { x: view.x, y: view.y, w: view.w, h: view.h },
      selected: selectedId,
      focused: node ? node.getAttribute('data-id') : null,
      open: Array.prototype.map.call(document.querySelectorAll('#panels details'), function (d) { return d.open; }),
      detailsTop: details.scrollTop,
      scrollX: window.scrollX,
      scrollY: window.scrollY,
    };
    try { window.sessionStorage.setItem(KEPT_KEY, JSON.stringify(state)); } catch (e) { /* storage refused: the next page opens fitted */ }
  });
  // The pane is measured before it is filled: measuring after would lay out every node first.
  var keptView = kept && kept.view;
  if (keptView && finite(keptView.x) && finite(keptView.y) && finite(keptView.w) && finite(keptView.h) && keptView.w > 0 && keptView.h > 0) {
    var pane = svg.getBoundingClientRect();
    view.x = keptView.x; view.y = keptView.y; view.w = keptView.w;
    // The same proportions as the pane, should it have changed size meanwhile.
    var aspect = Math.max(pane.height, 1) / Math.max(pane.width, 1);
    view.h = Math.abs(keptView.h / keptView.w - aspect) < 0.01 * aspect ? keptView.h : keptView.w * aspect;
    apply();
  } else fit();
  if (kept) selectedId = keptId(kept.selected);
  draw();
  if (selectedId !== null) show(selectedId);
  if (kept && keptId(kept.focused) !== null && drawn[kept.focused]) {
    restoring = true;
    drawn[kept.focused].focus({ preventScroll: true });
    restoring = false;
  }
  window.addEventListener('resize', fit);

  // The similarity heatmap's colour: white for 0, darker blue as outputs are more alike.
  function heat(v) { var c = Math.min(255, Math.max(0, Math.round(255 - num(v) * 160))); return 'rgb(' + c + ',' + c + ',255)'; }

  // The legend: each encoding this page shows, its sample drawn with the drawing's own classes.
  function legend() {
    var on = Object.create(null);
    if (nodesOfRun.length) on.nodes = true;
    if (CULL) on.overview = true;
    nodesOfRun.forEach(function (n) { on['status:' + oneOf(n.status, STATUSES)] = true; });
    if (bestPath.some(function (id) { return byId[id] !== undefined; })) on.best = true;
    calls.forEach(function (c) { on['call:' + oneOf(c.outcome, OUTCOMES)] = true; });
    if (interruptions.length && calls.length) on.crash = true;
    if (list(data.tokens).length) on.tokens = true;
    if (list(data.tokens).length && data.tokenBudget) on.budget = true;
    list(data.panels).forEach(function (p) { if (p && p.kind === 'consensus' && list(p.heatmaps).length) on.heatmap = true; });
    function sample(s) {
      var parts = [];
      if (s.band) parts.push(svgElem('rect', { class: s.band, x: 0, y: 0, width: 30, height: 16 }));
      if (s.edge) parts.push(svgElem('path', { class: 'edge ' + s.edge, d: 'M0 8H12' }));
      if (s.node) parts.push(svgElem('g', { class: 'node ' + s.node }, svgElem('rect', { x: s.edge ? 12 : 2, y: 1, width: s.edge ? 18 : 26, height: 14 })));
      if (s.box) parts.push(svgElem('rect', { class: s.box, x: 2, y: 1, width: 26, height: 14 }));
      if (s.call) parts.push(svgElem('rect', { class: 'call ' + s.call, x: 0, y: 4, width: 30, height: 8 }));
      if (s.line) parts.push(s.band ? svgElem('line', { class: s.line, x1: 4, x2: 4, y1: 0, y2: 16 }) : svgElem('line', { class: s.line, x1: 0, x2: 30, y1: 8, y2: 8 }));
      if (s.cell !== undefined) parts.push(svgElem('rect', { x: 0, y: 1, width: 15, height: 14, css: { fill: heat(0.2) } }), svgElem('rect', { x: 15, y: 1, width: 15, height: 14, css: { fill: heat(s.cell) } }));
      return svgElem('svg', { width: 30, height: 16, viewBox: '0 0 30 16', 'aria-hidden': 'true' }, parts);
    }
    // One block per part of the page (nodes, calls, tokens…), so that a part's entries wrap together.
    var groups = [], current = null;
    ENCODINGS.forEach(function (e) {
      if (!on[e.shows]) return;
      if (!current || current.name !== e.group) { current = { name: e.group, items: [elem('span', { class: 'legend-group' }, e.group)] }; groups.push(current); }
      current.items.push(elem('span', { class: 'legend-item', role: 'listitem', 'data-encoding': e.key }, [sample(e.sample), e.text]));
    });
    fill(document.getElementById('legend'), groups.map(function (g) { return elem('span', { class: 'legend-block' }, g.items); }));
  }

  // The model calls, in lanes: concurrency is the number of lanes in use at a moment. Drawn at the
  // element's own width, so that labels are not stretched.
  var interruptions = list(data.interruptions);
  function timeline() {
    var t = document.getElementById('timeline');
    var caption = document.getElementById('timeline-caption');
    if (!calls.length) { t.replaceWith(elem('p', null, 'No model calls were recorded.')); caption.remove(); return; }
    var lanes = calls.reduce(function (m, c) { return Math.max(m, num(c.lane) + 1); }, 1);
    var end = Math.max(num(data.duration), calls.reduce(function (m, c) { return Math.max(m, num(c.end)); }, 0), 1);
    var width = Math.max(320, Math.round(t.getBoundingClientRect().width) || 1000);
    var left = 56, right = 8, top = interruptions.length ? 14 : 4;
    var laneH = Math.max(3, Math.min(16, 200 / lanes)), height = top + lanes * laneH + 20;
    // A label for every lane when there is room, else for every few lanes.
    var every = Math.ceil(11 / laneH);
    function x(ms) { return left + Math.min(Math.max(num(ms), 0), end) / end * (width - left - right); }
    t.setAttribute('viewBox', '0 0 ' + width + ' ' + height);
    t.setAttribute('height', String(height));
    var out = [];
    for (var l = 0; l < lanes; l++) if (l % every === 0) out.push(svgElem('text', { class: 'lane-label', x: left - 6, y: (top + l * laneH + laneH / 2 + 3.5).toFixed(1), 'text-anchor': 'end' }, 'lane ' + (l + 1)));
    interruptions.forEach(function (i) {
      var x1 = x(i.crashedAt), x2 = Math.max(x(i.resumedAt), x1);
      out.push(
        svgElem('rect', { class: 'downtime', x: x1.toFixed(1), y: top, width: (x2 - x1).toFixed(1), height: lanes * laneH }),
        svgElem('line', { class: 'crash-mark', x1: x1.toFixed(1), x2: x1.toFixed(1), y1: top - 2, y2: top + lanes * laneH }),
        svgElem('line', { class: 'resume-mark', x1: x2.toFixed(1), x2: x2.toFixed(1), y1: top - 2, y2: top + lanes * laneH }),
        svgElem('text', { class: 'mark-label', x: (x1 - 2).toFixed(1), y: 10, 'text-anchor': 'end' }, 'crash'),
        svgElem('text', { class: 'mark-label', x: (x2 + 2).toFixed(1), y: 10 }, 'resumed')
      );
    });
    calls.forEach(function (c) {
      var x1 = x(c.start), x2 = x(c.end);
      out.push(svgElem('rect', { class: 'call ' + oneOf(c.outcome, OUTCOMES), 'data-lane': num(c.lane), x: x1.toFixed(1), y: (top + num(c.lane) * laneH + 1).toFixed(1), width: Math.max(1, x2 - x1).toFixed(1), height: Math.max(1, laneH - 2).toFixed(1) },
        svgElem('title', null, 'lane ' + (num(c.lane) + 1) + ': ' + (c.tag ? c.tag + ' ' : '') + c.id + ', ' + Math.round(num(c.end) - num(c.start)) + ' ms, ' + (num(c.inputTokens) + num(c.outputTokens)) + ' tokens, ' + c.outcome)));
    });
    out.push(svgElem('text', { class: 'axis', x: left, y: height - 6 }, '0 ms'), svgElem('text', { class: 'axis', x: width - right, y: height - 6, 'text-anchor': 'end' }, Math.round(end) + ' ms'));
    fill(t, out);
    fill(caption, 'Each lane holds one call at a time: a call takes the first free lane when it starts, so the lanes in use at a moment are the calls in flight then (' + lanes + (lanes === 1 ? ' lane: one call at a time' : ' lanes: at most ' + lanes + ' calls at once') + ').' +
      (interruptions.length ? ' The run crashed and was resumed from its log' + (interruptions.length > 1 ? ' ' + interruptions.length + ' times' : '') + ': a call the crash cut off ends at the crash.' : ''));
  }
  function tokens() {
    var t = document.getElementById('tokens');
    var pts = list(data.tokens);
    if (!pts.length) { t.replaceWith(elem('p', null, 'No tokens were recorded.')); return; }
    var width = 400, height = 160;
    var last = pts[pts.length - 1];
    // The same span as the timeline above it.
    var endT = Math.max(num(data.duration), num(last.at), 1);
    var top = Math.max(num(last.total), num(data.tokenBudget), 1);
    t.setAttribute('viewBox', '0 0 ' + width + ' ' + height);
    t.setAttribute('height', '160');
    var line = pts.map(function (p) { return (num(p.at) / endT * (width - 10) + 5).toFixed(1) + ',' + (height - 18 - num(p.total) / top * (height - 30)).toFixed(1); }).join(' ');
    var out = [svgElem('polyline', { class: 'tokens-line', points: '5,' + (height - 18) + ' ' + line })];
    if (data.tokenBudget) {
      var y = height - 18 - num(data.tokenBudget) / top * (height - 30);
      out.push(svgElem('line', { class: 'budget-line', x1: 5, x2: width - 5, y1: y, y2: y }), svgElem('text', { class: 'axis', x: width - 6, y: y - 3, 'text-anchor': 'end' }, 'budget ' + data.tokenBudget));
    }
    out.push(svgElem('text', { class: 'axis', x: 5, y: height - 4 }, last.total + ' tokens in ' + Math.round(endT) + ' ms'));
    fill(t, out);
  }
  timeline();
  tokens();
  legend();

  // Panels of the run's kind.
  function consensus(p) {
    var parts = [elem('h2', null, 'Consensus')];
    var trend = list(p.trend);
    if (trend.length) {
      var w = 300, h = 80;
      var pts = trend.map(function (v, i) { return (10 + i * (w - 20) / Math.max(1, trend.length - 1)).toFixed(1) + ',' + (h - 10 - num(v) * (h - 20)).toFixed(1); }).join(' ');
      parts.push(svgElem('svg', { id: 'consensus-trend', width: w, height: h, role: 'img', 'aria-label': 'consensus by round: ' + trend.map(fmt).join(', ') }, svgElem('polyline', { class: 'tokens-line', points: pts })), elem('p', null, 'By round: ' + trend.map(fmt).join(' → ')));
    } else parts.push(elem('p', null, 'No consensus was measured.'));
    list(p.heatmaps).forEach(function (m) {
      var labels = list(m.labels);
      var table = [elem('tr', null, [elem('th')].concat(labels.map(function (l) { return elem('th', null, l); })))];
      list(m.matrix).forEach(function (row, i) {
        table.push(elem('tr', null, [elem('th', null, labels[i])].concat(list(row).map(function (v) {
          return elem('td', { class: 'cell', css: { background: heat(v) } }, fmt(v));
        }))));
      });
      parts.push(elem('h2', null, 'Similarity, round ' + m.round), elem('table', { class: 'heatmap' }, table));
    });
    return parts;
  }
  function branches(p) {
    var head = elem('tr', null, ['branch', 'name', 'state', 'reward'].map(function (k) { return elem('th', null, k); }));
    var body = list(p.branches).map(function (b) { return elem('tr', null, [elem('td', null, b.id), elem('td', null, b.name), elem('td', null, b.state), elem('td', null, b.reward === undefined ? '' : fmt(b.reward))]); });
    return [elem('h2', null, 'Branches'), elem('table', { id: 'branches' }, [head].concat(body)), elem('h2', null, 'Audit bar'), elem('pre', { id: 'audit-bar' }, p.auditBar)];
  }
  function plan(p) {
    var versions = list(p.versions);
    return [elem('h2', null, 'The plan, thought by thought')].concat(versions.map(function (v, i) {
      var steps = list(v.steps);
      return elem('details', { open: i === versions.length - 1 ? '' : null }, [
        elem('summary', null, 'after thought ' + v.thought + ' (' + steps.length + ' steps)'),
        elem('ul', null, steps.map(function (s) { return elem('li', { css: { 'margin-left': num(s.depth) * 16 + 'px' } }, '[' + s.status + '] ' + s.description); })),
      ]);
    }));
  }
  // The questions the run asked a person: each with its words, id, where it was asked, its
  // preview and its answer (and who gave it), or pending.
  var BY = { handler: "the run's onAsk handler", resume: 'the answers given to a resume' };
  function questions(p) {
    var qs = list(p.questions);
    var pending = qs.filter(function (q) { return q.answer === undefined; }).length;
    var parts = [elem('h2', null, 'Questions'), elem('p', { class: 'caption' }, qs.length + (qs.length === 1 ? ' question' : ' questions') + ' asked, ' + pending + ' pending' +
      (p.waiting === true ? ': the run is waiting for ' + (pending === 1 ? 'its answer' : 'their answers') + '. Resume it with the answers, by question id, to go on.' : '.'))];
    qs.forEach(function (q) {
      var open = q.answer === undefined;
      var facts = [elem('dt', null, 'id'), elem('dd', { class: 'question-id' }, q.id), elem('dt', null, 'key'), elem('dd', null, q.key)];
      if (q.where !== undefined) facts.push(elem('dt', null, 'asked at'), elem('dd', { class: 'question-where' }, q.where));
      facts.push(elem('dt', null, 'answer'), open ? elem('dd', { class: 'answer-pending' }, 'pending') : elem('dd', null, elem('pre', { class: 'question-answer' }, q.answer)));
      if (!open) facts.push(elem('dt', null, 'answered by'), elem('dd', { class: 'question-by' }, Object.prototype.hasOwnProperty.call(BY, q.by) ? BY[q.by] : q.by));
      var body = [elem('h3', { class: 'question-text' }, q.question), elem('dl', null, facts)];
      if (q.preview !== undefined) body.push(elem('h3', null, 'Preview'), elem('pre', { class: 'question-preview' }, q.preview));
      if (q.schema !== undefined) body.push(elem('details', null, [elem('summary', null, 'The answer must fit this JSON Schema'), elem('pre', { class: 'question-schema' }, q.schema)]));
      parts.push(elem('div', { class: 'question' + (open ? ' pending' : ''), 'data-question': q.id }, body));
    });
    return parts;
  }
  // A run waiting for a person says so at the top: it has neither finished nor crashed.
  var waitingFor = list(data.waiting);
  if (waitingFor.length) {
    document.querySelector('header').appendChild(elem('p', { id: 'waiting', role: 'status' }, ['Waiting for a person: the run asked ' + (waitingFor.length === 1 ? 'a question' : waitingFor.length + ' questions') + ' and waits for ' + (waitingFor.length === 1 ? 'the answer' : 'the answers') + ' (see Questions below): ',
      waitingFor.map(function (id, i) { return [i ? ', ' : '', elem('b', null, id)]; })]));
  }
  var PANELS = { questions: questions, consensus: consensus, branches: branches, plan: plan, text: function (p) { return [elem('h2', null, p.title), elem('pre', null, p.text)]; } };
  fill(document.getElementById('panels'), list(data.panels).map(function (p) {
    var make = Object.prototype.hasOwnProperty.call(PANELS, p.kind) ? PANELS[p.kind] : null;
    return make ? elem('div', { class: 'panel' }, make(p)) : null;
  }));
  if (kept) {
    var opened = list(kept.open);
    Array.prototype.forEach.call(document.querySelectorAll('#panels details'), function (d, i) { if (typeof opened[i] === 'boolean') d.open = opened[i]; });
    if (finite(kept.detailsTop)) details.scrollTop = kept.detailsTop;
    if (finite(kept.scrollX) && finite(kept.scrollY)) window.scrollTo(kept.scrollX, kept.scrollY);
  }
  document.body.setAttribute('data-ready', 'true');
})();
`;
