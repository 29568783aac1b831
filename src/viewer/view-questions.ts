// The questions a run asked a person, and how a log that may hold several run.finished events
// ended: a run that waited for answers and was resumed finishes again, so only the log's last
// event, when it is run.finished, says how the run ended.
import type { ViewPanel, ViewQuestion } from './view-model.js';
import { str, type AnyEvent } from './view-util.js';

/**
 * How a log stands: `finished` (its last event is a run.finished that is not waiting), `waiting`
 * (its last event is a run.finished waiting for answers: a resume given them goes on), or
 * `running` (no run.finished last: under way, or interrupted by a crash).
 */
export type RunState = 'finished' | 'waiting' | 'running';

/** A log's state, and its last event when that is the run.finished that ended (or paused) it. */
export function runEnd<T extends { type: string }>(events: readonly T[], stopReasonOf: (e: T) => unknown): { state: RunState; finished?: T } {
  const last = events.at(-1);
  if (last === undefined || last.type !== 'run.finished') return { state: 'running' };
  return { state: stopReasonOf(last) === 'waiting' ? 'waiting' : 'finished', finished: last };
}

/** Where a question was asked, in words: its kind, then what names the place (`strategy (name: pick-one)`). */
function whereText(where: unknown): string | undefined {
  if (typeof where !== 'object' || where === null || Array.isArray(where)) return where === undefined ? undefined : str(where);
  const { kind, ...rest } = where as Record<string, unknown>;
  const parts = Object.entries(rest).map(([k, v]) => `${k}: ${str(v)}`);
  return `${str(kind)}${parts.length ? ` (${parts.join(', ')})` : ''}`;
}

/** A JSON value as the page shows it: indented, so that a plan or a diff reads as one. */
const jsonText = (value: unknown): string => (typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value, null, 2) ?? String(value)));

/**
 * The questions of a run, in the order asked, each with its answer and who gave it (or none: still
 * pending). A question asked again by a resumed program keeps its first record; its first answer
 * counts, as the run itself reads them.
 */
export function questionsOf(events: readonly AnyEvent[]): ViewQuestion[] {
  const byId = new Map<string, ViewQuestion>();
  for (const e of events) {
    if (e.type === 'run.asked') {
      const id = str(e.questionId);
      if (byId.has(id)) continue;
      const where = whereText(e.where);
      byId.set(id, {
        id,
        key: str(e.key),
        question: str(e.question),
        ...(where !== undefined ? { where } : {}),
        ...(e.preview !== undefined ? { preview: jsonText(e.preview) } : {}),
        ...(e.schema !== undefined ? { schema: jsonText(e.schema) } : {}),
      });
    } else if (e.type === 'run.answered') {
      const q = byId.get(str(e.questionId));
      if (q && q.answer === undefined) {
        q.answer = jsonText(e.answer);
        q.by = str(e.by);
      }
    }
  }
  return [...byId.values()];
}

/** The questions panel of a run that asked any, saying whether the run waits for answers now. */
export function questionsPanel(events: readonly AnyEvent[], state: RunState): ViewPanel[] {
  const questions = questionsOf(events);
  return questions.length ? [{ kind: 'questions', waiting: state === 'waiting', questions }] : [];
}
