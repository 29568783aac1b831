// The live page's own script, beside the viewer's: it asks its server (same origin, the CSP's
// `connect-src 'self'`) for word of new events and loads the page again when there are some. It
// writes nothing into the page itself: every text the page shows still comes from the viewer's
// script, reading the run's data as JSON and writing text nodes.
export const LIVE_SCRIPT = `
(function () {
  'use strict';
  var meta = document.querySelector('meta[name="tot-live"]');
  if (!meta) return;
  var seen = Number(meta.getAttribute('content')) || 0;
  var source = new EventSource(location.pathname.replace(/\\/+$/, '') + '/events?after=' + seen);
  source.onmessage = function (message) {
    var update;
    try { update = JSON.parse(message.data); } catch (e) { return; }
    // The server ends the stream after one message; closed here, so the page does not ask again
    // for a run that has finished, and a reload asks afresh from its own count.
    source.close();
    if (typeof update.events === 'number' && update.events > seen) location.reload();
  };
})();
`;
