import { z } from 'zod';
import type { ProtocolErrorObject } from '../errors/index.js';
import type { RunEvent, RunEventBase } from '../run/run-event.js';
import type { EventShapes } from '../run/run-log-check.js';
import type { AgentOutput, HostDecision, SkipReason } from './types.js';

/**
 * The events of a {@link Deliberation} run, besides the shared run events: a round started (who
 * speaks, at once or in turn), an agent's output, an agent skipped (timeout, failure, content
 * filter: its previous output is reused, marked stale), the host's decision, the final report.
 * `toSSE` turns them into the protocol's server-sent events.
 *
 * @example
 * ```ts
 * import type { DeliberationEvent } from '@tot/core/deliberation';
 *
 * const line = (e: DeliberationEvent) => (e.type === 'agent.output' ? `${e.output.agentId}: ${e.output.content}` : e.type);
 * ```
 */
export type DeliberationEvent =
  | RunEvent
  | (RunEventBase & { type: 'round.started'; round: number; agents: string[]; parallel: boolean })
  | (RunEventBase & { type: 'agent.output'; round: number; output: AgentOutput })
  | (RunEventBase & { type: 'agent.skipped'; round: number; agentId: string; reason: SkipReason; error: ProtocolErrorObject; reused?: AgentOutput })
  | (RunEventBase & { type: 'host.decision'; round: number; decision: HostDecision })
  | (RunEventBase & { type: 'report'; round: number; output: AgentOutput; divergent: boolean });

const errorObject = z.looseObject({ code: z.string(), message: z.string() });
const exchange = z.looseObject({ user: z.string(), assistant: z.string() });
const output = z.looseObject({
  agentId: z.string(),
  round: z.number().int(),
  outputType: z.string(),
  content: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  timestamp: z.string(),
  transcript: z.array(exchange).optional(),
});
const decision = z.looseObject({ action: z.string(), reason: z.string(), nextAgents: z.array(z.string()), transcript: z.array(exchange).optional() });

/** What the deliberation's fold reads of its own events: a corrupt log fails with its position. */
export const deliberationEventShapes: EventShapes = {
  'round.started': z.looseObject({ round: z.number().int().min(1), agents: z.array(z.string()), parallel: z.boolean() }),
  'agent.output': z.looseObject({ round: z.number().int().min(1), output }),
  'agent.skipped': z.looseObject({ round: z.number().int().min(1), agentId: z.string(), reason: z.string(), error: errorObject, reused: output.optional() }),
  'host.decision': z.looseObject({ round: z.number().int().min(1), decision }),
  report: z.looseObject({ round: z.number().int().min(0), output, divergent: z.boolean() }),
};
