import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { GotEngine } from '../got/got-engine.js';
import type { LanguageModel } from '../model/types.js';
import { BoundedEventStore } from '../mcp/bounded-event-store.js';
import { createMcpServer } from '../mcp/create-mcp-server.js';
import { SessionCache } from '../mcp/session-cache.js';
import { openStore } from './open-store.js';

export const MCP_HELP = `tot mcp: the Graph-of-Thought engine as an MCP server

Usage: tot mcp [options]

Options:
  --db <file | postgres://… | memory>
                               where sessions live (default ./tot-sessions.db; a PostgreSQL URL
                               shares them between servers; memory keeps nothing)
  --http <host:port>           serve Streamable HTTP at http://host:port/mcp instead of stdio
  --max-open-sessions <n>      sessions held in memory at once, an LRU over the store (default 64)
  --max-thought-chars <n>      characters a thought may have (default 400)
  --model <name>               the server's model for think_parallel_run when the client offers
                               no sampling: an OpenAI-compatible model through the openai package,
                               with OPENAI_BASE_URL and OPENAI_API_KEY from the environment
  --help                       this text

Logs go to stderr; stdout carries the MCP protocol only.`;

/** A database argument as logs may show it: a URL's password removed. */
const shown = (db: string) => db.replace(/^(postgres(?:ql)?:\/\/[^:/@]*):[^@]*@/i, '$1:***@').replace(/([?&]password=)[^&]*/gi, '$1***');

/** Writes a log line where it can never corrupt the protocol. */
const log = (line: string) => process.stderr.write(`[tot mcp] ${line}\n`);

async function serverModel(name: string | undefined): Promise<LanguageModel | undefined> {
  if (!name) return undefined;
  const [{ default: OpenAI }, { openAIModel }] = await Promise.all([import('openai'), import('../openai/index.js')]);
  const client = new OpenAI({ ...(process.env.OPENAI_BASE_URL ? { baseURL: process.env.OPENAI_BASE_URL } : {}), apiKey: process.env.OPENAI_API_KEY ?? 'none' });
  return openAIModel({ client, model: name });
}

function hostPort(value: string): { host: string; port: number } {
  const m = /^(.*):(\d+)$/.exec(value);
  if (!m || Number(m[2]) > 65_535) throw new Error(`--http: send host:port (such as 127.0.0.1:3917), not "${value}"`);
  return { host: m[1] === '' ? '127.0.0.1' : m[1]!.replace(/^\[|\]$/g, ''), port: Number(m[2]) };
}

const MAX_BODY = 4 * 2 ** 20;
/** What is read (and dropped) of a body over MAX_BODY, so that its client gets the 413, before the connection is cut. */
const MAX_DISCARD = 64 * 2 ** 20;

/** A JSON-RPC error answer outside any session (as the SDK's transport writes its own); `close` ends the connection after it. */
function refuse(res: ServerResponse, status: number, code: number, message: string, close = false): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...(close ? { connection: 'close' } : {}) }).end(body);
}

/**
 * A request's JSON body, at most MAX_BODY bytes. Over it, the error (status 413) comes at once and
 * the rest of the body is read and dropped: a client still sending would otherwise see its
 * connection reset and never read the 413 (breaking out of `for await` destroys the socket).
 */
function body(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) return void chunks.push(chunk);
      // The chunk that goes over: the error, once.
      if (size - chunk.length <= MAX_BODY) {
        chunks.length = 0;
        reject(Object.assign(new Error('request body over 4 MiB'), { status: 413 }));
      }
      // A client that goes on and on is cut off.
      if (size > MAX_BODY + MAX_DISCARD) req.destroy();
    });
    req.once('end', () => {
      if (size > MAX_BODY) return;
      try {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve(text === '' ? undefined : (JSON.parse(text) as unknown));
      } catch (error) {
        reject(error);
      }
    });
    req.once('error', reject);
  });
}

/** `tot mcp`: returns when the server has stopped. */
export async function mcpCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      db: { type: 'string', default: './tot-sessions.db' },
      http: { type: 'string' },
      'max-open-sessions': { type: 'string', default: '64' },
      'max-thought-chars': { type: 'string', default: '400' },
      model: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${MCP_HELP}\n`);
    return 0;
  }
  const maxOpen = Number(values['max-open-sessions']);
  const maxThoughtChars = Number(values['max-thought-chars']);
  if (!Number.isInteger(maxOpen) || maxOpen < 1) throw new Error('--max-open-sessions: send a whole number of at least 1');
  if (!Number.isInteger(maxThoughtChars) || maxThoughtChars < 1) throw new Error('--max-thought-chars: send a whole number of at least 1');
  const store = await openStore(values.db!);
  const engine = new GotEngine({ store, limits: { maxThoughtChars } });
  const model = await serverModel(values.model);
  // One cache for every connection: an HTTP server's clients share the sessions they hold.
  const sessions = new SessionCache(engine, { maxOpen });
  const make = () => createMcpServer({ engine, sessions, ...(model ? { model } : {}) });
  let stopped!: () => void;
  const done = new Promise<void>((resolve) => (stopped = resolve));
  const closers: (() => Promise<void>)[] = [];
  let stopping = false;
  const shutdown = async (why: string) => {
    if (stopping) return;
    stopping = true;
    log(`stopping (${why})`);
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await store.close().catch(() => undefined);
    stopped();
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));

  if (!values.http) {
    const server = make();
    const transport = new StdioServerTransport();
    // The client went away: the SDK's transport does not watch for the end of stdin, so this does.
    process.stdin.once('end', () => void shutdown('stdin closed'));
    process.stdin.once('close', () => void shutdown('stdin closed'));
    await server.connect(transport);
    closers.push(() => server.close());
    log(`serving on stdio, sessions in ${shown(values.db!)}`);
  } else {
    const { host, port } = hostPort(values.http);
    const transports = new Map<string, StreamableHTTPServerTransport>();
    // Clients often go without a DELETE: a session idle for 30 minutes is closed, and at most
    // 1,000 are kept (the least recently used goes first).
    const lastUsed = new Map<string, number>();
    const IDLE_MS = 30 * 60_000;
    const MAX_TRANSPORTS = 1000;
    const touch = (sid: string) => {
      lastUsed.delete(sid);
      lastUsed.set(sid, Date.now());
      while (lastUsed.size > MAX_TRANSPORTS) {
        const oldest = lastUsed.keys().next().value as string;
        lastUsed.delete(oldest);
        void transports.get(oldest)?.close();
      }
    };
    const sweep = setInterval(() => {
      const now = Date.now();
      for (const [sid, at] of lastUsed) if (now - at > IDLE_MS) {
        lastUsed.delete(sid);
        void transports.get(sid)?.close();
      }
    }, 60_000);
    sweep.unref();
    // Bound to loopback, the server answers only requests addressed to it: a web page cannot
    // reach it through DNS rebinding (the MCP specification asks servers to check this).
    const loopback = ['127.0.0.1', 'localhost', '::1'].includes(host);
    // The Host names of this server, once it listens (its port may be the one the system gave it).
    const ownHosts = () => {
      const port = (http.address() as { port: number }).port;
      return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
    };
    const http = createServer((req: IncomingMessage, res: ServerResponse) => {
      void (async () => {
        try {
          // The Host is checked before anything of the request is read: a request a web page sent
          // through DNS rebinding gets its 403 and the connection is closed, its body neither parsed
          // nor drained. (The SDK's transport checks it again.)
          if (loopback && !ownHosts().includes(req.headers.host ?? '')) {
            refuse(res, 403, -32000, `Invalid Host header: ${req.headers.host}`, true);
            return;
          }
          const url = new URL(req.url ?? '/', 'http://localhost');
          if (url.pathname !== '/mcp') {
            res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'the MCP endpoint is /mcp' }));
            return;
          }
          const id = req.headers['mcp-session-id'];
          const sessionId = Array.isArray(id) ? id[0] : id;
          const existing = sessionId ? transports.get(sessionId) : undefined;
          if (existing && sessionId) touch(sessionId);
          if (req.method === 'POST') {
            // A body declared over the limit is refused before a byte of it is read. The client may
            // go on sending it: within MAX_DISCARD, the server reads it off the connection and drops
            // it (so that the client reads its 413, and the connection serves on); past that, the
            // connection is closed after the answer.
            const declared = Number(req.headers['content-length'] ?? Number.NaN);
            if (Number.isFinite(declared) && declared > MAX_BODY) {
              log(`request refused: a body of ${declared} bytes, over 4 MiB`);
              refuse(res, 413, -32700, 'request body over 4 MiB', declared > MAX_BODY + MAX_DISCARD);
              return;
            }
            const message = await body(req);
            if (existing) return void (await existing.handleRequest(req, res, message));
            if (sessionId || !isInitializeRequest(message)) {
              refuse(res, sessionId ? 404 : 400, -32000, sessionId ? 'unknown MCP session: initialize a new one' : 'send an initialize request first');
              return;
            }
            // One transport, and one server, per MCP session; resumable through its event store.
            const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
              sessionIdGenerator: () => randomUUID(),
              eventStore: new BoundedEventStore(),
              onsessioninitialized: (sid) => {
                transports.set(sid, transport);
                touch(sid);
              },
              ...(loopback ? { enableDnsRebindingProtection: true, allowedHosts: ownHosts() } : {}),
            });
            transport.onclose = () => {
              if (transport.sessionId) {
                transports.delete(transport.sessionId);
                lastUsed.delete(transport.sessionId);
              }
            };
            await make().connect(transport);
            await transport.handleRequest(req, res, message);
            return;
          }
          if (!existing) {
            res.writeHead(sessionId ? 404 : 400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'unknown or missing mcp-session-id' }));
            return;
          }
          await existing.handleRequest(req, res);
        } catch (error) {
          log(`request failed: ${error instanceof Error ? error.message : String(error)}`);
          const tooLarge = (error as { status?: number }).status === 413;
          if (!res.headersSent) refuse(res, tooLarge ? 413 : 400, -32700, tooLarge ? 'request body over 4 MiB' : 'bad request');
        }
      })();
    });
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(port, host, () => resolve());
    });
    const address = http.address();
    const actual = typeof address === 'object' && address ? address.port : port;
    closers.push(async () => {
      clearInterval(sweep);
      for (const t of transports.values()) await t.close().catch(() => undefined);
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      // Connections a client opened ahead and never used would hold close() open for ever.
      http.closeAllConnections();
      await closed;
    });
    log(`serving Streamable HTTP at http://${host}:${actual}/mcp, sessions in ${shown(values.db!)}`);
  }
  await done;
  return 0;
}
