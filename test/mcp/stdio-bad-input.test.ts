// Bad input to the spawned `tot mcp` over stdio (the built command, a SQLite file): wrong types,
// an unknown session, an illegal branch transition, a 401-character thought, a tool it does not
// have, a line that is no JSON at all. Each is answered (an isError result that says what to send,
// or a JSON-RPC error), and the same process is alive and answers the next call.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { structured, text } from '../helpers/mcp-sampling.js';
import { startRawStdio, type StdioServer, useCliTempDb, useSharedStdio } from '../helpers/tot-cli.js';

const temp = useCliTempDb('tot-mcp-bad-', 'b.db');
// One server takes every test's bad input, each test in a GoT session of its own: it must outlive
// them all, and a server's start costs about a second of CPU.
const shared = useSharedStdio('tot-mcp-bad-shared-');

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('tot mcp over stdio: bad input', () => {
  let server: StdioServer;
  let client: Client;
  let session: string;
  const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

  /** An isError result saying each of `says`. */
  const refused = (r: CallToolResult, ...says: (string | RegExp)[]) => {
    expect(r.isError, JSON.stringify(r)).toBe(true);
    for (const s of says) expect(text(r)).toMatch(s);
  };

  /** The same process is alive, answers the next call, and the session has `thoughts` thoughts. */
  const stillAnswers = async (thoughts: number) => {
    expect(alive(server.pid)).toBe(true);
    const status = structured<{ session_state: string; thoughts: number }>(await call('think_session_status', { session_id: session }));
    expect(status).toMatchObject({ session_state: 'active', thoughts });
  };

  beforeEach(async () => {
    server = await shared.server();
    client = server.client;
    session = structured<{ session_id: string }>(await call('think_session_start', { goal: 'Make the importer resumable', budget: { max_branches: '3' } })).session_id;
  });

  it('refuses wrong types (a number for text, a word for a number, an object for a list, a bad enum), naming the field and what to send', async () => {
    refused(await call('think_plan_step', { session_id: session, content: 5 }), 'content: send the thought as text');
    await stillAnswers(0);
    refused(await call('think_session_start', { goal: 'Budgeted', budget: { max_tokens: 'lots' } }), 'budget.max_tokens: send a whole number');
    await stillAnswers(0);
    refused(await call('think_branch_fork', { session_id: session, from: 't0', names: { first: 'a' } }), 'names: send a list of strings');
    await stillAnswers(0);
    refused(await call('think_plan_step', { session_id: session, content: 'ok', role: 'boss' }), 'role: send one of planner, critic, tester, decider');
    await stillAnswers(0);
    refused(await call('think_plan_step', { session_id: 42, content: 'ok' }), 'session_id: send the id think_session_start returned');
    await stillAnswers(0);
    // Strings for numbers and booleans are not wrong: they are taken.
    const step = structured<{ thought_id: string }>(await call('think_plan_step', { session_id: session, content: 'Counted.', tokens: '12' }));
    expect(step.thought_id).toBe('t0');
    await stillAnswers(1);
  });

  it('refuses an unknown session, saying to start one', async () => {
    refused(await call('think_plan_step', { session_id: 'sess_does-not-exist', content: 'lost' }), 'sess_does-not-exist', /start a session/);
    refused(await call('think_digest', { session_id: 'sess_does-not-exist' }), 'INVALID_ARGUMENT', 'Fix the argument it names');
    await stillAnswers(0);
  });

  it('refuses a 401-character thought, saying to split it; 400 characters are taken', async () => {
    refused(await call('think_plan_step', { session_id: session, content: 'x'.repeat(401) }), '401 characters, over the limit of 400', 'split it');
    await stillAnswers(0);
    expect(structured<{ thought_id: string }>(await call('think_plan_step', { session_id: session, content: 'x'.repeat(400) })).thought_id).toBe('t0');
    await stillAnswers(1);
  });

  it('refuses an illegal branch transition, naming the triggers the state accepts, and leaves the branch as it was', async () => {
    await call('think_plan_step', { session_id: session, content: 'root' });
    await call('think_branch_fork', { session_id: session, from: 't0', names: ['a'] });
    refused(await call('think_branch_transition', { session_id: session, branch_id: 'br0', trigger: 'validate_pass' }), 'ILLEGAL_STATE', 'in state init cannot take validate_pass', 'it accepts user_input');
    await stillAnswers(1);
    const status = structured<{ branches: { state: string }[] }>(await call('think_session_status', { session_id: session }));
    expect(status.branches.map((b) => b.state)).toEqual(['init']);
  });

  it('answers a tool it does not have with an isError result, and goes on', async () => {
    refused(await call('think_harder', { session_id: session }), 'Tool think_harder not found');
    await stillAnswers(0);
  });

});

describe('tot mcp over stdio: stdout holds the protocol only', () => {
  it('writes nothing but the protocol to stdout, and no stack trace to stderr, after all of them', async () => {
    // The raw client sees every line of stdout (the SDK's client would hide a stray one in an error).
    const raw = startRawStdio(['--db', temp.db]);
    let id = 0;
    const request = async (method: string, params?: Record<string, unknown>) => {
      id += 1;
      raw.send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
      const reply = await raw.next();
      expect(reply).toMatchObject({ jsonrpc: '2.0', id });
      return reply as { result?: { structuredContent?: Record<string, unknown>; isError?: boolean } };
    };
    const tool = (name: string, args: Record<string, unknown>) => request('tools/call', { name, arguments: args });
    await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
    raw.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const session = (await tool('think_session_start', { goal: 'Make the importer resumable' })).result!.structuredContent!.session_id;
    expect((await tool('think_plan_step', { session_id: session, content: 5 })).result!.isError).toBe(true);
    expect((await tool('think_plan_step', { session_id: 'sess_x', content: 'lost' })).result!.isError).toBe(true);
    expect((await tool('think_plan_step', { session_id: session, content: 'x'.repeat(401) })).result!.isError).toBe(true);
    expect((await tool('think_harder', { session_id: session })).result!.isError).toBe(true);
    expect((await tool('think_session_status', { session_id: session })).result!.structuredContent).toMatchObject({ session_state: 'active', thoughts: 0 });
    // Answered last: anything the server wrote to stdout before it is in the lines read.
    await request('ping');
    expect(raw.strayLines()).toEqual([]);
    const lines = raw.lines();
    expect(lines).toHaveLength(id);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0', id: expect.any(Number) });
    expect(raw.stderr()).not.toMatch(/\n\s+at /);
  });
});

describe('tot mcp over stdio: lines that are not JSON-RPC', () => {
  it('skips a line that is no JSON and answers the requests after it', async () => {
    const raw = startRawStdio(['--db', temp.db]);
    raw.send('this is not json');
    raw.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    const init = await raw.next();
    expect(init).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'tot' } } });
    raw.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    raw.send('{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "think_session_start", "arguments": {"goal": ');
    raw.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'think_session_start', arguments: { goal: 'After the garbage' } } });
    const started = await raw.next();
    expect(started).toMatchObject({ id: 3, result: { structuredContent: { goal: 'After the garbage', session_state: 'active' } } });
    // A request without its parameters is a JSON-RPC error (the SDK's), not the end of the server.
    raw.send({ jsonrpc: '2.0', id: 4, method: 'tools/call' });
    expect(await raw.next()).toMatchObject({ id: 4, error: { code: expect.any(Number), message: expect.any(String) } });
    raw.send({ jsonrpc: '2.0', id: 5, method: 'tools/list' });
    expect(await raw.next()).toMatchObject({ id: 5, result: { tools: expect.any(Array) } });
    expect(raw.child.exitCode).toBeNull();
  });
});
