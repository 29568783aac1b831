import type { StoredEvent } from '../events/store/types.js';
import type { DeliberationEvent } from './deliberation-events.js';
import { foldDeliberationLog } from './deliberation-log.js';
import type { DeliberationResult } from './deliberation-program.js';
import type { OutputTruncation } from './output-cap.js';
import type { AgentOutput, DeliberationRound, HostDecision, PositionSummary } from './types.js';

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
 * An output in the protocol's wire form: snake_case, the position inside `metadata`.
 *
 * @example
 * ```ts
 * import { outputToProtocol } from '@tot/core/deliberation';
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
    ...(output.truncated ? { truncated: truncationToProtocol(output.truncated) } : {}),
  };
}

function truncationToProtocol(t: OutputTruncation): Record<string, number | string> {
  return { estimated_tokens: t.estimatedTokens, ...(t.outputTokens === undefined ? {} : { output_tokens: t.outputTokens }), max_output_tokens: t.maxOutputTokens, ...(t.by ? { by: t.by } : {}) };
}

/**
 * A host decision in the protocol's wire form: an output of the host with
 * `metadata.decision` and `metadata.analysis`.
 *
 * @example
 * ```ts
 * import { decisionToProtocol } from '@tot/core/deliberation';
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
        ...(decision.truncated ? { truncated: truncationToProtocol(decision.truncated) } : {}),
        ...(decision.withheld ? { withheld: { reason: decision.withheld.reason } } : {}),
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

/** What the session state is made of, from a result or from the events of a run. */
interface Session {
  runId: string;
  query: string;
  status: 'in_progress' | 'converged' | 'terminated';
  stopReason: string | null;
  maxRounds: number | null;
  /** Finished rounds, then the round under way (without a decision). */
  rounds: DeliberationRound[];
  finalReport?: AgentOutput;
  consensusTrend: number[];
  createdAt: string;
  updatedAt: string;
  /** Every participant's status, when the session says more than its outputs do (a run under way). */
  statuses?: Record<string, string>;
}

/** The protocol's name of the host in a session's `agents`, whatever the host's id. */
const HOST = 'host';

const statusOf = (stopReason: string): 'converged' | 'terminated' => (stopReason === 'converged' || stopReason === 'plateau' ? 'converged' : 'terminated');

function sessionOfResult(result: DeliberationResult): Session {
  return {
    runId: result.runId,
    query: result.query,
    status: statusOf(result.stopReason),
    stopReason: result.stopReason,
    maxRounds: result.maxRounds,
    rounds: result.rounds,
    ...(result.finalReport ? { finalReport: result.finalReport } : {}),
    consensusTrend: result.consensusTrend,
    createdAt: result.createdAt,
    updatedAt: result.updatedAt,
  };
}

function sessionOfEvents(events: Iterable<DeliberationEvent | StoredEvent>): Session {
  const log = foldDeliberationLog(events);
  const config = log.config;
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  const reporterId = typeof config.reporter === 'string' ? config.reporter : undefined;
  const rounds = log.open ? [...log.rounds, log.open.round] : log.rounds;
  const statuses: Record<string, string> = {};
  if (log.finished === undefined) {
    // Under way: who has spoken (or was skipped: no output, or a reused one), who is speaking, who waits for whom.
    const open = log.open;
    const skipped = new Set(open?.skipped ?? []);
    const spoke = new Set([...(open?.round.outputs.map((o) => o.agentId) ?? []), ...skipped]);
    const pending = open ? open.agents.filter((id) => !spoke.has(id)) : [];
    for (const id of strings(config.agents)) {
      const last = [...rounds].reverse().flatMap((r) => r.outputs).find((o) => o.agentId === id);
      // Speaking now: every pending agent of a parallel round, the next one of a round in turn.
      const speaking = open !== undefined && pending.includes(id) && (open.parallel || pending[0] === id);
      statuses[id] = speaking ? 'running' : pending.includes(id) ? 'waiting' : skipped.has(id) ? 'skipped' : last ? (last.stale ? 'skipped' : 'completed') : 'idle';
    }
    const reporting = open === undefined && log.rounds.length > 0 && log.report === undefined && reporterId !== undefined;
    statuses[HOST] = open !== undefined && pending.length === 0 ? 'running' : reporting || (open === undefined && log.rounds.length > 0) ? 'completed' : 'waiting';
    if (reporterId !== undefined) statuses[reporterId] = log.report ? 'completed' : reporting ? 'running' : 'idle';
  }
  return {
    runId: log.runId,
    query: log.query,
    status: log.finished ? statusOf(log.finished.stopReason) : 'in_progress',
    stopReason: log.finished?.stopReason ?? null,
    maxRounds: typeof config.maxRounds === 'number' ? config.maxRounds : null,
    rounds,
    ...(log.report ? { finalReport: log.report.output } : {}),
    consensusTrend: log.rounds.flatMap((r) => (r.hostDecision?.analysis ? [r.hostDecision.analysis.consensusLevel] : [])),
    createdAt: new Date(log.startedAt).toISOString(),
    updatedAt: new Date(log.updatedAt).toISOString(),
    ...(log.finished === undefined ? { statuses } : {}),
  };
}

/**
 * A deliberation's session state in the protocol's wire form: status, rounds, each
 * participant's status and last output, the history with the host's decisions, the consensus
 * trend and the final report.
 *
 * Give it a finished run's result: `status` is `converged` (or `terminated`, the precise reason in
 * `stop_reason`). Or give it the events of one run so far — those `run(query, { onEvent })`,
 * `d.on('event', …)` or `d.stream(query)` deliver, or the run's recorded log — to show a session
 * under way: `status: 'in_progress'`, `stop_reason: null`, `current_round` the round being played
 * (its outputs so far in `history`, without a host decision), and each participant's status:
 * `running` (speaking now), `waiting` (to speak this round, or the host until the round's agents
 * are done), `completed`, `skipped` or `idle` (the reporter until the rounds end). Once the
 * events include `run.finished`, they give what the result gives.
 *
 * @example
 * ```ts
 * import { toProtocol, type DeliberationEvent } from '@tot/core/deliberation';
 *
 * const events: DeliberationEvent[] = [];
 * const done = d.run('Help me plan three months of IELTS preparation', { onEvent: (e) => events.push(e) });
 * toProtocol(events).status; // 'in_progress' while it runs
 * const r = await done;
 * res.json(toProtocol(r)); // { session_id, user_query, mode: 'multi_agent', status: 'converged', current_round, … }
 * ```
 */
export function toProtocol(source: DeliberationResult | Iterable<DeliberationEvent | StoredEvent>): Record<string, unknown> {
  const session = Symbol.iterator in Object(source) ? sessionOfEvents(source as Iterable<DeliberationEvent | StoredEvent>) : sessionOfResult(source as DeliberationResult);
  const agents: Record<string, { status: string; last_output: Record<string, unknown> | null }> = {};
  for (const [id, status] of Object.entries(session.statuses ?? {})) agents[id] = { status, last_output: null };
  for (const r of session.rounds) {
    for (const o of r.outputs) agents[o.agentId] = { status: session.statuses?.[o.agentId] ?? (o.stale ? 'skipped' : 'completed'), last_output: outputToProtocol(o) };
  }
  const decided = [...session.rounds].reverse().find((r) => r.hostDecision);
  agents[HOST] = { status: session.statuses?.[HOST] ?? 'completed', last_output: decided ? decisionToProtocol(decided.hostDecision!, decided.round) : null };
  if (session.finalReport) agents[session.finalReport.agentId] = { status: 'completed', last_output: outputToProtocol(session.finalReport) };
  return {
    session_id: session.runId,
    user_query: session.query,
    mode: 'multi_agent',
    status: session.status,
    stop_reason: session.stopReason,
    current_round: session.rounds.length,
    max_rounds: session.maxRounds,
    agents,
    history: session.rounds.map((r) => ({ round: r.round, outputs: r.outputs.map(outputToProtocol), ...(r.hostDecision ? { host_decision: decisionToProtocol(r.hostDecision, r.round) } : {}) })),
    consensus_trend: session.consensusTrend,
    ...(session.finalReport ? { final_report: outputToProtocol(session.finalReport) } : {}),
    created_at: session.createdAt,
    updated_at: session.updatedAt,
  };
}
