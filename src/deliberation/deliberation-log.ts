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
}

const checkEvent = eventShapeCheck(deliberationEventShapes);

const corrupt = (position: number, message: string) =>
  new TotError('INVALID_FORMAT', `The deliberation log is corrupt at event ${position}: ${message}.`, { details: { position } });

/**
 * Folds a deliberation's events: the finished rounds as they were (outputs in the order they
 * were emitted, the host's decision), and the report. An unfinished round is left out: a resume
 * runs it again (its logged calls are served).
 */
export function foldDeliberationLog(events: Iterable<RunEventBase | StoredEvent>): DeliberationLog {
  let query: string | undefined;
  let startedAt = 0;
  const rounds: DeliberationRound[] = [];
  let open: DeliberationRound | undefined;
  let report: DeliberationLog['report'];
  let position = 0;
  for (const raw of events) {
    const e = runEventOf(raw) as DeliberationEvent;
    checkEvent(e, position, 'The deliberation log');
    if (e.type === 'run.started') {
      if (query !== undefined) throw corrupt(position, 'run.started may only begin the log');
      query = e.problem;
      startedAt = e.at;
    } else if (query === undefined) {
      throw corrupt(position, 'it does not begin with run.started');
    } else if (e.type === 'round.started') {
      if (e.round !== rounds.length + 1) throw corrupt(position, `round ${e.round} started after round ${rounds.length} finished`);
      // A resumed run starts its unfinished round again: what the log had of it is replaced.
      open = { round: e.round, outputs: [] };
    } else if (e.type === 'agent.output' || e.type === 'agent.skipped') {
      if (open === undefined || e.round !== open.round) throw corrupt(position, `an output of round ${e.round}, which is not under way`);
      if (e.type === 'agent.output') open.outputs.push(e.output);
      else if (e.reused) open.outputs.push(e.reused);
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
  return { query, startedAt, rounds, ...(report ? { report } : {}) };
}
