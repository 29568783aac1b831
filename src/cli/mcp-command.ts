import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { SessionEngine } from '../sessions/session-engine.js';
import type { LanguageModel } from '../model/types.js';
import { createMcpServer } from '../mcp/create-mcp-server.js';
import { canonicalOrigin, serveHttp } from '../mcp/http/serve-http.js';
import { DEFAULT_SESSION_TABLE_LIMITS } from '../mcp/http/session-table.js';
import { SessionCache } from '../mcp/session-cache.js';
import { openStore } from './open-store.js';
import { CommandError } from './read-store.js';

export const MCP_HELP = `tot mcp: the session engine as an MCP server

Usage: tot mcp [options]

Options:
  --db <file | postgres://… | memory>
                               where sessions live (default ./tot-sessions.db; a PostgreSQL URL
                               shares them between servers; memory keeps nothing)
  --http <host:port>           serve Streamable HTTP at http://host:port/mcp instead of stdio
  --allowed-origin <origin>    with --http: an origin (such as http://localhost:5173) whose pages may
                               call the server, besides its own; repeat for more
  --max-http-sessions <n>      with --http: MCP sessions (clients) held at once (default 256)
  --max-http-sessions-per-client <n>
                               with --http: MCP sessions held at once for one client address
                               (default 64)
  --max-open-sessions <n>      sessions held in memory at once, an LRU over the store (default 64)
  --max-thought-chars <n>      characters a thought may have (default 400)
  --approve-plans              think_export_plan hands out a plan only once a person approved it:
                               asked through the client's elicitation when it can, else named in
                               the tool's result and answered with think_answer
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
  if (!m || Number(m[2]) > 65_535) throw new CommandError(`--http: send host:port (such as 127.0.0.1:3917), not "${value}"`);
  return { host: m[1] === '' ? '127.0.0.1' : m[1]!.replace(/^\[|\]$/g, ''), port: Number(m[2]) };
}

/** A whole number of at least `min` from a flag's text. */
function whole(flag: string, value: string, min: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new CommandError(`--${flag}: send a whole number of at least ${min}`);
  return n;
}

/** `tot mcp`: returns, with the process's exit status, when the server has stopped. */
export async function mcpCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      db: { type: 'string', default: './tot-sessions.db' },
      http: { type: 'string' },
      'allowed-origin': { type: 'string', multiple: true, default: [] },
      'max-http-sessions': { type: 'string', default: String(DEFAULT_SESSION_TABLE_LIMITS.maxSessions) },
      'max-http-sessions-per-client': { type: 'string', default: String(DEFAULT_SESSION_TABLE_LIMITS.maxPerClient) },
      'max-open-sessions': { type: 'string', default: '64' },
      'max-thought-chars': { type: 'string', default: '400' },
      model: { type: 'string' },
      'approve-plans': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${MCP_HELP}\n`);
    return 0;
  }
  const maxOpen = whole('max-open-sessions', values['max-open-sessions']!, 1);
  const maxThoughtChars = whole('max-thought-chars', values['max-thought-chars']!, 1);
  const maxHttpSessions = whole('max-http-sessions', values['max-http-sessions']!, 1);
  const maxPerClient = whole('max-http-sessions-per-client', values['max-http-sessions-per-client']!, 1);
  const address = values.http === undefined ? undefined : hostPort(values.http);
  const allowedOrigins = values['allowed-origin']!.map((value) => {
    const origin = canonicalOrigin(value);
    if (origin === undefined) throw new CommandError(`--allowed-origin: send an origin such as http://localhost:5173, not "${value}"`);
    return origin;
  });
  const store = await openStore(values.db!);
  const engine = new SessionEngine({ store, limits: { maxThoughtChars } });
  const model = await serverModel(values.model);
  // One cache for every connection: an HTTP server's clients share the sessions they hold.
  const sessions = new SessionCache(engine, { maxOpen });
  const make = () => createMcpServer({ engine, sessions, approvePlans: values['approve-plans']!, ...(model ? { model } : {}) });
  let stopped!: (code: number) => void;
  const done = new Promise<number>((resolve) => (stopped = resolve));
  const closers: (() => Promise<void>)[] = [];
  let stopping = false;
  const shutdown = async (why: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    log(`stopping (${why})`);
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await store.close().catch(() => undefined);
    stopped(code);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));

  if (!address) {
    const server = make();
    const transport = new StdioServerTransport(process.stdin, process.stdout, { maxBufferSize: STDIO_DEFAULT_MAX_BUFFER_SIZE });
    // The client went away: the SDK's transport does not watch for the end of stdin, so this does.
    process.stdin.once('end', () => void shutdown('stdin closed'));
    process.stdin.once('close', () => void shutdown('stdin closed'));
    // The transport closes itself on an error it cannot go on from (a message over its buffer,
    // 10 MiB): the server then has no client, and says why before it exits with an error.
    let lastError: Error | undefined;
    server.server.onerror = (error) => void (lastError = error);
    server.server.onclose = () => {
      const why = lastError ? `the stdio transport closed on an error: ${lastError.message}` : 'the stdio transport closed';
      const limit = lastError && /exceeded maximum size/i.test(lastError.message) ? ` (a message from the client over ${STDIO_DEFAULT_MAX_BUFFER_SIZE / 2 ** 20} MiB, the most the MCP SDK reads over stdio)` : '';
      void shutdown(`${why}${limit}`, 1);
    };
    await server.connect(transport);
    closers.push(() => server.close());
    log(`serving on stdio, sessions in ${shown(values.db!)}`);
  } else {
    const http = await serveHttp({
      ...address,
      makeServer: make,
      allowedOrigins,
      sessions: { maxSessions: maxHttpSessions, maxPerClient },
      log,
    });
    closers.push(() => http.close());
    log(`serving Streamable HTTP at ${http.url.href}, sessions in ${shown(values.db!)}`);
  }
  return done;
}
