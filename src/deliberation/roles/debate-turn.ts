import type { AgentContext } from '../participant.js';
import type { AgentOutput } from '../types.js';

const describe = (o: AgentOutput): string => {
  const p = o.position;
  const head = `[${o.agentId}, round ${o.round}${o.stale ? ', not updated' : ''}]`;
  if (!p) return `${head}\n${o.content}`;
  return `${head} ${p.conclusion} (confidence ${p.confidence})\nReasons: ${p.keyReasons.join('; ')}\nAssumptions: ${p.assumptions.join('; ') || 'none'}\n${o.content}`;
};

/**
 * A planner's or critic's user turn: the request in round 1; later, the others' latest positions,
 * the host's decision and constraints, and any order the host gave this agent.
 */
export function debateTurn(ctx: AgentContext, task: string): string {
  if (ctx.round === 1 && ctx.current.length === 0) return `Request: ${ctx.query}\n\n${task}`;
  const latest = new Map<string, AgentOutput>();
  for (const r of ctx.history) for (const o of r.outputs) if (o.agentId !== ctx.agentId) latest.set(o.agentId, o);
  for (const o of ctx.current) if (o.agentId !== ctx.agentId) latest.set(o.agentId, o);
  const parts = [`Request: ${ctx.query}`, `Round ${ctx.round} of at most ${ctx.maxRounds}.`];
  if (latest.size > 0) parts.push(`The other agents' latest positions:\n\n${[...latest.values()].map(describe).join('\n\n')}`);
  const d = ctx.decision;
  if (d) {
    parts.push(`The host decided: ${d.action} (${d.reason}).`);
    if (d.constraints.mustAddress.length > 0) parts.push(`You must address: ${d.constraints.mustAddress.join('; ')}.`);
    if (d.constraints.avoid.length > 0) parts.push(`Avoid: ${d.constraints.avoid.join('; ')}.`);
  }
  if (ctx.directive) parts.push(`The host orders you${ctx.directive.role ? ` (as ${ctx.directive.role.replace(/_/g, ' ')})` : ''}: ${ctx.directive.requirement}`);
  parts.push(task);
  return parts.join('\n\n');
}
