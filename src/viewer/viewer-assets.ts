// The page's own CSS and script, inlined into every rendered run: the page needs nothing else
// (its Content-Security-Policy forbids any request, and runs no script and applies no style but
// these two, by their hashes). Plain ES2019 for any browser.

export const VIEWER_CSS = `
:root { color-scheme: light; --fg: #1b1f24; --muted: #57606a; --line: #8c959f; --bg: #ffffff; --panel: #f6f8fa; --accent: #0550ae; --best: #bf3989; --ok: #1a7f37; --bad: #cf222e; --stale: #9a6700; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { padding: 12px 16px; border-bottom: 1px solid #d0d7de; }
h1 { font-size: 18px; margin: 0 0 4px; }
h2 { font-size: 15px; margin: 12px 0 6px; }
#summary { display: flex; flex-wrap: wrap; gap: 6px 18px; color: var(--muted); }
#summary b { color: var(--fg); font-weight: 600; }
main { display: grid; grid-template-columns: minmax(0, 1fr) 360px; height: 62vh; min-height: 320px; border-bottom: 1px solid #d0d7de; }
#graph-pane { position: relative; overflow: hidden; background: var(--bg); }
#graph { width: 100%; height: 100%; cursor: grab; user-select: none; touch-action: none; }
#graph.dragging { cursor: grabbing; }
.hint { position: absolute; left: 8px; bottom: 6px; color: var(--muted); font-size: 12px; background: rgba(255,255,255,.85); padding: 1px 6px; border-radius: 4px; }
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
.edge.pruned { stroke-dasharray: 5 4; opacity: .6; }
.edge.best { stroke: var(--best); stroke-width: 3; }
.node rect { fill: #fff; stroke: var(--line); stroke-width: 1.2; rx: 6; }
.node text { font-size: 12px; fill: var(--fg); pointer-events: none; }
.node text.score { fill: var(--muted); font-size: 11px; }
.node.pruned rect { stroke-dasharray: 5 4; fill: #f6f8fa; }
.node.pruned text { fill: var(--muted); }
.node.failed rect { stroke: var(--bad); }
.node.stale rect { stroke: var(--stale); stroke-dasharray: 2 3; }
.node.solution rect { stroke: var(--ok); stroke-width: 2; }
.node.best rect { stroke: var(--best); stroke-width: 3; fill: #ffeff7; }
.node:focus { outline: none; }
.node:focus rect, .node.selected rect { stroke: var(--accent); stroke-width: 3; }
#below { display: grid; grid-template-columns: minmax(0, 2fr) minmax(0, 1fr); gap: 0 24px; padding: 4px 16px 16px; }
#timeline, #tokens { width: 100%; background: var(--panel); border: 1px solid #d0d7de; border-radius: 4px; }
.call { fill: var(--accent); opacity: .8; }
.call.failed { fill: var(--bad); }
.call.open { fill: var(--stale); }
.axis { fill: var(--muted); font-size: 11px; }
.tokens-line { fill: none; stroke: var(--accent); stroke-width: 2; }
.budget-line { stroke: var(--bad); stroke-dasharray: 6 4; }
.panel { padding: 0 16px 16px; }
table { border-collapse: collapse; font-size: 13px; }
th, td { border: 1px solid #d0d7de; padding: 3px 8px; text-align: left; }
td.cell { text-align: center; min-width: 44px; }
.sr { position: absolute; left: -9999px; }
`;

export const VIEWER_SCRIPT = `
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('run-data').textContent);
  var NS = 'http://www.w3.org/2000/svg';

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
  var STATUSES = ['active', 'pruned', 'solution', 'failed', 'stale', 'done'];
  var OUTCOMES = ['completed', 'failed', 'open'];
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
  function nodeOf(n) {
    var p = pos[n.id];
    var label = String(n.label);
    var cls = 'node ' + oneOf(n.status, STATUSES) + (best[n.id] ? ' best' : '') + (n.id === selectedId ? ' selected' : '');
    var name = label + (n.score !== undefined ? ', score ' + fmt(n.score) : '') + ', ' + n.status + (best[n.id] ? ', on the best path' : '');
    var g = svgElem('g', { class: cls, 'data-id': n.id, tabindex: '0', role: 'button', 'aria-label': name, transform: 'translate(' + p.x + ',' + p.y + ')' }, [
      svgElem('rect', { width: W, height: H }),
      svgElem('text', { x: 8, y: 18 }, label.length > 26 ? label.slice(0, 25) + '…' : label),
      svgElem('text', { class: 'score', x: 8, y: 36 }, (n.kind ? n.kind + ' ' : '') + (n.score !== undefined ? '· ' + fmt(n.score) : '')),
    ]);
    drawn[n.id] = g;
    return g;
  }
  function near(p, margin) { return p.x + W >= view.x - margin && p.x <= view.x + view.w + margin && p.y + H >= view.y - margin && p.y <= view.y + view.h + margin; }
  function draw() {
    var margin = view.w / 2;
    var edges = [], nodes = [];
    drawn = Object.create(null);
    nodesOfRun.forEach(function (n) {
      var shown = !CULL || near(pos[n.id], margin);
      list(n.parents).forEach(function (p) { if (pos[p] && (shown || (CULL && near(pos[p], margin)))) edges.push(edgeOf(n, p)); });
      if (shown) nodes.push(nodeOf(n));
    });
    fill(svg, [edges, nodes]);
    selected = selectedId === null ? null : drawn[selectedId] || null;
  }
  var pending = false;
  function redraw() { if (!CULL || pending) return; pending = true; requestAnimationFrame(function () { pending = false; draw(); }); }

  // Pan and zoom through the viewBox.
  var totalW = Math.max(widest * (W + GX), W), totalH = Math.max(rows.length * (H + GY), H);
  var view = { x: -GX, y: -GY / 2, w: Math.min(totalW + 2 * GX, 4000), h: 0 };
  // Starts at a zoom where labels are readable, centred on the best path (or the root).
  function fit() {
    var r = svg.getBoundingClientRect();
    view.w = Math.max(r.width, Math.min(totalW + 2 * GX, Math.max(900, r.width * 1.25)));
    view.h = view.w * (r.height / Math.max(r.width, 1));
    var focus = bestPath.length ? bestPath : rows[0] ? [rows[0][0].id] : [];
    var xs = focus.map(function (id) { return pos[id] ? pos[id].x + W / 2 : 0; });
    var cx = xs.length ? xs.reduce(function (a, b) { return a + b; }, 0) / xs.length : totalW / 2;
    view.x = totalW + 2 * GX <= view.w ? (totalW - view.w) / 2 : Math.min(Math.max(cx - view.w / 2, -GX), Math.max(-GX, totalW + GX - view.w));
    view.y = totalH + GY < view.h ? -(view.h - totalH) / 2 : -GY / 2;
    apply();
  }
  function apply() { svg.setAttribute('viewBox', view.x + ' ' + view.y + ' ' + view.w + ' ' + view.h); redraw(); }
  function zoom(factor, cx, cy) {
    var nw = Math.min(Math.max(view.w * factor, 100), Math.max(totalW, totalH) * 4 + 400);
    var f = nw / view.w;
    view.x = cx - (cx - view.x) * f; view.y = cy - (cy - view.y) * f; view.w = nw; view.h = view.h * f; apply();
  }
  function toSvg(ev) { var r = svg.getBoundingClientRect(); return { x: view.x + (ev.clientX - r.left) / r.width * view.w, y: view.y + (ev.clientY - r.top) / r.height * view.h }; }
  svg.addEventListener('wheel', function (ev) { ev.preventDefault(); var p = toSvg(ev); zoom(ev.deltaY > 0 ? 1.15 : 1 / 1.15, p.x, p.y); }, { passive: false });
  var drag = null;
  svg.addEventListener('pointerdown', function (ev) { if (ev.target.closest && ev.target.closest('.node')) return; drag = { x: ev.clientX, y: ev.clientY, vx: view.x, vy: view.y }; svg.classList.add('dragging'); svg.setPointerCapture(ev.pointerId); });
  svg.addEventListener('pointermove', function (ev) { if (!drag) return; var r = svg.getBoundingClientRect(); view.x = drag.vx - (ev.clientX - drag.x) / r.width * view.w; view.y = drag.vy - (ev.clientY - drag.y) / r.height * view.h; apply(); });
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
  svg.addEventListener('click', function (ev) { var g = ev.target.closest && ev.target.closest('.node'); if (g) { g.focus(); show(g.getAttribute('data-id')); } });
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
    if (!g) return;
    var p = pos[g.getAttribute('data-id')];
    if (p && (p.x < view.x || p.x + W > view.x + view.w || p.y < view.y || p.y + H > view.y + view.h)) { view.x = p.x + W / 2 - view.w / 2; view.y = p.y + H / 2 - view.h / 2; apply(); }
  });
  // The pane is measured before it is filled: measuring after would lay out every node first.
  fit();
  draw();
  window.addEventListener('resize', fit);

  // The model calls, in lanes: concurrency is the number of lanes in use at a moment.
  function timeline() {
    var t = document.getElementById('timeline');
    if (!calls.length) { t.replaceWith(elem('p', null, 'No model calls were recorded.')); return; }
    var lanes = calls.reduce(function (m, c) { return Math.max(m, num(c.lane) + 1); }, 1);
    var end = calls.reduce(function (m, c) { return Math.max(m, num(c.end)); }, 1);
    var width = 1000, laneH = Math.max(3, Math.min(14, 180 / lanes)), height = lanes * laneH + 24;
    t.setAttribute('viewBox', '0 0 ' + width + ' ' + height);
    t.setAttribute('height', String(Math.min(height, 220)));
    t.setAttribute('preserveAspectRatio', 'none');
    var out = calls.map(function (c) {
      var start = num(c.start), stop = num(c.end);
      var x = start / end * width, w = Math.max(1, (stop - start) / end * width);
      return svgElem('rect', { class: 'call ' + oneOf(c.outcome, OUTCOMES), x: x.toFixed(1), y: num(c.lane) * laneH + 2, width: w.toFixed(1), height: laneH - 2 },
        svgElem('title', null, (c.tag ? c.tag + ' ' : '') + c.id + ': ' + Math.round(stop - start) + ' ms, ' + (num(c.inputTokens) + num(c.outputTokens)) + ' tokens, ' + c.outcome));
    });
    out.push(svgElem('text', { class: 'axis', x: 2, y: height - 6 }, '0 ms'), svgElem('text', { class: 'axis', x: width - 2, y: height - 6, 'text-anchor': 'end' }, Math.round(end) + ' ms · ' + lanes + (lanes === 1 ? ' lane' : ' lanes')));
    fill(t, out);
  }
  function tokens() {
    var t = document.getElementById('tokens');
    var pts = list(data.tokens);
    if (!pts.length) { t.replaceWith(elem('p', null, 'No tokens were recorded.')); return; }
    var width = 400, height = 160;
    var last = pts[pts.length - 1];
    var endT = Math.max(num(last.at), 1);
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
          var c = Math.min(255, Math.max(0, Math.round(255 - num(v) * 160)));
          return elem('td', { class: 'cell', css: { background: 'rgb(' + c + ',' + c + ',255)' } }, fmt(v));
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
  var PANELS = { consensus: consensus, branches: branches, plan: plan, text: function (p) { return [elem('h2', null, p.title), elem('pre', null, p.text)]; } };
  fill(document.getElementById('panels'), list(data.panels).map(function (p) {
    var make = Object.prototype.hasOwnProperty.call(PANELS, p.kind) ? PANELS[p.kind] : null;
    return make ? elem('div', { class: 'panel' }, make(p)) : null;
  }));
  document.body.setAttribute('data-ready', 'true');
})();
`;
