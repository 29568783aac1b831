import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the server received. */
export interface WireRequest {
  /** `/v1/chat/completions` or `/v1/embeddings`. */
  path: string;
  // The parsed JSON body, as the client sent it.
  body: Record<string, any>;
  headers: IncomingHttpHeaders;
  /** `performance.now()` when the body had arrived. */
  at: number;
  /** Set when the client closed the connection before the reply was sent. */
  closedByClient: boolean;
}

/** A reply: a JSON body (status 200 unless given), a raw body, or no reply at all until the client gives up. */
export type WireReply = { status?: number; headers?: Record<string, string>; json: unknown } | { status?: number; headers?: Record<string, string>; text: string } | { hang: true };

export type WireHandler = (request: WireRequest, index: number) => WireReply | Promise<WireReply>;

export interface WireServer {
  /** The base URL a client takes (`http://127.0.0.1:<port>/v1`). */
  readonly url: string;
  readonly requests: WireRequest[];
  /** Replaces the handler (tests share one server). */
  handle(handler: WireHandler): void;
  /** Resolves when a request is closed by its client before its reply. */
  clientClosed(): Promise<WireRequest>;
  reset(): void;
  close(): Promise<void>;
}

/** A chat completion body with one choice per output. */
export function chatCompletion(
  outputs: string[],
  options: { finishReason?: string | string[]; usage?: { prompt_tokens: number; completion_tokens: number } | null; model?: string } = {},
): unknown {
  const reasons = Array.isArray(options.finishReason) ? options.finishReason : outputs.map(() => options.finishReason ?? 'stop');
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: options.model ?? 'test-model',
    choices: outputs.map((content, index) => ({ index, message: { role: 'assistant', content }, finish_reason: reasons[index], logprobs: null })),
    ...(options.usage === null ? {} : { usage: { ...(options.usage ?? { prompt_tokens: 10, completion_tokens: 5 }), total_tokens: 0 } }),
  };
}

/** An OpenAI error body. */
export function errorBody(message: string, type: string, code: string | null = null): unknown {
  return { error: { message, type, param: null, code } };
}

/** An embeddings body: one vector per input, in the order given. */
export function embeddingList(vectors: number[][]): unknown {
  return {
    object: 'list',
    data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
    model: 'test-embedder',
    usage: { prompt_tokens: vectors.length, total_tokens: vectors.length },
  };
}

/** The last user message of a chat request. */
export const lastUserMessage = (request: WireRequest): string =>
  [...(request.body.messages as { role: string; content: string }[])].reverse().find((m) => m.role === 'user')?.content ?? '';

/**
 * A local HTTP server that speaks the OpenAI chat-completions and embeddings wire format, for
 * driving the real `openai` client and the AI SDK's OpenAI-compatible provider without a network.
 * It records every request and notices when a client closes a connection early.
 */
export async function startWireServer(handler: WireHandler = () => ({ json: chatCompletion(['ok']) })): Promise<WireServer> {
  let current = handler;
  const requests: WireRequest[] = [];
  const closeWaiters: ((request: WireRequest) => void)[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const request: WireRequest = { path: req.url ?? '', body: text === '' ? {} : JSON.parse(text), headers: req.headers, at: performance.now(), closedByClient: false };
      const index = requests.push(request) - 1;
      res.on('close', () => {
        if (res.writableFinished) return;
        request.closedByClient = true;
        for (const waiter of closeWaiters.splice(0)) waiter(request);
      });
      void Promise.resolve(current(request, index)).then((reply) => {
        if ('hang' in reply) return;
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
        res.end('text' in reply ? reply.text : JSON.stringify(reply.json));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    handle(next) {
      current = next;
    },
    clientClosed: () => new Promise((resolve) => closeWaiters.push(resolve)),
    reset() {
      requests.length = 0;
      current = handler;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
