import { describe, expect, it } from 'vitest';
import {
  bfs,
  createEvaluator,
  createGenerator,
  Explorer,
  InMemoryEventStore,
  replayRun,
  ThoughtTree,
  type AppendOptions,
  type EventStore,
  type NewEvent,
} from '../../src/index.js';
import { countedWorldModel } from '../events/fixtures/world.js';
import { collect } from '../helpers/collect.js';
import { completedRequests } from '../helpers/completed-requests.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

/** The deterministic world's search (beam 2, depth 2), counting the calls its model makes. */
function counted() {
  const { model, counter: made } = countedWorldModel();
  const explorer = new Explorer({ generator: createGenerator({ model }), evaluator: createEvaluator({ model }), strategy: bfs({ beamWidth: 2 }), maxDepth: 2, branchingFactor: 3, now: () => 0 });
  return { explorer, made };
}

/** A store whose process dies during the run's first append, once `run.started` alone is stored. */
function diesAfterRunStarted(inner: EventStore): EventStore {
  let dead = false;
  return Object.assign(Object.create(inner) as EventStore, {
    async append(streamId: string, events: NewEvent[], options: AppendOptions) {
      if (dead) throw new Error('the process died');
      dead = true;
      await inner.append(streamId, events.slice(0, 1), options);
      throw new Error('the process died');
    },
  });
}

/** The store's appends, as the event types of each batch. */
function batches(inner: EventStore): { store: EventStore; appends: string[][] } {
  const appends: string[][] = [];
  const store = Object.assign(Object.create(inner) as EventStore, {
    append(streamId: string, events: NewEvent[], options: AppendOptions) {
      appends.push(events.map((e) => e.type));
      return inner.append(streamId, events, options);
    },
  });
  return { store, appends };
}

const treeOf = (r: { tree: ThoughtTree }) => r.tree.toJSON();

describe('a search stopped right after its run.started was recorded', () => {
  it('resumes as a fresh start: the result of an uninterrupted run, and no call made twice', async () => {
    const reference = await counted().explorer.run('p', { runId: 'fresh' });
    const store = new InMemoryEventStore();
    await catchTotError(() => counted().explorer.run('p', { store: diesAfterRunStarted(store), runId: 'fresh' }), 'ILLEGAL_STATE');
    expect((await collect(store.readStream('fresh'))).map((e) => e.type)).toEqual(['run.started']);

    const { explorer, made } = counted();
    const resumed = await explorer.resume({ store, runId: 'fresh' });
    expect(treeOf(resumed)).toEqual(treeOf(reference));
    expect(resumed.bestPath.map((n) => n.id)).toEqual(reference.bestPath.map((n) => n.id));
    expect(resumed.stopReason).toBe(reference.stopReason);
    expect(resumed.stats.resumedCalls).toBe(0);
    expect(made.calls).toBe(reference.stats.llmCalls);
    const requests = completedRequests(await collect(store.readStream('fresh')));
    expect(new Set(requests).size).toBe(requests.length);
  });

  it('keeps the task id the run was given', async () => {
    const store = new InMemoryEventStore();
    await catchTotError(() => counted().explorer.run('p', { store: diesAfterRunStarted(store), runId: 'tasked', taskId: 'task-7' }), 'ILLEGAL_STATE');
    const resumed = await counted().explorer.resume({ store, runId: 'tasked' });
    expect(resumed.tree.taskId).toBe('task-7');
  });

  it('replays to the tree the search started from: the problem at its root', async () => {
    const store = new InMemoryEventStore();
    await catchTotError(() => counted().explorer.run('p', { store: diesAfterRunStarted(store), runId: 'replayed' }), 'ILLEGAL_STATE');
    const { tree, stopReason } = await replayRun(store, 'replayed');
    expect([...tree.all()].map((n) => [n.id, n.content])).toEqual([['root', 'p']]);
    expect(stopReason).toBeUndefined();
  });

  it('of a given tree is refused with INVALID_FORMAT, and nothing is written', async () => {
    const store = new InMemoryEventStore();
    const given = new ThoughtTree({ problem: 'p', rootContent: 'a root of its own' });
    await catchTotError(() => counted().explorer.run(given, { store: diesAfterRunStarted(store), runId: 'given' }), 'ILLEGAL_STATE');
    const before = await collect(store.readStream('given'));
    const error = await catchTotError(() => counted().explorer.resume({ store, runId: 'given' }), 'INVALID_FORMAT');
    expect(error.message).toContain('given tree');
    expect(await collect(store.readStream('given'))).toEqual(before);
  });
});

describe('recording a search', () => {
  it('writes a given tree in the same append as run.started', async () => {
    const given = new ThoughtTree({ problem: 'p' });
    given.addChild(given.rootId, { content: 'a step taken before' });
    const { store, appends } = batches(new InMemoryEventStore());
    await counted().explorer.run(given, { store, runId: 'first-append' });
    expect(appends[0]!.slice(0, 4)).toEqual(['run.started', 'search.started', 'node.created', 'node.created']);
  });
});
