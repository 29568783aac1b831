import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createEvaluator,
  createGenerator,
  Explorer,
  foldSearchEvents,
  InMemoryEventStore,
  replayRun,
  type RunEventBase,
  type AskHandler,
  type ExplorationResult,
  type SearchStrategy,
} from '../../src/index.js';
import { SqliteEventStore } from '../../src/sqlite/index.js';
import { countedWorldModel } from '../events/fixtures/world.js';
import { collect } from '../helpers/collect.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

const countingModel = countedWorldModel;

/** Expands the root, asks which child to follow (by index), and expands that child. */
const pickOne: SearchStrategy = {
  name: 'pick-one',
  async run(ctx) {
    const children = await ctx.evaluate(await ctx.expand([ctx.tree.root]));
    const pick = await ctx.ask({ key: 'pick', question: 'Which thought should the search follow?', schema: z.number().int().min(0).max(children.length - 1), preview: children.map((c) => c.content) });
    await ctx.evaluate(await ctx.expand([children[pick]!]));
    ctx.stop('max_depth');
  },
};

/** Three questions asked at once, one per child of the root; each answer says whether to expand that child. */
const askEach: SearchStrategy = {
  name: 'ask-each',
  async run(ctx) {
    const children = await ctx.evaluate(await ctx.expand([ctx.tree.root]));
    await Promise.all(
      children.map(async (child, i) => {
        const expand = await ctx.ask({ key: `expand-${i}`, question: `Expand "${child.content}"?`, schema: z.boolean() });
        if (expand) await ctx.evaluate(await ctx.expand([child]));
      }),
    );
    ctx.stop('max_depth');
  },
};

function explorer(strategy: SearchStrategy, model = countingModel().model) {
  return new Explorer({ generator: createGenerator({ model }), evaluator: createEvaluator({ model }), strategy, maxDepth: 3, branchingFactor: 3, now: () => 0 });
}

/** What must be equal between a run answered in process and one answered by a resume. */
const outcome = (r: ExplorationResult) => ({
  stopReason: r.stopReason,
  nodes: [...r.tree.all()].map((n) => [n.id, n.content, n.status, n.evaluation?.score]),
  bestPath: r.bestPath.map((n) => n.id),
  errors: r.errors,
});

/** A tree's nodes by depth, content, status and score, in no particular order. */
const sameTree = (r: ExplorationResult) =>
  [...r.tree.all()].map((n) => `${n.depth} ${n.content} ${n.status} ${n.evaluation?.score}`).sort();

const types = async (store: InMemoryEventStore, runId: string) => (await collect(store.readStream(runId))).map((e) => e.type);

describe('a run that asks a person', () => {
  it('gets the answer of its onAsk handler and records the question and the answer', async () => {
    const store = new InMemoryEventStore();
    const seen: string[] = [];
    const onAsk: AskHandler = (q) => {
      seen.push(q.id);
      return 1;
    };
    const result = await explorer(pickOne).run('p', { store, runId: 'inline', onAsk });
    expect(seen).toEqual(['strategy/pick-one#pick']);
    expect(result.stopReason).toBe('max_depth');
    expect(result.pending).toBeUndefined();
    const events = await collect(store.readStream('inline'));
    const asked = events.find((e) => e.type === 'run.asked')!.data as Record<string, unknown>;
    expect(asked).toMatchObject({ questionId: 'strategy/pick-one#pick', key: 'pick', question: 'Which thought should the search follow?', where: { kind: 'strategy', name: 'pick-one' } });
    expect(asked.schema).toMatchObject({ type: 'integer', minimum: 0, maximum: 2 });
    expect(events.find((e) => e.type === 'run.answered')!.data).toMatchObject({ questionId: 'strategy/pick-one#pick', answer: 1, by: 'handler' });
  });

  it('without a handler ends waiting, the question in its result and its log', async () => {
    const store = new InMemoryEventStore();
    const result = await explorer(pickOne).run('p', { store, runId: 'waits' });
    expect(result.stopReason).toBe('waiting');
    expect(result.detail).toEqual({ kind: 'waiting', questions: ['strategy/pick-one#pick'] });
    expect(result.pending).toHaveLength(1);
    expect(result.pending![0]).toMatchObject({ id: 'strategy/pick-one#pick', key: 'pick', question: 'Which thought should the search follow?', preview: result.tree.root.childrenIds.map((id) => result.tree.node(id).content) });
    const log = await types(store, 'waits');
    expect(log.at(-1)).toBe('run.finished');
    expect(log.filter((t) => t === 'run.asked')).toHaveLength(1);
  });

  it('resumed with the answer finishes as the run answered in process did, repeating no model call', async () => {
    const inline = countingModel();
    const expected = await explorer(pickOne, inline.model).run('p', { runId: 'same', onAsk: () => 2 });

    const store = new InMemoryEventStore();
    const first = countingModel();
    const waiting = await explorer(pickOne, first.model).run('p', { store, runId: 'same' });
    expect(waiting.stopReason).toBe('waiting');
    const second = countingModel();
    const resumed = await explorer(pickOne, second.model).resume({ store, runId: 'same', answers: { 'strategy/pick-one#pick': 2 } });

    expect(outcome(resumed)).toEqual(outcome(expected));
    expect(first.counter.calls + second.counter.calls).toBe(inline.counter.calls);
    expect(resumed.stats.resumedCalls).toBe(first.counter.calls);
    const log = await collect(store.readStream('same'));
    expect(log.find((e) => e.type === 'run.answered')!.data).toMatchObject({ questionId: 'strategy/pick-one#pick', answer: 2, by: 'resume' });
  });

  it('refuses an answer that fails the question schema with INVALID_ARGUMENT, writes nothing, and stays waiting', async () => {
    const store = new InMemoryEventStore();
    await explorer(pickOne).run('p', { store, runId: 'bad' });
    const before = await collect(store.readStream('bad'));
    const error = await catchTotError(() => explorer(pickOne).resume({ store, runId: 'bad', answers: { 'strategy/pick-one#pick': 7 } }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('strategy/pick-one#pick');
    expect(error.message).toContain('still waiting');
    expect(await collect(store.readStream('bad'))).toEqual(before);
    const again = await explorer(pickOne).resume({ store, runId: 'bad' });
    expect(again.stopReason).toBe('waiting');
    expect(again.pending!.map((q) => q.id)).toEqual(['strategy/pick-one#pick']);
    expect(await collect(store.readStream('bad'))).toEqual(before);
  });

  it('refuses an answer to a question the run did not ask, naming the questions it waits for', async () => {
    const store = new InMemoryEventStore();
    await explorer(pickOne).run('p', { store, runId: 'unknown' });
    const before = await collect(store.readStream('unknown'));
    const error = await catchTotError(() => explorer(pickOne).resume({ store, runId: 'unknown', answers: { pick: 1 } }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('asked no question "pick"');
    expect(error.message).toContain('"strategy/pick-one#pick"');
    expect(await collect(store.readStream('unknown'))).toEqual(before);
  });

  it('takes the same answer sent again as a retry: a finished run gives its result, and nothing is written', async () => {
    const store = new InMemoryEventStore();
    await explorer(pickOne).run('p', { store, runId: 'retry' });
    const answers = { 'strategy/pick-one#pick': 1 };
    const done = await explorer(pickOne).resume({ store, runId: 'retry', answers });
    const before = await collect(store.readStream('retry'));
    const again = await explorer(pickOne).resume({ store, runId: 'retry', answers });
    expect(outcome(again)).toEqual(outcome(done));
    expect(await collect(store.readStream('retry'))).toEqual(before);
    const error = await catchTotError(() => explorer(pickOne).resume({ store, runId: 'retry', answers: { 'strategy/pick-one#pick': 2 } }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('answered already, with another answer');
  });

  it('refuses an answer that is not plain JSON', async () => {
    const store = new InMemoryEventStore();
    await explorer(askEach).run('p', { store, runId: 'json' });
    const error = await catchTotError(() => explorer(askEach).resume({ store, runId: 'json', answers: { 'strategy/ask-each#expand-0': new Date(0) } }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('plain JSON');
  });

  it('answers parallel questions one at a time across resumes, asking each exactly once and finishing once', async () => {
    const inline = await explorer(askEach).run('p', { runId: 'par', onAsk: (q) => q.key !== 'expand-1' });

    const store = new InMemoryEventStore();
    const waiting = await explorer(askEach).run('p', { store, runId: 'par' });
    const ids = waiting.pending!.map((q) => q.id);
    expect(ids).toEqual(['strategy/ask-each#expand-0', 'strategy/ask-each#expand-1', 'strategy/ask-each#expand-2']);
    const r1 = await explorer(askEach).resume({ store, runId: 'par', answers: { [ids[1]!]: false } });
    expect(r1.pending!.map((q) => q.id)).toEqual([ids[0], ids[2]]);
    const r2 = await explorer(askEach).resume({ store, runId: 'par', answers: { [ids[2]!]: true } });
    expect(r2.pending!.map((q) => q.id)).toEqual([ids[0]]);
    const done = await explorer(askEach).resume({ store, runId: 'par', answers: { [ids[0]!]: true } });

    // The same tree but for the order of its nodes: each branch went on when its answer came.
    expect(sameTree(done)).toEqual(sameTree(inline));
    expect(done.bestPath.map((n) => n.content)).toEqual(inline.bestPath.map((n) => n.content));
    const log = await collect(store.readStream('par'));
    expect(log.filter((e) => e.type === 'run.asked').map((e) => (e.data as { questionId: string }).questionId)).toEqual(ids);
    expect(log.filter((e) => e.type === 'run.answered')).toHaveLength(3);
    const finished = log.filter((e) => e.type === 'run.finished').map((e) => (e.data as { stopReason: string }).stopReason);
    expect(finished).toEqual(['waiting', 'waiting', 'waiting', 'max_depth']);
  });

  it('replays as waiting, then as unfinished once a resume has begun, then as finished', async () => {
    const store = new InMemoryEventStore();
    await explorer(pickOne).run('p', { store, runId: 'fold' });
    expect((await replayRun(store, 'fold')).stopReason).toBe('waiting');
    await explorer(pickOne).resume({ store, runId: 'fold', answers: { 'strategy/pick-one#pick': 0 } });
    const events = (await collect(store.readStream('fold'))).map((e) => e.data as RunEventBase);
    const resumedAt = events.findIndex((e) => e.type === 'run.resumed');
    expect(foldSearchEvents(events.slice(0, resumedAt + 2)).stopReason).toBeUndefined();
    expect(foldSearchEvents(events).stopReason).toBe('max_depth');
  });

  it('resumed without answers stays waiting and writes nothing', async () => {
    const store = new InMemoryEventStore();
    await explorer(pickOne).run('p', { store, runId: 'idle' });
    const before = await collect(store.readStream('idle'));
    const again = await explorer(pickOne).resume({ store, runId: 'idle' });
    expect(again.stopReason).toBe('waiting');
    expect(await collect(store.readStream('idle'))).toEqual(before);
  });

  it('resumed with an onAsk handler instead of answers asks it and finishes', async () => {
    const store = new InMemoryEventStore();
    await explorer(pickOne).run('p', { store, runId: 'later' });
    const done = await explorer(pickOne).resume({ store, runId: 'later', onAsk: () => 0 });
    expect(done.stopReason).toBe('max_depth');
    expect((await collect(store.readStream('later'))).find((e) => e.type === 'run.answered')!.data).toMatchObject({ answer: 0, by: 'handler' });
  });

  it('asks its handler once for a question asked twice, and gives both the answer', async () => {
    let asked = 0;
    const twice: SearchStrategy = {
      name: 'twice',
      async run(ctx) {
        const [a, b] = await Promise.all([ctx.ask({ key: 'k', question: 'q?' }), ctx.ask({ key: 'k', question: 'q?' })]);
        expect([a, b]).toEqual(['yes', 'yes']);
        expect(await ctx.ask({ key: 'k', question: 'q?' })).toBe('yes');
        ctx.stop('max_depth');
      },
    };
    const result = await explorer(twice).run('p', {
      onAsk: () => {
        asked += 1;
        return 'yes';
      },
    });
    expect(result.stopReason).toBe('max_depth');
    expect(asked).toBe(1);
  });

  it('rejects the ask with INVALID_ARGUMENT when the handler answers outside the schema', async () => {
    let caught: unknown;
    const strict: SearchStrategy = {
      name: 'strict',
      async run(ctx) {
        caught = await ctx.ask({ key: 'n', question: 'A number?', schema: z.number() }).catch((error: unknown) => error);
        ctx.stop('max_depth');
      },
    };
    await explorer(strict).run('p', { onAsk: () => 'seven' });
    expect(caught).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(String((caught as Error).message)).toContain('does not fit');
  });

  it('asks the handler again after an answer that did not fit', async () => {
    const answers: unknown[] = ['seven', 7];
    let got: unknown;
    const retrying: SearchStrategy = {
      name: 'retrying',
      async run(ctx) {
        const ask = () => ctx.ask({ key: 'n', question: 'A number?', schema: z.number() });
        got = await ask().catch(() => ask());
        ctx.stop('max_depth');
      },
    };
    await explorer(retrying).run('p', { onAsk: () => answers.shift() });
    expect(got).toBe(7);
    expect(answers).toEqual([]);
  });

  it('fails with ILLEGAL_STATE when nobody could answer: no handler and no store', async () => {
    const error = await catchTotError(() => explorer(pickOne).run('p'), 'ILLEGAL_STATE');
    expect(error.message).toContain('onAsk');
  });

  it('settles on abort while its handler is still thinking', async () => {
    const controller = new AbortController();
    const pending = explorer(pickOne).run('p', { signal: controller.signal, onAsk: () => new Promise(() => undefined) });
    setTimeout(() => controller.abort(new Error('user left')), 20);
    const error = await catchTotError(() => pending, 'ABORTED');
    expect(error.message).toContain('user left');
  });

  it('refuses an ask with an unknown option, naming it', async () => {
    let caught: unknown;
    const typo: SearchStrategy = {
      name: 'typo',
      async run(ctx) {
        caught = await ctx.ask({ key: 'k', question: 'q?', schem: z.number() } as never).catch((error: unknown) => error);
        ctx.stop('max_depth');
      },
    };
    await explorer(typo).run('p', { onAsk: () => 1 });
    expect(caught).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(String((caught as Error).message)).toContain('schem');
  });
});

/** The asking fixture (test/run/fixtures/asking.ts) as a process of its own, on a fresh SQLite file. */
async function askingProcesses() {
  const { execFileSync } = await import('node:child_process');
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { bundleFixture } = await import('../helpers/bundle-fixture.js');
  const script = await bundleFixture('test/run/fixtures/asking.ts');
  const file = join(mkdtempSync(join(tmpdir(), 'tot-asked-')), 'runs.db');
  type Out = { stopReason: string; pending: string[]; nodes: unknown[]; tree: string[]; calls: number };
  /** One process: `run` or `resume` on the file, with a strategy and the answers it is given. */
  const run = (mode: 'run' | 'resume', strategy: 'pick-one' | 'ask-each', answers?: Record<string, unknown>) =>
    JSON.parse(execFileSync(process.execPath, [script, mode, file, strategy, ...(answers ? [JSON.stringify(answers)] : [])], { encoding: 'utf8' }).trim().split('\n').at(-1)!) as Out;
  return { file, run };
}

describe('a question answered by another process', () => {
  it('ends the first process waiting; a second process answers it and finishes the run as one answered in process, no model call made twice', async () => {
    const { run } = await askingProcesses();
    const first = run('run', 'pick-one');
    expect(first.stopReason).toBe('waiting');
    expect(first.pending).toEqual(['strategy/pick-one#pick']);
    const second = run('resume', 'pick-one', { 'strategy/pick-one#pick': 1 });

    const inline = countingModel();
    const expected = await explorer(pickOne, inline.model).run('p', { onAsk: () => 1 });
    expect(second.stopReason).toBe(expected.stopReason);
    expect(second.nodes).toEqual([...expected.tree.all()].map((n) => [n.id, n.content, n.status]));
    expect(first.calls + second.calls).toBe(inline.counter.calls);
  }, 60_000);

  it('answers three parallel questions one at a time from three processes: each asked once, the run finished once, as one answered in process', async () => {
    const { file, run } = await askingProcesses();
    const started = run('run', 'ask-each');
    const ids = ['strategy/ask-each#expand-0', 'strategy/ask-each#expand-1', 'strategy/ask-each#expand-2'];
    expect(started.pending).toEqual(ids);
    const answers: [string, boolean][] = [[ids[1]!, false], [ids[2]!, true], [ids[0]!, true]];
    const outs = answers.map(([id, answer]) => run('resume', 'ask-each', { [id]: answer }));
    expect(outs.map((o) => o.stopReason)).toEqual(['waiting', 'waiting', 'max_depth']);
    expect(outs.map((o) => o.pending)).toEqual([[ids[0], ids[2]], [ids[0]], []]);

    const inline = countingModel();
    const expected = await explorer(askEach, inline.model).run('p', { onAsk: (q) => q.key !== 'expand-1' });
    expect(outs.at(-1)!.tree).toEqual(sameTree(expected));
    expect(started.calls + outs.reduce((n, o) => n + o.calls, 0)).toBe(inline.counter.calls);
    const store = new SqliteEventStore({ path: file });
    const log = await collect(store.readStream('asked'));
    store.close();
    expect(log.filter((e) => e.type === 'run.asked').map((e) => (e.data as { questionId: string }).questionId)).toEqual(ids);
    expect(log.filter((e) => e.type === 'run.answered')).toHaveLength(3);
    expect(log.filter((e) => e.type === 'run.finished').map((e) => (e.data as { stopReason: string }).stopReason)).toEqual(['waiting', 'waiting', 'waiting', 'max_depth']);
  }, 60_000);
});
