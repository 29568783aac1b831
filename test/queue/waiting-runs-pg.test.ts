// On a real PostgreSQL: a queued run whose runner asks a person ends its job waiting; a queue and
// a worker opened afresh (as another process would) answer it and finish it.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { catchTotError } from '../helpers/expect-tot-error.js';
import { collect } from '../helpers/collect.js';
import { askingFlow, askingGraph, echoModel, LEFT, outcome, RIGHT } from './fixtures/asking-flow.js';
import { url, usePgQueues } from './fixtures/pg-queues.js';

const { unique, open } = usePgQueues('w');
const ANSWERS = { [LEFT]: 'yes', [RIGHT]: 'no' };

async function answeredInline() {
  const { model, counter } = echoModel();
  const result = await askingGraph().run({ model, input: { v: 'x' }, onAsk: (q) => ANSWERS[q.id as keyof typeof ANSWERS] });
  return { outcome: outcome(result), calls: counter.calls };
}


/** A run that the first process's worker drove until it waited; that process then stops its worker. */
async function waitingRun() {
  const schema = unique();
  const first = await open(schema);
  const model = echoModel();
  const stop = new AbortController();
  const worker = first.queue.work({ flows: [askingFlow(model.model)], signal: stop.signal });
  const runId = await first.queue.submit(askingFlow(model.model), { v: 'x' });
  await first.queue.result(runId, { signal: AbortSignal.timeout(30_000) });
  stop.abort();
  await worker;
  return { schema, runId, first, model };
}

/** Another process: its own store, queue and worker with a model of its own. */
async function secondProcess(schema: string) {
  const second = await open(schema);
  const model = echoModel();
  void second.queue.work({ flows: [askingFlow(model.model)] });
  return { ...second, model };
}

describe.skipIf(!url)('pgBossQueue: a run waiting for a person', () => {
  it('ends its job waiting, with its pending questions in status and list', async () => {
    const { runId, first } = await waitingRun();
    const info = await first.queue.status(runId);
    expect(info.status).toBe('waiting');
    expect(info.pending!.map((q) => q.id)).toEqual([LEFT, RIGHT]);
    expect(info.pending![0]).toMatchObject({ question: 'A word to add to "a:x!"?', preview: 'a:x!' });
    expect((await first.queue.list({ status: 'waiting' })).map((r) => [r.runId, r.pending?.map((q) => q.id)])).toEqual([[runId, [LEFT, RIGHT]]]);
    expect(await first.queue.result(runId)).toMatchObject({ stopReason: 'waiting' });
  });

  it('answered from another process, is resumed by a worker there and finishes as the run answered in process, with no model call made twice', async () => {
    const inline = await answeredInline();
    const { schema, runId, model } = await waitingRun();
    const second = await secondProcess(schema);
    await second.queue.answer(runId, ANSWERS);
    expect(await second.queue.result(runId, { signal: AbortSignal.timeout(30_000) })).toEqual(inline.outcome);
    const info = await second.queue.status(runId);
    expect([info.status, info.pending, info.attempts]).toEqual(['finished', undefined, 1]);
    expect(model.counter.calls + second.model.counter.calls).toBe(inline.calls);
    const answered = (await collect(second.store.readStream(runId))).filter((e) => e.type === 'run.answered').map((e) => e.data);
    expect(answered).toMatchObject([
      { questionId: LEFT, answer: 'yes', by: 'resume' },
      { questionId: RIGHT, answer: 'no', by: 'resume' },
    ]);
  });

  it('refuses an answer that does not fit its question with INVALID_ARGUMENT: nothing is written, the run still waits', async () => {
    const { schema, runId, first } = await waitingRun();
    const second = await secondProcess(schema);
    const before = (await collect(first.store.readStream(runId))).length;
    await catchTotError(() => second.queue.answer(runId, { [LEFT]: '' }), 'INVALID_ARGUMENT');
    await catchTotError(() => second.queue.answer(runId, { 'no-such-question': 'x' }), 'INVALID_ARGUMENT');
    expect((await collect(first.store.readStream(runId))).length).toBe(before);
    const info = await second.queue.status(runId);
    expect([info.status, info.pending!.length]).toEqual(['waiting', 2]);
  });

  it('answered one question at a time, waits again for the other, then finishes as the run answered in process', async () => {
    const inline = await answeredInline();
    const { schema, runId, model } = await waitingRun();
    const second = await secondProcess(schema);
    await second.queue.answer(runId, { [LEFT]: ANSWERS[LEFT] });
    expect(await second.queue.result(runId, { signal: AbortSignal.timeout(30_000) })).toMatchObject({ stopReason: 'waiting' });
    const info = await second.queue.status(runId);
    expect([info.status, info.pending!.map((q) => q.id)]).toEqual(['waiting', [RIGHT]]);
    await second.queue.answer(runId, { [RIGHT]: ANSWERS[RIGHT] });
    expect(await second.queue.result(runId, { signal: AbortSignal.timeout(30_000) })).toEqual(inline.outcome);
    expect(model.counter.calls + second.model.counter.calls).toBe(inline.calls);
  });

  it('answers a waiting run whose job pg-boss archived meanwhile', async () => {
    const inline = await answeredInline();
    const { schema, runId, model } = await waitingRun();
    // What pg-boss's maintenance does with a job completed 12 hours ago.
    const client = new pg.Client({ connectionString: url! });
    await client.connect();
    const columns = 'id, name, priority, data, state, retry_limit, retry_count, retry_delay, retry_backoff, start_after, started_on, singleton_key, singleton_on, expire_in, created_on, completed_on, keep_until, dead_letter, policy, output';
    await client.query(`WITH moved AS (DELETE FROM ${schema}.job WHERE id = $1::uuid RETURNING *) INSERT INTO ${schema}.archive (${columns}) SELECT ${columns} FROM moved`, [runId]);
    await client.end();
    const second = await secondProcess(schema);
    expect((await second.queue.status(runId)).status).toBe('waiting');
    await second.queue.answer(runId, ANSWERS);
    expect(await second.queue.result(runId, { signal: AbortSignal.timeout(30_000) })).toEqual(inline.outcome);
    expect(model.counter.calls + second.model.counter.calls).toBe(inline.calls);
  });

  it('of two answers given at once, queues one and refuses the other: the run is resumed once', async () => {
    const { schema, runId } = await waitingRun();
    const second = await secondProcess(schema);
    const outcomes = await Promise.allSettled([second.queue.answer(runId, ANSWERS), second.queue.answer(runId, { [LEFT]: 'other', [RIGHT]: 'other' })]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect((refused.reason as { code?: string }).code).toBe('ILLEGAL_STATE');
    await second.queue.result(runId, { signal: AbortSignal.timeout(30_000) });
    expect((await collect(second.store.readStream(runId))).filter((e) => e.type === 'run.answered')).toHaveLength(2);
  });
});
