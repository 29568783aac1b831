/**
 * Seed 001 §6.1 over node:http: `POST /deliberate` with `{ "message": "…", "mode": "multi_agent" }`
 * (or `GET /deliberate?message=…`) streams the deliberation as server-sent events — `toSSE` of
 * `planningDebate(…).stream(message)`. A client that disconnects before `[DONE]` cancels the
 * stream, which aborts the deliberation: no model call is made after it.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRunId, type LanguageModel } from '@tot/core';
import { planningDebate, toSSE, type DeliberationStopReason } from '@tot/core/deliberation';
import { ieltsModel } from './ielts-model.js';

/**
 * No embedder here, so the host measures lexically, whose defaults converge only on near-identical
 * positions. The scripted agents converge by adopting each other's wording, which TF-IDF does see:
 * these thresholds fit the scenario. Give a real deployment an embedder instead.
 */
export const SCENARIO_THRESHOLDS = { converge: 0.6, continue: 0.3 };

export interface DeliberationServerOptions {
  /** Default 0: any free port. */
  port?: number;
  /** Default `'127.0.0.1'`. */
  host?: string;
  /** The planner's, critic's and reporter's model. Default `ieltsModel()`, the seed's scenario. */
  model?: LanguageModel;
  /** Clock of `get_now` and of timestamps. Default `Date.now`. */
  now?: () => number;
  /** Time zone of `get_now`. Default the process's. */
  timeZone?: string;
}

/** How one request's deliberation ended. */
export interface RunOutcome {
  runId: string;
  /** From the run's `run.finished` event: `converged`, `aborted`, … */
  stopReason: DeliberationStopReason;
  /** The client went away before `[DONE]`, so the server cancelled the stream. */
  clientDisconnected: boolean;
  /** Model calls the run made (from its stats). */
  llmCalls: number;
}

export interface DeliberationServer {
  /** `http://host:port`, without a trailing slash. */
  readonly url: string;
  /** Deliberations started so far. */
  readonly runs: number;
  /** Clients that disconnected before their stream ended, so far. Counted before the stream is cancelled. */
  readonly disconnects: number;
  /** The latest deliberation's outcome, settled once its run has finished (aborted runs included). */
  readonly lastResult: Promise<RunOutcome> | undefined;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

/** The largest request body read; a deliberation request is a sentence or two. */
const MAX_BODY = 64 * 1024;
/** `Deliberation.run` refuses longer queries; refused here first, so the client gets a 400 rather than an SSE error. */
const MAX_MESSAGE = 100_000;

class BadRequest extends Error {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new BadRequest(`the request body is larger than ${MAX_BODY} bytes`, 413);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The message to deliberate on, from the query string (GET) or the JSON body (POST). */
async function requestedMessage(req: IncomingMessage, url: URL): Promise<string> {
  let message: unknown;
  let mode: unknown;
  if (req.method === 'GET') {
    message = url.searchParams.get('message') ?? undefined;
    mode = url.searchParams.get('mode') ?? undefined;
  } else {
    const text = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new BadRequest('the body is not JSON: send {"message": "…", "mode": "multi_agent"}');
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new BadRequest('the body must be a JSON object: {"message": "…", "mode": "multi_agent"}');
    ({ message, mode } = body as { message?: unknown; mode?: unknown });
  }
  if (typeof message !== 'string' || message.trim() === '') throw new BadRequest('give the message to deliberate on: {"message": "…"}');
  if (message.length > MAX_MESSAGE) throw new BadRequest(`the message is longer than ${MAX_MESSAGE} characters`);
  if (mode !== undefined && mode !== 'multi_agent') throw new BadRequest(`mode must be "multi_agent" (got ${JSON.stringify(mode)})`);
  return message;
}

/** Resolves when `res` can take more, or when it closed (whichever comes first). */
async function drained(res: ServerResponse): Promise<void> {
  if (res.destroyed) return;
  const ac = new AbortController();
  try {
    await Promise.race([once(res, 'drain', { signal: ac.signal }), once(res, 'close', { signal: ac.signal })]);
  } finally {
    ac.abort();
  }
}

/**
 * Starts the server; resolves once it listens.
 *
 * @example
 * ```ts
 * const server = await startDeliberationServer({ port: 8787 });
 * // curl -N -X POST localhost:8787/deliberate -d '{"message": "Help me plan three months of IELTS preparation", "mode": "multi_agent"}'
 * ```
 */
export async function startDeliberationServer(options: DeliberationServerOptions = {}): Promise<DeliberationServer> {
  const model = options.model ?? ieltsModel();
  let runs = 0;
  let disconnects = 0;
  let lastResult: Promise<RunOutcome> | undefined;

  const deliberate = (res: ServerResponse, message: string): Promise<RunOutcome> => {
    // One deliberation per request: the host's state (similarity cache, stubbornness) is the run's own.
    const d = planningDebate({ model, host: { lexicalThresholds: SCENARIO_THRESHOLDS }, ...(options.now ? { now: options.now } : {}), ...(options.timeZone ? { timeZone: options.timeZone } : {}) });
    const runId = createRunId();
    // The SSE stream shows no event for a normal end, and none at all once the client is gone:
    // the outcome is read from the run's own run.finished event.
    let finished: { stopReason: string; llmCalls: number } | undefined;
    d.on('run.finished', (e) => {
      if (e.runId === runId) finished = { stopReason: e.stopReason, llmCalls: Number(e.stats.llmCalls ?? 0) };
    });
    const reader = toSSE(d.stream(message, { runId })).getReader();
    let ended = false;
    let cancelled: Promise<void> | undefined;
    let clientDisconnected = false;
    res.on('close', () => {
      if (ended) return;
      clientDisconnected = true;
      disconnects += 1;
      // Resolves once the run has stopped (the stream's cancel waits for it).
      cancelled = reader.cancel();
    });
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
    res.flushHeaders();

    return (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          if (!res.write(value)) await drained(res);
        }
      } finally {
        ended = true;
        res.end();
      }
      await cancelled;
      if (!finished) throw new Error(`deliberation ${runId} ended without a run.finished event`);
      return { runId, stopReason: finished.stopReason as DeliberationStopReason, clientDisconnected, llmCalls: finished.llmCalls };
    })();
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== '/deliberate') return sendJson(res, 404, { error: 'not_found', message: 'POST /deliberate' });
    if (req.method !== 'POST' && req.method !== 'GET') {
      res.setHeader('allow', 'GET, POST');
      return sendJson(res, 405, { error: 'method_not_allowed', message: 'POST /deliberate with {"message": "…", "mode": "multi_agent"}' });
    }
    requestedMessage(req, url).then(
      (message) => {
        // Gone while its body was read: there is no one to deliberate for.
        if (res.destroyed) return;
        runs += 1;
        const outcome = deliberate(res, message);
        // Read by whoever asks for lastResult; the handler itself has nothing to do with a failure.
        outcome.catch(() => {});
        lastResult = outcome;
      },
      (error: unknown) => {
        if (error instanceof BadRequest) return sendJson(res, error.status, { error: 'bad_request', message: error.message });
        sendJson(res, 500, { error: 'internal', message: error instanceof Error ? error.message : String(error) });
      },
    );
  });

  server.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  await once(server, 'listening');
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    url: `http://${host}:${address.port}`,
    get runs() {
      return runs;
    },
    get disconnects() {
      return disconnects;
    },
    get lastResult() {
      return lastResult;
    },
    async close() {
      const closed = once(server, 'close');
      server.close();
      // Keep-alive and still-streaming connections would hold close() open.
      server.closeAllConnections();
      await closed;
    },
  };
}
