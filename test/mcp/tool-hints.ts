// What each tool of the MCP server promises its clients (its annotations), and why: the table the
// annotation tests hold the server to (test/mcp/tool-contract.test.ts, in process, and
// test/mcp/stdio.test.ts, over the spawned command). tool-contract.test.ts also checks the reasons
// by calling every tool twice.
//
// - readOnlyHint: the call writes nothing to the store (no event, no checkpoint).
// - destructiveHint: false everywhere: sessions are event streams that only grow; no tool deletes
//   or rewrites an event (complete and fail end a session, and every thought stays readable).
// - idempotentHint: a second call with the same arguments writes nothing more and answers the same.
// - openWorldHint: the call reaches outside the server: a model (the client's, through sampling, or
//   the server's own).
import type { ToolHints } from '../../src/mcp/index.js';

const hints = (readOnlyHint: boolean, idempotentHint: boolean, openWorldHint = false): ToolHints => ({ readOnlyHint, destructiveHint: false, idempotentHint, openWorldHint });

export const TOOL_HINTS: Record<string, { hints: ToolHints; why: string }> = {
  think_session_start: { hints: hints(false, false), why: 'every call starts a new session' },
  think_session_status: { hints: hints(true, true), why: 'reads the session' },
  think_session_control: { hints: hints(false, true), why: 'moves the session to the state asked for; asked again, it is already there and nothing is written' },
  think_checkpoint: { hints: hints(false, true), why: 'writes a checkpoint to the store; again at the same version, the same checkpoint' },
  think_session_restore: { hints: hints(true, true), why: 'reloads the session from the store, writing nothing' },
  think_plan_step: { hints: hints(false, false), why: 'every call adds a thought (unless the client sends an idempotency_key)' },
  think_branch_fork: { hints: hints(false, false), why: 'every call forks new branches' },
  think_branch_merge: { hints: hints(false, false), why: 'every call adds a merging thought' },
  think_branch_transition: { hints: hints(false, false), why: 'the same trigger again moves the branch on again (user_input: init, planning, scoring) or is refused' },
  think_parallel_run: { hints: hints(false, false, true), why: 'works branches through a model (sampling or the server\'s), a round more each call' },
  think_validate_plan: { hints: hints(false, false), why: 'a rejected branch is taken through planning and scoring and scored again on every call' },
  think_export_plan: { hints: hints(false, true), why: 'moves a validated branch to executing once; again, the same plan and nothing written' },
  think_export_doc_plan: { hints: hints(false, true), why: 'as think_export_plan, for a doc plan' },
  think_receive_evidence: { hints: hints(false, true), why: 'records an execution_id once; again, the same evidence' },
  think_receive_doc_validation: { hints: hints(false, true), why: 'records a validation_id once; again, the same evidence' },
  think_answer: { hints: hints(false, true), why: 'records a person\'s answer once; the same answer again writes nothing and answers the same' },
  think_digest: { hints: hints(true, true), why: 'reads the session' },
  think_graph_export: { hints: hints(true, true), why: 'reads the session' },
  sequentialthinking: { hints: hints(false, true), why: 'the same call again (a retry) finds the thought the first stored: nothing written, the same answer' },
};
