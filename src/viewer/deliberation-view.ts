// A deliberation as the viewer shows it: each agent's output per round, the host's decisions and
// the report, each tied to its calls by the tags the engine puts on every call (phase, round,
// participant); the consensus trend and a similarity heatmap per round.
import { PARTICIPANT_TAG as PARTICIPANT, PHASE_TAG as PHASE, ROUND_TAG as ROUND } from '../deliberation/call-tags.js';
import { foldDeliberationLog } from '../deliberation/deliberation-log.js';
import type { RunEventBase } from '../run/run-event.js';
import type { CallLog } from './view-calls.js';
import type { RunView, ViewNode, ViewPanel } from './view-model.js';
import { label, type AnyEvent } from './view-util.js';

/** A deliberation's rounds, decisions, report, panels, and calls per node. */
export function deliberationView(events: AnyEvent[], log: CallLog): Pick<RunView, 'nodes' | 'bestPath' | 'panels'> {
  const deliberation = foldDeliberationLog(events as unknown as RunEventBase[]);
  // The host's id, as the run recorded it (the engine tags the host's calls with it).
  const hostId = typeof deliberation.config.host === 'string' ? deliberation.config.host : 'host';
  const byKey = new Map<string, number[]>();
  log.meta.forEach((m, i) => {
    const phase = m.tags[PHASE];
    if (phase === undefined) return;
    const key = phase === 'report' ? 'report' : `${m.tags[ROUND]}\u0000${m.tags[PARTICIPANT]}`;
    const list = byKey.get(key);
    if (list) list.push(i);
    else byKey.set(key, [i]);
  });
  const nodes: ViewNode[] = [];
  const best: string[] = [];
  const trend: number[] = [];
  const heatmaps: { round: number; labels: string[]; matrix: number[][] }[] = [];
  let before: string[] = [];
  for (const r of deliberation.rounds) {
    const ids: string[] = [];
    for (const o of r.outputs) {
      const id = `r${r.round}.${o.agentId}`;
      const calls = byKey.get(`${r.round}\u0000${o.agentId}`);
      // Without its calls in the log, the turn the agent was given (its first exchange of the round) and its final reply.
      const turn = o.transcript?.[0];
      const last = o.transcript?.at(-1);
      nodes.push({
        id,
        label: label(`${o.agentId}: ${o.position?.conclusion ?? o.content}`),
        parents: before,
        status: o.stale ? 'stale' : 'active',
        ...(o.position ? { score: o.position.confidence } : {}),
        content: o.content,
        kind: o.agentId,
        ...(calls ? { madeBy: calls } : turn && last ? { prompt: turn.user, output: last.assistant } : { noCall: 'No model call of this agent in this round is in the log.' }),
        details: { round: String(r.round), type: o.outputType, ...(o.stale ? { stale: o.stale.reason } : {}) },
      });
      ids.push(id);
    }
    const d = r.hostDecision;
    if (d) {
      const id = `r${r.round}.host`;
      // The host's calls: the round's calls tagged with the host's id (never an agent's: one that
      // called its model and then failed has no output, but its calls are still its own).
      const calls = [...(byKey.get(`${r.round}\u0000${hostId}`) ?? [])];
      nodes.push({
        id,
        label: label(`host: ${d.action}`),
        parents: ids,
        status: d.action === 'converge' ? 'solution' : 'done',
        ...(d.analysis ? { score: d.analysis.consensusLevel } : {}),
        content: `${d.action}: ${d.reason}`,
        kind: 'host',
        ...(calls.length ? { madeBy: calls.sort((a, b) => a - b) } : { noCall: d.analysis ? "The host decided by measuring the outputs' similarity: no model call of its own is in the log." : 'No model call of the host in this round is in the log.' }),
        details: { round: String(r.round), next: d.nextAgents.join(', ') || '—' },
      });
      best.push(id);
      before = [id];
      if (d.analysis) {
        trend.push(d.analysis.consensusLevel);
        heatmaps.push({ round: r.round, labels: r.outputs.map((o) => o.agentId), matrix: d.analysis.similarityMatrix });
      }
    } else before = ids;
  }
  if (deliberation.report) {
    const calls = byKey.get('report');
    nodes.push({
      id: 'report',
      label: label(`report: ${deliberation.report.output.content}`),
      parents: before,
      status: 'solution',
      content: deliberation.report.output.content,
      kind: 'report',
      ...(calls ? { madeBy: calls } : { noCall: 'No model call of the reporter is in the log.' }),
      details: { divergent: String(deliberation.report.divergent) },
    });
    best.push('report');
  }
  const panels: ViewPanel[] = [{ kind: 'consensus', trend, heatmaps }];
  return { nodes, bestPath: best, panels };
}
