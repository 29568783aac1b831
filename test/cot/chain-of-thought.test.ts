import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TotError } from '../../src/index.js';
import { ChainOfThoughtNode, formatPlan, planSchema, type ChainOfThoughtEvent } from '../../src/cot/index.js';
import { mockModel } from '../../src/testing/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

const yamlThought = (thinking: string, steps: string, next: boolean) => `current_thinking: |\n  ${thinking}\nplanning:\n${steps}\nnext_thought_needed: ${next}`;

const THOUGHTS = [
  yamlThought(
    'We need 17 * 23. Split it as 17 * 20 + 17 * 3.',
    `  - description: "Understand the problem"\n    status: "Done"\n    result: "multiply 17 by 23"\n  - description: "Compute the product"\n    status: "Pending"\n    sub_steps:\n      - description: "17 * 20"\n        status: "Pending"\n      - description: "17 * 3"\n        status: "Pending"\n  - description: "Conclusion"\n    status: "Pending"`,
    true,
  ),
  yamlThought(
    'Previous thought is right. 17 * 20 = 340 and 17 * 3 = 51, so 391.',
    `  - description: "Understand the problem"\n    status: "Done"\n    result: "multiply 17 by 23"\n  - description: "Compute the product"\n    status: "Done"\n    result: "391"\n    sub_steps:\n      - description: "17 * 20"\n        status: "Done"\n        result: "340"\n      - description: "17 * 3"\n        status: "Done"\n        result: "51"\n  - description: "Conclusion"\n    status: "Pending"`,
    true,
  ),
  yamlThought('17 * 23 = 391.', `  - description: "Conclusion"\n    status: "Done"\n    result: "391"`, false),
];

describe('ChainOfThoughtNode', () => {
  it('thinks until the conclusion, keeping every thought and the evolving nested plan', async () => {
    const model = mockModel(THOUGHTS);
    const result = await new ChainOfThoughtNode({ model }).run('What is 17 * 23?');
    expect(result.stopReason).toBe('completed');
    expect(result.solution).toBe('17 * 23 = 391.');
    expect(result.thoughts.map((t) => t.thoughtNumber)).toEqual([1, 2, 3]);
    expect(result.thoughts[1]!.planning[1]).toEqual({
      description: 'Compute the product',
      status: 'Done',
      result: '391',
      subSteps: [
        { description: '17 * 20', status: 'Done', result: '340' },
        { description: '17 * 3', status: 'Done', result: '51' },
      ],
    });
    expect(result.plan).toEqual([{ description: 'Conclusion', status: 'Done', result: '391' }]);
  });

  it('shows the earlier thoughts and the last plan in the next prompt', async () => {
    const model = mockModel(THOUGHTS);
    await new ChainOfThoughtNode({ model }).run('What is 17 * 23?');
    const [first, second] = model.prompts();
    expect(first).toContain('(none: this is the first thought)');
    expect(first).toContain('- [Pending] Understand the problem');
    expect(first).toContain('This is thought 1.');
    expect(second).toContain('Thought 1:\nWe need 17 * 23.');
    expect(second).toContain('- [Done] Understand the problem: multiply 17 by 23\n- [Pending] Compute the product\n  - [Pending] 17 * 20');
    expect(second).toContain('Execute the first step of the plan that is "Pending"');
  });

  it('repairs YAML with unquoted colons without another model call', async () => {
    const broken = 'current_thinking: Step 2: the total is 391\nplanning:\n  - description: Conclusion: state the product\n    status: Done\n    result: answer: 391\nnext_thought_needed: false';
    const model = mockModel([broken]);
    const result = await new ChainOfThoughtNode({ model }).run('What is 17 * 23?');
    expect(result.solution).toBe('Step 2: the total is 391');
    expect(result.plan).toEqual([{ description: 'Conclusion: state the product', status: 'Done', result: 'answer: 391' }]);
    expect(model.callCount).toBe(1);
  });

  it('takes JSON as an option', async () => {
    const model = mockModel('{"current_thinking": "done: 4", "planning": [{"description": "Conclusion", "status": "Done"}], "next_thought_needed": false}');
    const result = await new ChainOfThoughtNode({ model, format: 'json' }).run('2 + 2?');
    expect(result.solution).toBe('done: 4');
    expect(model.calls[0]!.request.responseFormat?.type).toBe('json');
  });

  it('validates the plan recursively and asks for a repair of a bad sub-step status', async () => {
    const bad = yamlThought('x', '  - description: "Outer"\n    status: "Pending"\n    sub_steps:\n      - description: "Inner"\n        status: "Maybe"', true);
    const model = mockModel([bad, THOUGHTS[2]!]);
    const result = await new ChainOfThoughtNode({ model }).run('p');
    expect(result.solution).toBe('17 * 23 = 391.');
    expect(model.prompts()[1]).toContain('could not be used');
    expect(model.prompts()[1]).toMatch(/status/);
  });

  it("ends with error, the thought's INVALID_FORMAT in errors, when repairs run out", async () => {
    const result = await new ChainOfThoughtNode({ model: mockModel('I think the answer is 4.'), maxRepairs: 1 }).run('2 + 2?');
    expect(result).toMatchObject({ stopReason: 'error', solution: null, thoughts: [], detail: { kind: 'error', code: 'INVALID_FORMAT' } });
    expect(result.errors).toMatchObject([{ code: 'INVALID_FORMAT', where: { kind: 'thought', thoughtNumber: 1 } }]);
    expect((result.errors[0]!.cause as TotError<'INVALID_FORMAT'>).details?.rawOutputs).toHaveLength(2);
  });

  it("with strict, rejects with the failed thought's INVALID_FORMAT and where it happened", async () => {
    const error = await catchTotError(() => new ChainOfThoughtNode({ model: mockModel('I think the answer is 4.'), maxRepairs: 1, strict: true }).run('2 + 2?'), 'INVALID_FORMAT');
    expect(error.message).toMatch(/^thought 1: The model did not produce a reply matching the schema after 2 attempt/);
    expect(error.details?.rawOutputs).toHaveLength(2);
    expect(error.details?.where).toEqual({ kind: 'thought', thoughtNumber: 1 });
    expect(error.details?.result).toMatchObject({ stopReason: 'error' });
  });

  it('starts from the default plan when the first thought gives none', async () => {
    const result = await new ChainOfThoughtNode({ model: mockModel([yamlThought('start', '  []', true), THOUGHTS[2]!].map((t) => t.replace('planning:\n  []', 'planning: []'))) }).run('p');
    expect(result.thoughts[0]!.planning.map((s) => s.description)).toEqual(['Understand the problem', 'Develop a high-level plan', 'Conclusion']);
  });

  it('stops at maxThoughts when the model never concludes', async () => {
    const model = mockModel(THOUGHTS[0]!);
    const result = await new ChainOfThoughtNode({ model, maxThoughts: 4 }).run('p');
    expect(result).toMatchObject({ stopReason: 'max_thoughts', solution: null });
    expect(model.callCount).toBe(4);
  });

  it('lets a host drive it step by step', async () => {
    const node = new ChainOfThoughtNode({ model: mockModel(THOUGHTS) });
    const state = ChainOfThoughtNode.initialState('What is 17 * 23?');
    const actions = [];
    for (let i = 0; i < 5; i++) actions.push(await node.step(state));
    expect(actions).toEqual(['continue', 'continue', 'end', 'end', 'end']);
    expect(state.solution).toBe('17 * 23 = 391.');
    expect(state.currentThoughtNumber).toBe(3);
  });

  it('emits a typed event per thought', async () => {
    const node = new ChainOfThoughtNode({ model: mockModel(THOUGHTS), now: () => 0 });
    const events: ChainOfThoughtEvent[] = [];
    node.on('event', (e) => events.push(e));
    await node.run('p', { runId: 'c1' });
    const own = events.filter((e) => !e.type.startsWith('llm.'));
    expect(own.map((e) => e.type)).toEqual(['run.started', 'thought.completed', 'thought.completed', 'thought.completed', 'run.finished']);
    expect(own[3]).toMatchObject({ type: 'thought.completed', runId: 'c1', thoughtNumber: 3, nextThoughtNeeded: false });
    // Every model call of the run is an llm.requested / llm.completed pair.
    expect(events.filter((e) => e.type === 'llm.completed')).toHaveLength(3);
  });

  it('rejects ABORTED when aborted', async () => {
    await catchTotError(() => new ChainOfThoughtNode({ model: mockModel(THOUGHTS) }).run('p', { signal: AbortSignal.abort() }), 'ABORTED');
  });

  it('validates its options', async () => {
    const error = await catchTotError(() => new ChainOfThoughtNode({ model: mockModel('x'), maxThoughts: 0 }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('options.maxThoughts');
    await catchTotError(() => new ChainOfThoughtNode({ model: mockModel('x') }).run(''), 'INVALID_ARGUMENT');
  });

  it('never exceeds maxThoughts and always resolves, whatever the model says (property)', async () => {
    const reply = fc.oneof(
      fc.constantFrom(...THOUGHTS),
      fc.string({ maxLength: 80 }),
      fc.constant(''),
      fc.constant('current_thinking: [unclosed'),
      fc.constant(yamlThought('x', '  - description: "a"\n    status: "Unknown"', true)),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(reply, { minLength: 1, maxLength: 12 }), fc.integer({ min: 1, max: 6 }), async (replies, maxThoughts) => {
        const model = mockModel(replies, { whenExhausted: 'repeat-last' });
        const result = await new ChainOfThoughtNode({ model, maxThoughts, maxRepairs: 1 }).run('p');
        expect(result.thoughts.length).toBeLessThanOrEqual(maxThoughts);
        expect(model.callCount).toBeLessThanOrEqual(maxThoughts * 2);
        expect(['completed', 'max_thoughts', 'error']).toContain(result.stopReason);
        if (result.stopReason === 'error') expect(result.errors.map((e) => e.code)).toEqual(['INVALID_FORMAT']);
      }),
      { numRuns: 150 },
    );
  });
});

describe('plans', () => {
  it('format as indented text with results and marks', () => {
    expect(
      formatPlan([
        { description: 'Add', status: 'Done', result: '5', subSteps: [{ description: 'Carry', status: 'Verification Needed', mark: 'check the carry' }] },
        { description: 'Conclusion', status: 'Pending' },
      ]),
    ).toBe('- [Done] Add: 5\n  - [Verification Needed] Carry (check the carry)\n- [Pending] Conclusion');
  });

  it('turn a plan that contains itself (a YAML alias cycle) into a repair, not a crash', async () => {
    const cyclic = 'current_thinking: x\nplanning: &plan\n  - description: loop\n    status: Pending\n    sub_steps: *plan\nnext_thought_needed: true';
    const model = mockModel([cyclic, THOUGHTS[2]!]);
    const result = await new ChainOfThoughtNode({ model }).run('p');
    expect(result.solution).toBe('17 * 23 = 391.');
    expect(model.callCount).toBe(2);
  });

  it('refuse thousands of steps and runaway nesting', () => {
    const many = Array.from({ length: 1000 }, (_, i) => ({ description: `step ${i}`, status: 'Pending' }));
    expect(planSchema.safeParse(many).success).toBe(false);
    let deep: Record<string, unknown> = { description: 'leaf', status: 'Pending' };
    for (let i = 0; i < 10; i++) deep = { description: `level ${i}`, status: 'Pending', sub_steps: [deep] };
    expect(planSchema.safeParse([deep]).success).toBe(false);
  });
});
