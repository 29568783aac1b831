import { z } from 'zod';
import { TotError, type ErrorLocation, type ProtocolErrorObject } from '../errors/index.js';
import { raceAbort } from '../internal/abort.js';
import { callModel } from '../model/call-model.js';
import type { GenerateRequest, GenerateResult, LanguageModel } from '../model/types.js';
import type { Run, RunEnd, RunProgram } from '../run/run.js';
import type { RunResult, RunStats } from '../run/run-result.js';
import type { DeliberationEvent } from './deliberation-events.js';
import type { DeliberationLog } from './deliberation-log.js';
import { isTokenCount } from '../budget/estimate-tokens.js';
import { PARTICIPANT_TAG, PHASE_TAG, ROUND_TAG } from './call-tags.js';
import { capOutput, type OutputMeasure } from './output-cap.js';
import type { AgentContext, AgentReply, DeliberationAgent, DeliberationContext, DeliberationHost, DeliberationReporter } from './participant.js';
import { positionChanges } from './position-changes.js';
import { decisionToProtocol } from './protocol.js';
import type { AgentTool } from './tools/index.js';
import type { AgentDirective, AgentOutput, DeliberationRound, Exchange, HostDecision, SkipReason } from './types.js';

/**
 * Why a deliberation stopped: the host converged (`converged`, or `plateau` when consensus stopped
 * moving) or terminated, the round limit was reached (the reporter then writes the divergent
 * conclusion), or one of the shared reasons (`budget_exceeded`, `aborted`, `timeout`, `error`).
 *
 * @example
 * ```ts
 * import type { DeliberationStopReason } from '@tot/core/deliberation';
 *
 * const agreed = (r: DeliberationStopReason) => r === 'converged' || r === 'plateau';
 * ```
 */
export type DeliberationStopReason = 'converged' | 'plateau' | 'terminated' | 'stopped_by_person' | 'max_rounds_reached' | 'budget_exceeded' | 'aborted' | 'timeout' | 'error' | 'waiting';

/**
 * Counters of a deliberation: the shared run counters and its own.
 *
 * @example
 * ```ts
 * import type { DeliberationStats } from '@tot/core/deliberation';
 *
 * const summary = (s: DeliberationStats) => `${s.rounds} rounds, ${s.agentOutputs} outputs, ${s.staleOutputs} stale`;
 * ```
 */
export interface DeliberationStats extends RunStats {
  /** Rounds finished (the host decided). */
  rounds: number;
  /** Fresh agent outputs. */
  agentOutputs: number;
  /** Agent turns skipped (timeout, failure, content filter); their previous output was reused when there was one. */
  staleOutputs: number;
}

/**
 * What a deliberation returns: the rounds, the final report, the consensus
 * trend, and the shared result fields. A run stopped early returns the rounds it finished.
 *
 * @example
 * ```ts
 * import type { DeliberationResult } from '@tot/core/deliberation';
 *
 * const answer = (r: DeliberationResult) => r.finalReport?.content ?? r.rounds.at(-1)?.outputs.map((o) => o.content).join('\n');
 * ```
 */
export interface DeliberationResult extends RunResult<DeliberationStopReason, DeliberationStats> {
  /** The user's request. */
  query: string;
  /** The rounds, in order (an unfinished last round is included without a decision). */
  rounds: DeliberationRound[];
  /** The reporter's output, when the run got that far. */
  finalReport?: AgentOutput;
  /** True when the report is the divergent conclusion (no consensus). */
  divergent: boolean;
  /** Each finished round's consensus level, when the host measured one. */
  consensusTrend: number[];
  /** The deliberation's round limit. */
  maxRounds: number;
  /** When the run started and last changed (ISO). */
  createdAt: string;
  /** When the run ended (ISO). */
  updatedAt: string;
}

/**
 * What a content filter answers about an output: `false` or `{ allowed: false }`
 * withholds it. Every output is checked: each agent's, the report, and each host decision, given
 * as the host's output (`outputType: 'control'`, `content` its reason, `metadata` the decision
 * and its analysis in the protocol's wire form, as `decisionToProtocol` writes them). A withheld
 * decision's text (its reason, answer, constraints, metadata, and its orders' requirements and
 * reasons) is not shown or passed on. A filter that throws or runs past `agentTimeoutMs` allows
 * nothing: the agent is skipped, the report dropped, the decision withheld.
 *
 * @example
 * ```ts
 * import type { ContentFilter } from '@tot/core/deliberation';
 *
 * const noSecrets: ContentFilter = (o) => (/password/i.test(o.content) ? { allowed: false, reason: 'mentions a password' } : true);
 * ```
 */
export type ContentFilter = (output: AgentOutput, options: { signal: AbortSignal }) => boolean | { allowed: boolean; reason?: string } | Promise<boolean | { allowed: boolean; reason?: string }>;

/** A deliberation as its program runs it: options checked and filled in. */
export interface DeliberationSpec {
  agents: readonly DeliberationAgent[];
  host: DeliberationHost;
  reporter: DeliberationReporter | undefined;
  maxRounds: number;
  firstRoundAgents: readonly string[];
  parallelFirstRound: boolean;
  parallelLaterRounds: boolean;
  agentTimeoutMs: number;
  maxOutputTokens: number;
  contentFilter: ContentFilter | undefined;
  tools: readonly AgentTool[];
  askBetweenRounds: boolean;
}

/** What a person answers between rounds: go on (with a message for the participants, if any) or stop. */
export const betweenRoundsAnswer = z.strictObject({
  action: z.enum(['continue', 'stop']),
  message: z.string().min(1).max(10_000).optional(),
});

const replySchema = z.looseObject({
  content: z.string(),
  outputType: z.enum(['position', 'plan', 'critique', 'report', 'control']).optional(),
  position: z
    .looseObject({ conclusion: z.string(), keyReasons: z.array(z.string()), assumptions: z.array(z.string()), confidence: z.number().min(0).max(1) })
    .optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  transcript: z.array(z.object({ user: z.string(), assistant: z.string() })).optional(),
});

const decisionSchema = z.looseObject({
  action: z.enum(['continue', 'converge', 'force_opposition', 'terminate', 'update_command']),
  reason: z.string(),
  nextAgents: z.array(z.string()),
  constraints: z.looseObject({ mustAddress: z.array(z.string()), avoid: z.array(z.string()) }),
  directives: z.array(z.looseObject({ agentId: z.string(), requirement: z.string() })),
});

function protocolError(error: unknown): ProtocolErrorObject {
  return TotError.isInstance(error) ? error.toProtocolError() : { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error), recoverable: true };
}

function checked<T>(schema: z.ZodType, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new TotError('INVALID_FORMAT', `${what}: ${z.prettifyError(parsed.error).replace(/\n/g, ' ')}`, { details: { issues: parsed.error.issues } });
  return value as T;
}

const WITHHELD = 'withheld by the content filter';

/** A model call a participant made through `ctx.generate` in its current turn, as it answered. */
interface MadeCall {
  outputs: readonly string[];
  outputTokens?: number;
  finishReason?: GenerateResult['finishReason'];
  maxOutputTokens: number;
}

/**
 * What the call that wrote `text` said of it: the last call of the turn whose output is `text`,
 * or contains it (a reply parsed out of the model's output). None when the text is not from a
 * call (a participant that wrote or reworded it): the cap then goes by the estimate.
 */
function measureOf(text: string, calls: readonly MadeCall[]): OutputMeasure | undefined {
  for (let i = calls.length - 1; i >= 0; i--) {
    const c = calls[i]!;
    const whole = c.outputs.some((o) => o === text || o.trim() === text.trim());
    if (!whole && !c.outputs.some((o) => o.includes(text))) continue;
    return {
      chars: c.outputs.reduce((n, o) => n + o.length, 0),
      ...(c.outputTokens === undefined ? {} : { outputTokens: c.outputTokens }),
      ...(whole && c.finishReason ? { finishReason: c.finishReason } : {}),
      maxOutputTokens: c.maxOutputTokens,
    };
  }
  return undefined;
}

const timeoutError = (agentId: string, ms: number) => new TotError('TIMEOUT', `Agent "${agentId}" took longer than ${ms} ms.`);

/**
 * One deliberation run. Round 1's agents speak at once or in turn; later rounds
 * follow the host's `nextAgents`. After each round the host decides; a converge, a terminate or
 * the round limit ends the rounds and the reporter writes the report. A resumed run (`log`)
 * takes the rounds its log finished as they were; the agents' memories are rebuilt from them.
 */
export function deliberationProgram(spec: DeliberationSpec, run: Run<DeliberationEvent>, query: string, log?: DeliberationLog): RunProgram<DeliberationResult> {
  const rounds: DeliberationRound[] = log ? log.rounds.map((r) => ({ ...r, outputs: [...r.outputs] })) : [];
  const trend: number[] = [];
  for (const r of rounds) if (r.hostDecision?.analysis) trend.push(r.hostDecision.analysis.consensusLevel);
  const stats = { rounds: rounds.length, agentOutputs: 0, staleOutputs: 0 };
  for (const r of rounds) for (const o of r.outputs) o.stale ? (stats.staleOutputs += 1) : (stats.agentOutputs += 1);
  let report: { output: AgentOutput; divergent: boolean } | undefined = log?.report;
  let ownStop: DeliberationStopReason | undefined;
  const createdAt = new Date(log?.startedAt ?? run.now()).toISOString();
  const byId = new Map(spec.agents.map((a) => [a.id, a]));
  const hostId = spec.host.id ?? 'host';
  const reporterId = spec.reporter?.id ?? 'reporter';

  if (log) {
    // The calls of finished rounds, and of a logged report, are theirs; only the unfinished part's
    // are served again. Calls are told apart by the tags the engine puts on them (below), never
    // by tags a participant may or may not set.
    const done = new Set(log.rounds.map((r) => String(r.round)));
    run.adoptLoggedCalls((request) => (request.tags?.[PHASE_TAG] === 'report' ? log.report !== undefined : done.has(request.tags?.[ROUND_TAG] ?? '')));
  }

  const wrapped = new Map<LanguageModel, LanguageModel>();
  const generateFor =
    (signal: AbortSignal, phase: 'round' | 'report', round: number, participant: string, made: MadeCall[]) =>
    async (model: LanguageModel, request: GenerateRequest): Promise<GenerateResult> => {
      let m = wrapped.get(model);
      if (!m) {
        m = run.runModel(model);
        wrapped.set(model, m);
      }
      // The per-output cap (seed 001 §10) on every call, whatever the participant asked for.
      const maxOutputTokens = request.maxOutputTokens === undefined ? spec.maxOutputTokens : Math.min(request.maxOutputTokens, spec.maxOutputTokens);
      // Every call names its role (a participant's own role tag wins), for traces and for test models.
      const role = phase === 'report' ? 'reporter' : participant === hostId ? 'host' : 'agent';
      const tags = { role, ...request.tags, [PHASE_TAG]: phase, [ROUND_TAG]: String(round), [PARTICIPANT_TAG]: participant };
      const result = await callModel(m, { ...request, maxOutputTokens, tags }, { signal });
      // What the provider said of its output: the cap is judged by its own count (makeOutput).
      const outputTokens = result.usage?.outputTokens;
      made.push({ outputs: [...result.outputs], ...(isTokenCount(outputTokens) ? { outputTokens } : {}), ...(result.finishReason ? { finishReason: result.finishReason } : {}), maxOutputTokens });
      return result;
    };

  /** The context of one participant's turn; `made` collects the calls it makes through `generate`. */
  const base = (round: number, signal: AbortSignal, participant: string, made: MadeCall[], phase: 'round' | 'report' = 'round'): DeliberationContext => ({
    query,
    round,
    maxRounds: spec.maxRounds,
    history: rounds,
    tools: spec.tools,
    maxOutputTokens: spec.maxOutputTokens,
    generate: generateFor(signal, phase, round, participant, made),
    ask: (request) => run.ask(request, where(participant, round)),
  });

  const exchangesOf = (id: string): Exchange[] => {
    const out: Exchange[] = [];
    for (const r of rounds) {
      for (const o of r.outputs) if (o.agentId === id && !o.stale && o.transcript) out.push(...o.transcript);
      if (id === hostId && r.hostDecision?.transcript) out.push(...r.hostDecision.transcript);
    }
    return out;
  };
  const lastOutputOf = (id: string): AgentOutput | undefined => {
    for (let i = rounds.length - 1; i >= 0; i--) {
      const o = rounds[i]!.outputs.find((x) => x.agentId === id && !x.stale);
      if (o) return o;
    }
    return undefined;
  };

  /** A participant's timer: `agentTimeoutMs` from now, then its signal aborts (with the run's stop too). */
  const startTimer = (id: string): { own: AbortController; signal: AbortSignal; clear(): void } => {
    const own = new AbortController();
    const timer = setTimeout(() => own.abort(timeoutError(id, spec.agentTimeoutMs)), spec.agentTimeoutMs);
    return { own, signal: AbortSignal.any([run.signal, own.signal]), clear: () => clearTimeout(timer) };
  };

  /** Runs `work` under `timer` (started before: several steps may share it); its timeout aborts what the work started. */
  const within = async <T>(timer: ReturnType<typeof startTimer>, id: string, work: (signal: AbortSignal) => Promise<T> | T): Promise<T> => {
    try {
      return await raceAbort(Promise.resolve().then(() => work(timer.signal)), timer.signal, `agent ${id}`);
    } catch (error) {
      if (timer.own.signal.aborted && !run.stopping) throw timer.own.signal.reason;
      throw error;
    }
  };

  /** Runs `work` under the run's stop and a timer of its own; a timeout aborts what the work started. */
  const timed = async <T>(id: string, work: (signal: AbortSignal) => Promise<T> | T): Promise<T> => {
    const timer = startTimer(id);
    try {
      return await within(timer, id, work);
    } finally {
      timer.clear();
    }
  };

  /** Why the content filter withholds `output` (its reason, or {@link WITHHELD}); undefined when it allows it. */
  const filtered = async (output: AgentOutput, signal: AbortSignal): Promise<string | undefined> => {
    if (!spec.contentFilter) return undefined;
    const verdict = await raceAbort(Promise.resolve().then(() => spec.contentFilter!(output, { signal })), signal, 'content filter');
    if (verdict === true) return undefined;
    if (verdict === false) return WITHHELD;
    return verdict.allowed ? undefined : (verdict.reason ?? WITHHELD);
  };

  const makeOutput = (id: string, round: number, reply: AgentReply, defaultType: AgentOutput['outputType'], made: readonly MadeCall[]): AgentOutput => {
    const previous = lastOutputOf(id);
    const position = reply.position
      ? { ...reply.position, ...(previous?.position ? { changesFromLastRound: positionChanges(previous.position, reply.position) } : {}) }
      : undefined;
    // A model may ignore maxOutputTokens, and a participant may write any length: the output is
    // cut to the cap (seed 001 §10), and says so. Judged by the provider's count of the call that
    // wrote it when it reported one; by the estimate otherwise.
    const { text, truncation } = capOutput(reply.content, spec.maxOutputTokens, measureOf(reply.content, made));
    return {
      agentId: id,
      round,
      outputType: reply.outputType ?? defaultType,
      content: text,
      ...(position ? { position } : {}),
      metadata: reply.metadata ?? {},
      timestamp: new Date(run.now()).toISOString(),
      ...(reply.transcript ? { transcript: reply.transcript } : {}),
      ...(truncation ? { truncated: truncation } : {}),
    };
  };

  /** One agent's turn: its output, or its previous one marked stale when it is skipped. */
  const turn = async (agent: DeliberationAgent, round: number, current: readonly AgentOutput[]): Promise<{ output?: AgentOutput; skipped?: { reason: SkipReason; error: unknown } }> => {
    const decision = rounds.at(-1)?.hostDecision;
    const directive = decision?.directives.find((d) => d.agentId === agent.id);
    const previous = lastOutputOf(agent.id);
    try {
      const output = await timed(agent.id, async (signal) => {
        const made: MadeCall[] = [];
        const ctx: AgentContext = {
          ...base(round, signal, agent.id, made),
          agentId: agent.id,
          current,
          ...(decision ? { decision } : {}),
          ...(directive ? { directive } : {}),
          ...(previous ? { previous } : {}),
          exchanges: exchangesOf(agent.id),
        };
        const reply = checked<AgentReply>(replySchema, await agent.respond(ctx, { signal }), `Agent "${agent.id}" replied with something that is not an AgentReply`);
        const out = makeOutput(agent.id, round, reply, 'position', made);
        const withheld = await filtered(out, signal);
        if (withheld !== undefined) throw Object.assign(new TotError('INVALID_FORMAT', `Agent "${agent.id}": ${withheld}.`), { filtered: true });
        return out;
      });
      return { output };
    } catch (error) {
      if (run.stopping) throw error;
      const reason: SkipReason = (error as { filtered?: boolean }).filtered ? 'content_filtered' : TotError.hasCode(error, 'TIMEOUT') ? 'agent_timeout' : 'agent_failed';
      return { skipped: { reason, error } };
    }
  };

  const where = (agentId: string, round: number): ErrorLocation => ({ kind: 'agent', agentId, round });

  const emitTurn = (round: number, agentId: string, outcome: Awaited<ReturnType<typeof turn>>, record: DeliberationRound): void => {
    if (outcome.output) {
      record.outputs.push(outcome.output);
      stats.agentOutputs += 1;
      run.emit({ type: 'agent.output', round, output: outcome.output });
      return;
    }
    const { reason, error } = outcome.skipped!;
    run.recordError(error, where(agentId, round));
    const before = lastOutputOf(agentId);
    const reused = before ? { ...before, round, stale: { reason, fromRound: before.round } } : undefined;
    if (reused) record.outputs.push(reused);
    stats.staleOutputs += 1;
    run.emit({ type: 'agent.skipped', round, agentId, reason, error: protocolError(error), ...(reused ? { reused } : {}) });
  };

  /** Plays a round into `record` (which keeps what was said if the run stops half-way). */
  const playRound = async (record: DeliberationRound, speakers: readonly string[]): Promise<void> => {
    const round = record.round;
    const parallel = speakers.length > 1 && (round === 1 ? spec.parallelFirstRound : spec.parallelLaterRounds);
    run.emit({ type: 'round.started', round, agents: [...speakers], parallel });
    if (parallel) {
      // Every agent starts at once; outputs are emitted in speaking order, each as soon as it and
      // those before it are done, so that a recording reads the same however the calls raced.
      const pending = speakers.map((id) => turn(byId.get(id)!, round, []));
      // A stopping run rejects every turn; the first is awaited below, the others must not go unhandled.
      for (const p of pending) p.catch(() => undefined);
      for (const [i, p] of pending.entries()) emitTurn(round, speakers[i]!, await p, record);
    } else {
      for (const id of speakers) {
        if (run.stopping) break;
        emitTurn(round, id, await turn(byId.get(id)!, round, [...record.outputs]), record);
      }
    }
  };

  const decide = async (record: DeliberationRound): Promise<HostDecision> => {
    const round = record.round;
    // One timer for the decision and its check by the content filter, as an agent's turn has.
    const timer = startTimer(hostId);
    try {
      const made: MadeCall[] = [];
      const decision = await within(timer, hostId, (signal) =>
        spec.host.decide({ ...base(round, signal, hostId, made), outputs: record.outputs, agents: spec.agents.map((a) => a.id), consensusTrend: [...trend], exchanges: exchangesOf(hostId) }, { signal }),
      );
      checked(decisionSchema, decision, `Host "${hostId}" decided something that is not a HostDecision`);
      for (const id of decision.nextAgents) {
        if (!byId.has(id)) throw new TotError('INVALID_FORMAT', `Host "${hostId}" named "${id}" among the next agents; the agents are ${[...byId.keys()].join(', ')}.`);
      }
      if (new Set(decision.nextAgents).size !== decision.nextAgents.length) throw new TotError('INVALID_FORMAT', `Host "${hostId}" named an agent twice among the next agents (${decision.nextAgents.join(', ')}).`);
      for (const d of decision.directives) {
        if (!byId.has(d.agentId)) throw new TotError('INVALID_FORMAT', `Host "${hostId}" gave an order to "${d.agentId}", which is no agent; the agents are ${[...byId.keys()].join(', ')}.`);
      }
      if (decision.action !== 'converge' && decision.action !== 'terminate' && decision.nextAgents.length === 0) {
        throw new TotError('INVALID_FORMAT', `Host "${hostId}" chose ${decision.action} with no next agents.`);
      }
      // The host's output is an output too (seed 001 §2.4, §10): its reason within the token cap,
      // and its text through the content filter.
      const { text, truncation } = capOutput(decision.reason, spec.maxOutputTokens, measureOf(decision.reason, made));
      const capped: HostDecision = truncation ? { ...decision, reason: text, truncated: truncation } : decision;
      let withheld: string | undefined;
      try {
        withheld = await within(timer, hostId, (signal) =>
          filtered({ agentId: hostId, round, outputType: 'control', content: capped.reason, metadata: decisionToProtocol(capped, round, hostId).metadata, timestamp: new Date(run.now()).toISOString() }, signal),
        );
      } catch (error) {
        if (run.stopping) throw error;
        // A filter that fails or runs out of time has not allowed the text: the decision is
        // withheld (as an agent's output would be), and the rounds go on.
        const timedOut = TotError.hasCode(error, 'TIMEOUT');
        run.recordError(error, where(hostId, round));
        return withhold(capped, timedOut ? 'the content filter took too long' : 'the content filter failed');
      }
      if (withheld === undefined) return capped;
      const decisionWithheld = withhold(capped, withheld);
      run.recordError(new TotError('INVALID_FORMAT', `Host "${hostId}": its decision's text was ${decisionWithheld.reason}.`), where(hostId, round));
      return decisionWithheld;
    } finally {
      timer.clear();
    }
  };

  /**
   * A decision whose text is withheld: it still steers the rounds (its action, next agents, who
   * gets an order and in what role), but none of its text is shown or passed on: the reason and
   * each order's requirement say it was withheld; the orders' reasons, the answer, the
   * constraints, the metadata, the host's exchange of the round and anything else it carried are
   * dropped.
   */
  const withhold = (decision: HostDecision, why: string): HostDecision => {
    const said = why === WITHHELD ? WITHHELD : `${WITHHELD} (${why})`;
    const directives = decision.directives.map((d): AgentDirective => ({ agentId: d.agentId, ...(d.role === undefined ? {} : { role: d.role }), requirement: said }));
    return {
      action: decision.action,
      reason: said,
      nextAgents: [...decision.nextAgents],
      constraints: { mustAddress: [], avoid: [] },
      directives,
      ...(decision.analysis ? { analysis: decision.analysis } : {}),
      ...(decision.plateau ? { plateau: decision.plateau } : {}),
      withheld: { reason: why },
    };
  };

  const writeReport = async (stopReason: DeliberationStopReason): Promise<void> => {
    const reporter = spec.reporter;
    if (!reporter) return;
    const divergent = stopReason === 'max_rounds_reached' || stopReason === 'terminated';
    const round = rounds.length;
    const decision = rounds.at(-1)?.hostDecision;
    const output = await timed(reporterId, async (signal) => {
      const made: MadeCall[] = [];
      const reply = checked<AgentReply>(
        replySchema,
        await reporter.report({ ...base(round, signal, reporterId, made, 'report'), stopReason, divergent, ...(decision ? { decision } : {}) }, { signal }),
        `Reporter "${reporterId}" replied with something that is not an AgentReply`,
      );
      const out = makeOutput(reporterId, round, reply, 'report', made);
      const withheld = await filtered(out, signal);
      if (withheld !== undefined) throw new TotError('INVALID_FORMAT', `Reporter "${reporterId}": ${withheld}.`);
      return out;
    });
    report = { output, divergent };
    run.emit({ type: 'report', round, output, divergent });
  };

  const stopOf = (decision: HostDecision): DeliberationStopReason | undefined => {
    if (decision.action === 'terminate') return 'terminated';
    if (decision.action === 'converge') return decision.plateau ? 'plateau' : 'converged';
    return undefined;
  };

  /**
   * Asks the person after a round whether to go on, and for a message to the participants (kept
   * as the round's `note`). Asked of every round again when a resume folds the rounds back: an
   * answered question returns its recorded answer, so the notes come back with them.
   */
  const personAfter = async (record: DeliberationRound): Promise<DeliberationStopReason | undefined> => {
    const decision = record.hostDecision!;
    const said = await run.ask(
      {
        key: 'between-rounds',
        question: `Round ${record.round} is over; the host says "${decision.action}". Go on to round ${record.round + 1}, or stop? A message, if you give one, goes to the participants.`,
        schema: betweenRoundsAnswer,
        preview: { round: record.round, decision: { action: decision.action, reason: decision.reason }, outputs: record.outputs.map((o) => ({ agentId: o.agentId, content: o.content.slice(0, 2000) })) },
      },
      where(hostId, record.round),
    );
    if (said.message !== undefined) record.note = said.message;
    return said.action === 'stop' ? 'stopped_by_person' : undefined;
  };

  return {
    async main() {
      let stop: DeliberationStopReason | undefined;
      for (const r of rounds) stop ??= stopOf(r.hostDecision!);
      if (spec.askBetweenRounds && stop === undefined) {
        for (const r of rounds) if (r.round < spec.maxRounds) stop ??= await personAfter(r);
      }
      if (stop === undefined && rounds.length >= spec.maxRounds) stop = 'max_rounds_reached';
      while (stop === undefined) {
        const round = rounds.length + 1;
        const speakers = round === 1 ? spec.firstRoundAgents : rounds.at(-1)!.hostDecision!.nextAgents;
        const record: DeliberationRound = { round, outputs: [] };
        try {
          await playRound(record, speakers);
        } catch (error) {
          // The result keeps the outputs the interrupted round did give.
          rounds.push(record);
          throw error;
        }
        if (run.stopping) {
          rounds.push(record);
          return;
        }
        let decision: HostDecision;
        try {
          decision = await decide(record);
        } catch (error) {
          if (run.stopping) {
            rounds.push(record);
            return;
          }
          // A host that cannot decide ends the deliberation: no rule says who speaks next.
          rounds.push(record);
          run.recordError(error, where(hostId, round));
          ownStop = 'error';
          return;
        }
        record.hostDecision = decision;
        rounds.push(record);
        stats.rounds += 1;
        if (decision.analysis) trend.push(decision.analysis.consensusLevel);
        run.emit({ type: 'host.decision', round, decision });
        stop = stopOf(decision) ?? (round >= spec.maxRounds ? 'max_rounds_reached' : undefined);
        if (stop === undefined && spec.askBetweenRounds) stop = await personAfter(record);
      }
      ownStop = stop;
      if (report === undefined) {
        try {
          await writeReport(stop);
        } catch (error) {
          if (run.stopping) throw error;
          run.recordError(error, where(reporterId, rounds.length));
        }
      }
    },
    result(end: RunEnd): DeliberationResult {
      const stopReason: DeliberationStopReason = end.halted?.reason === 'completed' || end.halted === undefined ? (ownStop ?? 'error') : end.halted.reason;
      const detail = end.halted?.detail;
      return {
        runId: end.runId,
        stopReason,
        ...(detail ? { detail } : {}),
        query,
        rounds,
        ...(report ? { finalReport: report.output } : {}),
        divergent: report?.divergent ?? false,
        consensusTrend: [...trend],
        maxRounds: spec.maxRounds,
        createdAt,
        updatedAt: new Date(run.now()).toISOString(),
        errors: end.errors,
        stats: { ...end.stats, ...stats },
      };
    },
  };
}
