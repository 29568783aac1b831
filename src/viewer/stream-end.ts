// Whether a followed stream is over, from its own recorded events: a run by its last event (a
// run.finished that is not waiting for answers), an agent session by the last state it was moved
// to (one of the final states: nothing more can be written to it). Agent sessions record no
// run.finished, so the run's rule alone would follow a completed session forever.
import type { StoredEvent } from '../events/store/types.js';
import { FINAL_SESSION_STATES, type SessionState } from '../sessions/session-state.js';
import { runEnd } from './view-questions.js';

/** The last state an agent session's events moved it to (`active` for a session that has only started). */
export function sessionStateOf(events: readonly StoredEvent[]): SessionState {
  let state: SessionState = 'active';
  for (const e of events) if (e.type === 'session.state_changed') state = (e.data as { to: SessionState }).to;
  return state;
}

/**
 * Whether a run or agent session has ended for good: a run whose last event is a run.finished
 * that is not waiting (one waiting for answers goes on when resumed), a session in a final state
 * (`completed`, `failed`, `timeout`, `budget_exceeded`; a `paused` session may be resumed).
 */
export function streamEnded(events: readonly StoredEvent[]): boolean {
  if (events[0]?.type === 'session.started') return FINAL_SESSION_STATES.includes(sessionStateOf(events));
  return runEnd(events, (e) => (e.data as { stopReason?: unknown } | undefined)?.stopReason).state === 'finished';
}
