import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InMemoryEventStore, type AppendOptions, type GenerateRequest, type NewEvent } from '../../src/index.js';
import { defineFlow, localQueue } from '../../src/queue/index.js';
import { QUEUE_RUNS_HELP } from '../../src/cli/queue-commands.js';
import { requestKey } from '../../src/model/request-key.js';
import { catchTotError } from '../helpers/expect-tot-error.js';
import { collect } from '../helpers/collect.js';
import { dyingStore } from '../helpers/dying-store.js';
import { countingModel, searchExplorer, searchFlow, summary } from './fixtures/search-flow.js';

const keyOf = (r: GenerateRequest) => requestKey('world', r);

/** A queue with one worker on the search flow; the model counts each request it serves. */
function setup(options: { latencyMs?: number; store?: InMemoryEventStore; version?: number } = {}) {
  const served: string[] = [];
  const store = options.store ?? new InMemoryEventStore();
  const flow = searchFlow(
    countingModel(options.latencyMs ?? 0, (r) => served.push(keyOf(r))),
    options.version,
  );
  const queue = localQueue({ store });
  return { queue, flow, store, served };
}

async function uninterrupted(puzzle: string) {
  return summary(await searchExplorer(countingModel()).run(`Solve ${puzzle}`));
}

describe('localQueue', () => {
  it('runs a submitted flow on a worker and gives the result the runner gives directly', async () => {
    const { queue, flow } = setup();
    const worker = queue.work({ flows: [flow], concurrency: 2 });
    const runId = await queue.submit(flow, { puzzle: 'a' });
    const result = await queue.result(runId);
    expect(result).toEqual(JSON.parse(JSON.stringify(await uninterrupted('a'))));
    expect((await queue.status(runId)).status).toBe('finished');
    await queue.close();
    await worker;
  });

  it('records the run in the store under its run id', async () => {
    const { queue, flow, store } = setup();
    void queue.work({ flows: [flow] });
    const runId = await queue.submit(flow, { puzzle: 'a' });
    await queue.result(runId);
    const types = (await collect(store.readStream(runId))).map((e) => e.type);
    expect(types[0]).toBe('run.started');
    expect(types.at(-1)).toBe('run.finished');
    await queue.close();
  });

  it('gives the same run id for the same key and refuses the key with another input', async () => {
    const { queue, flow } = setup();
    const first = await queue.submit(flow, { puzzle: 'a' }, { key: 'request-1' });
    expect(await queue.submit(flow, { puzzle: 'a' }, { key: 'request-1' })).toBe(first);
    expect((await queue.list()).length).toBe(1);
    await catchTotError(() => queue.submit(flow, { puzzle: 'b' }, { key: 'request-1' }), 'IDEMPOTENCY_CONFLICT');
    await queue.close();
  });

  it('resumes a run the store holds unfinished, making none of its recorded calls again', async () => {
    const store = new InMemoryEventStore();
    const { queue, flow, served } = setup({ store });
    const runId = await queue.submit(flow, { puzzle: 'a' }, { key: 'k' });
    // The same run id, interrupted before the queue ever ran it: a crash after 30 events.
    await catchTotError(() => searchExplorer(countingModel()).run('Solve a', { store: dyingStore(store, 30), runId }), 'ILLEGAL_STATE');
    const recorded = (await collect(store.readStream(runId))).filter((e) => e.type === 'llm.completed').length;
    expect(recorded).toBeGreaterThan(0);
    void queue.work({ flows: [flow] });
    expect(await queue.result(runId)).toEqual(JSON.parse(JSON.stringify(await uninterrupted('a'))));
    const events = await collect(store.readStream(runId));
    const completed = events.filter((e) => e.type === 'llm.completed').length;
    // Only the calls the log did not hold were made.
    expect(served.length).toBe(completed - recorded);
    expect(events.some((e) => e.type === 'run.resumed')).toBe(true);
    await queue.close();
  });

  it('finishes a run whose log holds only run.started (its worker died right after starting it) as an uninterrupted run', async () => {
    const store = new InMemoryEventStore();
    const { queue, flow, served } = setup({ store });
    const runId = await queue.submit(flow, { puzzle: 'a' }, { key: 'lone' });
    // The process dies during the run's first append, once run.started alone is stored.
    const dying = Object.assign(Object.create(store) as InMemoryEventStore, {
      async append(streamId: string, events: NewEvent[], options: AppendOptions) {
        await store.append(streamId, events.slice(0, 1), options);
        throw new Error('the process died');
      },
    });
    await catchTotError(() => searchExplorer(countingModel()).run('Solve a', { store: dying, runId }), 'ILLEGAL_STATE');
    expect((await collect(store.readStream(runId))).map((e) => e.type)).toEqual(['run.started']);
    void queue.work({ flows: [flow] });
    const reference = await searchExplorer(countingModel()).run('Solve a');
    expect(await queue.result(runId)).toEqual(JSON.parse(JSON.stringify(await uninterrupted('a'))));
    expect(served.length).toBe(reference.stats.llmCalls);
    await queue.close();
  });

  it('returns the recorded result of a run that finished, without a model call', async () => {
    const store = new InMemoryEventStore();
    const { queue, flow, served } = setup({ store });
    const runId = await queue.submit(flow, { puzzle: 'a' }, { key: 'done' });
    await searchExplorer(countingModel()).run('Solve a', { store, runId });
    void queue.work({ flows: [flow] });
    expect(await queue.result(runId)).toEqual(JSON.parse(JSON.stringify(await uninterrupted('a'))));
    expect(served).toEqual([]);
    await queue.close();
  });

  it('fails a run of another flow version with RESUME_MISMATCH, once', async () => {
    const store = new InMemoryEventStore();
    const { queue, flow } = setup({ store, version: 1 });
    const v2 = searchFlow(countingModel(), 2);
    const runs: string[] = [];
    void queue.work({ flows: [v2], onRun: (e) => runs.push(e.outcome) });
    const runId = await queue.submit(flow, { puzzle: 'a' });
    const error = await catchTotError(() => queue.result(runId), 'RESUME_MISMATCH');
    expect(error.message).toContain('version 1');
    expect((await queue.status(runId)).status).toBe('failed');
    expect(runs).toEqual(['started', 'failed']);
    await queue.close();
  });

  it('cancels a running run: it is aborted, recorded as aborted, and its status is cancelled', async () => {
    const { queue, flow, store } = setup({ latencyMs: 50 });
    void queue.work({ flows: [flow] });
    const runId = await queue.submit(flow, { puzzle: 'a' });
    while ((await queue.status(runId)).status !== 'running') await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 60));
    expect(await queue.cancel(runId)).toBe(true);
    await catchTotError(() => queue.result(runId), 'ABORTED');
    expect((await queue.status(runId)).status).toBe('cancelled');
    const finished = (await collect(store.readStream(runId))).at(-1)!;
    expect(finished.type).toBe('run.finished');
    expect((finished.data as { stopReason: string }).stopReason).toBe('aborted');
    await queue.close();
  });

  it('cancels a queued run before any worker takes it', async () => {
    const { queue, flow } = setup();
    const runId = await queue.submit(flow, { puzzle: 'a' });
    expect(await queue.cancel(runId)).toBe(true);
    expect((await queue.status(runId)).status).toBe('cancelled');
    expect(await queue.cancel(runId)).toBe(false);
    await queue.close();
  });

  it('hands a stopping worker’s runs back with their logs open, and another worker finishes them without repeating a call', async () => {
    const { queue, flow, store, served } = setup({ latencyMs: 30 });
    const stop = new AbortController();
    const first = queue.work({ flows: [flow], concurrency: 2, signal: stop.signal });
    const ids = [await queue.submit(flow, { puzzle: 'a' }), await queue.submit(flow, { puzzle: 'b' })];
    await new Promise((r) => setTimeout(r, 100));
    stop.abort();
    await first;
    for (const id of ids) {
      expect((await queue.status(id)).status).toBe('queued');
      expect((await collect(store.readStream(id))).some((e) => e.type === 'run.finished')).toBe(false);
    }
    void queue.work({ flows: [flow], concurrency: 2 });
    for (const [i, id] of ids.entries()) expect(await queue.result(id)).toEqual(JSON.parse(JSON.stringify(await uninterrupted(['a', 'b'][i]!))));
    for (const id of ids) {
      const events = await collect(store.readStream(id));
      const completedKeys = events.filter((e) => e.type === 'llm.completed').length;
      expect(completedKeys).toBeGreaterThan(0);
    }
    // Every served call is in a log once: none was made twice.
    const logged = (await Promise.all(ids.map((id) => collect(store.readStream(id))))).flat().filter((e) => e.type === 'llm.requested').length;
    expect(served.length).toBeLessThanOrEqual(logged);
    await queue.close();
  });

  it('records a flow’s failure as the run’s error', async () => {
    const queue = localQueue();
    const broken = defineFlow({ name: 'broken', version: 1, input: z.object({}), run: async () => Promise.reject(new Error('no luck')) });
    void queue.work({ flows: [broken] });
    const runId = await queue.submit(broken, {});
    const error = await catchTotError(() => queue.result(runId), 'INTERNAL');
    expect(error.message).toContain('no luck');
    expect((await queue.status(runId)).error?.code).toBe('INTERNAL');
    await queue.close();
  });

  it('finishes a run whose worker’s onRun listener throws', async () => {
    const { queue, flow } = setup();
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    void queue.work({ flows: [flow], onRun: () => {
      throw new Error('listener broke');
    } });
    const runId = await queue.submit(flow, { puzzle: 'a' });
    expect(await queue.result(runId)).toEqual(JSON.parse(JSON.stringify(await uninterrupted('a'))));
    await new Promise((r) => setImmediate(r));
    process.off('warning', onWarning);
    expect(warnings.some((w) => w.includes('listener broke'))).toBe(true);
    await queue.close();
  });

  it('lists runs by status, newest first', async () => {
    const { queue, flow } = setup();
    const a = await queue.submit(flow, { puzzle: 'a' });
    const b = await queue.submit(flow, { puzzle: 'b' });
    await queue.cancel(a);
    expect((await queue.list({ status: 'queued' })).map((r) => r.runId)).toEqual([b]);
    expect((await queue.list()).map((r) => r.runId)).toEqual([b, a]);
    expect((await queue.list({ status: ['cancelled', 'queued'], limit: 1 })).map((r) => r.runId)).toEqual([b]);
    await queue.close();
  });

  it('lists the newest 50 runs when no limit is asked for, as tot runs --queue does', async () => {
    const { queue, flow } = setup();
    const ids: string[] = [];
    for (let i = 0; i < 51; i++) ids.push(await queue.submit(flow, { puzzle: `p${i}` }));
    const listed = await queue.list();
    expect(listed).toHaveLength(50);
    expect(listed.map((r) => r.runId)).not.toContain(ids[0]);
    expect(QUEUE_RUNS_HELP).toContain('(default 50)');
    await queue.close();
  });

  it('stops waiting for a result when its signal aborts', async () => {
    const { queue, flow } = setup();
    const runId = await queue.submit(flow, { puzzle: 'a' });
    await catchTotError(() => queue.result(runId, { signal: AbortSignal.timeout(20) }), 'ABORTED');
    await queue.close();
  });

  it('refuses input its flow’s schema rejects, and queues nothing', async () => {
    const { queue, flow } = setup();
    const error = await catchTotError(() => queue.submit(flow, { puzzle: 42 } as never), 'INVALID_ARGUMENT');
    expect(error.message).toContain('puzzle');
    expect(await queue.list()).toEqual([]);
    await queue.close();
  });

  it('refuses a flow that defineFlow did not make, and a run id it does not know', async () => {
    const { queue } = setup();
    await catchTotError(() => queue.submit({ name: 'x' } as never, {}), 'INVALID_ARGUMENT');
    await catchTotError(() => queue.status('no-such-run'), 'INVALID_ARGUMENT');
    await catchTotError(() => queue.result('no-such-run'), 'INVALID_ARGUMENT');
    await queue.close();
  });

  it.each([
    ['localQueue', () => localQueue({ stor: new InMemoryEventStore() } as never)],
    ['defineFlow', () => defineFlow({ name: 'a', version: 1, input: z.object({}), run: async () => 1, verison: 2 } as never)],
    ['submit', () => localQueue().submit(searchFlow(countingModel()), { puzzle: 'a' }, { kye: 'k' } as never)],
    ['work', () => localQueue().work({ flows: [searchFlow(countingModel())], concurency: 2 } as never)],
    ['list', () => localQueue().list({ statuses: 'queued' } as never)],
  ])('%s refuses an unknown option with INVALID_ARGUMENT', async (_name, action) => {
    const error = await catchTotError(action, 'INVALID_ARGUMENT');
    expect(error.message).toContain('unknown option');
  });

  it('refuses a flow name a queue cannot carry and a version that is not a positive integer', async () => {
    await catchTotError(() => defineFlow({ name: 'a b', version: 1, input: z.object({}), run: async () => 1 }), 'INVALID_ARGUMENT');
    await catchTotError(() => defineFlow({ name: 'a', version: 1.5, input: z.object({}), run: async () => 1 }), 'INVALID_ARGUMENT');
  });

  it('refuses two versions of one flow on a worker', async () => {
    await catchTotError(() => localQueue().work({ flows: [searchFlow(countingModel(), 1), searchFlow(countingModel(), 2)] }), 'INVALID_ARGUMENT');
  });
});
