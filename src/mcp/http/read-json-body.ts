import type { IncomingMessage } from 'node:http';
import { JsonDepthScanner } from './json-depth.js';

/** The largest request body `tot mcp --http` reads: 4 MiB. */
export const MAX_BODY_BYTES = 4 * 2 ** 20;
/** The deepest nesting of arrays and objects a request body may have. MCP messages nest a dozen levels at most. */
export const MAX_JSON_DEPTH = 64;
/** What is read (and dropped) of a refused body, so that its client reads the answer, before the connection is cut. */
export const MAX_DISCARD_BYTES = 64 * 2 ** 20;

/** Why a body was not taken, and the HTTP status its client gets (with a JSON-RPC parse error, -32700). */
export type BodyRefusal =
  | { reason: 'too_large'; status: 413; message: string }
  | { reason: 'too_deep'; status: 400; message: string }
  | { reason: 'not_json'; status: 400; message: string };

/** A request's body: the parsed JSON (`undefined` for an empty body), or why it was refused. */
export type JsonBody = { ok: true; value: unknown } | { ok: false; refusal: BodyRefusal };

/**
 * Reads a request's JSON body, refusing it as soon as it goes over `maxBytes` or nests deeper
 * than `maxDepth` (both checked on the raw bytes as they arrive, before any parsing). A refusal
 * settles at once, while the rest of the body is still read and dropped: a client still sending
 * would otherwise see its connection reset and never read its answer. A client that goes on past
 * `MAX_DISCARD_BYTES` more is cut off.
 *
 * @example
 * ```ts
 * const body = await readJsonBody(req);
 * if (!body.ok) return refuse(res, body.refusal.status, -32700, body.refusal.message);
 * ```
 */
export function readJsonBody(req: IncomingMessage, limits: { maxBytes?: number; maxDepth?: number } = {}): Promise<JsonBody> {
  const maxBytes = limits.maxBytes ?? MAX_BODY_BYTES;
  const maxDepth = limits.maxDepth ?? MAX_JSON_DEPTH;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const depth = new JsonDepthScanner();
    let size = 0;
    let refused = false;
    const refuse = (refusal: BodyRefusal) => {
      refused = true;
      chunks.length = 0;
      resolve({ ok: false, refusal });
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (refused) {
        if (size > maxBytes + MAX_DISCARD_BYTES) req.destroy();
        return;
      }
      if (size > maxBytes) return refuse({ reason: 'too_large', status: 413, message: `request body over ${mib(maxBytes)}` });
      if (depth.scan(chunk) > maxDepth) return refuse({ reason: 'too_deep', status: 400, message: `request body nested deeper than ${maxDepth} levels of arrays and objects` });
      chunks.push(chunk);
    });
    req.once('end', () => {
      if (refused) return;
      const text = Buffer.concat(chunks).toString('utf8');
      if (text === '') return resolve({ ok: true, value: undefined });
      try {
        resolve({ ok: true, value: JSON.parse(text) as unknown });
      } catch (error) {
        resolve({ ok: false, refusal: { reason: 'not_json', status: 400, message: `request body is no JSON: ${error instanceof Error ? error.message : String(error)}` } });
      }
    });
    req.once('error', reject);
  });
}

const mib = (bytes: number) => (bytes % 2 ** 20 === 0 ? `${bytes / 2 ** 20} MiB` : `${bytes} bytes`);
