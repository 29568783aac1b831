// A queued run whose runner asks a person ends its job waiting, with its questions; answering
// through the queue checks the answers against the log and queues the run again for any worker,
// which resumes it with them. Local queue here; PostgreSQL in waiting-runs-pg.test.ts.
import { describe, expect, it } from 'vitest';
import { InMemoryEventStore } from '../../src/index.js';
import { defineFlow, localQueue } from '../../src/queue/index.js';
import { z } from 'zod';
import { catchTotError } from '../helpers/expect-tot-error.js';
import { collect } from '../helpers/collect.js';
import { askingFlow, askingGraph, echoModel, LEFT, outcome, RIGHT } from './fixtures/asking-flow.js';

const ANSWERS = { [LEFT]: 'yes', [RIGHT]: 'no' };

/** The run answered in process: what every queued run answered later must equal. */
async function answeredInline() {
  const { model, counter } = echoModel();
  const result = await askingGraph().run({ model, input: { v: 'x' }, onAsk: (q) => ANSWERS[q.id as keyof typeof ANSWERS] });
  return { outcome: outcome(result), calls: counter.calls };
}

/** A queue whose first worker ran one run until it waited, then stopped; `next()` starts a fresh worker with a model of its own. */
async function waitingRun() {
  const store = new InMemoryEventStore();
  const queue = localQueue({ store });
  const first = echoModel();
  const stop = new AbortController();
  const worker = queue.work({ flows: [askingFlow(first.model)], signal: stop.signal });
  const runId = await queue.submit(askingFlow(first.model), { v: 'x' });
  await queue.result(runId);
  stop.abort();
  await worker;
  return {
    store,
    queue,
    runId,
    first,
    next() {
      const second = echoModel();
      void queue.work({ flows: [askingFlow(second.model)] });
      return second;
    },
  };
}

const log = async (store: InMemoryEventStore, runId: string) => collect(store.readStream(runId));

describe('localQueue: a run waiting for a person', () => {
  it('ends its job waiting, with its pending questions in status and list', async () => {
    const { queue, runId } = await waitingRun();
    const info = await queue.status(runId);
    expect(info.status).toBe('waiting');
    expect(info.pending!.map((q) => q.id)).toEqual([LEFT, RIGHT]);
    expect(info.pending![0]).toMatchObject({ question: 'A word to add to "a:x!"?', preview: 'a:x!' });
    expect((await queue.list({ status: 'waiting' })).map((r) => [r.runId, r.pending?.map((q) => q.id)])).toEqual([[runId, [LEFT, RIGHT]]]);
    expect(await queue.result(runId)).toMatchObject({ stopReason: 'waiting' });
    await queue.close();
  });

  it('answered, is resumed by a fresh worker and finishes as the run answered in process, with no model call made twice', async () => {
    const inline = await answeredInline();
    const { queue, runId, first, next } = await waitingRun();
    const second = next();
    await queue.answer(runId, ANSWERS);
    expect(await queue.result(runId)).toEqual(inline.outcome);
    expect((await queue.status(runId)).status).toBe('finished');
    expect((await queue.status(runId)).pending).toBeUndefined();
    expect(first.counter.calls + second.counter.calls).toBe(inline.calls);
    await queue.close();
  });

  it('refuses an answer that does not fit its question with INVALID_ARGUMENT: nothing is written, the run still waits', async () => {
    const { store, queue, runId } = await waitingRun();
    const before = (await log(store, runId)).length;
    const error = await catchTotError(() => queue.answer(runId, { [LEFT]: '' }), 'INVALID_ARGUMENT');
    expect(error.message).toContain(LEFT);
    await catchTotError(() => queue.answer(runId, { 'no-such-question': 'x' }), 'INVALID_ARGUMENT');
    expect((await log(store, runId)).length).toBe(before);
    expect((await queue.status(runId)).status).toBe('waiting');
    await queue.close();
  });

  it('answered one question at a time, waits again for the other, then finishes as the run answered in process', async () => {
    const inline = await answeredInline();
    const { queue, runId, first, next } = await waitingRun();
    const second = next();
    await queue.answer(runId, { [LEFT]: ANSWERS[LEFT] });
    expect(await queue.result(runId)).toMatchObject({ stopReason: 'waiting' });
    const info = await queue.status(runId);
    expect([info.status, info.pending!.map((q) => q.id)]).toEqual(['waiting', [RIGHT]]);
    await catchTotError(() => queue.answer(runId, { [LEFT]: 'again' }), 'INVALID_ARGUMENT');
    await queue.answer(runId, { [RIGHT]: ANSWERS[RIGHT] });
    expect(await queue.result(runId)).toEqual(inline.outcome);
    expect(first.counter.calls + second.counter.calls).toBe(inline.calls);
    await queue.close();
  });

  it('answered, handed back by its worker after it recorded the answers, is finished by the next worker from the recorded answers', async () => {
    const inline = await answeredInline();
    const { store, queue, runId, first } = await waitingRun();
    // This worker records the answers, then its call of `b` hangs until the worker stops.
    const stuck = echoModel((prompt) => prompt.startsWith('b:'));
    const stop = new AbortController();
    const handedBack = new Promise<void>((resolve) => {
      void queue.work({ flows: [askingFlow(stuck.model)], signal: stop.signal, onRun: (e) => e.outcome === 'handed-back' && resolve() });
    });
    await queue.answer(runId, ANSWERS);
    while (stuck.counter.calls === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await log(store, runId)).filter((e) => e.type === 'run.answered')).toHaveLength(2);
    stop.abort();
    await handedBack;
    const last = echoModel();
    void queue.work({ flows: [askingFlow(last.model)] });
    expect(await queue.result(runId)).toEqual(inline.outcome);
    expect(first.counter.completed + stuck.counter.completed + last.counter.completed).toBe(inline.calls);
    await queue.close();
  });

  it('refuses answers for a run that is not waiting with ILLEGAL_STATE', async () => {
    const { queue, runId, next } = await waitingRun();
    next();
    await queue.answer(runId, ANSWERS);
    await queue.result(runId);
    await catchTotError(() => queue.answer(runId, ANSWERS), 'ILLEGAL_STATE');
    await queue.close();
  });

  it('answers nothing when its signal has aborted: ABORTED, and the run still waits', async () => {
    const { queue, runId } = await waitingRun();
    await catchTotError(() => queue.answer(runId, ANSWERS, { signal: AbortSignal.abort() }), 'ABORTED');
    expect((await queue.status(runId)).status).toBe('waiting');
    await queue.close();
  });

  it('is waiting by its log even when its flow returns no stop reason', async () => {
    const { model } = echoModel();
    const quiet = defineFlow({
      name: 'quiet',
      version: 1,
      input: z.strictObject({ v: z.string() }),
      run: async (input, run) => ({ thoughts: (run.resuming ? await askingGraph().resume({ model, ...run }) : await askingGraph().run({ model, input, ...run })).thoughts.length }),
    });
    const queue = localQueue();
    void queue.work({ flows: [quiet] });
    const runId = await queue.submit(quiet, { v: 'x' });
    await queue.result(runId);
    const info = await queue.status(runId);
    expect([info.status, info.pending?.map((q) => q.id)]).toEqual(['waiting', [LEFT, RIGHT]]);
    await queue.close();
  });

  it('refuses an empty set of answers with INVALID_ARGUMENT', async () => {
    const { queue, runId } = await waitingRun();
    await catchTotError(() => queue.answer(runId, {}), 'INVALID_ARGUMENT');
    await queue.close();
  });
});
