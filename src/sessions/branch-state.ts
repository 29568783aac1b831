import { TotError } from '../errors/index.js';

/**
 * The states of a branch of an agent session (the branch state machine).
 *
 * @example
 * ```ts
 * import type { BranchState } from '@tot/core/sessions';
 *
 * const done = (s: BranchState) => s === 'completed' || s === 'early_stopped';
 * ```
 */
export type BranchState = 'init' | 'planning' | 'scoring' | 'validating' | 'validated' | 'rejected' | 'executing' | 'evidence_received' | 'early_stopped' | 'completed';

/**
 * What moves a branch from one state to the next.
 *
 * @example
 * ```ts
 * import type { BranchTrigger } from '@tot/core/sessions';
 *
 * const trigger: BranchTrigger = 'validate_pass';
 * ```
 */
export type BranchTrigger = 'user_input' | 'validate_pass' | 'validate_fail' | 'race_lost' | 'budget_exceeded' | 'evidence_success' | 'evidence_failure';

/**
 * The session engine's transition table, exactly: for each state, the triggers it accepts and where each
 * leads. `early_stopped` and `completed` accept none.
 *
 * @example
 * ```ts
 * import { BRANCH_TRANSITIONS } from '@tot/core/sessions';
 *
 * BRANCH_TRANSITIONS.validating.validate_fail; // 'rejected'
 * ```
 */
export const BRANCH_TRANSITIONS: Readonly<Record<BranchState, Readonly<Partial<Record<BranchTrigger, BranchState>>>>> = Object.freeze({
  init: Object.freeze({ user_input: 'planning' }),
  planning: Object.freeze({ user_input: 'scoring', race_lost: 'early_stopped', budget_exceeded: 'early_stopped' }),
  scoring: Object.freeze({ user_input: 'validating', race_lost: 'early_stopped' }),
  validating: Object.freeze({ validate_pass: 'validated', validate_fail: 'rejected' }),
  validated: Object.freeze({ user_input: 'executing' }),
  rejected: Object.freeze({ user_input: 'planning' }),
  executing: Object.freeze({ evidence_success: 'evidence_received', evidence_failure: 'evidence_received' }),
  evidence_received: Object.freeze({ user_input: 'completed' }),
  early_stopped: Object.freeze({}),
  completed: Object.freeze({}),
} satisfies Record<BranchState, Partial<Record<BranchTrigger, BranchState>>>);

/**
 * Where `trigger` takes a branch in `state`; an illegal transition is `ILLEGAL_STATE`, saying which
 * triggers the state accepts.
 *
 * @example
 * ```ts
 * import { transitionBranch } from '@tot/core/sessions';
 *
 * transitionBranch('validating', 'validate_pass'); // 'validated'
 * transitionBranch('completed', 'user_input');     // throws ILLEGAL_STATE
 * ```
 */
export function transitionBranch(state: BranchState, trigger: BranchTrigger, branchId?: string): BranchState {
  const row = BRANCH_TRANSITIONS[state] as Partial<Record<string, BranchState>> | undefined;
  if (row === undefined) throw new TotError('INVALID_ARGUMENT', `transitionBranch: "${String(state)}" is not a branch state (one of ${Object.keys(BRANCH_TRANSITIONS).join(', ')}).`, { details: { field: 'state' } });
  const next = Object.hasOwn(row, trigger) ? row[trigger] : undefined;
  if (next === undefined) {
    const accepted = Object.keys(row);
    throw new TotError(
      'ILLEGAL_STATE',
      `${branchId ? `Branch ${branchId}` : 'A branch'} in state ${state} cannot take ${String(trigger)}: ${accepted.length > 0 ? `it accepts ${accepted.join(', ')}` : 'it is final'}.`,
      { details: { from: state, trigger: String(trigger), ...(branchId ? { branchId } : {}) } },
    );
  }
  return next;
}

/**
 * The triggers a branch in `state` accepts (none for a final state).
 *
 * @example
 * ```ts
 * import { branchTriggers } from '@tot/core/sessions';
 *
 * branchTriggers('planning'); // ['user_input', 'race_lost', 'budget_exceeded']
 * ```
 */
export function branchTriggers(state: BranchState): BranchTrigger[] {
  return Object.keys(BRANCH_TRANSITIONS[state] ?? {}) as BranchTrigger[];
}
