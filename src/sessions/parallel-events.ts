import type { RunEvent, RunEventBase } from '../run/run-event.js';
import type { BranchState } from './branch-state.js';

/**
 * The events of a `runParallel` run, besides the shared run events: each branch's rounds, each
 * branch stopped early, and the decision.
 *
 * @example
 * ```ts
 * import type { ParallelEvent } from '@tot/core/sessions';
 *
 * const line = (e: ParallelEvent) => (e.type === 'branch.round.completed' ? `${e.branchId} round ${e.round}: ${e.state}` : e.type);
 * ```
 */
export type ParallelEvent =
  | RunEvent
  | (RunEventBase & { type: 'branch.round.started'; branchId: string; round: number })
  | (RunEventBase & { type: 'branch.round.completed'; branchId: string; round: number; state: BranchState; reward?: number; tokens: number; ms: number })
  | (RunEventBase & { type: 'branch.stopped'; branchId: string; reason: string })
  | (RunEventBase & { type: 'parallel.decided'; strategy: string; winner: string | null; reason: string });
