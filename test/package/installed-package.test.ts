// The packed package installed in a project of its own and run by a given Node: ESM and CommonJS,
// its types, the `tot` command, SQLite, the provider clients through a stubbed fetch, and the
// queue on PostgreSQL through pg-boss (when the suite has a PostgreSQL server: TOT_POSTGRES_URL).
// In the suite: the machine's Node with the repository's packages (better-sqlite3 12, openai 6, an
// AI SDK 6 provider, pg-boss 10). CI also runs this file on Node 22 and 24 (.ci/consumer-node), in
// a project `npm install`ed with the newest majors (better-sqlite3 13, openai 7, an AI SDK 7
// provider, pg-boss 12): TOT_CONSUMER_NODE is that Node, TOT_CONSUMER_DIR that project.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerProject, root } from './consumer-project.js';

const nodeBin = process.env.TOT_CONSUMER_NODE ?? process.execPath;
let dir: string;
let own = false;

const run = (args: string[]) => {
  const r = spawnSync(nodeBin, args, { cwd: dir, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, stdout: r.stdout.trim(), stderr: r.stderr };
};
const version = (name: string) => (JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

beforeAll(async () => {
  if (process.env.TOT_CONSUMER_DIR) dir = process.env.TOT_CONSUMER_DIR;
  else {
    dir = await consumerProject('tot-installed-');
    own = true;
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'installed-consumer', private: true }));
}, 240_000);

afterAll(() => {
  if (own) rmSync(dir, { recursive: true, force: true });
});

/** The same program for both module systems: a tree, a mock model under a concurrency limit, structured output. */
const body = `
  const tree = new core.ThoughtTree({ problem: '4 9 10 13' });
  tree.addChild(tree.rootId, { content: '13 - 9 = 4' });
  const model = core.withConcurrency(testing.mockModel('{"score": 7}'), { limit: 2 });
  core.generateStructured(model, { prompt: 'rate', schema: z.object({ score: z.number() }) }).then((r) =>
    console.log(JSON.stringify({ node: process.versions.node.split('.')[0], size: tree.size, score: r.value.score })));
`;
/**
 * Three flows on one worker of a pgBossQueue: one adds, one runs until it is cancelled, one asks a
 * person (an operation graph over an echoing model: a model call, then a question).
 */
const QUEUE_PROGRAM = `import { z } from 'zod';
import { fromFunction } from '@tot/core';
import { generate, OperationGraph } from '@tot/core/graph';
import { PostgresEventStore } from '@tot/core/postgres';
import { defineFlow, pgBossQueue } from '@tot/core/queue';

const url = process.env.TOT_POSTGRES_URL;
const schema = process.argv[2];
const signal = AbortSignal.timeout(60_000);
const store = new PostgresEventStore({ connectionString: url, tablePrefix: schema + '_' });
await store.setup();
const queue = pgBossQueue({ connectionString: url, store, schema, pollIntervalMs: 100, resultPollMs: 50, cancelCheckMs: 50 });

const sum = defineFlow({ name: 'sum', version: 1, input: z.object({ a: z.number(), b: z.number() }), run: async ({ a, b }) => a + b });
const hang = defineFlow({
  name: 'hang', version: 1, input: z.object({}),
  run: (_input, run) => new Promise((_resolve, reject) => run.signal.addEventListener('abort', () => reject(run.signal.reason), { once: true })),
});
const model = fromFunction(async (request) => request.messages.at(-1).content + '!', { input: 'request', modelId: 'echo' });
const graph = () => {
  const g = new OperationGraph();
  g.add(generate({ prompt: (s) => s.v, parse: (text) => ({ v: text }) }), { id: 'a' });
  g.add({
    kind: 'approve',
    describe: () => ({ key: 'ok' }),
    execute: async (input, ctx) => {
      const word = await ctx.ask({ key: 'ok', question: 'A word to add?', schema: z.string().min(1) });
      return [ctx.thought({ v: input[0].state.v + '+' + word }, input)];
    },
  }, { id: 'ok', after: ['a'] });
  return g;
};
const ask = defineFlow({
  name: 'ask', version: 1, input: z.object({ v: z.string() }),
  run: async (input, run) => {
    const r = run.resuming ? await graph().resume({ model, ...run }) : await graph().run({ model, input, ...run });
    return { stopReason: r.stopReason, thoughts: r.thoughts.map((t) => t.state.v) };
  },
});

const worker = queue.work({ flows: [sum, hang, ask], concurrency: 4 });
const out = {};
out.sum = await queue.result(await queue.submit(sum, { a: 2, b: 3 }), { signal });

const hanging = await queue.submit(hang, {});
while ((await queue.status(hanging)).status !== 'running') {
  signal.throwIfAborted();
  await new Promise((resolve) => setTimeout(resolve, 50));
}
const cancelled = await queue.cancel(hanging);
out.cancelled = [cancelled, await queue.result(hanging, { signal }).then(() => 'settled', (e) => e.code), (await queue.status(hanging)).status];

const asking = await queue.submit(ask, { v: 'x' });
await queue.result(asking, { signal });
const info = await queue.status(asking);
out.waiting = [info.status, info.pending.map((q) => q.id)];
await queue.answer(asking, { [info.pending[0].id]: 'yes' });
out.answered = await queue.result(asking, { signal });

await queue.close();
await worker;
await store.close();
console.log(JSON.stringify(out));
`;

const expected = () => ({ node: spawnSync(nodeBin, ['-p', "process.versions.node.split('.')[0]"], { encoding: 'utf8' }).stdout.trim(), size: 2, score: 7 });

describe(`the installed package on Node ${spawnSync(nodeBin, ['--version'], { encoding: 'utf8' }).stdout.trim()}`, () => {
  it('runs from ESM (import)', () => {
    writeFileSync(join(dir, 'esm.mjs'), `import * as core from '@tot/core'; import * as testing from '@tot/core/testing'; import { z } from 'zod';${body}`);
    const r = run(['esm.mjs']);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual(expected());
  });

  it('runs from CommonJS (require)', () => {
    writeFileSync(join(dir, 'cjs.cjs'), `const core = require('@tot/core'); const testing = require('@tot/core/testing'); const { z } = require('zod');${body}`);
    const r = run(['cjs.cjs']);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual(expected());
  });

  it('type-checks a consumer of every subpath, from ESM and from CommonJS (module node16)', () => {
    const consumer = `import { ThoughtTree, type LanguageModel } from '@tot/core';
import { mockModel } from '@tot/core/testing';
import { SqliteEventStore } from '@tot/core/sqlite';
import { PostgresEventStore } from '@tot/core/postgres';
import { fromAiSdk } from '@tot/core/ai-sdk';
import { openAIModel } from '@tot/core/openai';
import { createMcpServer } from '@tot/core/mcp';
import { renderRunHtml } from '@tot/core/viewer';
import { Explorer } from '@tot/core/search';
import { OperationGraph } from '@tot/core/graph';
import { SessionEngine } from '@tot/core/sessions';
import { Deliberation } from '@tot/core/deliberation';
import { FractalSolver } from '@tot/core/fractal';
import { ChainOfThoughtNode } from '@tot/core/cot';
const model: LanguageModel = mockModel('{"score": 7}');
export const used = [new ThoughtTree({ problem: '4 9 10 13' }), model, SqliteEventStore, PostgresEventStore, fromAiSdk, openAIModel, createMcpServer, renderRunHtml];
export const runners = [Explorer, OperationGraph, SessionEngine, Deliberation, FractalSolver, ChainOfThoughtNode];
// @ts-expect-error problem is a string
new ThoughtTree({ problem: 42 });
// @ts-expect-error an engine needs a store
new SessionEngine({});
`;
    writeFileSync(join(dir, 'types.cts'), consumer);
    writeFileSync(join(dir, 'types.mts'), consumer);
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'node16', strict: true, esModuleInterop: true, skipLibCheck: true, noEmit: true, types: ['node'] }, files: ['types.cts', 'types.mts'] }));
    const tsc = existsSync(join(dir, 'node_modules/typescript')) ? join(dir, 'node_modules/typescript/bin/tsc') : join(root, 'node_modules/typescript/bin/tsc');
    const r = run([tsc, '-p', 'tsconfig.json', '--pretty', 'false']);
    expect(r.stdout).toBe('');
    expect(r.status).toBe(0);
  }, 120_000);

  it('records to SQLite and lists the run with the tot command', () => {
    rmSync(join(dir, 'runs.db'), { force: true });
    writeFileSync(join(dir, 'sqlite.mjs'), `import { SqliteEventStore } from '@tot/core/sqlite';
const store = new SqliteEventStore({ path: 'runs.db' });
const r = await store.append('run-1', [{ type: 'run.started', data: { problem: 'p' }, idempotencyKey: 'k1' }], { expectedVersion: 'no_stream' });
const events = [];
for await (const e of store.readStream('run-1')) events.push(e.type);
console.log(r.nextExpectedVersion, events.join(','));
await store.close();`);
    const stored = run(['sqlite.mjs']);
    expect(stored.stderr).toBe('');
    expect(stored.stdout).toBe('0 run.started');
    const listed = run(['node_modules/@tot/core/dist/cli/tot.js', 'runs', 'runs.db']);
    expect(listed.stderr).toBe('');
    expect(listed.status).toBe(0);
    expect(listed.stdout).toContain('run-1');
  });

  it('answers through the openai client and an AI SDK provider, with fetch stubbed', () => {
    writeFileSync(join(dir, 'providers.mjs'), `import OpenAI from 'openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { openAIModel } from '@tot/core/openai';
import { fromAiSdk } from '@tot/core/ai-sdk';
const completion = { id: 'c1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: '42' }, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } };
const fetch = async () => new Response(JSON.stringify(completion), { headers: { 'content-type': 'application/json' } });
const openai = openAIModel({ client: new OpenAI({ apiKey: 'k', baseURL: 'http://127.0.0.1:9/v1', fetch, maxRetries: 0 }), model: 'm' });
const ai = fromAiSdk(createOpenAICompatible({ name: 'local', baseURL: 'http://127.0.0.1:9/v1', fetch }).chatModel('m'));
const messages = [{ role: 'user', content: 'the answer?' }];
console.log((await openai.generate({ messages })).outputs[0], (await ai.generate({ messages })).outputs[0]);`);
    const r = run(['providers.mjs']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('42 42');
  });

  it.skipIf(!process.env.TOT_POSTGRES_URL)(
    'queues runs on PostgreSQL through the installed pg-boss: a worker finishes one, a running one is cancelled, a waiting one is answered and finishes',
    () => {
      writeFileSync(join(dir, 'queue.mjs'), QUEUE_PROGRAM);
      const r = run(['queue.mjs', `iq${process.pid}_${Date.now().toString(36)}`]);
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout)).toEqual({
        sum: 5,
        cancelled: [true, 'ABORTED', 'cancelled'],
        waiting: ['waiting', ['operation/approve/ok#ok']],
        answered: { stopReason: 'completed', thoughts: ['x!+yes'] },
      });
    },
    120_000,
  );

  it('names the peer versions it ran with', () => {
    // Shown in CI's log: which majors of the peers this Node exercised.
    const peers = ['better-sqlite3', 'openai', '@ai-sdk/openai-compatible', '@ai-sdk/provider', 'pg', 'pg-boss'].map((p) => `${p}@${version(p)}`);
    console.log(`installed package on Node ${expected().node}: ${peers.join(', ')}`);
    expect(peers.every((p) => /@\d+\./.test(p))).toBe(true);
  });
});
