import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Budget, InMemoryEventStore, type GenerateRequest, type LanguageModel } from '../../src/index.js';
import { generate, OperationGraph, type GraphEvent, type Operation } from '../../src/graph/index.js';
import { SqliteEventStore } from '../../src/sqlite/index.js';
import { fromFunction } from '../../src/index.js';
import { bundleFixture } from '../helpers/bundle-fixture.js';
import { collect } from '../helpers/collect.js';
import { completedRequests } from '../helpers/completed-requests.js';
import { dyingStore } from '../helpers/dying-store.js';
import { catchTotError } from '../helpers/expect-tot-error.js';
import { settlesWithin } from '../helpers/settles-within.js';

type S = { v: string };
const root = join(import.meta.dirname, '../..');
const lastUser = (r: GenerateRequest) => r.messages.at(-1)!.content;
const step = (id: string, after: string[] = []) => [generate<S>({ prompt: (s) => `${id}:${s.v}`, parse: (text) => ({ v: text }) }), { id, after }] as const;

/** A model whose calls for the prompts in `held` wait until released; the others answer at once. */
function heldModel(held: string[]) {
  const waiting = new Map<string, () => void>();
  const log: string[] = [];
  const model = fromFunction(
    async (request: GenerateRequest) => {
      const prompt = lastUser(request);
      log.push(`start ${prompt}`);
      if (held.some((h) => prompt.startsWith(h))) await new Promise<void>((resolve) => waiting.set(prompt, resolve));
      log.push(`end ${prompt}`);
      return `${prompt}>`;
    },
    { input: 'request', modelId: 'held' },
  );
  return { model, log, release: (prefix: string) => [...waiting].filter(([p]) => p.startsWith(prefix)).forEach(([, r]) => r()), waiting };
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
};

describe('OperationGraph runs', () => {
  it('starts an operation as soon as its own predecessors are done, while another branch is still working', async () => {
    const { model, log, release } = heldModel(['slow']);
    const g = new OperationGraph<S>();
    g.add(...step('slow'));
    g.add(...step('fast'));
    g.add(...step('next', ['fast']));
    const done = g.run({ model, input: { v: 'x' } });
    await until(() => log.includes('end next:fast:x>'));
    expect(log).not.toContain('end slow:x');
    release('slow');
    const r = await done;
    expect(r.thoughts.map((t) => t.state.v)).toEqual(['slow:x>', 'next:fast:x>>']);
  });

  it('runs calls of different operations at once, up to `concurrency`', async () => {
    for (const concurrency of [2, 4]) {
      let inFlight = 0;
      let most = 0;
      const model: LanguageModel = fromFunction(async () => {
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 10));
        inFlight -= 1;
        return 'ok';
      });
      const g = new OperationGraph<S>();
      for (const id of ['a', 'b', 'c', 'd', 'e', 'f']) g.add(...step(id));
      await g.run({ model, input: { v: 'x' }, concurrency });
      expect(most).toBe(concurrency);
    }
  });

  it('settles within a second when aborted mid-graph, rejecting with ABORTED and the partial graph', async () => {
    const { model, log } = heldModel(['second']);
    const g = new OperationGraph<S>();
    g.add(...step('first'));
    g.add(...step('second', ['first']));
    const controller = new AbortController();
    const done = g.run({ model, input: { v: 'x' }, signal: controller.signal });
    await until(() => log.includes('start second:first:x>'));
    controller.abort(new Error('user stop'));
    const error = await settlesWithin(catchTotError(() => done, 'ABORTED'));
    const partial = error.details!.result as unknown as Awaited<ReturnType<typeof g.run>>;
    expect(partial.stopReason).toBe('aborted');
    expect(partial.graph.outputsOf('first')?.map((t) => t.state.v)).toEqual(['first:x>']);
    expect(partial.graph.outputsOf('second')).toBeUndefined();
  });

  it('stops at the budget with the graph its completed operations made', async () => {
    const g = new OperationGraph<S>();
    g.add(...step('a'));
    g.add(...step('b', ['a']));
    g.add(...step('c', ['b']));
    const r = await g.run({ model: fromFunction(async (p: string) => `${p}.`), input: { v: 'x' }, budget: { maxCalls: 2 } });
    expect(r.stopReason).toBe('budget_exceeded');
    expect(r.detail).toEqual({ kind: 'budget', limit: 'calls' });
    expect(r.graph.toJSON().operations.map((o) => o.status)).toEqual(['completed', 'completed', 'pending']);
    expect(r.thoughts).toEqual([]);
    expect(r.stats.llmCalls).toBe(2);
  });

  it('shares one budget across the run: a Budget given twice is charged once per call', async () => {
    const budget = new Budget({ maxCalls: 10 });
    const g = new OperationGraph<S>();
    g.add(...step('a'));
    g.add(...step('b'));
    await g.run({ model: fromFunction(async (p: string) => p), input: { v: 'x' }, budget });
    expect(budget.snapshot().used.calls).toBe(2);
  });

  it('numbers an operation\'s thoughts in input order whatever order its calls return in', async () => {
    const delays: Record<string, number> = { 'g:p': 30, 'g:q': 10, 'g:r': 0 };
    const model = fromFunction(async (prompt: string) => {
      await new Promise((r) => setTimeout(r, delays[prompt]));
      return `${prompt}!`;
    });
    const g = new OperationGraph<S>();
    g.add({ kind: 'seed', describe: () => ({}), execute: async (input, ctx) => ['p', 'q', 'r'].map((v) => ctx.thought({ v }, input)) }, { id: 's' });
    g.add(...step('g', ['s']));
    const order: string[] = [];
    g.on('llm.completed', (e) => order.push(e.outputs[0]!));
    const r = await g.run({ model, input: { v: 'x' } });
    expect(order).toEqual(['g:r!', 'g:q!', 'g:p!']);
    expect(r.thoughts.map((t) => [t.id, t.state.v, t.parentIds[0]])).toEqual([['g.0', 'g:p!', 's.0'], ['g.1', 'g:q!', 's.1'], ['g.2', 'g:r!', 's.2']]);
  });

  it('stops with `error` when every call fails, never as an empty success', async () => {
    const g = new OperationGraph<S>();
    g.add(...step('a'));
    const r = await g.run({ model: fromFunction(async () => { throw new Error('provider down'); }), input: { v: 'x' } });
    expect(r.stopReason).toBe('error');
    expect(r.errors[0]).toMatchObject({ code: 'GENERATION_FAILED', where: { kind: 'operation', operationId: 'a' } });
  });
});


describe('resuming an operation-graph run', () => {
  /** a → (b, c) → d: a call for each of a, b and c; d joins without one. */
  const diamond = () => {
    const g = new OperationGraph<S>();
    g.add(...step('a'));
    g.add(...step('b', ['a']));
    g.add(...step('c', ['a']));
    g.add({ kind: 'join', describe: () => ({}), execute: async (input, ctx) => [ctx.thought({ v: input.map((t) => t.state.v).join('|') }, input)] } as Operation<S>, { id: 'd', after: ['b', 'c'] });
    return g;
  };
  const counting = () => {
    const model = fromFunction(async (p: string) => `${p}!`, { modelId: 'm' }) as LanguageModel & { calls?: number };
    let calls = 0;
    return { model: { modelId: 'm', generate: (r: GenerateRequest, o?: { signal?: AbortSignal }) => ((calls += 1), model.generate(r, o)) } as LanguageModel, calls: () => calls };
  };

  it('finishes an interrupted run with the same graph, serving recorded calls instead of making them again', async () => {
    const reference = await diamond().run({ model: counting().model, input: { v: 'x' } });
    const store = new InMemoryEventStore();
    await catchTotError(() => diamond().run({ model: counting().model, input: { v: 'x' }, store: dyingStore(store, 12), runId: 'g1', concurrency: 1 }), 'ILLEGAL_STATE').catch(() => undefined);
    const before = await collect(store.readStream('g1'));
    expect(before.some((e) => e.type === 'run.finished')).toBe(false);
    const recorded = before.filter((e) => e.type === 'llm.completed').length;
    expect(recorded).toBeGreaterThan(0);
    const second = counting();
    const resumed = await diamond().resume({ model: second.model, store, runId: 'g1' });
    expect(JSON.stringify(resumed.graph.toJSON())).toBe(JSON.stringify(reference.graph.toJSON()));
    expect(second.calls()).toBe(reference.stats.llmCalls - recorded);
    expect(resumed.stats.resumedCalls).toBe(recorded);
    const after = await collect(store.readStream('g1'));
    const requests = completedRequests(after);
    expect(new Set(requests).size).toBe(requests.length);
    // The log of the resumed run folds to the graph it returned.
    const { foldGraphEvents } = await import('../../src/graph/index.js');
    expect(JSON.stringify(foldGraphEvents(after).toJSON())).toBe(JSON.stringify(resumed.graph.toJSON()));
  });

  it('counts the log\'s calls once: the resumed run\'s stats are the uninterrupted run\'s', async () => {
    const reference = await diamond().run({ model: counting().model, input: { v: 'x' } });
    const store = new InMemoryEventStore();
    await diamond().run({ model: counting().model, input: { v: 'x' }, store: dyingStore(store, 12), runId: 'g-stats', concurrency: 1 }).catch(() => undefined);
    const resumed = await diamond().resume({ model: counting().model, store, runId: 'g-stats', budget: { maxCalls: 3 } });
    expect(resumed.stopReason).toBe('completed');
    const pick = (s: typeof reference.stats) => [s.llmCalls, s.failedCalls, s.inputTokens, s.outputTokens];
    expect(pick(resumed.stats)).toEqual(pick(reference.stats));
  });

  it('never serves an operation the recorded answer of another operation that asked the same', async () => {
    // a and b send the same request; the log ends once a has completed, before b's call.
    const g = () => {
      const graph = new OperationGraph<S>();
      graph.add(generate<S>({ prompt: () => 'same', parse: (text) => ({ v: text }) }), { id: 'a', after: [] });
      graph.add(generate<S>({ prompt: () => 'same', parse: (text) => ({ v: text }) }), { id: 'b', after: ['a'] });
      return graph;
    };
    const named = (name: string) => {
      let n = 0;
      return { model: fromFunction(async (p: string) => `${p}/${name}#${++n}`, { modelId: 'm' }), calls: () => n };
    };
    const probe = new InMemoryEventStore();
    await g().run({ model: named('probe').model, input: { v: 'x' }, store: probe, runId: 'p' });
    const events = await collect(probe.readStream('p'));
    const cut = events.findIndex((e) => e.type === 'operation.completed') + 1;
    const store = new InMemoryEventStore();
    await g().run({ model: named('first').model, input: { v: 'x' }, store: dyingStore(store, cut), runId: 'same' }).catch(() => undefined);
    const second = named('second');
    const r = await g().resume({ model: second.model, store, runId: 'same' });
    expect(r.graph.outputsOf('a')!.map((t) => t.state.v)).toEqual(['same/first#1']);
    expect(r.graph.outputsOf('b')!.map((t) => t.state.v)).toEqual(['same/second#1']);
    expect(second.calls()).toBe(1);
    expect([r.stats.llmCalls, r.stats.resumedCalls]).toEqual([2, 1]);
  });

  it('counts every call the provider was asked for, a failed call in its log included', async () => {
    const g = () => {
      const graph = new OperationGraph<S>();
      graph.add(...step('a'));
      graph.add(...step('b', ['a']));
      graph.add(...step('c', ['b']));
      return graph;
    };
    // b's call fails (its thought is dropped); c then has nothing to work on.
    let asked = 0;
    let failed = 0;
    const model = () => fromFunction(async (p: string) => {
      asked += 1;
      if (p.startsWith('b:')) {
        failed += 1;
        throw Object.assign(new Error('bad request'), { status: 400 });
      }
      return `${p}.`;
    });
    const reference = await g().run({ model: model(), input: { v: 'x' } });
    const probe = new InMemoryEventStore();
    await g().run({ model: model(), input: { v: 'x' }, store: probe, runId: 'p' });
    const events = await collect(probe.readStream('p'));
    const cut = events.findIndex((e) => e.type === 'operation.completed' && (e.data as { operationId: string }).operationId === 'b') + 1;
    const store = new InMemoryEventStore();
    [asked, failed] = [0, 0];
    await g().run({ model: model(), input: { v: 'x' }, store: dyingStore(store, cut), runId: 'failed' }).catch(() => undefined);
    const r = await g().resume({ model: model(), store, runId: 'failed' });
    expect(reference.stats.failedCalls).toBe(1);
    // Every call made for the run, before the crash and after, the failed ones included.
    expect([r.stats.llmCalls, r.stats.failedCalls]).toEqual([asked, failed]);
    expect(r.errors.map((e) => e.code)).toEqual(reference.errors.map((e) => e.code));
  });

  it('refuses a resume with a different graph with RESUME_MISMATCH, and writes nothing', async () => {
    const store = new InMemoryEventStore();
    await diamond().run({ model: counting().model, input: { v: 'x' }, store: dyingStore(store, 8), runId: 'g2' }).catch(() => undefined);
    const before = await collect(store.readStream('g2'));
    const changed = diamond();
    changed.add(...step('extra', ['d']));
    const error = await catchTotError(() => changed.resume({ model: counting().model, store, runId: 'g2' }), 'RESUME_MISMATCH');
    expect(error.message).toContain('nothing was written');
    expect(await collect(store.readStream('g2'))).toEqual(before);
  });

  it('returns a finished run as it was, without a call', async () => {
    const store = new InMemoryEventStore();
    const first = await diamond().run({ model: counting().model, input: { v: 'x' }, store, runId: 'g3' });
    const again = counting();
    const r = await diamond().resume({ model: again.model, store, runId: 'g3' });
    expect(again.calls()).toBe(0);
    expect(JSON.stringify(r.graph.toJSON())).toBe(JSON.stringify(first.graph.toJSON()));
    expect(r.thoughts.map((t) => t.id)).toEqual(first.thoughts.map((t) => t.id));
  });

  it('streams a resumed run\'s whole log, then what the resume adds', async () => {
    const store = new InMemoryEventStore();
    await diamond().run({ model: counting().model, input: { v: 'x' }, store: dyingStore(store, 12), runId: 'g4', concurrency: 1 }).catch(() => undefined);
    const events: GraphEvent[] = [];
    await diamond().resume({ model: counting().model, store, runId: 'g4', onEvent: (e) => events.push(e) });
    const stored = await collect(store.readStream('g4'));
    expect(events.map((e) => `${e.seq}:${e.type}`)).toEqual(stored.map((e) => `${(e.data as { seq: number }).seq}:${e.type}`));
  });

  it('finishes a sorting graph killed with kill -9 from SQLite in a new process, with the same graph and no call made twice', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'tot-graph-')), 'runs.db');
    // The fixture bundled with its sources, under plain node: tsx would compile them on every start.
    const fixture = await bundleFixture('test/graph/fixtures/resumable-graph.ts');
    const args = (mode: string, file: string) => [fixture, mode, file];
    const reference = JSON.parse(execFileSync(process.execPath, args('resume-reference', `${path}.reference`).map((a) => (a === 'resume-reference' ? 'run' : a)), { cwd: root, encoding: 'utf8' }));
    const child = spawn(process.execPath, args('run', path), { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 30));
      const probe = new SqliteEventStore({ path });
      const n = (await collect(probe.readStream('crash-graph'))).filter((e) => e.type === 'llm.completed').length;
      await probe.close();
      if (n >= 2 || child.exitCode !== null) break;
    }
    child.kill('SIGKILL');
    await new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(undefined) : child.once('exit', resolve)));
    const probe = new SqliteEventStore({ path });
    const log = await collect(probe.readStream('crash-graph'));
    await probe.close();
    expect(log.some((e) => e.type === 'run.finished'), 'the run was killed before it finished').toBe(false);
    const recorded = log.filter((e) => e.type === 'llm.completed').length;
    const resumed = JSON.parse(execFileSync(process.execPath, args('resume', path), { cwd: root, encoding: 'utf8' }));
    expect(resumed.graph).toEqual(reference.graph);
    expect(resumed.stopReason).toBe('completed');
    expect(resumed.callsMadeHere).toBe(reference.llmCalls - recorded);
    const final = new SqliteEventStore({ path });
    const after = await collect(final.readStream('crash-graph'));
    await final.close();
    const requests = completedRequests(after);
    expect(new Set(requests).size).toBe(requests.length);
    expect(requests.length).toBe(reference.llmCalls);
  }, 60_000);
});
