import { describe, expect, it } from 'vitest';
import { BRANCH_TRANSITIONS, branchTriggers, transitionBranch, type BranchState, type BranchTrigger } from '../../src/sessions/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

const STATES: BranchState[] = ['init', 'planning', 'scoring', 'validating', 'validated', 'rejected', 'executing', 'evidence_received', 'early_stopped', 'completed'];
const TRIGGERS: BranchTrigger[] = ['user_input', 'validate_pass', 'validate_fail', 'race_lost', 'budget_exceeded', 'evidence_success', 'evidence_failure'];

// The seed's table, written out again by hand: the test of the table in the code.
const LEGAL: [BranchState, BranchTrigger, BranchState][] = [
  ['init', 'user_input', 'planning'],
  ['planning', 'user_input', 'scoring'],
  ['planning', 'race_lost', 'early_stopped'],
  ['planning', 'budget_exceeded', 'early_stopped'],
  ['scoring', 'user_input', 'validating'],
  ['scoring', 'race_lost', 'early_stopped'],
  ['validating', 'validate_pass', 'validated'],
  ['validating', 'validate_fail', 'rejected'],
  ['validated', 'user_input', 'executing'],
  ['rejected', 'user_input', 'planning'],
  ['executing', 'evidence_success', 'evidence_received'],
  ['executing', 'evidence_failure', 'evidence_received'],
  ['evidence_received', 'user_input', 'completed'],
];
const legal = new Set(LEGAL.map(([s, t]) => `${s}:${t}`));
const ILLEGAL = STATES.flatMap((s) => TRIGGERS.filter((t) => !legal.has(`${s}:${t}`)).map((t) => [s, t] as [BranchState, BranchTrigger]));

describe('the branch state machine (seed 004)', () => {
  it.each(LEGAL)('takes %s on %s to %s', (from, trigger, to) => {
    expect(transitionBranch(from, trigger)).toBe(to);
  });

  it.each(ILLEGAL)('refuses %s on %s with ILLEGAL_STATE', async (from, trigger) => {
    const error = await catchTotError(() => transitionBranch(from, trigger, 'b1'), 'ILLEGAL_STATE');
    expect(error.details).toMatchObject({ from, trigger, branchId: 'b1' });
  });

  it('has exactly the seed\'s 13 transitions, 57 refusals among the 70 pairs', () => {
    expect(Object.values(BRANCH_TRANSITIONS).reduce((n, row) => n + Object.keys(row).length, 0)).toBe(LEGAL.length);
    expect(ILLEGAL).toHaveLength(STATES.length * TRIGGERS.length - LEGAL.length);
  });

  it('says what a state accepts, and that a final state accepts nothing', async () => {
    expect(branchTriggers('planning')).toEqual(['user_input', 'race_lost', 'budget_exceeded']);
    expect(branchTriggers('completed')).toEqual([]);
    expect((await catchTotError(() => transitionBranch('completed', 'user_input'), 'ILLEGAL_STATE')).message).toContain('it is final');
    expect((await catchTotError(() => transitionBranch('validating', 'user_input'), 'ILLEGAL_STATE')).message).toContain('it accepts validate_pass, validate_fail');
  });

  it('refuses a state that does not exist with INVALID_ARGUMENT, and an inherited key as a trigger', async () => {
    await catchTotError(() => transitionBranch('done' as BranchState, 'user_input'), 'INVALID_ARGUMENT');
    await catchTotError(() => transitionBranch('init', 'toString' as BranchTrigger), 'ILLEGAL_STATE');
  });
});
