// `tot mcp` over stdio when a client sends a message over 10 MiB, the most the MCP SDK's stdio
// transport reads: the transport closes, and the server says why on stderr and exits with an
// error instead of going quietly. The built command, spawned.
import { describe, expect, it } from 'vitest';
import { startRawStdio, useCliTempDb } from '../helpers/tot-cli.js';

const temp = useCliTempDb('tot-mcp-stdio-limits-', 's.db');

describe('tot mcp over stdio: a message over 10 MiB', () => {
  it('logs why on stderr and exits with status 1', async () => {
    const raw = startRawStdio(['--db', temp.db]);
    // The server stops reading while this is still being written: the rest of it has nowhere to go.
    raw.child.stdin!.on('error', () => undefined);
    const exited = new Promise<number | null>((resolve) => raw.child.once('exit', (code) => resolve(code)));
    raw.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    expect(await raw.next()).toMatchObject({ id: 1, result: { serverInfo: expect.any(Object) } });
    raw.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'think_session_start', arguments: { goal: 'x'.repeat(11 * 2 ** 20) } } });
    expect(await exited).toBe(1);
    expect(raw.stderr()).toContain('stopping (the stdio transport closed on an error: ReadBuffer exceeded maximum size of 10485760 bytes (a message from the client over 10 MiB, the most the MCP SDK reads over stdio))');
    // The SDK's transport copies its whole buffer for each chunk it reads: 10 MiB take seconds on a busy machine.
  }, 60_000);
});
