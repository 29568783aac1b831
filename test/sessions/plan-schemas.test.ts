import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z as z3 } from 'zod-v3';
import { assessPlan } from '../../src/sessions/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

const plan = { dry_run: true, rollback: { strategy: 'git_revert' }, limits: { max_changes: 120, max_files: 4 }, capabilities_required: ['safe_edit'], success_criteria: ['npm test passes'] };

// A team's own rule on top of the plan's fields: a named owner.
const owned = {
  'zod 3': z3.object({ owner: z3.string().min(1) }).passthrough(),
  valibot: v.looseObject({ owner: v.pipe(v.string(), v.minLength(1)) }),
};

describe('assessPlan with a custom plan schema', () => {
  it.each(Object.keys(owned) as (keyof typeof owned)[])('takes a %s schema: a plan it accepts passes, one it refuses names the field', (library) => {
    const schema = owned[library];
    expect(assessPlan({ ...plan, owner: 'ci' }, { schema })).toMatchObject({ ok: true, issues: [], plan: { owner: 'ci' } });
    const refused = assessPlan(plan, { schema });
    expect(refused.ok).toBe(false);
    expect(refused.issues).toHaveLength(1);
    expect(refused.issues[0]).toMatch(/^owner: /);
  });

  it('refuses a schema that validates asynchronously with INVALID_ARGUMENT', async () => {
    const later = v.looseObjectAsync({ owner: v.pipeAsync(v.string(), v.checkAsync(async () => true)) });
    const error = await catchTotError(() => assessPlan(plan, { schema: later }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('validates asynchronously');
  });

  it('refuses a value that is not a schema with INVALID_ARGUMENT', async () => {
    const error = await catchTotError(() => assessPlan(plan, { schema: { owner: 'string' } as never }), 'INVALID_ARGUMENT');
    expect(error.message).toBe('assessPlan: options.schema: expected a Standard Schema (zod 3.24+, zod 4, valibot, arktype, …)');
  });
});
