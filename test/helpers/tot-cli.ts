// The built `tot` command (dist/cli/tot.js, what users run; a private build of the same sources
// when dist is older than they are) for the command's tests and the MCP integration tests, which it
// also starts as servers, stopping every process it started.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, type StreamableHTTPClientTransportOptions } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { ensureDist } from './ensure-dist.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const built = `${root}dist/cli/tot.js`;
let cli = built;

/** The command the tests run: dist/cli/tot.js, or a fresh build of its sources when dist is older than they are (see ensureCli). */
export const totCli = () => cli;

const newest = (dir: string): number => {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
};

/**
 * Makes sure there is a `tot` command built from the current sources. CI builds dist before the
 * tests, and ensureDist builds it when it is missing: then dist/cli/tot.js is what runs, as users
 * run it. When a source is newer than dist/cli/tot.js (a local edit since the last build), the
 * command is built the same way (tsup, ESM, node20, the database drivers external) into
 * .tmp/mcp-cli/<sources' time>/ instead: rebuilding dist itself would pull it from under the other
 * test files that read it.
 */
export async function ensureCli(): Promise<void> {
  await ensureDist();
  const sources = Math.floor(newest(`${root}src`));
  if (existsSync(built) && statSync(built).mtimeMs >= sources) {
    cli = built;
    return;
  }
  const dir = `${root}.tmp/mcp-cli/${sources}`;
  const lock = `${root}.tmp/mcp-cli/${sources}.lock`;
  mkdirSync(`${root}.tmp/mcp-cli`, { recursive: true });
  for (;;) {
    if (existsSync(`${dir}/tot.js`)) break;
    try {
      mkdirSync(lock);
    } catch {
      if (Date.now() - statSync(lock, { throwIfNoEntry: false })!.mtimeMs > 300_000) rmSync(lock, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 200));
      continue;
    }
    try {
      const tmp = `${dir}.partial`;
      rmSync(tmp, { recursive: true, force: true });
      execFileSync('npx', ['tsup', 'src/cli/tot.ts', '--no-config', '--format', 'esm', '--target', 'node20', '--external', 'better-sqlite3', '--external', 'pg', '--out-dir', tmp, '--silent'], { cwd: root, stdio: 'ignore' });
      renameSync(tmp, dir);
      // Builds of older sources an hour old or more are not in use.
      for (const old of readdirSync(`${root}.tmp/mcp-cli`)) {
        const path = `${root}.tmp/mcp-cli/${old}`;
        if (old !== String(sources) && Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path, { recursive: true, force: true });
      }
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
  cli = `${dir}/tot.js`;
}

/** What `tot` wrote and how it exited. */
export interface TotOutput {
  code: number | null;
  stdout: string;
  stderr: string;
}

const helps = new Map<string, TotOutput>();

/**
 * `tot …args` for a command that reads and writes nothing (a `--help`), run once per vitest worker
 * and shared by the test files that read its output: each start costs about half a second of CPU,
 * and the command tests and the user-words test ask for the same help texts.
 */
export function totHelp(args: readonly string[]): TotOutput {
  if (!args.includes('--help')) throw new Error(`totHelp runs help commands only, not tot ${args.join(' ')}`);
  const key = `${cli}\0${args.join('\0')}`;
  let out = helps.get(key);
  if (!out) {
    const r = spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: 'utf8', timeout: 120_000 });
    out = { code: r.status, stdout: r.stdout, stderr: r.stderr };
    helps.set(key, out);
  }
  return out;
}

/** What was started, to stop in afterEach. */
const started = new Set<{ stop(): Promise<void> }>();

/** Stops every server and client the tests started (afterEach). */
export async function stopAll(): Promise<void> {
  const all = [...started];
  started.clear();
  await Promise.all(all.map((s) => s.stop().catch(() => undefined)));
}

/**
 * The lifecycle every test file of the spawned server shares: the command built once, a fresh
 * folder with a database path in it before each test, and after each test every server stopped
 * and the folder removed. Read `dir` and `db` inside tests (they change per test).
 */
export function useCliTempDb(prefix: string, file: string): { readonly dir: string; readonly db: string } {
  const paths = { dir: '', db: '' };
  beforeAll(async () => {
    await ensureCli();
  }, 180_000);
  beforeEach(() => {
    paths.dir = mkdtempSync(join(tmpdir(), prefix));
    paths.db = join(paths.dir, file);
  });
  afterEach(async () => {
    await stopAll();
    rmSync(paths.dir, { recursive: true, force: true });
  });
  return paths;
}

const alive = (pid: number | null | undefined) => {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Waits until a process is gone (polling its pid: the stdio transport hides its ChildProcess). */
async function gone(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (alive(pid)) {
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

export interface StdioServer {
  client: Client;
  transport: StdioClientTransport;
  pid: number;
  /** What the server wrote to stderr so far. */
  stderr(): string;
  /** Kills the server with SIGKILL and waits until the client has seen it go. */
  kill(): Promise<void>;
}

/** A client that answers sampling requests when `sampling` is given. */
export function newClient(name: string, sampling = false, elicitation = false): Client {
  return new Client({ name, version: '1.0.0' }, { capabilities: { ...(sampling ? { sampling: {} } : {}), ...(elicitation ? { elicitation: { form: {} } } : {}) } });
}

/**
 * `tot mcp …args` over stdio, connected with the SDK's client. `setup` runs on the client before
 * it connects (a sampling handler).
 */
export async function startStdio(args: string[], options: { sampling?: boolean; elicitation?: boolean; setup?: (client: Client) => void; env?: Record<string, string> } = {}): Promise<StdioServer> {
  return launchStdio(args, options, started);
}

/** {@link startStdio}, its stopping registered in `registry` (the test's, or a file's shared server). */
async function launchStdio(args: string[], options: { sampling?: boolean; elicitation?: boolean; setup?: (client: Client) => void; env?: Record<string, string> }, registry: Set<{ stop(): Promise<void> }>): Promise<StdioServer> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [cli, 'mcp', ...args], stderr: 'pipe', cwd: root, ...(options.env ? { env: options.env } : {}) });
  let err = '';
  transport.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const client = newClient('stdio-test', options.sampling ?? false, options.elicitation ?? false);
  options.setup?.(client);
  const closed = new Promise<void>((resolve) => (client.onclose = resolve));
  const entry = {
    async stop() {
      const pid = transport.pid;
      await client.close().catch(() => undefined);
      if (pid && !(await gone(pid, 3000))) {
        process.kill(pid, 'SIGKILL');
        await gone(pid, 3000);
      }
    },
  };
  registry.add(entry);
  await client.connect(transport);
  const pid = transport.pid!;
  return {
    client,
    transport,
    pid,
    stderr: () => err,
    async kill() {
      process.kill(pid, 'SIGKILL');
      await closed;
      await gone(pid, 3000);
      registry.delete(entry);
    },
  };
}

/** One stdio server for the tests of a file: see {@link useSharedStdio}. */
export interface SharedStdio {
  /** The server's SQLite file (in a folder of the file's own). */
  readonly db: string;
  /** The server and its client, started at the first call and again when a test ended it. */
  server(): Promise<StdioServer>;
}

/**
 * One `tot mcp --db <file> …args` over stdio for the tests of a file that need nothing of a server
 * but that it answers, each test with GoT sessions of its own: a start costs about a second of
 * CPU. Stopped after the file's last test; started afresh when a test ended it.
 */
export function useSharedStdio(prefix: string, args: string[] = []): SharedStdio {
  let dir = '';
  const mine = new Set<{ stop(): Promise<void> }>();
  let current: Promise<StdioServer> | undefined;
  beforeAll(async () => {
    await ensureCli();
    dir = mkdtempSync(join(tmpdir(), prefix));
  }, 180_000);
  afterAll(async () => {
    await Promise.all([...mine].map((s) => s.stop().catch(() => undefined)));
    mine.clear();
    current = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const shared: SharedStdio = {
    get db() {
      return join(dir, 'shared.db');
    },
    async server() {
      const running = await current?.catch(() => undefined);
      if (running && alive(running.pid)) return running;
      // What is left of a server a test ended.
      await Promise.all([...mine].map((s) => s.stop().catch(() => undefined)));
      mine.clear();
      current = launchStdio(['--db', shared.db, ...args], {}, mine);
      return current;
    },
  };
  return shared;
}

export interface RawStdioServer {
  child: ChildProcess;
  /** Writes a line to the server's stdin (an object is sent as JSON). */
  send(message: string | Record<string, unknown>): void;
  /** The next JSON-RPC message the server writes to stdout (each line is one); rejects after `ms` without taking a later one. */
  next(ms?: number): Promise<Record<string, unknown>>;
  /** Every non-empty line the server wrote to stdout so far, in order. */
  lines(): string[];
  /** The lines of stdout that are no JSON-RPC message (not JSON, or JSON that is no `jsonrpc: "2.0"` object): none, from a server that keeps stdout to the protocol. */
  strayLines(): string[];
  stderr(): string;
}

const isJsonRpc = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value) && (value as { jsonrpc?: unknown }).jsonrpc === '2.0';

/**
 * `tot mcp …args` over stdio without the SDK's client: the test writes the lines itself (a line that
 * is no JSON, say) and reads the server's JSON-RPC messages one by one. Lines of stdout that are no
 * JSON-RPC message are kept aside (`strayLines`), not thrown on. `command` runs another program
 * instead of `tot mcp` (to test this helper).
 */
export function startRawStdio(args: string[], options: { command?: string[] } = {}): RawStdioServer {
  const [program, ...programArgs] = options.command ?? [process.execPath, cli, 'mcp', ...args];
  const child = spawn(program!, programArgs, { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let err = '';
  let buffer = '';
  const all: string[] = [];
  const stray: string[] = [];
  const messages: Record<string, unknown>[] = [];
  const waiting: ((m: Record<string, unknown>) => void)[] = [];
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (line === '') continue;
      all.push(line);
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        message = undefined;
      }
      if (!isJsonRpc(message)) {
        stray.push(line);
        continue;
      }
      const waiter = waiting.shift();
      if (waiter) waiter(message);
      else messages.push(message);
    }
  });
  started.add({
    async stop() {
      child.stdin!.end();
      if (child.exitCode === null && child.signalCode === null) {
        const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
        await exited;
        clearTimeout(timer);
      }
    },
  });
  return {
    child,
    send: (message) => void child.stdin!.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`),
    next(ms = 10_000) {
      const ready = messages.shift();
      if (ready) return Promise.resolve(ready);
      return new Promise((resolve, reject) => {
        const waiter = (m: Record<string, unknown>) => {
          clearTimeout(timer);
          resolve(m);
        };
        const timer = setTimeout(() => {
          // A waiter that gave up leaves the queue: the next message goes to the next call of next().
          const at = waiting.indexOf(waiter);
          if (at >= 0) waiting.splice(at, 1);
          reject(new Error(`tot mcp wrote no message in ${ms} ms; stderr: ${err}`));
        }, ms);
        waiting.push(waiter);
      });
    },
    lines: () => [...all],
    strayLines: () => [...stray],
    stderr: () => err,
  };
}

export interface HttpServer {
  child: ChildProcess;
  url: URL;
  stderr(): string;
  /** What it wrote to stdout (nothing, when it serves HTTP). */
  stdout(): string;
  /** A new MCP client (a new MCP session) on the server; `transport`: the client transport's options (a fetch of the test's, reconnection delays). */
  connect(options?: { sampling?: boolean; setup?: (client: Client) => void; transport?: StreamableHTTPClientTransportOptions }): Promise<Client>;
}

/** A server started by {@link launchHttp}, and how to stop it (its clients closed first). */
interface LaunchedHttp {
  server: HttpServer;
  /** Closes the clients `connect` made so far (their MCP sessions stay on the server). */
  closeClients(): Promise<void>;
  stop(): Promise<void>;
}

/** `tot mcp --http 127.0.0.1:0 …args`, resolved once it serves; nothing stops it but `stop`. */
async function launchHttp(args: string[]): Promise<LaunchedHttp> {
  const child = spawn(process.execPath, [cli, 'mcp', '--http', '127.0.0.1:0', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  let out = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const clients: Client[] = [];
  const closeClients = async () => {
    await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
  };
  const stop = async () => {
    await closeClients();
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 1000);
      await exited;
      clearTimeout(timer);
    }
  };
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const url = await new Promise<URL>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString('utf8');
      const m = /serving Streamable HTTP at (http:\/\/127\.0\.0\.1:(\d+)\/mcp)/.exec(err);
      if (m) resolve(new URL(m[1]!));
    });
    void exited.then(() => reject(new Error(`tot mcp --http exited before serving: ${err}${out}`)));
  }).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  const server: HttpServer = {
    child,
    url,
    stderr: () => err,
    stdout: () => out,
    async connect(options = {}) {
      const client = newClient('http-test', options.sampling ?? false);
      options.setup?.(client);
      clients.push(client);
      await client.connect(new StreamableHTTPClientTransport(url, options.transport));
      return client;
    },
  };
  return { server, closeClients, stop };
}

/**
 * `tot mcp --http 127.0.0.1:0 …args` as a child process; resolves once it logs its address on
 * stderr (the port it was given by the system). Stopped after the test (stopAll).
 */
export async function startHttp(args: string[]): Promise<HttpServer> {
  let stop: () => Promise<void> = async () => undefined;
  const entry = { stop: () => stop() };
  // Registered before it serves: a test that fails while it starts still has it stopped.
  started.add(entry);
  const launched = await launchHttp(args);
  stop = launched.stop;
  return launched.server;
}

/** One server for the tests of a file: see {@link useSharedHttp}. */
export interface SharedHttp {
  /** The server's SQLite file (in a folder of the file's own). */
  readonly db: string;
  /** The server, started at the first call and again when a test ended it. */
  server(): Promise<HttpServer>;
}

/**
 * One `tot mcp --http --db <file> …args` for the tests of a file that need nothing of a server but
 * that it serves, each test with GoT sessions of its own: a start costs about a second of CPU,
 * which a server per test paid a dozen times over. Each test's clients are closed after it; the
 * server is stopped after the file's last test, and started afresh if a test ended it.
 */
export function useSharedHttp(prefix: string, args: string[] = []): SharedHttp {
  let dir = '';
  let current: Promise<LaunchedHttp> | undefined;
  beforeAll(async () => {
    await ensureCli();
    dir = mkdtempSync(join(tmpdir(), prefix));
  }, 180_000);
  afterEach(async () => {
    await (await current?.catch(() => undefined))?.closeClients();
  });
  afterAll(async () => {
    await (await current?.catch(() => undefined))?.stop();
    current = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const shared: SharedHttp = {
    get db() {
      return join(dir, 'shared.db');
    },
    async server() {
      const running = await current?.catch(() => undefined);
      if (running && running.server.child.exitCode === null && running.server.child.signalCode === null) return running.server;
      current = launchHttp(['--db', shared.db, ...args]);
      return (await current).server;
    },
  };
  return shared;
}
