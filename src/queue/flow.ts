import { z } from 'zod';
import { TotError } from '../errors/index.js';
import type { EventStore } from '../events/store/types.js';
import { isStandardSchema, NOT_A_SCHEMA, validatorOf, issueSentences, type StandardSchemaV1 } from '../internal/standard-schema.js';
import { fnSchema, parseOptions } from '../internal/validate.js';
import type { Answers } from '../run/question.js';

/**
 * What a flow's `run` gets besides its input: the options a runner's `run` and `resume` take
 * (`store`, `runId`, `signal`, and `answers` when a person answered the run's questions through
 * the queue: its only enumerable fields, so that it can be passed to either as it is, or spread
 * into the runner's options) and the worker's decision, `resuming`: the store already holds a
 * run with this id (an interrupted one to continue, a waiting one to continue with `answers`,
 * or a finished one whose recorded result `resume` returns).
 *
 * @example
 * ```ts
 * import { defineFlow } from '@tot/core/queue';
 *
 * const game24 = defineFlow({
 *   name: 'game24', version: 1, input: z.object({ numbers: z.string() }),
 *   run: (input, run) => (run.resuming ? explorer.resume(run) : explorer.run(`Use ${input.numbers} to make 24.`, run)),
 * });
 * ```
 */
export class FlowRun {
  readonly store: EventStore;
  readonly runId: string;
  readonly signal: AbortSignal;
  /**
   * A person's answers to the questions the run waits for, by question id: set only when the
   * worker resumes a waiting run that `queue.answer` queued again. The runner's `resume` records
   * and checks them; a flow that passes `run` to `resume` (as it is, or spread) needs nothing more.
   */
  declare readonly answers?: Answers;
  // Kept off the instance's own keys: runners refuse options they do not know.
  readonly #resuming: boolean;
  readonly #attempt: number;

  constructor(init: { store: EventStore; runId: string; signal: AbortSignal; resuming: boolean; attempt: number; answers?: Answers }) {
    this.store = init.store;
    this.runId = init.runId;
    this.signal = init.signal;
    // An own field only when there are answers: a runner's `run` gets the keys it always got.
    if (init.answers !== undefined) Object.defineProperty(this, 'answers', { value: init.answers, enumerable: true });
    this.#resuming = init.resuming;
    this.#attempt = init.attempt;
  }

  /**
   * The store holds a run with this id: call the runner's `resume` (it continues the run, or returns its result when it finished).
   *
   * @example
   * ```ts
   * const result = run.resuming ? await explorer.resume(run) : await explorer.run(problem, run);
   * ```
   */
  get resuming(): boolean {
    return this.#resuming;
  }

  /**
   * How many times this run was handed to a worker before (0 the first time).
   *
   * @example
   * ```ts
   * if (run.attempt > 3) logger.warn(`run ${run.runId} is on its attempt ${run.attempt + 1}`);
   * ```
   */
  get attempt(): number {
    return this.#attempt;
  }
}

/**
 * A named, versioned program a worker knows how to run (see {@link defineFlow}).
 *
 * @example
 * ```ts
 * import type { Flow } from '@tot/core/queue';
 *
 * const flows: Flow[] = [game24, essay];
 * ```
 */
export interface Flow<I = unknown, R = unknown> {
  /** The name workers know the flow by: one queue per name. */
  readonly name: string;
  /** Part of every run's configuration: a worker with another version refuses to resume the run. */
  readonly version: number;
  /** The schema a submitted input is checked against. */
  readonly input: StandardSchemaV1<unknown, I>;
  // A method, so that a flow of any input is a `Flow` (a list of flows mixes inputs).
  /**
   * Runs, or resumes, one run of the flow: `run` holds the store, the run id, the signal and
   * whether the store already holds the run (`run.resuming`). What it returns is the run's result.
   */
  run(input: I, run: FlowRun): Promise<R>;
}

/**
 * What {@link defineFlow} takes.
 *
 * @example
 * ```ts
 * import type { FlowDefinition } from '@tot/core/queue';
 *
 * const definition: FlowDefinition<typeof Input, { answer: string }> = { name: 'answer', version: 1, input: Input, run: async (input) => ({ answer: input.question }) };
 * ```
 */
export interface FlowDefinition<S extends StandardSchemaV1, R> {
  /** Letters, digits, `_` and `-`, at most 60; the queue a worker takes this flow's runs from. */
  name: string;
  /** A positive integer. Give a new one whenever the flow's runs would go differently: a worker refuses runs of another version. */
  version: number;
  /** Any Standard Schema (zod, valibot, arktype…): checked when a run is submitted and again by the worker. */
  input: S;
  /** Runs (or, when `run.resuming`, resumes) the flow's runner; its result must be JSON data or have a `toJSON`. */
  run: (input: StandardSchemaV1.InferOutput<S>, run: FlowRun) => Promise<R>;
}

const definitionSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9_-]{1,60}$/, 'expected letters, digits, _ or -, at most 60'),
  version: z.number().int().positive(),
  input: z.custom<StandardSchemaV1>(isStandardSchema, NOT_A_SCHEMA),
  run: fnSchema(),
});

/**
 * Defines a flow: a named, versioned function a worker knows how to run, with an input schema.
 * Any runner can be a flow (search, graph, session, deliberation, fractal, chain of thought,
 * `solve()`): its `run` starts the runner with `run` as its run options, or resumes it when
 * `run.resuming`. The name and version travel with every run: a worker whose flow has another
 * version refuses the run with `RESUME_MISMATCH`.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { defineFlow } from '@tot/core/queue';
 *
 * const game24 = defineFlow({
 *   name: 'game24',
 *   version: 1,
 *   input: z.object({ numbers: z.string() }),
 *   run: (input, run) => (run.resuming ? explorer.resume(run) : explorer.run(`Use ${input.numbers} to make 24.`, run)),
 * });
 * ```
 */
export function defineFlow<S extends StandardSchemaV1, R>(definition: FlowDefinition<S, R>): Flow<StandardSchemaV1.InferOutput<S>, R> {
  const d = parseOptions(definitionSchema, definition, 'defineFlow', 'definition');
  return Object.freeze({ name: d.name, version: d.version, input: d.input, run: d.run }) as unknown as Flow<StandardSchemaV1.InferOutput<S>, R>;
}

/** Whether `value` is a flow {@link defineFlow} made (or an object of the same shape). */
export function isFlow(value: unknown): value is Flow {
  if (typeof value !== 'object' || value === null) return false;
  const f = value as Partial<Flow>;
  return typeof f.name === 'string' && typeof f.version === 'number' && typeof f.run === 'function' && isStandardSchema(f.input);
}

/** The flow's input checked by its schema; `INVALID_ARGUMENT` naming the first issue otherwise. */
export async function checkInput(flow: Flow, input: unknown, where: string): Promise<unknown> {
  const result = await validatorOf(flow.input)(input);
  if (result.ok) return result.value;
  const [first] = issueSentences(result.issues, 1);
  throw new TotError('INVALID_ARGUMENT', `${where}: the input of flow "${flow.name}" does not match its schema: ${first ?? 'invalid'}`, {
    details: { field: 'input', issues: result.issues },
  });
}

/** The `flows` option of `work`: a list of flows, at most one version of a name. */
export const flowsSchema = z
  .array(z.custom<Flow>(isFlow, 'expected a flow from defineFlow'))
  .min(1, 'expected at least one flow')
  .superRefine((flows, ctx) => {
    const seen = new Set<string>();
    for (const f of flows) {
      if (seen.has(f.name)) ctx.addIssue({ code: 'custom', message: `two flows named "${f.name}": a worker runs one version of a flow` });
      seen.add(f.name);
    }
  });
