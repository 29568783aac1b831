import type { DeliberationResult } from './deliberation-program.js';
import type { AgentOutput, HostDecision, PositionSummary } from './types.js';

function positionToProtocol(p: PositionSummary): Record<string, unknown> {
  return {
    conclusion: p.conclusion,
    key_reasons: p.keyReasons,
    assumptions: p.assumptions,
    confidence: p.confidence,
    ...(p.changesFromLastRound
      ? {
          changes_from_last_round: {
            conclusion_changed: p.changesFromLastRound.conclusionChanged,
            reasons_added: p.changesFromLastRound.reasonsAdded,
            reasons_dropped: p.changesFromLastRound.reasonsDropped,
            confidence_delta: p.changesFromLastRound.confidenceDelta,
          },
        }
      : {}),
  };
}

/**
 * An output in the seed's wire form (seed 001 §2): snake_case, the position inside `metadata`.
 *
 * @example
 * ```ts
 * import { outputToProtocol } from '@tot/core';
 *
 * JSON.stringify(outputToProtocol(result.rounds[0]!.outputs[0]!)); // {"agent_id":"planner","round":1,"output_type":"plan",…}
 * ```
 */
export function outputToProtocol(output: AgentOutput): Record<string, unknown> {
  return {
    agent_id: output.agentId,
    round: output.round,
    output_type: output.outputType,
    content: output.content,
    metadata: { ...output.metadata, ...(output.position ? { position: positionToProtocol(output.position) } : {}) },
    timestamp: output.timestamp,
    ...(output.stale ? { stale: { reason: output.stale.reason, from_round: output.stale.fromRound } } : {}),
  };
}

/**
 * A host decision in the seed's wire form (seed 001 §2.4): an output of the host with
 * `metadata.decision` and `metadata.analysis`.
 *
 * @example
 * ```ts
 * import { decisionToProtocol } from '@tot/core';
 *
 * decisionToProtocol(result.rounds[0]!.hostDecision!, 1).metadata; // { decision: { action: 'continue', … }, analysis: { consensus_level: 0.8, … } }
 * ```
 */
export function decisionToProtocol(decision: HostDecision, round: number, hostId = 'host'): { agent_id: string; round: number; output_type: 'control'; content: string; metadata: Record<string, unknown> } {
  const a = decision.analysis;
  return {
    agent_id: hostId,
    round,
    output_type: 'control',
    content: decision.reason,
    metadata: {
      decision: {
        action: decision.action,
        reason: decision.reason,
        next_agents: decision.nextAgents,
        constraints: { must_address: decision.constraints.mustAddress, avoid: decision.constraints.avoid },
        ...(decision.directives.length > 0 ? { directives: decision.directives.map((d) => ({ target_agent: d.agentId, ...(d.role ? { role: d.role } : {}), requirement: d.requirement, ...(d.reason ? { reason: d.reason } : {}) })) } : {}),
        ...(decision.answer === undefined ? {} : { answer: decision.answer }),
        ...(decision.metadata?.instructions ? { instructions: decision.metadata.instructions } : {}),
      },
      ...(a
        ? {
            analysis: {
              consensus_level: a.consensusLevel,
              similarity_matrix: a.similarityMatrix,
              most_different_pair: a.mostDifferentPair ?? null,
              stubborn_agents: a.stubbornAgents,
              self_similarity: a.selfSimilarity,
              backend: a.backend,
              ...(a.fallback ? { fallback: a.fallback } : {}),
            },
          }
        : {}),
    },
  };
}

/**
 * A deliberation's session state in the seed's wire form (seed 001 §4.1): status
 * (`converged` or `terminated`, with the precise `stop_reason`), rounds, each agent's status and
 * last output, the history with the host's decisions, the consensus trend and the final report.
 *
 * @example
 * ```ts
 * import { toProtocol } from '@tot/core';
 *
 * const r = await d.run('Help me plan three months of IELTS preparation');
 * res.json(toProtocol(r)); // { session_id, user_query, mode: 'multi_agent', status, current_round, … }
 * ```
 */
export function toProtocol(result: DeliberationResult): Record<string, unknown> {
  const agents: Record<string, { status: string; last_output: Record<string, unknown> | null }> = {};
  for (const r of result.rounds) for (const o of r.outputs) agents[o.agentId] = { status: o.stale ? 'skipped' : 'completed', last_output: outputToProtocol(o) };
  const last = result.rounds.at(-1);
  agents.host = { status: 'completed', last_output: last?.hostDecision ? decisionToProtocol(last.hostDecision, last.round) : null };
  if (result.finalReport) agents[result.finalReport.agentId] = { status: 'completed', last_output: outputToProtocol(result.finalReport) };
  return {
    session_id: result.runId,
    user_query: result.query,
    mode: 'multi_agent',
    status: result.stopReason === 'converged' || result.stopReason === 'plateau' ? 'converged' : 'terminated',
    stop_reason: result.stopReason,
    current_round: result.rounds.length,
    max_rounds: result.maxRounds,
    agents,
    history: result.rounds.map((r) => ({ round: r.round, outputs: r.outputs.map(outputToProtocol), ...(r.hostDecision ? { host_decision: decisionToProtocol(r.hostDecision, r.round) } : {}) })),
    consensus_trend: result.consensusTrend,
    ...(result.finalReport ? { final_report: outputToProtocol(result.finalReport) } : {}),
    created_at: result.createdAt,
    updated_at: result.updatedAt,
  };
}
