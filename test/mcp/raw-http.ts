// Raw HTTP requests to `tot mcp --http` (node:http, which sends the Host and other headers it is
// given, from the local address it is given): what a browser page, a flood or a hand-made body
// sends, where the SDK's client would not.
import { request as httpRequest } from 'node:http';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * A request to the server, answered in full; but an answer that is an event stream (which does
 * not end) settles at its head, its body unread and the request dropped.
 */
export function raw(url: URL, options: { method?: string; host?: string; headers?: Record<string, string>; body?: string | Buffer; localAddress?: string }): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: options.method ?? 'POST',
        headers: { ...(options.host ? { host: options.host } : {}), ...options.headers },
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
      },
      (res) => {
        if (res.headers['content-type'] === 'text/event-stream') {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '' });
          req.destroy();
          return;
        }
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** An initialize request, as a client's first message. */
export const initialize = (id = 1) => JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });

/** The headers a Streamable HTTP client sends with a POST. */
export const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
