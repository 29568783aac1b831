// The raw stdio helper itself (test/helpers/tot-cli.ts): a next() that timed out takes no later
// message, and a line of stdout that is no JSON-RPC is kept aside rather than thrown on.
import { afterEach, describe, expect, it } from 'vitest';
import { startRawStdio, stopAll } from '../helpers/tot-cli.js';

afterEach(async () => {
  await stopAll();
});

/** A program that echoes each line of stdin to stdout as it is. */
const echo = [process.execPath, '-e', "process.stdin.setEncoding('utf8'); process.stdin.on('data', (d) => process.stdout.write(d));"];

describe('startRawStdio', () => {
  it('leaves the next message to the next call when a call of next() timed out', async () => {
    const raw = startRawStdio([], { command: echo });
    await expect(raw.next(50)).rejects.toThrow(/wrote no message in 50 ms/);
    raw.send({ jsonrpc: '2.0', id: 1, result: {} });
    expect(await raw.next(5_000)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('keeps a line of stdout that is no JSON-RPC message aside, and goes on reading the messages after it', async () => {
    const raw = startRawStdio([], { command: echo });
    raw.send('debug: starting');
    raw.send('[1, 2]');
    raw.send({ jsonrpc: '2.0', id: 2, result: { ok: true } });
    expect(await raw.next(5_000)).toEqual({ jsonrpc: '2.0', id: 2, result: { ok: true } });
    expect(raw.strayLines()).toEqual(['debug: starting', '[1, 2]']);
    expect(raw.lines()).toEqual(['debug: starting', '[1, 2]', '{"jsonrpc":"2.0","id":2,"result":{"ok":true}}']);
  });
});
