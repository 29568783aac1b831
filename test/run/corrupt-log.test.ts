import { describe, expect, it } from 'vitest';
import {
  bfs,
  createEvaluator,
  createGenerator,
  Explorer,
  foldSearchEvents,
  InMemoryEventStore,
  readRecordedRun,
  replayRun,
  type EventStore,
  type StoredEvent,
} from '../../src/index.js';
import { FractalSolver, replayFractalRun } from '../../src/fractal/index.js';
import { ChainOfThoughtNode } from '../../src/cot/index.js';
import { mockModel } from '../../src/testing/index.js';
import { worldModel } from '../events/fixtures/world.js';
import { collect } from '../helpers/collect.js';
import { dyingStore } from '../helpers/dying-store.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

const explorer = () => {
  const model = worldModel();
  return new Explorer({ generator: createGenerator({ model }), evaluator: createEvaluator({ model }), strategy: bfs({ beamWidth: 2 }), maxDepth: 2, branchingFactor: 2, now: () => 0 });
};

/** The events of a search interrupted after 20 events (a crash), as stored. */
async function interruptedSearch(): Promise<StoredEvent[]> {
  const store = new InMemoryEventStore();
  await explorer()
    .run('p', { store: dyingStore(store, 20), runId: 'source' })
    .catch(() => undefined);
  return collect(store.readStream('source'));
}

/** Writes `events`' data, changed by `corrupt`, as the stream `runId` of a fresh store. */
async function storeWith(events: StoredEvent[], corrupt: (data: Record<string, unknown>[]) => unknown[], runId = 'source'): Promise<EventStore> {
  const store = new InMemoryEventStore();
  const data = corrupt(events.map((e) => structuredClone(e.data) as Record<string, unknown>));
  await store.append(runId, data.map((d, i) => ({ type: typeof (d as { type?: unknown })?.type === 'string' ? (d as { type: string }).type : 'corrupt', data: d, idempotencyKey: `k${i}` })), { expectedVersion: 'no_stream' });
  return store;
}

const indexOfType = (data: Record<string, unknown>[], type: string) => data.findIndex((d) => d.type === type);

/** Each corruption of a log, and the position the error must name. */
const corruptions: { name: string; corrupt: (data: Record<string, unknown>[]) => unknown[]; position: (data: Record<string, unknown>[]) => number }[] = [
  {
    name: 'an event with a wrong field (a score that is text)',
    corrupt: (d) => d.map((e) => (e.type === 'node.evaluated' ? { ...e, evaluation: { ...(e.evaluation as object), score: 'high' } } : e)),
    position: (d) => indexOfType(d, 'node.evaluated'),
  },
  { name: 'an event whose data is null', corrupt: (d) => d.map((e, i) => (i === 3 ? null : e)), position: () => 3 },
  { name: 'an event that is an array', corrupt: (d) => d.map((e, i) => (i === 2 ? [e] : e)), position: () => 2 },
  { name: 'a stream that does not begin with run.started', corrupt: (d) => d.slice(1), position: () => 0 },
  { name: 'a gap in seq (an event lost)', corrupt: (d) => d.filter((_, i) => i !== 5), position: () => 5 },
  { name: "another run's event", corrupt: (d) => d.map((e, i) => (i === 4 ? { ...e, runId: 'other' } : e)), position: () => 4 },
  { name: 'a second run.started', corrupt: (d) => d.map((e, i) => (i === 6 ? { ...d[0], seq: 6 } : e)), position: () => 6 },
  { name: 'an event without a type', corrupt: (d) => d.map((e, i) => (i === 7 ? { ...e, type: 42 } : e)), position: () => 7 },
  {
    name: 'a node event naming a node never created',
    corrupt: (d) => d.map((e) => (e.type === 'node.evaluated' ? { ...e, nodeId: 'node_9_9' } : e)),
    position: (d) => indexOfType(d, 'node.evaluated'),
  },
];

describe('a corrupt run log', () => {
  it.each(corruptions.map((c) => c.name))('%s: replayRun rejects with INVALID_FORMAT naming the position', async (name) => {
    const c = corruptions.find((x) => x.name === name)!;
    const events = await interruptedSearch();
    const store = await storeWith(events, c.corrupt);
    const error = await catchTotError(() => replayRun(store, 'source'), 'INVALID_FORMAT');
    const data = events.map((e) => e.data as Record<string, unknown>);
    if (name !== 'a node event naming a node never created') expect(error.details?.position).toBe(c.position(data));
    expect(error.message).toMatch(/corrupt at event \d+|before creating it/);
  });

  it.each(corruptions.map((c) => c.name))('%s: resume rejects with INVALID_FORMAT and appends nothing', async (name) => {
    const c = corruptions.find((x) => x.name === name)!;
    const store = await storeWith(await interruptedSearch(), c.corrupt);
    const before = (await collect(store.readStream('source'))).length;
    await catchTotError(() => explorer().resume({ store, runId: 'source' }), 'INVALID_FORMAT');
    expect((await collect(store.readStream('source'))).length).toBe(before);
  });

  it('with an event after run.finished is refused by replay and by resume', async () => {
    const store = new InMemoryEventStore();
    await explorer().run('p', { store, runId: 'done' });
    const events = await collect(store.readStream('done'));
    const extra = { ...(events.at(-2)!.data as object), seq: events.length };
    await store.append('done', [{ type: 'junk', data: extra, idempotencyKey: 'extra' }], { expectedVersion: events.length - 1 });
    const error = await catchTotError(() => replayRun(store, 'done'), 'INVALID_FORMAT');
    expect(error.details?.position).toBe(events.length);
    expect(error.message).toMatch(/nothing may follow run.finished/);
    await catchTotError(() => explorer().resume({ store, runId: 'done' }), 'INVALID_FORMAT');
  });

  it('read by readRecordedRun names the log and the event type', async () => {
    const store = await storeWith(await interruptedSearch(), (d) => d.map((e, i) => (i === 1 ? { ...e, seq: -1 } : e)));
    const error = await catchTotError(() => readRecordedRun(store, 'source'), 'INVALID_FORMAT');
    expect(error.message).toMatch(/The log of run "source" is corrupt at event 1 \(search.started\): seq/);
  });
});

describe('folding events in memory', () => {
  it('foldSearchEvents names the position of an event of the wrong shape', () => {
    const error = (() => {
      try {
        foldSearchEvents([{ type: 'run.started', runId: 'r', seq: 0, at: 0, runner: 'search', problem: 'p', config: {} }, { type: 'node.created', runId: 'r', seq: 1, at: 0, node: { id: 'root' } }] as never);
      } catch (e) {
        return e as { code: string; details: { position: number } };
      }
      return undefined;
    })();
    expect(error).toMatchObject({ code: 'INVALID_FORMAT', details: { position: 1 } });
  });
});

describe('the other runners', () => {
  it('a fractal log with a frame event of the wrong shape is refused with its position', async () => {
    const store = new InMemoryEventStore();
    const solver = new FractalSolver({ think: () => ({ type: 'RETURN', description: '42' }), eval: () => ({ type: 'RETURN', description: '42' }), now: () => 0 });
    await solver.run('goal', { store, runId: 'f' });
    const events = await collect(store.readStream('f'));
    const bad = await storeWith(events, (d) => d.map((e) => (e.type === 'frame.created' ? { ...e, depth: 'deep' } : e)), 'f');
    const error = await catchTotError(() => replayFractalRun(bad, 'f'), 'INVALID_FORMAT');
    expect(error.details?.position).toBe(events.findIndex((e) => e.type === 'frame.created'));
  });

  it('a chain-of-thought log with a thought of the wrong shape cannot be resumed', async () => {
    const reply = JSON.stringify({ current_thinking: 'four', planning: [{ description: 'answer', status: 'Done', result: '4' }], next_thought_needed: false });
    const node = new ChainOfThoughtNode({ model: mockModel(reply), format: 'json', now: () => 0 });
    const store = new InMemoryEventStore();
    await node.run('2+2?', { store, runId: 'c' });
    const events = await collect(store.readStream('c'));
    const bad = await storeWith(events, (d) => d.map((e) => (e.type === 'thought.completed' ? { ...e, planning: 'none' } : e)), 'c');
    const error = await catchTotError(() => node.resume({ store: bad, runId: 'c' }), 'INVALID_FORMAT');
    expect(error.details?.position).toBe(events.findIndex((e) => e.type === 'thought.completed'));
  });
});
