// An agent session as the viewer shows it: its thoughts (written through the session; those
// `runParallel` made say how many model calls made them and what they cost, though the session
// records no call's text), the winning branch's path, the branches and the audit bar.
import type { StoredEvent } from '../events/store/types.js';
import { SessionModel } from '../sessions/session-model.js';
import { auditBar } from '../sessions/session-report.js';
import type { RunView, ViewNode } from './view-model.js';
import { label } from './view-util.js';

/** An agent session's stream folded into what the viewer shows. */
export function sessionView(events: readonly StoredEvent[]): Pick<RunView, 'nodes' | 'bestPath' | 'panels' | 'problem' | 'runId' | 'stopReason' | 'tokenBudget'> & { tokens: number } {
  let model: SessionModel | undefined;
  for (const e of events) {
    if (!model) model = SessionModel.start(e.streamId, e);
    else model.apply(e);
  }
  const s = model!.snapshot;
  const branchOf = new Map<string, (typeof s.branches)[number]>();
  for (const b of s.branches) for (const id of b.thoughtIds) branchOf.set(id, b);
  const nodes: ViewNode[] = s.thoughts.map((t) => {
    const b = t.branchId ? s.branches.find((x) => x.id === t.branchId) : branchOf.get(t.id);
    const status = b?.state === 'early_stopped' ? 'pruned' : b?.state === 'rejected' ? 'failed' : b && ['validated', 'executing', 'evidence_received', 'completed'].includes(b.state) ? 'solution' : 'active';
    return {
      id: t.id,
      label: label(`${t.role}: ${t.content}`),
      parents: [...t.parentIds],
      status,
      content: t.content,
      kind: t.role,
      noCall: t.modelCalls
        ? `Made by ${t.modelCalls} model call${t.modelCalls === 1 ? '' : 's'} in runParallel (${t.tokens} tokens), written through the session by writer ${t.writer}: the session records how many calls made a thought and what they cost, not their prompts or replies.`
        : `Written through the session by writer ${t.writer} (addThought): a thought from the session's clients, and the session records no model call for it.`,
      details: { tokens: String(t.tokens), ...(t.modelCalls ? { 'model calls': String(t.modelCalls) } : {}), writer: t.writer, ...(b ? { branch: `${b.id} (${b.name}, ${b.state})` } : {}) },
    };
  });
  const winner = [...s.branches].filter((b) => b.reward !== undefined && !['early_stopped', 'rejected'].includes(b.state)).sort((a, b) => b.reward! - a.reward!)[0];
  const bestPath: string[] = [];
  if (winner) {
    const byId = new Map(nodes.map((n) => [n.id, n]));
    for (let id: string | undefined = winner.thoughtIds.at(-1) ?? winner.from; id !== undefined; id = byId.get(id)?.parents[0]) bestPath.unshift(id);
  }
  return {
    runId: s.id,
    problem: s.goal,
    stopReason: s.state,
    nodes,
    bestPath,
    tokens: s.tokensUsed,
    ...(s.budget.maxTokens ? { tokenBudget: s.budget.maxTokens } : {}),
    panels: [{ kind: 'branches', branches: s.branches.map((b) => ({ id: b.id, name: b.name, state: b.state, ...(b.reward === undefined ? {} : { reward: b.reward }) })), auditBar: auditBar(s) }],
  };
}
