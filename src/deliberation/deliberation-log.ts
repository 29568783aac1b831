import { TotError } from '../errors/index.js';
import type { StoredEvent } from '../events/store/types.js';
import { runEventOf, type RunEventBase } from '../run/run-event.js';
import { eventShapeCheck } from '../run/run-log-check.js';
import { deliberationEventShapes, type DeliberationEvent } from './deliberation-events.js';
import type { AgentOutput, DeliberationRound } from './types.js';

/** A deliberation's log, folded: the rounds it finished (host decision given) and its report. */
export interface DeliberationLog {
  query: string;
  /** When the run started (its `run.started` event). */
  startedAt: number;
  rounds: DeliberationRound[];
  report?: { output: AgentOutput; divergent: boolean };
  /** The run's id (its `run.started` event's). */
  runId: string;
  /** The configuration its `run.started` event recorded (agents, host, reporter, maxRounds, …). */
  config: Record<string, unknown>;
  /**
   * The round under way (started, no host decision yet): who speaks, what was said so far, and
   * who was skipped (their turn is over, whether or not an earlier output was reused for it).
   */
  open?: { round: DeliberationRound; agents: string[]; parallel: boolean; skipped: string[] };
  /**
   * How the run ended, when the log's last `run.finished` is not followed by a resume (a run that
   * ended waiting for answers finishes again after its resume). `waiting` for a run waiting now.
   */
  finished?: { stopReason: string };
  /** When the last event happened. */
  updatedAt: number;
}

const checkEvent = eventShapeCheck(deliberationEventShapes);

const corrupt = (position: number, message: string) =>
  new TotError('INVALID_FORMAT', `The deliberation log is corrupt at event ${position}: ${message}.`, { details: { position } });

/**
 * Folds a deliberation's events: the finished rounds as they were (outputs in the order they
 * were emitted, the host's decision), and the report. An unfinished round is not among `rounds`
 * (a resume runs it again, its logged calls served); it is `open`, for a view of a run under way.
 */
export function foldDeliberationLog(events: Iterable<RunEventBase | StoredEvent>): DeliberationLog {
  let query: string | undefined;
  let startedAt = 0;
  let updatedAt = 0;
  let runId = '';
  let config: Record<string, unknown> = {};
  const rounds: DeliberationRound[] = [];
  let open: DeliberationRound | undefined;
  let speaking: { agents: string[]; parallel: boolean; skipped: string[] } = { agents: [], parallel: false, skipped: [] };
  let report: DeliberationLog['report'];
  let finished: DeliberationLog['finished'];
  let position = 0;
  for (const raw of events) {
    const e = runEventOf(raw) as DeliberationEvent;
    checkEvent(e, position, 'The deliberation log');
    if (typeof e.at === 'number') updatedAt = e.at;
    if (e.type === 'run.started') {
      if (query !== undefined) throw corrupt(position, 'run.started may only begin the log');
      query = e.problem;
      startedAt = e.at;
      runId = e.runId;
      config = typeof e.config === 'object' && e.config !== null ? e.config : {};
    } else if (query === undefined) {
      throw corrupt(position, 'it does not begin with run.started');
    } else if (e.type === 'run.finished') {
      finished = { stopReason: e.stopReason };
    } else if (e.type === 'run.resumed') {
      // A run that ended waiting for answers goes on when resumed with them: it has not finished.
      finished = undefined;
    } else if (e.type === 'round.started') {
      if (e.round !== rounds.length + 1) throw corrupt(position, `round ${e.round} started after round ${rounds.length} finished`);
      // A resumed run starts its unfinished round again: what the log had of it is replaced.
      open = { round: e.round, outputs: [] };
      speaking = { agents: [...e.agents], parallel: e.parallel, skipped: [] };
    } else if (e.type === 'agent.output' || e.type === 'agent.skipped') {
      if (open === undefined || e.round !== open.round) throw corrupt(position, `an output of round ${e.round}, which is not under way`);
      if (e.type === 'agent.output') open.outputs.push(e.output);
      else {
        speaking.skipped.push(e.agentId);
        if (e.reused) open.outputs.push(e.reused);
      }
    } else if (e.type === 'host.decision') {
      if (open === undefined || e.round !== open.round) throw corrupt(position, `a decision for round ${e.round}, which is not under way`);
      open.hostDecision = e.decision;
      rounds.push(open);
      open = undefined;
    } else if (e.type === 'report') {
      report = { output: e.output, divergent: e.divergent };
    }
    position += 1;
  }
  if (query === undefined) throw corrupt(0, 'it is empty');
  return {
    query,
    startedAt,
    rounds,
    ...(report ? { report } : {}),
    runId,
    config,
    ...(open ? { open: { round: open, ...speaking } } : {}),
    ...(finished ? { finished } : {}),
    updatedAt,
  };
}
