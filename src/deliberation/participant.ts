import type { AskAnswer, AskRequest } from '../run/question.js';
import type { StandardSchemaV1 } from '../internal/standard-schema.js';
import type { GenerateRequest, GenerateResult, LanguageModel } from '../model/types.js';
import type { AgentTool } from './tools/index.js';
import type { AgentDirective, AgentOutput, DeliberationRound, Exchange, HostDecision, OutputType, PositionSummary } from './types.js';

/**
 * What every participant of a deliberation is given.
 *
 * @example
 * ```ts
 * import type { DeliberationContext } from '@tot/core/deliberation';
 *
 * const lastRound = (ctx: DeliberationContext) => ctx.history.at(-1)?.round ?? 0;
 * ```
 */
export interface DeliberationContext {
  /** The user's request. */
  query: string;
  /** The current round, 1-based. */
  round: number;
  /** The deliberation's round limit. */
  maxRounds: number;
  /** The finished rounds, in order. */
  history: readonly DeliberationRound[];
  /** Tools the deliberation offers: agents may call them. */
  tools: readonly AgentTool[];
  /** The per-output token cap: calls through `generate` get at most this `maxOutputTokens`, and a longer output is cut to it. */
  maxOutputTokens: number;
  /**
   * Calls a model through the run: its budget, recording, concurrency and cancellation. Custom
   * participants must call models through this, or the run cannot count, record or stop them.
   */
  generate(model: LanguageModel, request: GenerateRequest): Promise<GenerateResult>;
  /**
   * Asks a person (see the Runs guide, "Asking a person"): answered by the run's `onAsk`, or the
   * run ends `waiting` and a resume given the answer goes on. The question's id is
   * `agent/<participant>/<round>#<key>`.
   */
  ask<A extends StandardSchemaV1 | undefined = undefined>(request: AskRequest<NonNullable<A>> & { schema?: A }): Promise<AskAnswer<A>>;
}

/**
 * What an agent is given for its turn in a round.
 *
 * @example
 * ```ts
 * import type { AgentContext } from '@tot/core/deliberation';
 *
 * const others = (ctx: AgentContext) => ctx.history.at(-1)?.outputs.filter((o) => o.agentId !== ctx.agentId) ?? [];
 * ```
 */
export interface AgentContext extends DeliberationContext {
  /** This agent's id. */
  agentId: string;
  /** Outputs already given this round, in order (empty in a parallel round). */
  current: readonly AgentOutput[];
  /** The host's decision after the previous round (absent in round 1). */
  decision?: HostDecision;
  /** The host's order for this agent, if it gave one. */
  directive?: AgentDirective;
  /** This agent's last output that was not stale. */
  previous?: AgentOutput;
  /** This agent's exchanges with its model in earlier rounds, in order: its conversation memory. */
  exchanges: readonly Exchange[];
}

/**
 * What an agent answers with; the engine adds its id, the round, the time, and the position's
 * `changesFromLastRound`.
 *
 * @example
 * ```ts
 * import type { AgentReply } from '@tot/core/deliberation';
 *
 * const r: AgentReply = { content: 'I agree, with one change…', position: { conclusion: 'Agree', keyReasons: ['…'], assumptions: [], confidence: 0.7 } };
 * ```
 */
export interface AgentReply {
  /** The text users see. */
  content: string;
  /** Default `'position'`. */
  outputType?: OutputType;
  /** The agent's position; without one the host compares `content`. */
  position?: PositionSummary;
  /** Any other structured output. */
  metadata?: Record<string, unknown>;
  /** The exchanges with the model that made it (its memory for later rounds). */
  transcript?: Exchange[];
}

/**
 * A participant that speaks in rounds. `respond` must honour `signal` (the run's stop, or the
 * agent's timeout).
 *
 * @example
 * ```ts
 * import type { DeliberationAgent } from '@tot/core/deliberation';
 *
 * const echo: DeliberationAgent = { id: 'echo', respond: async (ctx) => ({ content: ctx.query }) };
 * ```
 */
export interface DeliberationAgent {
  /** Unique in the deliberation (letters, digits, `_`, `-`). */
  readonly id: string;
  /** This agent's turn. */
  respond(ctx: AgentContext, options: { signal: AbortSignal }): Promise<AgentReply> | AgentReply;
}

/**
 * What a host is given after a round.
 *
 * @example
 * ```ts
 * import type { HostContext } from '@tot/core/deliberation';
 *
 * const speakers = (ctx: HostContext) => ctx.outputs.map((o) => o.agentId);
 * ```
 */
export interface HostContext extends DeliberationContext {
  /** The round's outputs, in speaking order (stale ones included). */
  outputs: readonly AgentOutput[];
  /** Every agent's id, in the order they were given. */
  agents: readonly string[];
  /** Consensus levels of the finished rounds (similarity hosts fill it). */
  consensusTrend: readonly number[];
  /** The host's own exchanges with its model in earlier rounds (a model host's memory). */
  exchanges: readonly Exchange[];
}

/**
 * Decides after each round: converge, continue, force opposition, order stubborn agents to move,
 * or terminate.
 *
 * @example
 * ```ts
 * import type { DeliberationHost } from '@tot/core/deliberation';
 *
 * const twoRounds: DeliberationHost = {
 *   decide: (ctx) => ({ action: ctx.round >= 2 ? 'converge' : 'continue', reason: 'fixed rounds', nextAgents: [...ctx.agents], constraints: { mustAddress: [], avoid: [] }, directives: [] }),
 * };
 * ```
 */
export interface DeliberationHost {
  /** Shown in events and errors. Default `'host'`. */
  readonly id?: string;
  /** The decision after a round. */
  decide(ctx: HostContext, options: { signal: AbortSignal }): Promise<HostDecision> | HostDecision;
}

/**
 * Why the reporter is called.
 *
 * @example
 * ```ts
 * import type { ReporterContext } from '@tot/core/deliberation';
 *
 * const heading = (ctx: ReporterContext) => (ctx.divergent ? 'Where the agents still disagree' : 'The agreed plan');
 * ```
 */
export interface ReporterContext extends DeliberationContext {
  /** `converged`, `plateau`, `terminated` or `max_rounds_reached`. */
  stopReason: string;
  /** True when the agents did not converge (write the divergent conclusion). */
  divergent: boolean;
  /** The host's last decision. */
  decision?: HostDecision;
}

/**
 * Writes the final report after the last round.
 *
 * @example
 * ```ts
 * import type { DeliberationReporter } from '@tot/core/deliberation';
 *
 * const last: DeliberationReporter = { report: (ctx) => ({ content: ctx.history.at(-1)?.outputs.map((o) => o.content).join('\n') ?? '' }) };
 * ```
 */
export interface DeliberationReporter {
  /** Default `'reporter'`. */
  readonly id?: string;
  /** The report. */
  report(ctx: ReporterContext, options: { signal: AbortSignal }): Promise<AgentReply> | AgentReply;
}
