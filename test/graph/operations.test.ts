import { describe, expect, it } from 'vitest';
import {
  aggregate,
  foldGraphEvents,
  generate,
  groundTruth,
  improve,
  keepBest,
  OperationGraph,
  score,
  select,
  validateAndImprove,
  type GraphEvent,
  type Operation,
} from '../../src/graph/index.js';
import { mockModel } from '../../src/testing/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

type S = { v: string };
/** A root operation that makes one thought per given value, without the model. */
const seed = (...values: string[]): Operation<S> => ({ kind: 'seed', describe: () => ({ values }), execute: async (input, ctx) => values.map((v) => ctx.thought({ v }, input)) });
const scoreBy = (scores: Record<string, number>) => score<S>({ score: (s) => scores[s.v]! });
const lastUser = (r: { messages: { content: string }[] }) => r.messages.at(-1)!.content;

describe('OperationGraph operations', () => {
  it('gives an operation its predecessors\' outputs in the order the predecessors were listed', async () => {
    const g = new OperationGraph<S>();
    const a = g.add(seed('a1', 'a2'), { id: 'a', after: [] });
    const b = g.add(seed('b1'), { id: 'b', after: [] });
    const seen: string[][] = [];
    g.add({ kind: 'look', describe: () => ({}), execute: async (input, ctx) => (seen.push(input.map((t) => t.state.v)), input.map((t) => ctx.derive(t))) }, { after: [b, a] });
    await g.run({ input: { v: 'x' } });
    expect(seen).toEqual([['b1', 'a1', 'a2']]);
  });

  it('keeps the best n, the earlier of equal scores first (higher is better)', async () => {
    const g = new OperationGraph<S>();
    g.add(seed('p', 'q', 'r', 's'));
    g.add(scoreBy({ p: 1, q: 5, r: 5, s: 3 }));
    g.add(keepBest({ n: 2 }));
    const r = await g.run({ input: { v: 'x' } });
    expect(r.thoughts.map((t) => t.state.v)).toEqual(['q', 'r']);
  });

  it('keeps the best n, the earlier of equal scores first (lower is better)', async () => {
    const g = new OperationGraph<S>();
    g.add(seed('p', 'q', 'r', 's'));
    g.add(scoreBy({ p: 2, q: 0, r: 1, s: 0 }));
    g.add(keepBest({ n: 3, higherIsBetter: false }));
    const r = await g.run({ input: { v: 'x' } });
    expect(r.thoughts.map((t) => [t.state.v, t.score])).toEqual([['q', 0], ['s', 0], ['r', 1]]);
  });

  it('fails keepBest over unscored thoughts as an operation error that passes nothing on', async () => {
    const g = new OperationGraph<S>();
    g.add(seed('p'));
    g.add(keepBest(), { id: 'best' });
    const r = await g.run({ input: { v: 'x' } });
    expect(r.thoughts).toEqual([]);
    expect(r.errors).toMatchObject([{ code: 'ILLEGAL_STATE', where: { kind: 'operation', operationId: 'best', operation: 'keepBest' } }]);
    expect(r.graph.toJSON().operations.find((o) => o.id === 'best')).toMatchObject({ status: 'failed', error: { code: 'ILLEGAL_STATE' } });
  });

  it('asks for k responses per input thought as one call with n: k', async () => {
    const model = mockModel((req) => ({ outputs: Array.from({ length: req.n ?? 1 }, (_, i) => `${lastUser(req)}-${i}`) }), { multipleOutputs: true });
    const g = new OperationGraph<S>();
    g.add(seed('a', 'b'));
    g.add(generate<S>({ prompt: (s) => s.v, parse: (text) => ({ v: text }), responses: 3 }), { id: 'gen' });
    const r = await g.run({ model, input: { v: 'x' } });
    expect(model.calls.map((c) => [lastUser(c.request), c.request.n])).toEqual([['a', 3], ['b', 3]]);
    expect(r.thoughts.map((t) => [t.id, t.state.v, t.parentIds])).toEqual([
      ['gen.0', 'a-0', ['op0.0']],
      ['gen.1', 'a-1', ['op0.0']],
      ['gen.2', 'a-2', ['op0.0']],
      ['gen.3', 'b-0', ['op0.1']],
      ['gen.4', 'b-1', ['op0.1']],
      ['gen.5', 'b-2', ['op0.1']],
    ]);
  });

  it('turns one response into several thoughts when the parse returns a list of states', async () => {
    const g = new OperationGraph<S>();
    g.add(generate<S>({ prompt: () => 'split', parse: (text) => text.split(',').map((v) => ({ v })) }));
    const r = await g.run({ model: mockModel('l,r'), input: { v: 'x' } });
    expect(r.thoughts.map((t) => [t.id, t.state.v, t.parentIds])).toEqual([['op0.0', 'l', ['input.0']], ['op0.1', 'r', ['input.0']]]);
  });

  it('drops a thought whose parse throws or returns nothing, and lists the error where it happened', async () => {
    const model = mockModel(['1', 'bad', 'none', '4'], {});
    const g = new OperationGraph<S>();
    g.add(seed('a', 'b', 'c', 'd'), { id: 's' });
    g.add(
      generate<S>({
        prompt: (s) => s.v,
        parse: (text) => {
          if (text === 'bad') throw new Error('not a number');
          return text === 'none' ? undefined : { v: text };
        },
      }),
      { id: 'gen' },
    );
    const events: GraphEvent[] = [];
    const r = await g.run({ model, input: { v: 'x' }, concurrency: 1, onEvent: (e) => events.push(e as GraphEvent) });
    expect(r.stopReason).toBe('completed');
    expect(r.thoughts.map((t) => [t.id, t.state.v, t.parentIds])).toEqual([['gen.0', '1', ['s.0']], ['gen.1', '4', ['s.3']]]);
    expect(r.errors.map((e) => [e.code, e.message, e.where])).toEqual([
      ['INVALID_FORMAT', 'the parse function threw: not a number', { kind: 'operation', operationId: 'gen', operation: 'generate', parentIds: ['s.1'] }],
      ['INVALID_FORMAT', 'the parse function returned nothing', { kind: 'operation', operationId: 'gen', operation: 'generate', parentIds: ['s.2'] }],
    ]);
    expect(r.stats.droppedThoughts).toBe(2);
    expect(events.filter((e) => e.type === 'thought.dropped').map((e) => (e as { response?: string }).response)).toEqual(['bad', 'none']);
  });

  it('rejects a strict run at the first dropped thought, with the parse error as its cause', async () => {
    const g = new OperationGraph<S>();
    const cause = new Error('not a number');
    g.add(generate<S>({ prompt: () => 'x', parse: () => { throw cause; } }));
    const error = await catchTotError(() => g.run({ model: mockModel('x'), input: { v: 'x' }, strict: true }), 'INVALID_FORMAT');
    expect(error.message).toContain('generate operation op0');
    expect((error.cause as { cause?: unknown }).cause).toBe(cause);
  });

  it('gives aggregate every input state in order, in one call, and makes thoughts with all of them as parents', async () => {
    const model = mockModel((req) => ({ outputs: [lastUser(req), `${lastUser(req)}!`] }), { multipleOutputs: true });
    const g = new OperationGraph<S>();
    const a = g.add(seed('a1', 'a2'), { id: 'a', after: [] });
    const b = g.add(seed('b1'), { id: 'b', after: [] });
    g.add(aggregate<S>({ prompt: (states) => states.map((s) => s.v).join('+'), parse: (text) => ({ v: text }), responses: 2 }), { after: [b, a], id: 'agg' });
    const r = await g.run({ model, input: { v: 'x' } });
    expect(model.callCount).toBe(1);
    expect(r.thoughts.map((t) => [t.state.v, t.parentIds])).toEqual([['b1+a1+a2', ['b.0', 'a.0', 'a.1']], ['b1+a1+a2!', ['b.0', 'a.0', 'a.1']]]);
  });

  it('improves each thought with its own call', async () => {
    const model = mockModel((req) => `${lastUser(req)}'`);
    const g = new OperationGraph<S>();
    g.add(seed('a', 'b'));
    g.add(improve<S>({ prompt: (s) => s.v, parse: (text) => ({ v: text }) }));
    const r = await g.run({ model, input: { v: 'x' } });
    expect(r.thoughts.map((t) => [t.state.v, t.parentIds])).toEqual([["a'", ['op0.0']], ["b'", ['op0.1']]]);
  });

  it('stops validateAndImprove after `tries` improvements and passes on the last version, marked invalid', async () => {
    const model = mockModel((req) => `${lastUser(req)}x`);
    const g = new OperationGraph<S>();
    g.add(seed('a'));
    g.add(validateAndImprove<S>({ validate: () => false, prompt: (s) => s.v, parse: (text) => ({ v: text }), tries: 3 }), { id: 'fix' });
    const r = await g.run({ model, input: { v: 'x' } });
    expect(model.callCount).toBe(3);
    expect(r.thoughts.map((t) => [t.id, t.state.v, t.valid, t.parentIds])).toEqual([['fix.3', 'axxx', false, ['fix.2']]]);
    expect(r.graph.thoughtsOf('fix').map((t) => [t.id, t.state.v, t.parentIds])).toEqual([
      ['fix.0', 'a', ['op0.0']],
      ['fix.1', 'ax', ['fix.0']],
      ['fix.2', 'axx', ['fix.1']],
      ['fix.3', 'axxx', ['fix.2']],
    ]);
  });

  it('stops validateAndImprove as soon as a version is valid, and makes no call for a valid thought', async () => {
    const model = mockModel((req) => `${lastUser(req)}x`);
    const g = new OperationGraph<S>();
    g.add(seed('ok', 'a'));
    g.add(validateAndImprove<S>({ validate: (s) => s.v === 'ok' || s.v.length >= 3, prompt: (s) => s.v, parse: (text) => ({ v: text }), tries: 5 }));
    const r = await g.run({ model, input: { v: 'x' } });
    expect(model.prompts()).toEqual(['a', 'ax']);
    expect(r.thoughts.map((t) => [t.state.v, t.valid])).toEqual([['ok', true], ['axx', true]]);
  });

  it('passes on the thoughts select returns, in its order', async () => {
    const g = new OperationGraph<S>();
    g.add(seed('a', 'b', 'c'));
    g.add(select<S>((ts) => [ts[2]!, ts[0]!]));
    const r = await g.run({ input: { v: 'x' } });
    expect(r.thoughts.map((t) => [t.state.v, t.parentIds])).toEqual([['c', ['op0.2']], ['a', ['op0.0']]]);
  });

  it('fails select when its function returns a thought that was not among its input', async () => {
    const g = new OperationGraph<S>();
    g.add(seed('a'));
    g.add(select<S>((ts) => [{ ...ts[0]! }]));
    const r = await g.run({ input: { v: 'x' } });
    expect(r.errors[0]).toMatchObject({ code: 'INVALID_FORMAT', where: { operation: 'select' } });
    expect(r.stats.failedOperations).toBe(1);
  });

  it('marks the thoughts groundTruth accepts as solved', async () => {
    const g = new OperationGraph<S>();
    g.add(seed('right', 'wrong'));
    g.add(groundTruth<S>((s) => s.v === 'right'));
    const r = await g.run({ input: { v: 'x' } });
    expect(r.thoughts.map((t) => [t.state.v, t.solved])).toEqual([['right', true], ['wrong', false]]);
  });

  it('scores with the model: one call of `samples` per thought, every sample given to parse', async () => {
    const model = mockModel((req) => ({ outputs: Array.from({ length: req.n ?? 1 }, (_, i) => String(lastUser(req).length + i)) }), { multipleOutputs: true });
    const g = new OperationGraph<S>();
    g.add(seed('ab', 'abcd'));
    const seen: string[][] = [];
    g.add(score<S>({ prompt: (s) => s.v, parse: (texts) => (seen.push(texts), texts.map(Number).reduce((a, b) => a + b, 0) / texts.length), samples: 3 }));
    const r = await g.run({ model, input: { v: 'x' } });
    expect(seen).toEqual([['2', '3', '4'], ['4', '5', '6']]);
    expect(r.thoughts.map((t) => t.score)).toEqual([3, 5]);
  });

  it('keeps marks through the operations after the one that set them', async () => {
    const g = new OperationGraph<S>();
    g.add(seed('a', 'b'));
    g.add(scoreBy({ a: 1, b: 2 }));
    g.add(groundTruth<S>((s) => s.v === 'b'));
    g.add(select<S>((ts) => ts));
    const r = await g.run({ input: { v: 'x' } });
    expect(r.thoughts.map((t) => [t.score, t.solved])).toEqual([[1, false], [2, true]]);
  });

  it('rebuilds, from the run\'s events, the same graph the run returned', async () => {
    const model = mockModel((req) => ({ outputs: Array.from({ length: req.n ?? 1 }, (_, i) => `${lastUser(req)}${i}`) }), { multipleOutputs: true });
    const g = new OperationGraph<S>();
    const a = g.add(seed('a', 'b'), { id: 'a' });
    const l = g.add(generate<S>({ prompt: (s) => s.v, parse: (text) => ({ v: text }), responses: 2 }), { after: [a], id: 'l' });
    const r2 = g.add(generate<S>({ prompt: (s) => s.v, parse: (text) => (text.endsWith('1') ? undefined : { v: text }), responses: 2 }), { after: [a], id: 'r' });
    g.add(aggregate<S>({ prompt: (states) => states.map((s) => s.v).join(','), parse: (text) => ({ v: text }) }), { after: [r2, l] });
    const events: GraphEvent<S>[] = [];
    const r = await g.run({ model, input: { v: 'x' }, onEvent: (e) => events.push(e) });
    expect(JSON.stringify(foldGraphEvents(events).toJSON())).toBe(JSON.stringify(r.graph.toJSON()));
    expect(r.graph.toJSON().thoughts.map((t) => t.id)).toEqual(['input.0', 'a.0', 'a.1', 'l.0', 'l.1', 'l.2', 'l.3', 'r.0', 'r.1', 'op3.0']);
  });

  it('refuses a corrupt log with INVALID_FORMAT naming the event, never a crash', async () => {
    const events: GraphEvent<S>[] = [];
    const g = new OperationGraph<S>();
    g.add(seed('a'), { id: 'a' });
    await g.run({ input: { v: 'x' }, onEvent: (e) => events.push(e) });
    const started = events[0] as GraphEvent<S> & { config: Record<string, unknown> };
    const broken = [{ ...started, config: { ...started.config, operations: [null] } }, ...events.slice(1)];
    expect(() => foldGraphEvents(broken)).toThrow(/corrupt at event 0: config.operations/);
    const orphan = [{ ...started, config: { ...started.config, operations: [{ id: 'a', kind: 'seed', after: ['nowhere'] }] } }, ...events.slice(1)];
    expect(() => foldGraphEvents(orphan)).toThrow(/not an earlier operation/);
    expect(() => foldGraphEvents([...events.slice(0, 2), started, ...events.slice(2)])).toThrow(/corrupt at event 2: run.started may only begin the log/);
    const completed = events.find((e) => e.type === 'operation.completed')!;
    expect(() => foldGraphEvents([...events, completed])).toThrow(/finished twice/);
  });

  it('draws the graph of thoughts in Mermaid: a subgraph per operation, an edge per parent', async () => {
    const g = new OperationGraph<S>();
    g.add(seed('a'), { id: 'a' });
    g.add(scoreBy({ a: 4 }), { id: 'sc' });
    const text = (await g.run({ input: { v: 'x' } })).graph.toMermaid();
    expect(text).toContain('subgraph g_a ["a · seed"]');
    expect(text).toContain('t_a_0 --> t_sc_0');
    expect(text).toContain('t_input_0 --> t_a_0');
    expect(text).toContain('{#quot;v#quot;:#quot;a#quot;} · 4');
  });
});

describe('OperationGraph.add and run options', () => {
  it('follows the current leaves by default, and ids operations op<index>', () => {
    const g = new OperationGraph<S>();
    const a = g.add(seed('a'), { after: [] });
    const b = g.add(seed('b'), { after: [] });
    g.add(select<S>((ts) => ts));
    expect(g.toMermaid()).toContain('o_op0 --> o_op2');
    expect(g.toMermaid()).toContain('o_op1 --> o_op2');
    expect([a.id, b.id]).toEqual(['op0', 'op1']);
  });

  it('refuses an `after` naming an operation the graph does not have', async () => {
    const g = new OperationGraph<S>();
    const other = new OperationGraph<S>().add(seed('a'), { id: 'elsewhere' });
    const error = await catchTotError(() => g.add(seed('b'), { after: [other] }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('no operation "elsewhere"');
  });

  it('refuses a duplicate operation id', async () => {
    const g = new OperationGraph<S>();
    g.add(seed('a'), { id: 'x' });
    await catchTotError(() => g.add(seed('b'), { id: 'x' }), 'INVALID_ARGUMENT');
  });

  it('refuses, before any call, a run of a graph that calls the model without a model', async () => {
    const g = new OperationGraph<S>();
    g.add(generate<S>({ prompt: () => 'x', parse: (t) => ({ v: t }) }));
    const error = await catchTotError(() => g.run({ input: { v: 'x' } }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('options.model');
  });

  it('refuses a generate without a parse function, naming the field', async () => {
    const error = await catchTotError(() => generate<S>({ prompt: () => 'x' } as never), 'INVALID_ARGUMENT');
    expect(error.message).toContain('parse');
  });
});
