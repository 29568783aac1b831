// What think_plan_step and think_parallel_run tell an agent about plans, through the SDK's client:
// the plan's JSON Schema in tools/list is the validator's (ExecutionPlan, DocPlan), a plan that
// will not pass says so when it is written, and a run whose branches all fail validation says so
// instead of naming a rejected winner.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DocPlan, ExecutionPlan, ROLLBACK_STRATEGIES } from '../../src/sessions/index.js';
import { invalidPlan, validPlan } from '../helpers/mcp-sampling.js';
import { closeInProcess, connectInProcess, type InProcess } from './in-process.js';

afterEach(closeInProcess);

const docPlan = { target_path: 'docs/adr/0007-cache.md', naming_convention: 'NNNN-kebab-title.md', structure_template: 'adr', validation_rules: ['has a Status section'] };

/** The JSON Schema tools/list gives think_plan_step's `plan`, one entry per kind of plan. */
function planSchemas(tools: Tool[]): { title: string; required: string[] }[] {
  const planStep = tools.find((t) => t.name === 'think_plan_step')!;
  return (planStep.inputSchema.properties as Record<string, { anyOf: { title: string; required: string[] }[] }>).plan!.anyOf;
}

/** A session with one branch per name, from its first thought. */
async function branches(s: InProcess, ...names: string[]): Promise<string> {
  const { session_id } = await s.ok<{ session_id: string }>('think_session_start', { goal: 'Resume an import after a crash' });
  await s.ok('think_plan_step', { session_id, content: 'Ways to resume.' });
  await s.ok('think_branch_fork', { session_id, from: 't0', names });
  return session_id;
}

describe("think_plan_step's plan, as tools/list shows it", () => {
  it('is an ExecutionPlan or a DocPlan, written from the schemas the validation uses', async () => {
    const s = await connectInProcess();
    const [execution, doc] = planSchemas(s.tools);
    const asListed = (schema: z.ZodType) => {
      const { $schema: _, ...json } = z.toJSONSchema(schema, { io: 'input', target: 'draft-7' }) as Record<string, unknown>;
      return json;
    };
    expect(execution).toMatchObject({ title: 'ExecutionPlan', ...asListed(ExecutionPlan) });
    expect(doc).toMatchObject({ title: 'DocPlan', ...asListed(DocPlan) });
  });

  it('names the fields an execution plan needs, its rollback strategies and the change limit', async () => {
    const s = await connectInProcess();
    const [execution] = planSchemas(s.tools) as unknown as { required: string[]; properties: { rollback: { properties: { strategy: { enum: string[] } } }; limits: { properties: { max_changes: { maximum: number } } } } }[];
    expect(execution!.required).toEqual(['rollback', 'limits', 'capabilities_required', 'success_criteria']);
    expect(execution!.properties.rollback.properties.strategy.enum).toEqual([...ROLLBACK_STRATEGIES]);
    expect(execution!.properties.limits.properties.max_changes.maximum).toBe(1000);
  });

  it('accepts, as a client checking against it would, the plans the validation passes, and refuses a bare list of steps', async () => {
    const s = await connectInProcess();
    const [execution, doc] = planSchemas(s.tools);
    const check = new AjvJsonSchemaValidator().getValidator({ anyOf: [execution, doc] } as never);
    expect(check(validPlan('memo')).valid).toBe(true);
    expect(check(docPlan).valid).toBe(true);
    expect(check({ steps: ['add a cache', 'run the tests'] }).valid).toBe(false);
    expect(check(invalidPlan('memo')).valid).toBe(false);
  });
});

describe('think_plan_step with a plan that will not pass validation', () => {
  it('records it, and says at once what validation will refuse', async () => {
    const s = await connectInProcess();
    const session_id = await branches(s, 'memo');
    const r = await s.ok<{ branch: { state: string }; plan_issues: string[] }>('think_plan_step', { session_id, branch_id: 'br0', content: 'Add a cache.', plan: { steps: ['add a cache'] } });
    expect(r.branch.state).toBe('init');
    expect(r.plan_issues).toEqual(expect.arrayContaining([expect.stringMatching(/^rollback: /), expect.stringMatching(/^limits: /), expect.stringMatching(/^capabilities_required: /), expect.stringMatching(/^success_criteria: /)]));
  });

  it('says nothing more for a plan that will pass, of either kind', async () => {
    const s = await connectInProcess();
    const session_id = await branches(s, 'memo', 'adr');
    expect(await s.ok('think_plan_step', { session_id, branch_id: 'br0', content: 'Add a cache.', plan: validPlan('memo') })).not.toHaveProperty('plan_issues');
    expect(await s.ok('think_plan_step', { session_id, branch_id: 'br1', content: 'Write the ADR.', plan: docPlan, plan_kind: 'doc' })).not.toHaveProperty('plan_issues');
  });
});

describe('think_parallel_run when no plan passes validation', () => {
  it.each(['best', 'race'] as const)('(%s) reports no_valid_plan with each branch\'s issues, and no winner', async (strategy) => {
    const s = await connectInProcess();
    const session_id = await branches(s, 'steps', 'big');
    await s.ok('think_plan_step', { session_id, branch_id: 'br0', content: 'Just steps.', plan: { steps: ['add a cache'] } });
    await s.ok('think_plan_step', { session_id, branch_id: 'br1', content: 'Rewrite it all.', plan: invalidPlan('big') });
    const r = await s.ok<{ status: string; winner?: unknown; branches: { branch_id: string; state: string; issues: string[] }[]; next: string }>('think_parallel_run', { session_id, branch_ids: ['br0', 'br1'], strategy });
    expect(r.status).toBe('no_valid_plan');
    expect(r).not.toHaveProperty('winner');
    expect(r.branches.map((b) => [b.branch_id, b.state])).toEqual([
      ['br0', 'rejected'],
      ['br1', 'rejected'],
    ]);
    expect(r.branches[0]!.issues).toEqual(expect.arrayContaining([expect.stringMatching(/^rollback: /)]));
    expect(r.branches[1]!.issues).toEqual(['limits.max_changes: limits.max_changes may not exceed 1000 (it is 5000)']);
    expect(r.next).toContain('think_plan_step');
  });

  it('completes once a branch\'s fixed plan passes, with that branch the winner', async () => {
    const s = await connectInProcess();
    const session_id = await branches(s, 'memo');
    await s.ok('think_plan_step', { session_id, branch_id: 'br0', content: 'Just steps.', plan: { steps: ['add a cache'] } });
    expect((await s.ok<{ status: string }>('think_parallel_run', { session_id, branch_ids: ['br0'], strategy: 'best' })).status).toBe('no_valid_plan');
    await s.ok('think_plan_step', { session_id, branch_id: 'br0', content: 'The whole plan.', plan: validPlan('memo') });
    expect(await s.ok('think_parallel_run', { session_id, branch_ids: ['br0'], strategy: 'best' })).toMatchObject({ status: 'completed', winner: { branch_id: 'br0', state: 'validated' } });
  });
});
