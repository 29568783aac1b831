import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { queueRunsCommand, workerCommand } from '../../src/cli/queue-commands.js';
import { CommandError } from '../../src/cli/read-store.js';
import { InMemoryEventStore } from '../../src/index.js';
import { pgBossQueue } from '../../src/queue/index.js';
import { PostgresEventStore } from '../../src/postgres/index.js';
import { countingModel, searchFlow } from './fixtures/search-flow.js';
import { askingFlow, echoModel, LEFT, RIGHT } from './fixtures/asking-flow.js';

const url = process.env.TOT_POSTGRES_URL;
const noFlows = fileURLToPath(new URL('./fixtures/no-flows.mjs', import.meta.url));

async function refusal(action: () => Promise<unknown>): Promise<string> {
  const error = await action().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CommandError);
  return (error as Error).message;
}

describe('tot worker', () => {
  it('asks for the flows and the database', async () => {
    expect(await refusal(() => workerCommand([]))).toContain('tot worker --flows ./flows.js --db postgres://');
    expect(await refusal(() => workerCommand(['--flows', noFlows, '--db', 'runs.db']))).toContain('give the flows and the database');
  });

  it('refuses a concurrency that is not a positive whole number', async () => {
    expect(await refusal(() => workerCommand(['--flows', noFlows, '--db', 'postgres://localhost/x', '--concurrency', '0']))).toContain('--concurrency takes a positive whole number');
  });

  it('refuses a module that exports no flow made by defineFlow', async () => {
    expect(await refusal(() => workerCommand(['--flows', noFlows, '--db', 'postgres://localhost/x']))).toContain('exports no flows');
  });
});

describe('tot runs --queue', () => {
  afterEach(() => vi.restoreAllMocks());

  it('asks for the database and refuses a status it does not know', async () => {
    expect(await refusal(() => queueRunsCommand(['--queue']))).toContain('tot runs postgres://… --queue');
    expect(await refusal(() => queueRunsCommand(['postgres://localhost/x', '--queue', '--status', 'done']))).toContain('--status takes one of queued, running');
  });

  it.skipIf(!url)('lists the queue’s runs with their status, filtered by status', async () => {
    const schema = `qcli${process.pid}_${Date.now().toString(36)}`;
    const queue = pgBossQueue({ connectionString: url!, store: new InMemoryEventStore(), schema });
    const flow = searchFlow(countingModel());
    const kept = await queue.submit(flow, { puzzle: 'a' });
    const cancelled = await queue.submit(flow, { puzzle: 'b' });
    await queue.cancel(cancelled);
    await queue.close();
    const out: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      out.push(String(chunk));
      return true;
    });
    expect(await queueRunsCommand([url!, '--queue', '--schema', schema, '--json'])).toBe(0);
    expect(out.map((l) => JSON.parse(l) as { runId: string; status: string }).map((r) => [r.runId, r.status])).toEqual([
      [cancelled, 'cancelled'],
      [kept, 'queued'],
    ]);
    out.length = 0;
    expect(await queueRunsCommand([url!, '--queue', '--schema', schema, '--status', 'queued'])).toBe(0);
    expect(out.join('')).toContain(kept);
    expect(out.join('')).not.toContain(cancelled);
  });

  it('refuses an answer without a run id or without JSON answers', async () => {
    expect(await refusal(() => queueRunsCommand(['postgres://localhost/x', '--queue', 'answer', '--answers', '{}']))).toContain('give one run id');
    expect(await refusal(() => queueRunsCommand(['postgres://localhost/x', '--queue', 'answer', 'r1']))).toContain('give the answers');
    expect(await refusal(() => queueRunsCommand(['postgres://localhost/x', '--queue', 'answer', 'r1', '--answers', '{yes']))).toContain('--answers is not JSON');
    expect(await refusal(() => queueRunsCommand(['postgres://localhost/x', '--queue', 'answer', 'r1', '--answers', '[1]']))).toContain('a JSON object of answers by question id');
  });

  it.skipIf(!url)('lists a waiting run with the questions it waits for, refuses a wrong answer, and queues the run again with a right one', async () => {
    const schema = `qcliw${process.pid}_${Date.now().toString(36)}`;
    const prefix = `${schema}_`;
    const store = new PostgresEventStore({ connectionString: url!, tablePrefix: prefix });
    await store.setup();
    const queue = pgBossQueue({ connectionString: url!, store, schema, pollIntervalMs: 100, resultPollMs: 50 });
    const flow = askingFlow(echoModel().model);
    const stop = new AbortController();
    const worker = queue.work({ flows: [flow], signal: stop.signal });
    const runId = await queue.submit(flow, { v: 'x' });
    await queue.result(runId, { signal: AbortSignal.timeout(30_000) });
    stop.abort();
    await worker;
    const out: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      out.push(String(chunk));
      return true;
    });
    try {
      expect(await queueRunsCommand([url!, '--queue', '--schema', schema])).toBe(0);
      expect(out.join('')).toContain(`waiting for ${LEFT}, ${RIGHT}`);
      out.length = 0;
      const args = [url!, '--queue', '--schema', schema, '--table-prefix', prefix, 'answer', runId, '--answers'];
      expect(await refusal(() => queueRunsCommand([...args, JSON.stringify({ [LEFT]: 42 })]))).toContain(`The answer to "${LEFT}" does not fit the question's schema`);
      expect((await queue.status(runId)).status).toBe('waiting');
      expect(await queueRunsCommand([...args, JSON.stringify({ [LEFT]: 'yes' })])).toBe(0);
      expect(out.join('')).toContain(`Answered one question of run ${runId}`);
      expect((await queue.status(runId)).status).toBe('queued');
    } finally {
      await queue.close();
      await store.close();
    }
  });
});
