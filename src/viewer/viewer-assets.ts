// The page's own CSS and script, inlined into every rendered run: the page needs nothing else
// (its Content-Security-Policy forbids any request). Plain ES2019 for any browser.

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
  function esc(s) { return String(s).replace(/[&<>"']/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]; }); }
  // One formatter for the whole page: toLocaleString builds one per call, a quarter of the drawing time at 10,000 nodes.
  var numbers = new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 });
  function fmt(x) { return typeof x === 'number' ? numbers.format(x) : String(x); }

  // Summary.
  var summary = document.getElementById('summary');
  var items = ['<span>' + esc(data.kind) + ' run <b>' + esc(data.runId) + '</b></span>'];
  Object.keys(data.summary).forEach(function (k) { items.push('<span>' + esc(k) + ': <b>' + esc(fmt(data.summary[k])) + '</b></span>'); });
  items.push('<span>nodes: <b>' + data.nodes.length + '</b></span>');
  summary.innerHTML = items.join('');

  // Layout: a node's depth is one more than its deepest parent; within a depth, nodes sit in the
  // order of their parents' places (one barycentric pass), so children stay under their parents.
  var W = 170, H = 46, GX = 24, GY = 54;
  var byId = {}, depth = {}, rows = [];
  data.nodes.forEach(function (n) {
    byId[n.id] = n;
    var d = 0;
    n.parents.forEach(function (p) { if (depth[p] !== undefined && depth[p] + 1 > d) d = depth[p] + 1; });
    depth[n.id] = d;
    (rows[d] = rows[d] || []).push(n);
  });
  var place = {};
  rows.forEach(function (row, d) {
    if (d > 0) {
      row.forEach(function (n, i) {
        var known = n.parents.filter(function (p) { return place[p] !== undefined; });
        n._k = known.length ? known.reduce(function (s, p) { return s + place[p]; }, 0) / known.length : i;
      });
      row.sort(function (a, b) { return a._k - b._k; });
    }
    row.forEach(function (n, i) { place[n.id] = i; });
  });
  var widest = rows.reduce(function (m, r) { return Math.max(m, r.length); }, 1);
  var pos = {};
  rows.forEach(function (row, d) {
    var offset = (widest - row.length) * (W + GX) / 2;
    row.forEach(function (n, i) { pos[n.id] = { x: offset + i * (W + GX), y: d * (H + GY) }; });
  });
  var best = {};
  data.bestPath.forEach(function (id) { best[id] = true; });

  var svg = document.getElementById('graph');
  // A large run draws only what is near the view, again after each pan or zoom: laying out and
  // painting 10,000 nodes at once took seconds, and every click relaid them all. A smaller run is
  // drawn whole, so every node can be reached with Tab.
  var CULL = data.nodes.length > 1500;
  var selectedId = null;
  function edgeOf(n, p) {
    var from = pos[p], to = pos[n.id];
    var x1 = from.x + W / 2, y1 = from.y + H, x2 = to.x + W / 2, y2 = to.y, my = (y1 + y2) / 2;
    var cls = 'edge' + (n.status === 'pruned' ? ' pruned' : '') + (best[n.id] && best[p] ? ' best' : '');
    return '<path class="' + cls + '" d="M' + x1 + ' ' + y1 + 'C' + x1 + ' ' + my + ' ' + x2 + ' ' + my + ' ' + x2 + ' ' + y2 + '"/>';
  }
  function nodeOf(n) {
    var p = pos[n.id];
    var cls = 'node ' + n.status + (best[n.id] ? ' best' : '') + (n.id === selectedId ? ' selected' : '');
    var name = n.label + (n.score !== undefined ? ', score ' + fmt(n.score) : '') + ', ' + n.status + (best[n.id] ? ', on the best path' : '');
    return '<g class="' + cls + '" data-id="' + esc(n.id) + '" tabindex="0" role="button" aria-label="' + esc(name) + '" transform="translate(' + p.x + ',' + p.y + ')">' +
      '<rect width="' + W + '" height="' + H + '"></rect>' +
      '<text x="8" y="18">' + esc(n.label.length > 26 ? n.label.slice(0, 25) + '…' : n.label) + '</text>' +
      '<text class="score" x="8" y="36">' + esc((n.kind ? n.kind + ' ' : '') + (n.score !== undefined ? '· ' + fmt(n.score) : '')) + '</text></g>';
  }
  function near(p, margin) { return p.x + W >= view.x - margin && p.x <= view.x + view.w + margin && p.y + H >= view.y - margin && p.y <= view.y + view.h + margin; }
  function draw() {
    var margin = view.w / 2;
    var edges = [], nodes = [];
    data.nodes.forEach(function (n) {
      var shown = !CULL || near(pos[n.id], margin);
      n.parents.forEach(function (p) { if (pos[p] && (shown || (CULL && near(pos[p], margin)))) edges.push(edgeOf(n, p)); });
      if (shown) nodes.push(nodeOf(n));
    });
    svg.innerHTML = edges.join('') + nodes.join('');
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
    var focus = data.bestPath.length ? data.bestPath : rows[0] ? [rows[0][0].id] : [];
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
    selected = svg.querySelector('[data-id="' + (window.CSS && CSS.escape ? CSS.escape(id) : id) + '"]');
    if (selected) selected.classList.add('selected');
    var rows = '<dt>id</dt><dd>' + esc(n.id) + '</dd><dt>status</dt><dd>' + esc(n.status) + (best[n.id] ? ' (best path)' : '') + '</dd>';
    if (n.kind) rows += '<dt>kind</dt><dd>' + esc(n.kind) + '</dd>';
    if (n.score !== undefined) rows += '<dt>score</dt><dd id="details-score">' + esc(fmt(n.score)) + '</dd>';
    Object.keys(n.details || {}).forEach(function (k) { rows += '<dt>' + esc(k) + '</dt><dd>' + esc(n.details[k]) + '</dd>'; });
    var html = '<h2 id="details-title">' + esc(n.label) + '</h2><dl>' + rows + '</dl><h2>Content</h2><pre id="details-content">\\n' + esc(n.content) + '</pre>';
    html += '<div id="details-calls">' + callsOfNode(n) + '</div>';
    if (n.prompt) html += '<h2>Prompt</h2><pre class="prompt">\\n' + esc(n.prompt) + '</pre>';
    if (n.output) html += '<h2>Model output</h2><pre class="output">\\n' + esc(n.output) + '</pre>';
    details.innerHTML = html;
  }
  // A node's model calls: those that made it (or, for a node that carries another's content, that
  // node's), those that scored it, or why it has none. Calls hold indices into data.texts.
  function text(i) { return data.texts[i] === undefined ? '' : data.texts[i]; }
  function callOf(ci, pick) {
    var c = data.calls[ci];
    if (!c) return '';
    var msgs = c.messages || [], outs = c.outputs || [];
    var head = 'call ' + c.id + (c.tag ? ' · ' + c.tag : '') + ' · ' + Math.round(c.end - c.start) + ' ms · ' + c.inputTokens + ' in / ' + c.outputTokens + ' out tokens' + (c.outcome === 'completed' ? '' : ' · ' + c.outcome);
    var prompt = msgs.map(function (m) { return msgs.length > 1 ? '[' + m.role + ']\\n' + text(m.text) : text(m.text); }).join('\\n\\n');
    var one = pick !== undefined && outs[pick] !== undefined;
    var output = one ? text(outs[pick]) : outs.length === 1 ? text(outs[0]) : outs.map(function (o, k) { return '[output ' + (k + 1) + ' of ' + outs.length + ']\\n' + text(o); }).join('\\n\\n');
    var s = '<div class="call-detail" data-call="' + esc(c.id) + '"><p class="call-head">' + esc(head) + '</p><h3>Prompt</h3><pre class="prompt">\\n' + esc(prompt) + '</pre>';
    if (outs.length) s += '<h3>Model output' + (one ? ' (output ' + (pick + 1) + ' of ' + outs.length + ')' : '') + '</h3><pre class="output">\\n' + esc(output) + '</pre>';
    if (c.error) s += '<p class="call-error">' + esc(c.error) + '</p>';
    return s + '</div>';
  }
  function callList(list, pick) { return list.map(function (ci) { return callOf(ci, list.length === 1 ? pick : undefined); }).join(''); }
  function callsOfNode(n) {
    var s = '';
    if (n.madeBy && n.madeBy.length) s += '<h2>Made by ' + (n.madeBy.length === 1 ? 'a model call' : n.madeBy.length + ' model calls') + '</h2>' + callList(n.madeBy, n.pick);
    else if (n.from && byId[n.from]) {
      var o = byId[n.from];
      s += '<h2>Made by</h2><p class="no-call">No model call of its own: it carries the content of <button type="button" class="goto" data-goto="' + esc(o.id) + '">' + esc(o.id) + '</button> over unchanged' + (o.madeBy && o.madeBy.length ? ', which ' + (o.madeBy.length === 1 ? 'this call' : 'these calls') + ' made:' : '.') + '</p>';
      s += o.madeBy && o.madeBy.length ? callList(o.madeBy, o.pick) : '<p class="no-call">' + esc(o.noCall || 'No model call is linked to it.') + '</p>';
    } else s += '<h2>Made by</h2><p class="no-call">' + esc(n.noCall || 'No model call is linked to this node.') + '</p>';
    if (n.judgedBy && n.judgedBy.length) s += '<h2>Scored by ' + (n.judgedBy.length === 1 ? 'a model call' : n.judgedBy.length + ' model calls') + '</h2>' + callList(n.judgedBy);
    return s;
  }
  details.addEventListener('click', function (ev) {
    var b = ev.target.closest && ev.target.closest('button.goto');
    if (!b) return;
    var id = b.getAttribute('data-goto');
    show(id);
    var g = svg.querySelector('[data-id="' + (window.CSS && CSS.escape ? CSS.escape(id) : id) + '"]');
    if (g) g.focus();
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
    var calls = data.calls;
    if (!calls.length) { t.outerHTML = '<p>No model calls were recorded.</p>'; return; }
    var lanes = calls.reduce(function (m, c) { return Math.max(m, c.lane + 1); }, 1);
    var end = calls.reduce(function (m, c) { return Math.max(m, c.end); }, 1);
    var width = 1000, laneH = Math.max(3, Math.min(14, 180 / lanes)), height = lanes * laneH + 24;
    t.setAttribute('viewBox', '0 0 ' + width + ' ' + height);
    t.setAttribute('height', String(Math.min(height, 220)));
    t.setAttribute('preserveAspectRatio', 'none');
    var out = [];
    calls.forEach(function (c) {
      var x = c.start / end * width, w = Math.max(1, (c.end - c.start) / end * width);
      out.push('<rect class="call ' + c.outcome + '" x="' + x.toFixed(1) + '" y="' + (c.lane * laneH + 2) + '" width="' + w.toFixed(1) + '" height="' + (laneH - 2) + '"><title>' + esc((c.tag ? c.tag + ' ' : '') + c.id + ': ' + Math.round(c.end - c.start) + ' ms, ' + (c.inputTokens + c.outputTokens) + ' tokens, ' + c.outcome) + '</title></rect>');
    });
    out.push('<text class="axis" x="2" y="' + (height - 6) + '">0 ms</text><text class="axis" x="' + (width - 2) + '" y="' + (height - 6) + '" text-anchor="end">' + Math.round(end) + ' ms · ' + lanes + (lanes === 1 ? ' lane' : ' lanes') + '</text>');
    t.innerHTML = out.join('');
  }
  function tokens() {
    var t = document.getElementById('tokens');
    var pts = data.tokens;
    if (!pts.length) { t.outerHTML = '<p>No tokens were recorded.</p>'; return; }
    var width = 400, height = 160;
    var endT = Math.max(pts[pts.length - 1].at, 1);
    var top = Math.max(pts[pts.length - 1].total, data.tokenBudget || 0, 1);
    t.setAttribute('viewBox', '0 0 ' + width + ' ' + height);
    t.setAttribute('height', '160');
    var line = pts.map(function (p) { return (p.at / endT * (width - 10) + 5).toFixed(1) + ',' + (height - 18 - p.total / top * (height - 30)).toFixed(1); }).join(' ');
    var out = ['<polyline class="tokens-line" points="5,' + (height - 18) + ' ' + line + '"/>'];
    if (data.tokenBudget) { var y = height - 18 - data.tokenBudget / top * (height - 30); out.push('<line class="budget-line" x1="5" x2="' + (width - 5) + '" y1="' + y + '" y2="' + y + '"/><text class="axis" x="' + (width - 6) + '" y="' + (y - 3) + '" text-anchor="end">budget ' + data.tokenBudget + '</text>'); }
    out.push('<text class="axis" x="5" y="' + (height - 4) + '">' + pts[pts.length - 1].total + ' tokens in ' + Math.round(endT) + ' ms</text>');
    t.innerHTML = out.join('');
  }
  timeline();
  tokens();

  // Panels of the run's kind.
  var panels = document.getElementById('panels');
  var html = [];
  data.panels.forEach(function (p) {
    if (p.kind === 'consensus') {
      var s = '<div class="panel"><h2>Consensus</h2>';
      if (p.trend.length) {
        var w = 300, h = 80;
        var pts = p.trend.map(function (v, i) { return (10 + i * (w - 20) / Math.max(1, p.trend.length - 1)).toFixed(1) + ',' + (h - 10 - v * (h - 20)).toFixed(1); }).join(' ');
        s += '<svg id="consensus-trend" width="' + w + '" height="' + h + '" role="img" aria-label="consensus by round: ' + p.trend.map(fmt).join(', ') + '"><polyline class="tokens-line" points="' + pts + '"/></svg><p>By round: ' + p.trend.map(fmt).join(' → ') + '</p>';
      } else s += '<p>No consensus was measured.</p>';
      p.heatmaps.forEach(function (m) {
        s += '<h2>Similarity, round ' + m.round + '</h2><table class="heatmap"><tr><th></th>' + m.labels.map(function (l) { return '<th>' + esc(l) + '</th>'; }).join('') + '</tr>';
        m.matrix.forEach(function (row, i) {
          s += '<tr><th>' + esc(m.labels[i]) + '</th>' + row.map(function (v) { var c = Math.round(255 - v * 160); return '<td class="cell" style="background: rgb(' + c + ',' + c + ',255)">' + fmt(v) + '</td>'; }).join('') + '</tr>';
        });
        s += '</table>';
      });
      html.push(s + '</div>');
    } else if (p.kind === 'branches') {
      html.push('<div class="panel"><h2>Branches</h2><table id="branches"><tr><th>branch</th><th>name</th><th>state</th><th>reward</th></tr>' + p.branches.map(function (b) { return '<tr><td>' + esc(b.id) + '</td><td>' + esc(b.name) + '</td><td>' + esc(b.state) + '</td><td>' + (b.reward === undefined ? '' : fmt(b.reward)) + '</td></tr>'; }).join('') + '</table><h2>Audit bar</h2><pre id="audit-bar">' + esc(p.auditBar) + '</pre></div>');
    } else if (p.kind === 'plan') {
      html.push('<div class="panel"><h2>The plan, thought by thought</h2>' + p.versions.map(function (v, i) { return '<details' + (i === p.versions.length - 1 ? ' open' : '') + '><summary>after thought ' + v.thought + ' (' + v.steps.length + ' steps)</summary><ul>' + v.steps.map(function (s) { return '<li style="margin-left:' + s.depth * 16 + 'px">[' + esc(s.status) + '] ' + esc(s.description) + '</li>'; }).join('') + '</ul></details>'; }).join('') + '</div>');
    } else if (p.kind === 'text') {
      html.push('<div class="panel"><h2>' + esc(p.title) + '</h2><pre>' + esc(p.text) + '</pre></div>');
    }
  });
  panels.innerHTML = html.join('');
  document.body.setAttribute('data-ready', 'true');
})();
`;
