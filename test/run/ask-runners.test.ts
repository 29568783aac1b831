// Every runner can ask: answered in process, or the run ends waiting, the process that ran it
// closes its store and goes, and another runner object on a store opened afresh on the same
// SQLite file answers and finishes it, equal to the run answered in process, with no completed
// model call made again.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fromFunction, resumeSolve, solve, type AskHandler, type Answers, type EventStore, type GenerateRequest, type LanguageModel, type RunOptions, type RunResult, type SearchStrategy } from '../../src/index.js';
import { ChainOfThoughtNode, type ChainOfThoughtPrep, type ChainOfThoughtStepOptions } from '../../src/cot/index.js';
import { FractalSolver, type FrameContext } from '../../src/fractal/index.js';
import { generate, OperationGraph, type Operation } from '../../src/graph/index.js';
import { SqliteEventStore } from '../../src/sqlite/index.js';
import { collect } from '../helpers/collect.js';
import { scriptedRoles } from '../search/fixtures.js';

/** A model that echoes its prompt, counting the calls that reach it. */
function counting(reply: (prompt: string) => string = (p) => `${p}!`) {
  const counter = { calls: 0 };
  const model = fromFunction(
    async (request: GenerateRequest) => {
      counter.calls += 1;
      return reply(request.messages.at(-1)!.content);
    },
    { input: 'request', modelId: 'echo' },
  );
  return { model: model as LanguageModel, counter };
}

interface Case {
  /** Runs the runner once; `onAsk` answers in process, else the run is recorded to `store`. */
  run(model: LanguageModel, options: { store?: EventStore; runId: string; onAsk?: AskHandler }): Promise<RunResult>;
  resume(model: LanguageModel, options: { store: EventStore; runId: string; answers: Answers }): Promise<RunResult>;
  /** The question id the run asks, and the answer both runs get. */
  questionId: string;
  answer: unknown;
  /** What must be equal between the two results. */
  outcome(result: RunResult): unknown;
}

type S = { v: string };
/** a → ask (the person's word joins the text) → b: a model call before the question and one after. */
const graph = () => {
  const g = new OperationGraph<S>();
  g.add(generate<S>({ prompt: (s) => `a:${s.v}`, parse: (text) => ({ v: text }) }), { id: 'a' });
  const approve: Operation<S> = {
    kind: 'approve',
    describe: () => ({}),
    execute: async (input, ctx) => {
      const word = await ctx.ask({ key: 'word', question: `A word to add to "${input[0]!.state.v}"?`, schema: z.string().min(1), preview: input[0]!.state.v });
      return [ctx.thought({ v: `${input[0]!.state.v}+${word}` }, input)];
    },
  };
  g.add(approve, { id: 'ask', after: ['a'] });
  g.add(generate<S>({ prompt: (s) => `b:${s.v}`, parse: (text) => ({ v: text }) }), { id: 'b', after: ['ask'] });
  return g;
};

/** Think asks how to split the goal at the root, then returns; eval returns at once. */
const fractal = (model: LanguageModel) =>
  new FractalSolver({
    think: async (ctx: FrameContext) => {
      const said = await (ctx.runModel ? ctx.runModel(model) : model).generate({ messages: [{ role: 'user', content: `think ${ctx.frame.goal}` }] });
      if (ctx.frame.depth > 0) return { type: 'RETURN', description: `${ctx.frame.goal}: ${said.outputs[0]}` };
      const plan = await ctx.ask!({ key: 'plan', question: `How to approach "${ctx.frame.goal}"?`, schema: z.string() });
      return { type: 'TODO', description: plan };
    },
    eval: async (ctx: FrameContext) => ({ type: 'RETURN', description: ctx.frame.done.join('; ') || 'nothing' }),
  });

/** A chain of thought whose second thought asks for a hint before it calls the model. */
class HintedChain extends ChainOfThoughtNode {
  override async exec(prepared: ChainOfThoughtPrep, options: ChainOfThoughtStepOptions = {}) {
    if (prepared.thoughtNumber === 2) {
      const hint = await options.ask!({ key: 'hint', question: 'A hint?', schema: z.string() });
      return super.exec({ ...prepared, problem: `${prepared.problem} (hint: ${hint})` }, options);
    }
    return super.exec(prepared, options);
  }
}
const cotReply = (prompt: string) =>
  JSON.stringify({ current_thinking: `about ${prompt.length}`, planning: [], next_thought_needed: !prompt.includes('hint') });

const askingStrategy: SearchStrategy = {
  name: 'asking',
  async run(ctx) {
    const children = await ctx.evaluate(await ctx.expand([ctx.tree.root]));
    const go = await ctx.ask({ key: 'go', question: 'Go deeper?', schema: z.boolean() });
    if (go) await ctx.evaluate(await ctx.expand(children.slice(0, 1)));
    ctx.stop('max_depth');
  },
};

const cases: Record<string, Case> = {
  OperationGraph: {
    run: (model, o) => graph().run({ model, input: { v: 'x' }, ...o }),
    resume: (model, o) => graph().resume({ model, ...o }),
    questionId: 'operation/approve/ask#word',
    answer: 'yes',
    outcome: (r) => (r as Awaited<ReturnType<OperationGraph<S>['run']>>).thoughts.map((t) => t.state.v),
  },
  FractalSolver: {
    run: (model, o) => fractal(model).run('an essay', o),
    resume: (model, o) => fractal(model).resume(o),
    questionId: 'frame/f0/think#plan',
    answer: 'outline first',
    outcome: (r) => {
      const f = r as Awaited<ReturnType<FractalSolver['run']>>;
      return { result: f.result, stopReason: f.stopReason, root: f.root.toJSON?.() ?? null };
    },
  },
  ChainOfThoughtNode: {
    run: (model, o) => new HintedChain({ model, format: 'json' }).run('a riddle', o),
    resume: (model, o) => new HintedChain({ model, format: 'json' }).resume(o),
    questionId: 'thought/2#hint',
    answer: 'think small',
    outcome: (r) => {
      const c = r as Awaited<ReturnType<ChainOfThoughtNode['run']>>;
      return { stopReason: c.stopReason, thoughts: c.thoughts.map((t) => t.currentThinking), solution: c.solution };
    },
  },
  'solve()': {
    run: (_model, o) => solve({ problem: 'R', ...scriptedRoles(), strategy: askingStrategy, maxDepth: 2, ...o }),
    resume: (_model, o) => resumeSolve({ ...scriptedRoles(), strategy: askingStrategy, maxDepth: 2, ...o }),
    questionId: 'strategy/asking#go',
    answer: true,
    outcome: (r) => {
      const s = r as Awaited<ReturnType<typeof solve>>;
      return { stopReason: s.stopReason, nodes: [...s.tree.all()].map((n) => [n.id, n.content, n.status]), answer: s.solution?.answer };
    },
  },
};

const model = (name: string) => counting(name === 'ChainOfThoughtNode' ? cotReply : undefined);

describe.each(Object.keys(cases))('%s asking a person', (name) => {
  const c = cases[name]!;

  it('ends waiting; answered by a resume over a store opened afresh, it finishes as the run answered in process did, with no model call made twice', async () => {
    const inline = model(name);
    const expected = await c.run(inline.model, { runId: 'inline', onAsk: (q) => (q.id === c.questionId ? c.answer : undefined) });
    expect(expected.stopReason).not.toBe('waiting');

    const file = join(mkdtempSync(join(tmpdir(), 'tot-ask-')), 'runs.db');
    const firstStore = new SqliteEventStore({ path: file });
    const first = model(name);
    const waiting = await c.run(first.model, { store: firstStore, runId: 'r' });
    expect(waiting.stopReason).toBe('waiting');
    expect(waiting.pending!.map((q) => q.id)).toEqual([c.questionId]);
    firstStore.close();

    const secondStore = new SqliteEventStore({ path: file });
    const second = model(name);
    const done = await c.resume(second.model, { store: secondStore, runId: 'r', answers: { [c.questionId]: c.answer } });
    expect(done.stopReason).toBe(expected.stopReason);
    expect(c.outcome(done)).toEqual(c.outcome(expected));
    expect(first.counter.calls + second.counter.calls).toBe(inline.counter.calls);
    const log = await collect(secondStore.readStream('r'));
    expect(log.filter((e) => e.type === 'run.asked')).toHaveLength(1);
    expect(log.filter((e) => e.type === 'run.answered').map((e) => e.data)).toMatchObject([{ questionId: c.questionId, answer: c.answer, by: 'resume' }]);
    secondStore.close();
  });
});

// Type check only: every runner's run options take onAsk.
const _onAsk: RunOptions['onAsk'] = () => undefined;
void _onAsk;
