import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { whenAborted } from '../internal/abort.js';
import { fnSchema, parseOptions, signalSchema } from '../internal/validate.js';
import type { RecordedRun } from '../run/recorded-run.js';
import { RunEmitter, type StreamOptions } from '../run/run-emitter.js';
import type { RunEventBase } from '../run/run-event.js';
import { resumeOptionsShape, runnerOptionsShape, runOptionsShape, type ResumeOptions, type RunBudget, type RunOptions } from '../run/run-options.js';
import { createRunId } from '../run/run-id.js';
import { resumeRun, startRun, type RunSettings } from '../run/run.js';
import type { DeliberationEvent } from './deliberation-events.js';
import { foldDeliberationLog } from './deliberation-log.js';
import { deliberationProgram, type ContentFilter, type DeliberationResult, type DeliberationSpec, type DeliberationStats, type DeliberationStopReason } from './deliberation-program.js';
import type { DeliberationAgent, DeliberationHost, DeliberationReporter } from './participant.js';
import type { AgentTool } from './tools/index.js';
import { agentToolSchema } from './tools/agent-tool.js';

/**
 * Options of a {@link Deliberation}.
 *
 * @example
 * ```ts
 * import type { DeliberationOptions } from '@tot/core/deliberation';
 *
 * const options: DeliberationOptions = { agents: [planner({ model }), critic({ model })], host: similarityHost(), reporter: reporter({ model }), maxRounds: 5 };
 * ```
 */
export interface DeliberationOptions {
  /** The agents, in speaking order (ids unique). */
  agents: readonly DeliberationAgent[];
  /** Decides after each round. */
  host: DeliberationHost;
  /** Writes the final report. Default none (the result has the rounds only). */
  reporter?: DeliberationReporter;
  /** Round limit. Default 5. */
  maxRounds?: number;
  /**
   * After each round that does not end the deliberation, ask a person (the run's `onAsk`, or the
   * run ends `waiting` for `resume({ answers })`): `{ action: 'continue' | 'stop', message? }`. A
   * stop ends it with `stopped_by_person`; a message is kept as the round's `note`, which the next
   * rounds' participants read in `history`. Default false.
   */
  askBetweenRounds?: boolean;
  /** Who speaks in round 1, in order. Default every agent. */
  firstRoundAgents?: readonly string[];
  /** Round 1's agents speak at once, each without the others' round-1 output. Default true. */
  parallelFirstRound?: boolean;
  /** Later rounds' agents speak at once too (each then sees only earlier rounds). Default false: in turn. */
  parallelLaterRounds?: boolean;
  /** An agent (or the host, or the reporter) slower than this is skipped for the round. Default 60,000. */
  agentTimeoutMs?: number;
  /**
   * The per-output token cap (a single agent's output is at most 2,000 tokens).
   * Every model call of a participant gets `maxOutputTokens` = the smaller of what it asked for and
   * the cap (the cap when it asked for none); every output over the cap (an agent's or the
   * reporter's `content`, a host decision's `reason`) is cut to it, ended with `…`, and marked
   * `truncated` (a model may ignore the limit). Over the cap by the provider's own count when the
   * call that wrote it reported `usage.outputTokens`; by `estimateTokens` (characters / 3, which
   * errs high on English and still undercounts CJK) when it did not. An output the provider
   * stopped itself (`finishReason: 'length'`) is not cut again, only marked. Default 2,000.
   */
  maxOutputTokens?: number;
  /**
   * Checks every output: an agent's withheld output is treated as a skipped turn; a
   * withheld report is no report; a withheld host decision still steers the rounds, but its text
   * is replaced (see `HostDecision.withheld`), and so it is when the filter throws or runs out of
   * time on it.
   */
  contentFilter?: ContentFilter;
  /** Tools agents may call (`agentTools()` gives `get_now` and `calculate_date`). Default none. */
  tools?: readonly AgentTool[];
  /** Model calls in flight at once. Default 8. */
  concurrency?: number;
  /** Limits on the run's model calls; a resumed run's log counts against it. */
  budget?: RunBudget;
  /** Wall time of the run, in milliseconds. */
  timeoutMs?: number;
  /** Reject at the first error (a skipped agent, a failed report), for tests. Default false. */
  strict?: boolean;
  /** Clock for timestamps. Default `Date.now`. */
  now?: () => number;
}

/**
 * Options of {@link Deliberation.run} and {@link Deliberation.stream}.
 *
 * @example
 * ```ts
 * import type { DeliberationRunOptions } from '@tot/core/deliberation';
 *
 * const options: DeliberationRunOptions = { signal: AbortSignal.timeout(120_000), store, runId: 'ielts-1' };
 * ```
 */
export type DeliberationRunOptions = RunOptions<DeliberationEvent>;

/**
 * Options of {@link Deliberation.resume}.
 *
 * @example
 * ```ts
 * import type { DeliberationResumeOptions } from '@tot/core/deliberation';
 *
 * const options: DeliberationResumeOptions = { store, runId: 'ielts-1' };
 * ```
 */
export type DeliberationResumeOptions = ResumeOptions<DeliberationEvent>;

const ID = /^[A-Za-z][\w-]{0,63}$/;
const agentSchema = z.custom<DeliberationAgent>(
  (v) => typeof v === 'object' && v !== null && typeof (v as DeliberationAgent).id === 'string' && ID.test((v as DeliberationAgent).id) && typeof (v as DeliberationAgent).respond === 'function',
  'expected an agent ({ id, respond }) whose id is a letter, then letters, digits, _ or -',
);
const hostSchema = z.custom<DeliberationHost>((v) => typeof v === 'object' && v !== null && typeof (v as DeliberationHost).decide === 'function', 'expected a host ({ decide }), such as similarityHost()');
const reporterSchema = z.custom<DeliberationReporter>((v) => typeof v === 'object' && v !== null && typeof (v as DeliberationReporter).report === 'function', 'expected a reporter ({ report }), such as reporter({ model })');

const optionsSchema = z
  .strictObject({
    agents: z.array(agentSchema).min(1),
    host: hostSchema,
    reporter: reporterSchema.optional(),
    maxRounds: z.number().int().min(1).max(100).default(5),
    askBetweenRounds: z.boolean().default(false),
    firstRoundAgents: z.array(z.string()).min(1).optional(),
    parallelFirstRound: z.boolean().default(true),
    parallelLaterRounds: z.boolean().default(false),
    agentTimeoutMs: z.number().positive().max(2_147_483_647).default(60_000),
    maxOutputTokens: z.number().int().min(1).max(1_000_000).default(2000),
    contentFilter: fnSchema<ContentFilter>().optional(),
    tools: z.array(agentToolSchema).default([]),
    concurrency: z.number().int().min(1).max(10_000).default(8),
    ...runnerOptionsShape,
  })
  .superRefine((o, ctx) => {
    const ids = o.agents.map((a) => a.id);
    const twice = ids.find((id, i) => ids.indexOf(id) !== i);
    if (twice) ctx.addIssue({ code: 'custom', path: ['agents'], message: `two agents have the id "${twice}"` });
    for (const [i, id] of (o.firstRoundAgents ?? []).entries()) {
      if (!ids.includes(id)) ctx.addIssue({ code: 'custom', path: ['firstRoundAgents', i], message: `no agent "${id}" (the agents are ${ids.join(', ')})` });
      else if (o.firstRoundAgents!.indexOf(id) !== i) ctx.addIssue({ code: 'custom', path: ['firstRoundAgents', i], message: `"${id}" is listed twice` });
    }
    // Memories and adoption on resume go by participant id: the host and the reporter need their own.
    const hostId = o.host.id ?? 'host';
    if (ids.includes(hostId)) ctx.addIssue({ code: 'custom', path: ['host'], message: `the host's id "${hostId}" is an agent's too; give the host another id` });
    const reporterId = o.reporter ? (o.reporter.id ?? 'reporter') : undefined;
    if (reporterId !== undefined && (ids.includes(reporterId) || reporterId === hostId)) ctx.addIssue({ code: 'custom', path: ['reporter'], message: `the reporter's id "${reporterId}" is taken by another participant` });
    const names = o.tools.map((t) => t.name);
    const dup = names.find((n, i) => names.indexOf(n) !== i);
    if (dup) ctx.addIssue({ code: 'custom', path: ['tools'], message: `two tools are named "${dup}"` });
  });

const runSchema = z.strictObject(runOptionsShape);
const resumeSchema = z.strictObject(resumeOptionsShape);
// Not trimmed: the query is quoted into prompts as given (a topic's trailing space is part of it).
const querySchema = z.string().max(100_000).refine((q) => q.trim() !== '', 'give the question to deliberate');

type Parsed = z.output<typeof optionsSchema>;

/**
 * A multi-agent deliberation: agents speak in rounds, a host measures their
 * consensus and decides (converge, continue with focus points, force opposition, order a
 * stubborn agent to move, terminate), and a reporter writes the final report — the divergent
 * conclusion when the round limit comes first. It runs on the run kernel: one budget, events,
 * recording to any event store, resume from the last finished round, `strict`, the common result.
 *
 * @example
 * ```ts
 * import { critic, Deliberation, planner, reporter, similarityHost } from '@tot/core/deliberation';
 *
 * const d = new Deliberation({
 *   agents: [planner({ model }), critic({ model })],
 *   host: similarityHost({ embedder }),
 *   reporter: reporter({ model }),
 *   maxRounds: 5,
 * });
 * const r = await d.run('Help me plan three months of IELTS preparation', { signal });
 * console.log(r.stopReason, r.consensusTrend, r.finalReport?.content);
 * ```
 */
export class Deliberation extends RunEmitter<DeliberationEvent> {
  private readonly spec: DeliberationSpec;
  private readonly o: Parsed;

  /**
   * Checks the options (`INVALID_ARGUMENT` naming the field).
   *
   * @example
   * ```ts
   * const d = new Deliberation({ agents: [planner({ model })], host: similarityHost() });
   * ```
   */
  constructor(options: DeliberationOptions) {
    super();
    const o = parseOptions(optionsSchema, options, 'Deliberation');
    this.o = o;
    this.spec = {
      agents: o.agents,
      host: o.host,
      reporter: o.reporter,
      maxRounds: o.maxRounds,
      firstRoundAgents: o.firstRoundAgents ?? o.agents.map((a) => a.id),
      parallelFirstRound: o.parallelFirstRound,
      parallelLaterRounds: o.parallelLaterRounds,
      agentTimeoutMs: o.agentTimeoutMs,
      maxOutputTokens: o.maxOutputTokens,
      contentFilter: o.contentFilter as ContentFilter | undefined,
      tools: o.tools,
      askBetweenRounds: o.askBetweenRounds,
    };
  }

  private settings(): RunSettings<DeliberationEvent> {
    const s = this.spec;
    return {
      runner: 'deliberation',
      what: 'deliberation',
      emitter: this,
      options: this.o,
      concurrency: this.o.concurrency,
      config: {
        agents: s.agents.map((a) => a.id),
        host: s.host.id ?? 'host',
        reporter: s.reporter ? (s.reporter.id ?? 'reporter') : null,
        maxRounds: s.maxRounds,
        ...(s.askBetweenRounds ? { askBetweenRounds: true } : {}),
        firstRoundAgents: [...s.firstRoundAgents],
        parallelFirstRound: s.parallelFirstRound,
        parallelLaterRounds: s.parallelLaterRounds,
        maxOutputTokens: s.maxOutputTokens,
        tools: s.tools.map((t) => t.name),
      },
      replayLog: (events: readonly RunEventBase[]) => foldDeliberationLog(events),
      resumeBy: 'fold',
    };
  }

  /**
   * Deliberates on `query` until the host converges or terminates, or the round limit.
   *
   * @example
   * ```ts
   * const r = await d.run('Help me plan three months of IELTS preparation', { signal, store, runId: 'ielts-1' });
   * for (const round of r.rounds) console.log(round.round, round.hostDecision?.action);
   * ```
   */
  run(query: string, options: DeliberationRunOptions = {}): Promise<DeliberationResult> {
    try {
      const q = parseOptions(querySchema, query, 'Deliberation.run', 'query');
      const o = parseOptions(runSchema, options, 'Deliberation.run');
      return startRun<DeliberationEvent, DeliberationResult>(this.settings(), o, { problem: q }, (run) => deliberationProgram(this.spec, run, q));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Continues a recorded deliberation that was interrupted: the rounds its log finished are taken
   * as they were (every agent's memory with them), the unfinished round runs again with its
   * recorded calls served from the log. A finished run is returned as it was.
   *
   * @example
   * ```ts
   * const r = await d.resume({ store, runId: 'ielts-1' });
   * ```
   */
  resume(options: DeliberationResumeOptions): Promise<DeliberationResult> {
    try {
      const o = parseOptions(resumeSchema, options, 'Deliberation.resume');
      return resumeRun<DeliberationEvent, DeliberationResult>(this.settings(), o, {
        fromLog: (log) => resultFromLog(log, this.spec.maxRounds),
        program: (run, log) => {
          const folded = foldDeliberationLog(log.events);
          return deliberationProgram(this.spec, run, folded.query, folded);
        },
      });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * With a query: starts a deliberation and returns its events as they happen (`toSSE` turns them
   * into the protocol's server-sent events). Leaving the loop early, or cancelling the SSE stream (a
   * client that disconnects), aborts the deliberation: no model call is made after it. The run's
   * outcome is in its `run.finished` event. With stream options instead: the events of a run in
   * progress, as on every runner.
   *
   * @example
   * ```ts
   * for await (const e of d.stream('Help me plan three months of IELTS preparation')) {
   *   if (e.type === 'agent.output') console.log(e.output.agentId, e.output.content);
   * }
   * ```
   */
  override stream(query: string, options?: DeliberationRunOptions): AsyncIterableIterator<DeliberationEvent>;
  /**
   * The events of a run in progress (or the next to start), as on every runner.
   *
   * @example
   * ```ts
   * const done = d.run('Help me plan three months of IELTS preparation');
   * for await (const e of d.stream()) if (e.type === 'host.decision') console.log(e.decision.action);
   * await done;
   * ```
   */
  override stream(options?: StreamOptions<DeliberationEvent>): AsyncIterableIterator<DeliberationEvent>;
  /**
   * Starts a deliberation and streams its events, or follows a run in progress (see the overloads).
   *
   * @example
   * ```ts
   * const sse = toSSE(d.stream('Help me plan three months of IELTS preparation'));
   * ```
   */
  override stream(query?: string | StreamOptions<DeliberationEvent>, options: DeliberationRunOptions = {}): AsyncIterableIterator<DeliberationEvent> {
    if (typeof query !== 'string') return super.stream(query);
    const o = parseOptions(z.strictObject({ ...runOptionsShape, signal: signalSchema }), options, 'Deliberation.stream');
    // The run gets a signal of its own, which the caller's aborts: a composite of the two would
    // live as long as the caller's signal (a server's), one per stream.
    const stop = new AbortController();
    const unlisten = o.signal ? whenAborted(o.signal, () => stop.abort(o.signal!.reason)) : undefined;
    const runId = o.runId ?? createRunId();
    const buffer: DeliberationEvent[] = [];
    let wake: (() => void) | undefined;
    let done = false;
    let started = false;
    let failure: unknown;
    const listener = (event: DeliberationEvent) => {
      if (event.runId !== runId) return;
      started = true;
      buffer.push(event);
      wake?.();
    };
    this.on('event', listener as never);
    const finished = this.run(query, { ...o, runId, signal: stop.signal }).then(
      () => undefined,
      (error: unknown) => {
        // A run that never started (bad input) has no run.finished: the stream rejects with its error.
        if (!started) failure = error;
      },
    );
    void finished.finally(() => {
      done = true;
      unlisten?.();
      // Every event is in the buffer by now: a stream nobody reads holds no listener.
      this.off('event', listener as never);
      wake?.();
    });
    let head = 0;
    const read = async (): Promise<IteratorResult<DeliberationEvent>> => {
      for (;;) {
        if (head < buffer.length) return { value: buffer[head++]!, done: false };
        if (failure !== undefined) {
          const error = failure;
          failure = undefined;
          head = buffer.length;
          done = true;
          throw error;
        }
        if (done) return { value: undefined, done: true };
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    };
    // Reads run one after another, so that calls of next() made at once each get their event.
    let queue: Promise<unknown> = Promise.resolve();
    const iterator: AsyncIterableIterator<DeliberationEvent> = {
      next(): Promise<IteratorResult<DeliberationEvent>> {
        const result = queue.then(read);
        queue = result.catch(() => undefined);
        return result;
      },
      async return(): Promise<IteratorResult<DeliberationEvent>> {
        if (!done) stop.abort(new TotError('ABORTED', 'The event stream was closed: the deliberation stopped.'));
        await finished;
        head = buffer.length;
        return { value: undefined, done: true };
      },
      [Symbol.asyncIterator]() {
        return iterator;
      },
    };
    return iterator;
  }
}

/** A finished deliberation rebuilt from its log. */
function resultFromLog(log: RecordedRun, maxRounds: number): DeliberationResult {
  const finished = log.finished!;
  const folded = foldDeliberationLog(log.events);
  const trend = folded.rounds.flatMap((r) => (r.hostDecision?.analysis ? [r.hostDecision.analysis.consensusLevel] : []));
  return {
    runId: log.runId,
    stopReason: finished.stopReason as DeliberationStopReason,
    ...(finished.detail ? { detail: finished.detail } : {}),
    query: folded.query,
    rounds: folded.rounds,
    ...(folded.report ? { finalReport: folded.report.output } : {}),
    divergent: folded.report?.divergent ?? false,
    consensusTrend: trend,
    maxRounds,
    createdAt: new Date(log.events[0]?.at ?? 0).toISOString(),
    updatedAt: new Date(log.events.at(-1)?.at ?? 0).toISOString(),
    errors: finished.errors.map((e) => ({ code: e.code as DeliberationResult['errors'][number]['code'], message: e.message, ...(e.where ? { where: e.where } : {}) })),
    stats: finished.stats as unknown as DeliberationStats,
  };
}
