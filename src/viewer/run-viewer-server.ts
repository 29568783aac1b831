import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import type { EventStore, StoredEvent } from '../events/store/types.js';
import { whenAborted } from '../internal/abort.js';
import { parseOptions, signalSchema } from '../internal/validate.js';
import { html, sha256Base64 } from './html.js';
import { renderViewHtml } from './render-run-html.js';
import { sessionStateOf, streamEnded } from './stream-end.js';
import { viewRun } from './view-run.js';

/**
 * Options of {@link serveRunViewer}.
 *
 * @example
 * ```ts
 * import type { RunViewerServerOptions } from '@tot/core/viewer';
 *
 * const options: RunViewerServerOptions = { store, port: 4173, pollMs: 250 };
 * ```
 */
export interface RunViewerServerOptions {
  /**
   * Where the runs are recorded (any store; a read-only one is enough). A store that can be heard
   * (one with `follow`, as `PostgresEventStore` has: it yields a stream's events as they are
   * recorded) tells the page of new events as they come; other stores are asked every `pollMs`.
   */
  store: Pick<EventStore, 'readStream' | 'readAll'> & {
    /** A stream's events from `fromVersion`, then each one as it is recorded, until `signal` aborts. */
    follow?(streamId: string, options?: { fromVersion?: number; signal?: AbortSignal }): AsyncIterable<StoredEvent>;
  };
  /** Default `127.0.0.1`: the page is for this machine. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /**
   * How often a page that follows a run asks the store for new events. Default 250 ms; 10 s for a
   * store that can be heard (see `store`), where asking is only the fallback, should a
   * notification be lost.
   */
  pollMs?: number;
  /**
   * The least time a page that follows a run stays as it is before it loads again with the new
   * events: enough to read it and click a node. Default 1000 ms.
   */
  refreshMs?: number;
  /** Closes the server. */
  signal?: AbortSignal;
}

/**
 * A run viewer being served.
 *
 * @example
 * ```ts
 * const viewer: RunViewerServer = await serveRunViewer({ store });
 * console.log(viewer.urlOf('run_01J…'));
 * ```
 */
export interface RunViewerServer {
  /** The list of runs: each with its runner, status and problem, a link to its page. */
  url: string;
  /** The page of one run, which follows the run while it goes. */
  urlOf(runId: string): string;
  /** Stops serving: pages that follow a run stop hearing of it, and open connections are closed. */
  close(): Promise<void>;
}

const optionsSchema = z.strictObject({
  store: z.custom<RunViewerServerOptions['store']>((v) => typeof v === 'object' && v !== null && typeof (v as EventStore).readStream === 'function' && typeof (v as EventStore).readAll === 'function', 'expected an EventStore'),
  host: z.string().min(1).optional(),
  port: z.number().int().min(0).max(65_535).optional(),
  pollMs: z.number().int().min(10).max(60_000).optional(),
  refreshMs: z.number().int().min(0).max(600_000).optional(),
  signal: signalSchema,
});

/** How often a page asks a store that can be heard, should a notification be lost. */
const HEARD_POLL_MS = 10_000;

async function eventsOf(store: RunViewerServerOptions['store'], runId: string): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  for await (const e of store.readStream(runId)) events.push(e);
  return events;
}

interface RunRow {
  id: string;
  runner: string;
  status: string;
  problem: string;
}

async function listRuns(store: RunViewerServerOptions['store']): Promise<RunRow[]> {
  const rows = new Map<string, RunRow>();
  for await (const e of store.readAll()) {
    const d = (e.data ?? {}) as Record<string, unknown>;
    if (e.type === 'run.started') rows.set(e.streamId, { id: e.streamId, runner: String(d.runner ?? '?'), status: 'running or interrupted', problem: String(d.problem ?? '') });
    else if (e.type === 'session.started') rows.set(e.streamId, { id: e.streamId, runner: 'agent session', status: 'active', problem: String(d.goal ?? '') });
    else if (e.type === 'session.state_changed' && rows.get(e.streamId)?.runner === 'agent session') rows.get(e.streamId)!.status = sessionStateOf([e]);
    else if (rows.has(e.streamId) && rows.get(e.streamId)!.runner !== 'agent session') {
      // Only a run.finished that is the stream's last event says how the run ended: one waiting
      // for answers goes on when it is resumed with them.
      rows.get(e.streamId)!.status = e.type !== 'run.finished' ? 'running or interrupted' : d.stopReason === 'waiting' ? 'waiting for an answer' : String(d.stopReason ?? 'finished');
    }
  }
  return [...rows.values()];
}

const LIST_CSS = 'body{font:14px system-ui,sans-serif;margin:2rem}table{border-collapse:collapse}td,th{padding:.3rem .8rem;border-bottom:1px solid #ddd;text-align:left}';

function listPage(rows: readonly RunRow[]): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'sha256-${sha256Base64(LIST_CSS)}'; base-uri 'none'; form-action 'none'">
<title>Recorded runs</title>
<style>${LIST_CSS}</style>
</head>
<body>
<h1>Recorded runs</h1>
${rows.length === 0 ? html`<p>No runs recorded yet.</p>` : html`<table><thead><tr><th>run</th><th>runner</th><th>status</th><th>problem</th></tr></thead><tbody>${rows.map((r) => html`<tr><td><a href="/run/${encodeURIComponent(r.id)}">${r.id}</a></td><td>${r.runner}</td><td>${r.status}</td><td>${r.problem.slice(0, 160)}</td></tr>`)}</tbody></table>`}
</body>
</html>
`.toString();
}

/**
 * Serves the run viewer on localhost: `/` lists the store's runs with their status, `/run/<id>` is
 * the page of one run — the same page as {@link renderRunHtml}'s — which, while the run goes,
 * follows it: a server-sent event says when new events are recorded (a store that can be heard,
 * as PostgreSQL's, tells the server as they are recorded; others are asked every `pollMs`) and the page loads again with them, so the tree or graph grows on screen. A
 * finished run's page is the offline page as it is; a run waiting for a person's answers
 * (`waiting for an answer` in the list) is followed too, since a resume given them goes on. An
 * agent session, which records no `run.finished`, has finished once its recorded state is a final
 * one (`completed`, `failed`, `timeout`, `budget_exceeded`); a paused one is followed. A follower
 * of a finished run or session is told so (`finished: true`) and hears no more. Each time a page
 * loads again it keeps the pan and zoom the person set (a view they have not moved fits the grown
 * graph), the selected and focused node, the open panels and the scroll. Everything a model wrote stays escaped as in
 * the offline page; the live page may connect to its own origin only (`connect-src 'self'`).
 *
 * @example
 * ```ts
 * import { SqliteEventStore } from '@tot/core/sqlite';
 * import { serveRunViewer } from '@tot/core/viewer';
 *
 * const viewer = await serveRunViewer({ store: new SqliteEventStore({ path: 'runs.db' }) });
 * console.log(`open ${viewer.urlOf('game24-1')}`);
 * ```
 */
export async function serveRunViewer(options: RunViewerServerOptions): Promise<RunViewerServer> {
  const o = parseOptions(optionsSchema, options, 'serveRunViewer');
  const store = o.store;
  const heard = typeof store.follow === 'function';
  const pollMs = o.pollMs ?? (heard ? HEARD_POLL_MS : 250);
  const refreshMs = o.refreshMs ?? 1000;
  const streams = new Set<ServerResponse>();

  const follow = (req: IncomingMessage, res: ServerResponse, runId: string, after: number): void => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
    res.write(': following\n\n');
    streams.add(res);
    const listening = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    // Until refreshMs has passed the page stays as it is: word of new events waits for the first poll then.
    let settled = false;
    let reading = false;
    let again = false;
    const stop = () => {
      clearTimeout(timer);
      listening.abort();
      streams.delete(res);
    };
    req.on('close', stop);
    const read = async (): Promise<void> => {
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      try {
        do {
          again = false;
          try {
            const events = await eventsOf(store, runId);
            const finished = streamEnded(events);
            // A stream that has ended says so even to a follower that has all its events: nothing
            // more will come, and the page need not go on asking.
            if ((events.length > after || finished) && streams.has(res)) {
              res.end(`data: ${JSON.stringify({ events: events.length, finished })}\n\n`);
              stop();
              return;
            }
          } catch {
            // A store that fails a read is asked again at the next poll or notification.
          }
        } while (again && streams.has(res));
      } finally {
        reading = false;
      }
    };
    const poll = async (): Promise<void> => {
      await read();
      if (streams.has(res)) timer = setTimeout(() => void poll(), pollMs);
    };
    const hear = () => {
      if (!streams.has(res)) return;
      if (settled) void read();
    };
    if (store.follow) {
      void (async () => {
        try {
          for await (const _ of store.follow!(runId, { fromVersion: after, signal: listening.signal })) hear();
        } catch {
          // Aborted (the page went, or was told), or the store cannot be heard after all (its
          // tables predate its announcements, say): polling, the fallback, goes on.
        }
      })();
    }
    timer = setTimeout(() => {
      settled = true;
      void poll();
    }, refreshMs);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const headers = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };
    if (req.method !== 'GET') {
      res.writeHead(405, headers).end();
      return;
    }
    if (url.pathname === '/') {
      res.writeHead(200, { ...headers, 'content-type': 'text/html; charset=utf-8' }).end(listPage(await listRuns(store)));
      return;
    }
    const match = /^\/run\/([^/]+)(\/events)?\/?$/.exec(url.pathname);
    if (!match) {
      res.writeHead(404, { ...headers, 'content-type': 'text/plain' }).end('Not found');
      return;
    }
    const runId = decodeURIComponent(match[1]!);
    if (match[2]) {
      follow(req, res, runId, Number(url.searchParams.get('after')) || 0);
      return;
    }
    const events = await eventsOf(store, runId);
    if (events.length === 0) {
      res.writeHead(404, { ...headers, 'content-type': 'text/plain; charset=utf-8' }).end(`No run "${runId}" in this store.`);
      return;
    }
    const view = viewRun(events);
    const title = `${view.kind} run: ${view.problem.slice(0, 120)}`;
    const page = renderViewHtml(view, title, streamEnded(events) ? undefined : { events: events.length });
    res.writeHead(200, { ...headers, 'content-type': 'text/html; charset=utf-8' }).end(page);
  };

  // Loaded here, not at the top: the viewer's page rendering stays free of Node's modules.
  const { createServer } = await import('node:http');
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`The viewer could not read the run: ${error instanceof Error ? error.message : String(error)}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, o.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const base = `http://${host}:${address.port}`;
  const close = () =>
    new Promise<void>((resolve) => {
      for (const res of streams) res.end();
      streams.clear();
      server.close(() => resolve());
      server.closeAllConnections();
    });
  if (o.signal) whenAborted(o.signal, () => void close());
  return { url: `${base}/`, urlOf: (runId) => `${base}/run/${encodeURIComponent(runId)}`, close };
}
