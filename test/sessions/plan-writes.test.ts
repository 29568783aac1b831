// Writing a branch's plan: a plan the session's stream cannot hold is refused before anything is
// written, and a thought written with its plan is stored with it or not at all.
import { describe, expect, it } from 'vitest';
import { InMemoryEventStore, type EventStore } from '../../src/index.js';
import { SessionEngine } from '../../src/sessions/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

const plan = { rollback: { strategy: 'git_revert' }, limits: { max_changes: 40 }, capabilities_required: ['safe_edit'], success_criteria: ['npm test passes'] };

/** A plan `levels` arrays and objects deep: `{ next: { next: … { steps: ['done'] } } }`. */
function nested(levels: number): unknown {
  let value: unknown = { steps: ['done'] };
  for (let i = 2; i < levels; i++) value = { next: value };
  return value;
}

/** A session with a thought t0 and a branch br0 (init), on `store`. */
async function withBranch(store: EventStore = new InMemoryEventStore(), limits: { maxPlanBytes?: number } = {}) {
  const s = await new SessionEngine({ store, writerId: 'w', limits }).startSession({ goal: 'Cache the config' });
  await s.addThought({ role: 'planner', content: 'Cache the parsed config.' });
  await s.fork({ from: 't0', branches: [{ name: 'lru' }] });
  return s;
}

describe('a plan the session cannot hold', () => {
  it('refuses a plan 5,000 levels deep with INVALID_ARGUMENT naming the limit, and writes nothing', async () => {
    const s = await withBranch();
    const before = s.version;
    const error = await catchTotError(() => s.setPlan('br0', nested(5000)), 'INVALID_ARGUMENT');
    expect(error.message).toContain('nests deeper than 511 levels');
    expect(error.details).toMatchObject({ field: 'plan' });
    expect(s.version).toBe(before);
  });

  it('refuses a plan too deep the same way when it comes with a thought', async () => {
    const s = await withBranch();
    const error = await catchTotError(() => s.addThought({ role: 'planner', content: 'deep', branchId: 'br0', plan: nested(512) }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('nests deeper than 511 levels');
    expect(s.snapshot().thoughts).toHaveLength(1);
  });

  it('takes a plan 511 levels deep: with the event around it, as deep as the stores take', async () => {
    const s = await withBranch();
    await s.setPlan('br0', nested(511));
    expect(s.branch('br0')!.plan).toEqual(nested(511));
  });

  it('refuses a plan over 1 MiB as JSON, naming the limit, before writing', async () => {
    const s = await withBranch();
    const before = s.version;
    const error = await catchTotError(() => s.setPlan('br0', { ...plan, notes: 'x'.repeat(1_048_576) }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('over the limit of 1048576 bytes');
    expect(s.version).toBe(before);
  });

  it('takes another plan size limit from the engine', async () => {
    const s = await withBranch(new InMemoryEventStore(), { maxPlanBytes: 200 });
    const error = await catchTotError(() => s.setPlan('br0', { ...plan, notes: 'x'.repeat(200) }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('over the limit of 200 bytes');
    await s.setPlan('br0', { steps: ['one'] });
  });
});

describe('a thought written with its branch\'s plan', () => {
  it('stores the thought and the plan in one append', async () => {
    const store = new InMemoryEventStore();
    const appends: string[][] = [];
    const counting = Object.assign(Object.create(store) as EventStore, {
      append: (...args: Parameters<EventStore['append']>) => {
        appends.push(args[1].map((e) => e.type));
        return store.append(...args);
      },
    });
    const s = await withBranch(counting);
    appends.length = 0;
    const t = await s.addThought({ role: 'planner', content: 'An LRU of 64 entries.', parentIds: ['t0'], branchId: 'br0', plan, planKind: 'execution' });
    expect(appends).toEqual([['thought.added', 'branch.planned']]);
    expect(s.branch('br0')).toMatchObject({ plan, planKind: 'execution', thoughtIds: [t.id] });
  });

  it('stores neither when the store refuses the plan, and a retry with a plan it takes stores one thought', async () => {
    // A store that takes smaller events than the session's plan limit: the store refuses the batch.
    const s = await withBranch(new InMemoryEventStore({ maxEventBytes: 2_000 }));
    const before = s.version;
    await catchTotError(() => s.addThought({ role: 'planner', content: 'The plan.', branchId: 'br0', plan: { ...plan, notes: 'x'.repeat(3_000) }, idempotencyKey: 'step-1' }), 'INVALID_ARGUMENT');
    expect(s.version).toBe(before);
    await s.refresh();
    expect(s.version).toBe(before);
    await s.addThought({ role: 'planner', content: 'The plan.', branchId: 'br0', plan, idempotencyKey: 'step-1' });
    expect(s.snapshot().thoughts.map((t) => t.content)).toEqual(['Cache the parsed config.', 'The plan.']);
    expect(s.branch('br0')!.plan).toEqual(plan);
  });

  it('stores neither when the branch\'s plan can no longer change (ILLEGAL_STATE)', async () => {
    const s = await withBranch();
    await s.setPlan('br0', plan);
    await s.validatePlan('br0');
    const before = s.version;
    await catchTotError(() => s.addThought({ role: 'planner', content: 'A riskier plan.', branchId: 'br0', plan: { ...plan, limits: { max_changes: 900 } } }), 'ILLEGAL_STATE');
    expect(s.version).toBe(before);
  });

  it('refuses a plan without a branch (INVALID_ARGUMENT naming branchId)', async () => {
    const s = await withBranch();
    const error = await catchTotError(() => s.addThought({ role: 'planner', content: 'Where does it go?', plan }), 'INVALID_ARGUMENT');
    expect(error.details).toMatchObject({ field: 'options.branchId' });
    expect(s.snapshot().thoughts).toHaveLength(1);
  });

  it('takes the same thought with another plan for another request, not a retry of the first', async () => {
    const s = await withBranch();
    await s.addThought({ role: 'planner', content: 'The plan.', branchId: 'br0', plan });
    await s.addThought({ role: 'planner', content: 'The plan.', branchId: 'br0', plan: { ...plan, limits: { max_changes: 20 } } });
    expect(s.snapshot().thoughts).toHaveLength(3);
    expect(s.branch('br0')!.plan).toMatchObject({ limits: { max_changes: 20 } });
  });
});
