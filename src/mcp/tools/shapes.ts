import { z } from 'zod';
import type { SessionBranch } from '../../sessions/session-model.js';
import type { AgentSession } from '../../sessions/agent-session.js';

/** A branch as tools report it. */
export const branchShape = z.looseObject({ branch_id: z.string(), name: z.string(), state: z.string(), reward: z.number().optional(), early_stop_reason: z.string().optional() });

export const branchOut = (b: SessionBranch) => ({
  branch_id: b.id,
  name: b.name,
  state: b.state,
  ...(b.reward === undefined ? {} : { reward: b.reward }),
  ...(b.earlyStopReason === undefined ? {} : { early_stop_reason: b.earlyStopReason }),
});

/** The session's state line every writing tool returns. */
export const sessionLine = (s: AgentSession) => ({ session_id: s.id, session_state: s.state, audit_bar: s.auditBar() });
export const sessionLineShape = { session_id: z.string(), session_state: z.string(), audit_bar: z.string() };

export const roles = ['planner', 'critic', 'tester', 'decider'] as const;
export const edges = ['causes', 'refines', 'contradicts', 'supports'] as const;
export const triggers = ['user_input', 'validate_pass', 'validate_fail', 'race_lost', 'budget_exceeded', 'evidence_success', 'evidence_failure'] as const;

export const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
export const writes = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
export const writesOnce = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };
