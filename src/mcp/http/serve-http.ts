import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { TotError } from '../../errors/index.js';
import { BoundedEventStore, DEFAULT_REPLAY_BYTES_PER_SESSION } from '../bounded-event-store.js';
import { MAX_BODY_BYTES, MAX_DISCARD_BYTES, readJsonBody } from './read-json-body.js';
import { ReplayBudget } from './replay-budget.js';
import { SessionTable, type SessionTableLimits } from './session-table.js';

/** The bytes of messages all sessions' resumability stores hold together by default: 64 MiB. */
export const DEFAULT_REPLAY_BYTES_TOTAL = 64 * 2 ** 20;

/** What `serveHttp` serves and how much it holds. */
export interface ServeHttpOptions {
  host: string;
  /** 0: a port the system picks (the result says which). */
  port: number;
  /** A new MCP server, for a new MCP session. */
  makeServer: () => { connect(transport: StreamableHTTPServerTransport): Promise<void> };
  /** Origins a browser page may call from, besides the server's own (`http://127.0.0.1:<port>` and the other loopback names). */
  allowedOrigins?: string[];
  /** The MCP sessions held: in all, per client address, and when one may give way to a new one. */
  sessions?: Partial<SessionTableLimits>;
  /** The bytes of messages held for clients that reconnect with Last-Event-ID: per session, and all sessions together. */
  replay?: { bytesPerSession?: number; bytesTotal?: number };
  /** Where log lines go (never stdout). */
  log?: (line: string) => void;
}

/** A running server. */
export interface HttpMcpServer {
  /** `http://host:port/mcp`. */
  url: URL;
  /** How many MCP sessions it holds, and the bytes its resumability stores hold. */
  stats(): { sessions: number; inFlight: number; replayBytes: number; replayEvents: number };
  /** Closes every session and the listener. */
  close(): Promise<void>;
}

const LOOPBACK = ['127.0.0.1', 'localhost', '::1'];

/** A JSON-RPC error answer outside any session (as the SDK's transport writes its own); `close` ends the connection after it. */
function refuse(res: ServerResponse, status: number, code: number, message: string, options: { close?: boolean; id?: unknown; retryAfterS?: number } = {}): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: options.id ?? null });
  res
    .writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      ...(options.close ? { connection: 'close' } : {}),
      ...(options.retryAfterS === undefined ? {} : { 'retry-after': String(options.retryAfterS) }),
    })
    .end(body);
}

/**
 * The origin of a URL as a browser sends it in an Origin header (`http://localhost:5173`), or
 * `undefined` for a value that has none.
 *
 * @example
 * ```ts
 * canonicalOrigin('HTTP://LocalHost:5173/'); // 'http://localhost:5173'
 * ```
 */
export function canonicalOrigin(value: string): string | undefined {
  try {
    const { origin } = new URL(value);
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/** The client's address, an IPv4 address as itself rather than IPv4-mapped IPv6. */
const clientAddress = (req: IncomingMessage) => (req.socket.remoteAddress ?? 'unknown').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');

/**
 * Serves MCP over Streamable HTTP at `http://host:port/mcp`: one transport and one MCP server per
 * MCP session, each resumable (Last-Event-ID) within a byte budget. Before a request's body is
 * read, its Host (on a loopback address) and its Origin (when it has one) must be the server's
 * own or allowed, else 403: a web page cannot reach the server through DNS rebinding or a
 * cross-origin request. A body is refused over 4 MiB (413) or nested deeper than 64 levels (400)
 * before it is parsed. A new session takes the place of an idle one when the table is full, or is
 * refused with 429 or 503 and Retry-After (see {@link SessionTable}).
 *
 * @example
 * ```ts
 * const server = await serveHttp({ host: '127.0.0.1', port: 3917, makeServer: () => createMcpServer({ engine }) });
 * console.error(`serving at ${server.url.href}`);
 * await server.close();
 * ```
 */
export async function serveHttp(options: ServeHttpOptions): Promise<HttpMcpServer> {
  const { host, makeServer } = options;
  const log = options.log ?? (() => undefined);
  const table = new SessionTable<StreamableHTTPServerTransport>(options.sessions);
  const budget = new ReplayBudget(options.replay?.bytesTotal ?? DEFAULT_REPLAY_BYTES_TOTAL);
  const bytesPerSession = options.replay?.bytesPerSession ?? DEFAULT_REPLAY_BYTES_PER_SESSION;
  const loopback = LOOPBACK.includes(host);
  // Filled in once the server listens (the port may be the one the system gave it).
  const ownHosts: string[] = [];
  const origins = new Set<string>();
  const extraOrigins = (options.allowedOrigins ?? []).map((value, i) => {
    const origin = canonicalOrigin(value);
    if (origin === undefined) throw new TotError('INVALID_ARGUMENT', `allowedOrigins[${i}]: send an origin such as http://localhost:5173, not "${value}".`, { details: { field: `allowedOrigins[${i}]` } });
    return origin;
  });

  const sweep = setInterval(() => {
    for (const id of table.sweep()) log(`MCP session ${id} closed after ${table.limits.idleMs / 60_000} minutes idle`);
  }, 60_000);
  sweep.unref();

  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      try {
        // Host and Origin are checked before anything of the request is read: a request a web page
        // sent gets its 403 and the connection is closed, its body neither parsed nor drained.
        // (The SDK's transport checks the Host again.)
        if (loopback && !ownHosts.includes(req.headers.host ?? '')) {
          refuse(res, 403, -32000, `Invalid Host header: ${req.headers.host}`, { close: true });
          return;
        }
        const origin = req.headers.origin;
        if (origin !== undefined && !origins.has(origin)) {
          refuse(res, 403, -32000, `Invalid Origin header: ${origin} (a page of another origin may not call this server; start it with --allowed-origin ${origin} to allow it)`, { close: true });
          return;
        }
        const url = new URL(req.url ?? '/', 'http://localhost');
        if (url.pathname !== '/mcp') {
          res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'the MCP endpoint is /mcp' }));
          return;
        }
        const header = req.headers['mcp-session-id'];
        const sessionId = Array.isArray(header) ? header[0] : header;
        const existing = sessionId ? table.get(sessionId) : undefined;
        if (req.method !== 'POST') {
          if (!existing || !sessionId) {
            res.writeHead(sessionId ? 404 : 400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'unknown or missing mcp-session-id' }));
            return;
          }
          // A GET is the session's event stream, open for as long as the client listens: a
          // request in flight, so a client that is connected never loses its session to others.
          res.once('close', table.begin(sessionId));
          await existing.handleRequest(req, res);
          return;
        }
        // In flight from its first byte: the session is not evicted while its body arrives.
        if (existing && sessionId) res.once('close', table.begin(sessionId));
        // A body declared over the limit is refused before a byte of it is read. The client may go
        // on sending it: within MAX_DISCARD_BYTES, the server reads it off the connection and drops
        // it (so that the client reads its 413, and the connection serves on); past that, the
        // connection is closed after the answer.
        const declared = Number(req.headers['content-length'] ?? Number.NaN);
        if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) {
          log(`request refused: a body of ${declared} bytes, over 4 MiB`);
          refuse(res, 413, -32700, 'request body over 4 MiB', { close: declared > MAX_BODY_BYTES + MAX_DISCARD_BYTES });
          return;
        }
        const body = await readJsonBody(req);
        if (!body.ok) {
          log(`request refused: ${body.refusal.message}`);
          refuse(res, body.refusal.status, -32700, body.refusal.message);
          return;
        }
        const message = body.value;
        if (existing) return void (await existing.handleRequest(req, res, message));
        if (sessionId || !isInitializeRequest(message)) {
          refuse(res, sessionId ? 404 : 400, -32000, sessionId ? 'unknown MCP session: initialize a new one' : 'send an initialize request first');
          return;
        }
        const client = clientAddress(req);
        const admission = table.admit(client);
        if (!admission.ok) {
          log(`initialize from ${client} refused (${admission.status}): ${admission.message}`);
          refuse(res, admission.status, -32000, admission.message, { id: (message as { id?: unknown }).id, retryAfterS: admission.retryAfterS });
          return;
        }
        if (admission.evicted) log(`MCP session ${admission.evicted} closed, idle, to make room for a new one from ${client}`);
        // One transport, and one server, per MCP session; resumable through its event store.
        const eventStore = new BoundedEventStore({ maxBytes: bytesPerSession, budget });
        const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          eventStore,
          onsessioninitialized: (sid) => table.bind(admission.slot, sid, transport),
          ...(loopback ? { enableDnsRebindingProtection: true, allowedHosts: ownHosts } : {}),
        });
        transport.onclose = () => {
          if (transport.sessionId) table.delete(transport.sessionId);
          eventStore.clear();
        };
        try {
          await makeServer().connect(transport);
          await transport.handleRequest(req, res, message);
        } finally {
          // The initialize failed: its place is given back.
          if (!transport.sessionId) table.release(admission.slot);
        }
      } catch (error) {
        log(`request failed: ${error instanceof Error ? error.message : String(error)}`);
        if (!res.headersSent) refuse(res, 400, -32700, 'bad request');
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, host, () => resolve());
  });
  const address = http.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const named = host.includes(':') ? `[${host}]` : host;
  // The server's own names, with the port it was given (the system picks it for port 0).
  ownHosts.push(...(loopback ? [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`] : [`${named}:${port}`]));
  for (const origin of [...ownHosts.map((h) => `http://${h}`), ...extraOrigins]) origins.add(origin);
  return {
    url: new URL(`http://${named}:${port}/mcp`),
    stats: () => {
      const { sessions, inFlight } = table.stats();
      const replay = budget.stats();
      return { sessions, inFlight, replayBytes: replay.bytes, replayEvents: replay.events };
    },
    async close() {
      clearInterval(sweep);
      for (const t of table.values()) await t.close().catch(() => undefined);
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      // Connections a client opened ahead and never used would hold close() open for ever.
      http.closeAllConnections();
      await closed;
    },
  };
}
