/**
 * One thought of an operation graph: a state an operation produced, where it came from, and the
 * marks later operations gave it. Ids are deterministic: `<operationId>.<index>`, the index
 * counting the thoughts the operation created in order (the run's input is `input.0`).
 *
 * @example
 * ```ts
 * import type { GraphThought } from '@tot/core/graph';
 *
 * const line = (t: GraphThought<{ current: number[] }>) => `${t.id} ← ${t.parentIds.join(', ')}: ${t.state.current} (${t.score ?? 'unscored'})`;
 * ```
 */
export interface GraphThought<S> {
  readonly id: string;
  /** The operation that created it (`input` for the run's input). */
  readonly operationId: string;
  /** The thoughts it was made from, in the order the operation used them. */
  readonly parentIds: readonly string[];
  readonly state: S;
  /** Set by `score`; kept by the operations after it. */
  readonly score?: number;
  /** Set by `validateAndImprove`. */
  readonly valid?: boolean;
  /** Set by `groundTruth`. */
  readonly solved?: boolean;
}

/**
 * The marks an operation may give a thought it creates.
 *
 * @example
 * ```ts
 * import type { ThoughtMarks } from '@tot/core/graph';
 *
 * const marks: ThoughtMarks = { score: 3 };
 * ```
 */
export interface ThoughtMarks {
  score?: number;
  valid?: boolean;
  solved?: boolean;
}

/** The id of the thought that holds the run's input. */
export const INPUT_THOUGHT_ID = 'input.0';

/** A thought as it is stored: its fields, frozen, marks only when set. It takes `parentIds` as its own (and freezes it). */
export function makeThought<S>(id: string, operationId: string, parentIds: string[], state: S, marks: ThoughtMarks | undefined): GraphThought<S> {
  const t: { -readonly [K in keyof GraphThought<S>]: GraphThought<S>[K] } = { id, operationId, parentIds: Object.freeze(parentIds), state };
  if (marks?.score !== undefined) t.score = marks.score;
  if (marks?.valid !== undefined) t.valid = marks.valid;
  if (marks?.solved !== undefined) t.solved = marks.solved;
  return Object.freeze(t);
}
