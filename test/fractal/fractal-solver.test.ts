import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Budget, InMemoryEventStore } from '../../src/index.js';
import { FractalSolver, replayFractalRun, type EvalFunction, type FractalEvent, type ThinkFunction } from '../../src/fractal/index.js';
import { mockModel, scriptedModel } from '../../src/testing/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

/** The seed's §7 essay: the root plans three paragraphs; each child writes its paragraph. */
const essayThink: ThinkFunction = ({ frame }) =>
  frame.depth === 0 ? { type: 'TODO', description: '[] generative art\n[] assisted creation\n[] art criticism' } : { type: 'RETURN', description: `paragraph: ${frame.goal}` };

function essayEval(seen: string[][]): EvalFunction {
  const parts = ['generative art', 'assisted creation', 'art criticism'];
  return ({ frame }) => {
    seen.push([...frame.done]);
    return frame.done.length < parts.length ? { type: 'CALL', description: parts[frame.done.length]! } : { type: 'RETURN', description: frame.done.join('\n') };
  };
}

describe('FractalSolver', () => {
  it("follows the seed's control flow and archives each child's result before the parent's next eval", async () => {
    const seen: string[][] = [];
    const result = await new FractalSolver({ think: essayThink, eval: essayEval(seen) }).run('Write a short essay on AI and art');
    expect(result.status).toBe('completed');
    expect(result.result).toBe('paragraph: generative art\nparagraph: assisted creation\nparagraph: art criticism');
    expect(seen).toEqual([[], ['paragraph: generative art'], ['paragraph: generative art', 'paragraph: assisted creation'], ['paragraph: generative art', 'paragraph: assisted creation', 'paragraph: art criticism']]);
    const root = result.root.get('f0')!;
    expect(root).toMatchObject({ parentId: null, todo: '[] generative art\n[] assisted creation\n[] art criticism', status: 'returned', depth: 0 });
    expect(result.root.children('f0').map((f) => f.goal)).toEqual(['generative art', 'assisted creation', 'art criticism']);
    expect(result.stats).toMatchObject({ frames: 4, thinkCalls: 4, evalCalls: 4, steps: 8, deepest: 1 });
  });

  it('runs think and eval on a model, showing goal, plan, results and ancestors', async () => {
    const model = scriptedModel({
      rules: [
        { name: 'root think', when: (r) => r.tags?.role === 'think' && r.messages[0]!.content.includes('Your goal: Essay'), reply: '{"type": "TODO", "description": "1. intro 2. body"}' },
        { name: 'child think', when: (r) => r.tags?.role === 'think', reply: (r) => `{"type": "RETURN", "description": "written: ${/Your goal: (.*)/.exec(r.messages[0]!.content)![1]}"}` },
        { name: 'eval 1', when: (r) => r.tags?.role === 'eval' && r.messages[0]!.content.includes('(nothing yet)'), reply: '{"type": "CALL", "description": "intro"}' },
        { name: 'eval 2', when: (r) => r.tags?.role === 'eval' && !r.messages[0]!.content.includes('2. written'), reply: '{"type": "CALL", "description": "body"}' },
        { name: 'eval 3', when: (r) => r.tags?.role === 'eval', reply: '{"type": "RETURN", "description": "intro + body"}' },
      ],
    });
    const result = await new FractalSolver({ model }).run('Essay');
    expect(result).toMatchObject({ status: 'completed', result: 'intro + body' });
    const evalPrompt = model.calls.filter((c) => c.rule === 'eval 3')[0]!.request.messages[0]!.content;
    expect(evalPrompt).toContain('The plan:\n1. intro 2. body');
    expect(evalPrompt).toContain('1. written: intro\n2. written: body');
    const childThink = model.calls.find((c) => c.rule === 'child think')!.request.messages[0]!.content;
    expect(childThink).toContain('Larger goals, outermost first:\n1. Essay');
    expect(result.stats.llmCalls).toBe(model.callCount);
  });

  it('mixes a function think with an LLM eval', async () => {
    const model = mockModel(['{"type": "CALL", "description": "only part"}', '{"type": "RETURN", "description": "whole"}']);
    const result = await new FractalSolver({ model, think: essayThink }).run('Essay');
    expect(result.result).toBe('whole');
    expect(model.callCount).toBe(2);
  });

  it('makes a frame at maxDepth return its current state instead of calling deeper', async () => {
    const think: ThinkFunction = () => ({ type: 'TODO', description: 'go deeper' });
    const evaluate: EvalFunction = ({ frame }) => (frame.done.length === 0 ? { type: 'CALL', description: `below ${frame.goal}` } : { type: 'RETURN', description: `up from ${frame.goal}` });
    const result = await new FractalSolver({ think, eval: evaluate, maxDepth: 2 }).run('top');
    expect(result.stats.deepest).toBe(2);
    const deepest = result.root.all().find((f) => f.depth === 2)!;
    expect(deepest.forced).toEqual({ kind: 'depth', limit: 2 });
    expect(deepest.result).toBe('go deeper');
    expect(result.status).toBe('completed');
  });

  it('degrades gracefully at maxSteps, answering with what is done', async () => {
    const evaluate: EvalFunction = ({ frame }) => ({ type: 'CALL', description: `part ${frame.done.length + 1}` });
    const result = await new FractalSolver({ think: essayThink, eval: evaluate, maxSteps: 6 }).run('endless essay');
    expect(result).toMatchObject({ status: 'degraded', stopReason: 'max_steps', detail: { kind: 'steps', limit: 6 } });
    expect(result.result).toBe('paragraph: part 1\nparagraph: part 2');
    expect(result.stats.steps).toBe(6);
  });

  it('degrades at the time limit', async () => {
    const think: ThinkFunction = async ({ frame }) => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      return frame.depth === 0 ? { type: 'TODO', description: 'plan' } : { type: 'RETURN', description: 'slow part' };
    };
    const result = await new FractalSolver({ think, eval: ({ frame }) => ({ type: 'CALL', description: `p${frame.done.length}` }), timeoutMs: 100 }).run('slow');
    expect(result).toMatchObject({ status: 'degraded', stopReason: 'timeout', detail: { kind: 'time', limitMs: 100 } });
    expect(result.root.get('f0')!.forced).toEqual({ kind: 'time', limitMs: 100 });
  });

  it('degrades when the budget runs out', async () => {
    const model = mockModel((_r, { callIndex }) => `{"type": "CALL", "description": "part ${callIndex}"}`);
    const budget = new Budget({ maxCalls: 3 });
    const result = await new FractalSolver({ model, think: essayThink, budget }).run('Essay');
    expect(result).toMatchObject({ status: 'degraded', stopReason: 'budget_exceeded', detail: { kind: 'budget', limit: 'calls' } });
    expect(budget.snapshot().used.calls).toBeLessThanOrEqual(3);
  });

  it('detects a loop: the same sub-goal called again and again with no new result', async () => {
    const think: ThinkFunction = ({ frame }) => (frame.depth === 0 ? { type: 'TODO', description: 'retry forever' } : { type: 'RETURN', description: 'FAILED: no network' });
    const evaluate: EvalFunction = () => ({ type: 'CALL', description: 'Fetch the page!' });
    const result = await new FractalSolver({ think, eval: evaluate, maxRepeats: 3 }).run('fetch');
    expect(result).toMatchObject({ status: 'failed', stopReason: 'loop_detected', detail: { kind: 'loop', frameId: 'f0', goal: 'Fetch the page!', repeats: 3 } });
    expect(result.root.get('f0')!.done).toHaveLength(3);
  });

  it('fails only the branch whose think output is invalid, archiving the failure in the parent', async () => {
    const think: ThinkFunction = ({ frame }) => (frame.depth === 0 ? { type: 'TODO', description: 'two parts' } : frame.goal === 'bad' ? ({ type: 'MAYBE' } as never) : { type: 'RETURN', description: 'good part' });
    const evaluate: EvalFunction = ({ frame }) => (frame.done.length === 0 ? { type: 'CALL', description: 'bad' } : frame.done.length === 1 ? { type: 'CALL', description: 'good' } : { type: 'RETURN', description: frame.done.join(' | ') });
    const result = await new FractalSolver({ think, eval: evaluate }).run('two');
    expect(result.status).toBe('completed');
    expect(result.result).toMatch(/^FAILED \(INVALID_FORMAT\).* \| good part$/);
    expect(result.root.all().find((f) => f.goal === 'bad')!.status).toBe('failed');
  });

  it('repairs an invalid model reply, then fails with INVALID_FORMAT', async () => {
    const model = mockModel(['not json', 'still not', 'nope']);
    const result = await new FractalSolver({ model, maxRepairs: 2 }).run('x');
    expect(result).toMatchObject({ status: 'failed', stopReason: 'error', detail: { kind: 'error', code: 'INVALID_FORMAT' } });
    expect(result.errors).toMatchObject([{ code: 'INVALID_FORMAT', where: { kind: 'frame', frameId: 'f0', operator: 'think' } }]);
    expect(model.callCount).toBe(3);
  });

  it('lets think call tools, recording each call and its result in the frame', async () => {
    const tools = {
      words: { description: 'counts words', input: z.object({ text: z.string() }), run: async ({ text }: { text: string }) => text.split(' ').length },
    };
    const think: ThinkFunction = async ({ callTool }) => {
      const count = await callTool('words', { text: 'one two three' });
      await callTool('words', { text: 42 }).catch(() => undefined);
      return { type: 'RETURN', description: `${String(count)} words` };
    };
    const result = await new FractalSolver({ think, eval: () => ({ type: 'RETURN', description: 'x' }), tools }).run('count');
    expect(result.result).toBe('3 words');
    const calls = result.root.get('f0')!.toolCalls;
    expect(calls[0]).toEqual({ tool: 'words', input: { text: 'one two three' }, output: 3 });
    expect(calls[1]!.error).toContain('expected string');
    expect(result.stats.toolCalls).toBe(2);
  });

  it('runs a tool an LLM think asks for, then thinks again with the result', async () => {
    const model = mockModel(['{"type": "TOOL", "tool": "clock", "input": {}}', '{"type": "RETURN", "description": "it is noon"}']);
    const tools = { clock: { input: z.object({}), run: () => '12:00' } };
    const result = await new FractalSolver({ model, tools }).run('What time is it?');
    expect(result.result).toBe('it is noon');
    expect(model.prompts()[1]).toContain('- clock({}) → "12:00"');
  });

  it('emits the run as frame events and exports the frame tree', async () => {
    const solver = new FractalSolver({ think: essayThink, eval: essayEval([]), now: () => 0 });
    const events: FractalEvent[] = [];
    solver.on('event', (e) => events.push(e));
    const result = await solver.run('Essay', { runId: 'e1' });
    expect(events.map((e) => e.type).slice(0, 6)).toEqual(['run.started', 'frame.created', 'frame.thought', 'frame.evaluated', 'frame.created', 'frame.called']);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    expect(events.filter((e) => e.type === 'frame.returned')).toHaveLength(4);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', stopReason: 'completed' });
    expect(result.root.toMermaid()).toContain('f0 --> f1');
    expect(JSON.parse(JSON.stringify(result.root)).frames).toHaveLength(4);
  });

  it('records the run into an event store, whose log folds back into the same frames', async () => {
    const store = new InMemoryEventStore();
    const think: ThinkFunction = async ({ frame, callTool }) => {
      if (frame.depth === 0) return { type: 'TODO', description: 'three parts' };
      if (frame.goal === 'part 2') return { type: 'WRONG' } as never;
      await callTool('echo', { text: frame.goal });
      return { type: 'RETURN', description: `wrote ${frame.goal}` };
    };
    const evaluate: EvalFunction = ({ frame }) => (frame.done.length < 3 ? { type: 'CALL', description: `part ${frame.done.length + 1}` } : { type: 'RETURN', description: frame.done.join('; ') });
    const tools = { echo: { input: z.object({ text: z.string() }), run: ({ text }: { text: string }) => text } };
    const result = await new FractalSolver({ think, eval: evaluate, tools }).run('audit me', { store, runId: 'audit' });
    const replayed = await replayFractalRun(store, 'audit');
    expect(JSON.stringify(replayed.toJSON())).toBe(JSON.stringify(result.root.toJSON()));
    expect(replayed.get('f0')!.done[1]).toMatch(/^FAILED \(INVALID_FORMAT\)/);
  });

  it('keeps solve() as a deprecated alias of run()', async () => {
    const solver = new FractalSolver({ think: essayThink, eval: essayEval([]) });
    const [a, b] = [await solver.solve('Essay', { runId: 'a' }), await solver.run('Essay', { runId: 'b' })];
    expect(JSON.stringify(a.root)).toBe(JSON.stringify(b.root));
    expect(a.result).toBe(b.result);
  });

  it('rejects ABORTED when aborted', async () => {
    await catchTotError(() => new FractalSolver({ think: essayThink, eval: essayEval([]) }).run('x', { signal: AbortSignal.abort() }), 'ABORTED');
  });

  it('validates its options', async () => {
    const error = await catchTotError(() => new FractalSolver({ think: essayThink } as never), 'INVALID_ARGUMENT');
    expect(error.message).toContain('options.model');
  });

  it('never exceeds maxDepth or maxSteps and keeps every result archived before the next eval (property)', async () => {
    const behaviour = fc.record({ seed: fc.integer(), maxDepth: fc.integer({ min: 0, max: 4 }), maxSteps: fc.integer({ min: 2, max: 40 }) });
    await fc.assert(
      fc.asyncProperty(behaviour, async ({ seed, maxDepth, maxSteps }) => {
        let x = seed >>> 0;
        const rand = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 4_294_967_296);
        const returned = new Map<string, number>();
        const think: ThinkFunction = () => (rand() < 0.4 ? { type: 'RETURN', description: `r${Math.floor(rand() * 5)}` } : rand() < 0.1 ? ({ type: 'BAD' } as never) : { type: 'TODO', description: 'plan' });
        const evaluate: EvalFunction = ({ frame }) => {
          // The invariant: this eval sees one archived result per child the frame has called.
          expect(frame.done.length).toBe(returned.get(frame.id) ?? 0);
          return rand() < 0.6 ? { type: 'CALL', description: `sub ${Math.floor(rand() * 3)}` } : { type: 'RETURN', description: `done ${frame.id}` };
        };
        const solver = new FractalSolver({ think, eval: evaluate, maxDepth, maxSteps });
        // Count the results each parent must have archived: one per child that returned or failed.
        const parents = new Map<string, string>();
        solver.on('frame.created', (e) => e.parentId && parents.set(e.frameId, e.parentId));
        solver.on('frame.returned', (e) => {
          const p = parents.get(e.frameId);
          if (p) returned.set(p, (returned.get(p) ?? 0) + 1);
        });
        solver.on('frame.failed', (e) => {
          const p = parents.get(e.frameId);
          if (p) returned.set(p, (returned.get(p) ?? 0) + 1);
        });
        const result = await solver.run('random goal');
        expect(['completed', 'degraded', 'failed']).toContain(result.status);
        expect(result.stats.steps).toBeLessThanOrEqual(maxSteps);
        for (const frame of result.root.all()) expect(frame.depth).toBeLessThanOrEqual(maxDepth);
      }),
      { numRuns: 200 },
    );
  });
});
