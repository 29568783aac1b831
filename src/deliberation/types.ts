import type { ChatMessage } from '../model/types.js';
import type { OutputTruncation } from './output-cap.js';

/**
 * How a position moved since the same agent's previous one: computed by the engine, never asked
 * of the model.
 *
 * @example
 * ```ts
 * import type { PositionChanges } from '@tot/core/deliberation';
 *
 * const moved: PositionChanges = { conclusionChanged: false, reasonsAdded: ['mock exams weekly'], reasonsDropped: [], confidenceDelta: 0.05 };
 * ```
 */
export interface PositionChanges {
  /** The conclusion's text differs from the previous one (ignoring case and spacing). */
  conclusionChanged: boolean;
  /** Key reasons that were not among the previous ones. */
  reasonsAdded: string[];
  /** Previous key reasons no longer given. */
  reasonsDropped: string[];
  /** Confidence now minus confidence then, rounded to 3 decimals. */
  confidenceDelta: number;
}

/**
 * An agent's position in a round: what the host compares.
 *
 * @example
 * ```ts
 * import type { PositionSummary } from '@tot/core/deliberation';
 *
 * const p: PositionSummary = { conclusion: 'Three phases over 12 weeks', keyReasons: ['vocabulary first', 'weekly mocks'], assumptions: ['2 hours a day'], confidence: 0.8 };
 * ```
 */
export interface PositionSummary {
  /** One sentence. */
  conclusion: string;
  /** The reasons that carry it. */
  keyReasons: string[];
  /** What it takes for granted. */
  assumptions: string[];
  /** 0 to 1. */
  confidence: number;
  /** Set by the engine from the agent's previous position (absent in its first). */
  changesFromLastRound?: PositionChanges;
}

/**
 * What an output is.
 *
 * @example
 * ```ts
 * import type { OutputType } from '@tot/core/deliberation';
 *
 * const t: OutputType = 'critique';
 * ```
 */
export type OutputType = 'position' | 'plan' | 'critique' | 'report' | 'control';

/**
 * One exchange of an agent with its model: the user turn it sent and the reply. An agent's
 * outputs carry their exchanges, so its conversation memory is rebuilt from the deliberation's
 * record (and a resumed run has it exactly).
 *
 * @example
 * ```ts
 * import type { Exchange } from '@tot/core/deliberation';
 *
 * const e: Exchange = { user: 'Restate your translation and give your reasons.', assistant: 'I still believe…' };
 * ```
 */
export interface Exchange {
  /** What the agent sent (the user turn). */
  user: string;
  /** What the model answered. */
  assistant: string;
}

/**
 * Why an agent's output of a round is an earlier one (skip the agent, use its
 * previous output).
 *
 * @example
 * ```ts
 * import type { SkipReason } from '@tot/core/deliberation';
 *
 * const r: SkipReason = 'agent_timeout';
 * ```
 */
export type SkipReason = 'agent_timeout' | 'agent_failed' | 'content_filtered';

/**
 * One output of an agent, the host or the reporter. The protocol's snake_case form is
 * `outputToProtocol(output)`.
 *
 * @example
 * ```ts
 * import type { AgentOutput } from '@tot/core/deliberation';
 *
 * const o: AgentOutput = { agentId: 'planner', round: 1, outputType: 'plan', content: 'Three phases…', metadata: {}, timestamp: '2026-01-05T10:00:00.000Z' };
 * ```
 */
export interface AgentOutput {
  /** The agent's id. */
  agentId: string;
  /** The round it belongs to (the reporter's: the last round). */
  round: number;
  /** What it is. */
  outputType: OutputType;
  /** The text users see. */
  content: string;
  /** The agent's position (the host compares these; agents without one are compared by `content`). */
  position?: PositionSummary;
  /** The rest of the structured output (a plan, a critique, a report's summary), as the agent gave it. */
  metadata: Record<string, unknown>;
  /** ISO time it was made. */
  timestamp: string;
  /** The exchanges with the model that made it, in order (LLM agents). */
  transcript?: Exchange[];
  /** Set when the agent was skipped this round and this is its previous output, reused. */
  stale?: { reason: SkipReason; fromRound: number };
  /** Set when `content` was longer than the per-output token cap and was cut to it. */
  truncated?: OutputTruncation;
}

/**
 * A host's action: `update_command` orders stubborn agents to move.
 *
 * @example
 * ```ts
 * import type { HostAction } from '@tot/core/deliberation';
 *
 * const done = (a: HostAction) => a === 'converge' || a === 'terminate';
 * ```
 */
export type HostAction = 'continue' | 'converge' | 'force_opposition' | 'terminate' | 'update_command';

/**
 * An order to one agent for the next round (force opposition, update command).
 *
 * @example
 * ```ts
 * import type { AgentDirective } from '@tot/core/deliberation';
 *
 * const d: AgentDirective = { agentId: 'planner', role: 'devils_advocate', requirement: 'Argue only from the opposing side.' };
 * ```
 */
export interface AgentDirective {
  /** Who must follow it. */
  agentId: string;
  /** A role to take for the round (`devils_advocate`). */
  role?: string;
  /** What the agent must do. */
  requirement: string;
  /** Why (stubbornness, low consensus). */
  reason?: string;
}

/**
 * The measurements behind a similarity host's decision (`analysis`).
 *
 * @example
 * ```ts
 * import type { ConsensusAnalysis } from '@tot/core/deliberation';
 *
 * const a: ConsensusAnalysis = { consensusLevel: 0.92, similarityMatrix: [[1, 0.92], [0.92, 1]], mostDifferentPair: ['planner', 'critic'], stubbornAgents: [], selfSimilarity: {}, backend: 'embedding' };
 * ```
 */
export interface ConsensusAnalysis {
  /** Mean pairwise similarity of the round's positions. */
  consensusLevel: number;
  /** Pairwise similarities, in the order of the round's outputs. */
  similarityMatrix: number[][];
  /** The ids of the least similar pair, when there are two positions or more. */
  mostDifferentPair?: [string, string];
  /** Agents whose position barely moved for the configured number of rounds. */
  stubbornAgents: string[];
  /** Each agent's similarity to its own previous position (agents with one). */
  selfSimilarity: Record<string, number>;
  /** What measured: an embedder's vectors or the lexical (TF-IDF) fallback. */
  backend: 'embedding' | 'lexical';
  /** Set when an embedder was configured and failed: the lexical measure answered. */
  fallback?: 'lexical';
  /** Why the embedder failed, with `fallback`. */
  fallbackError?: { code: string; message: string };
}

/**
 * A host's decision after a round.
 *
 * @example
 * ```ts
 * import type { HostDecision } from '@tot/core/deliberation';
 *
 * const d: HostDecision = { action: 'continue', reason: 'similarity 0.80', nextAgents: ['planner', 'critic'], constraints: { mustAddress: ['writing practice'], avoid: ['repeating earlier arguments'] }, directives: [] };
 * ```
 */
export interface HostDecision {
  /** What happens next. */
  action: HostAction;
  /** Why, in words. */
  reason: string;
  /** Who speaks next round, in order. */
  nextAgents: string[];
  /** What the next round must address and avoid. */
  constraints: { mustAddress: string[]; avoid: string[] };
  /** Orders to single agents for the next round. */
  directives: AgentDirective[];
  /** The measurements behind it (similarity hosts). */
  analysis?: ConsensusAnalysis;
  /** With `converge`: consensus stopped moving (the run stops with `plateau`). */
  plateau?: boolean;
  /** The final answer a moderator gave when it ended the debate. */
  answer?: string;
  /** Anything else the host reported (a moderator's parsed reply). */
  metadata?: Record<string, unknown>;
  /** A model host's exchanges (its conversation memory). */
  transcript?: Exchange[];
  /** Set when `reason` was longer than the per-output token cap and was cut to it. */
  truncated?: OutputTruncation;
  /**
   * Set when the content filter withheld the decision's text, or failed or ran out
   * of time checking it: the action, the next agents and who gets an order (in what role) still
   * apply; the reason and each order's `requirement` say it was withheld, and the orders' reasons,
   * the answer, the constraints, the metadata and the host's exchange of this round are dropped.
   */
  withheld?: { reason: string };
}

/**
 * One round: who spoke (stale outputs included) and what the host decided.
 *
 * @example
 * ```ts
 * import type { DeliberationRound } from '@tot/core/deliberation';
 *
 * const speakers = (r: DeliberationRound) => r.outputs.map((o) => o.agentId);
 * ```
 */
export interface DeliberationRound {
  /** 1-based. */
  round: number;
  /** The agents' outputs, in speaking order. */
  outputs: AgentOutput[];
  /** The host's decision (absent when the run stopped before it). */
  hostDecision?: HostDecision;
  /** What the person said to the participants after this round (`askBetweenRounds`). */
  note?: string;
}

/** Conversation messages of one participant, rebuilt from its exchanges. */
export function conversation(system: string | undefined, exchanges: readonly Exchange[]): ChatMessage[] {
  const messages: ChatMessage[] = system === undefined || system === '' ? [] : [{ role: 'system', content: system }];
  for (const e of exchanges) messages.push({ role: 'user', content: e.user }, { role: 'assistant', content: e.assistant });
  return messages;
}
