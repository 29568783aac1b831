import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { compileSafeParse } from '../internal/fast-check.js';

/**
 * The shapes of a runner's own events, by type: only what its fold reads. Objects are loose (a
 * later version may add fields) and unknown types pass (a fold skips them).
 */
export type EventShapes = Readonly<Record<string, z.ZodType>>;

const errorObject = z.looseObject({ code: z.string(), message: z.string() });
const count = z.number().int().nonnegative();

const baseShape = z.looseObject({ type: z.string().min(1), runId: z.string(), seq: count, at: z.number() });

/** What the kernel reads of the shared events (the fold of {@link readRecordedRun}, the resume). */
const sharedShapes: EventShapes = {
  'run.started': z.looseObject({ runner: z.string(), problem: z.string(), config: z.record(z.string(), z.unknown()), input: z.record(z.string(), z.unknown()).optional() }),
  'run.resumed': z.looseObject({ fromVersion: count, fromSeq: count }),
  'llm.requested': z.looseObject({
    callId: z.string(),
    modelId: z.string(),
    request: z.looseObject({ messages: z.array(z.looseObject({ role: z.string(), content: z.string() })) }),
  }),
  'llm.completed': z.looseObject({
    callId: z.string(),
    outputs: z.array(z.string()),
    usage: z.looseObject({ inputTokens: z.number().optional(), outputTokens: z.number().optional() }),
    charged: z.looseObject({ inputTokens: z.number(), outputTokens: z.number(), estimated: z.boolean() }),
    finishReason: z.string().optional(),
  }),
  'llm.failed': z.looseObject({ callId: z.string(), error: errorObject }),
  'llm.retried': z.looseObject({ callId: z.string(), attempt: count, error: errorObject }),
  'budget.warning': z.looseObject({ limit: z.string(), used: z.number(), max: z.number(), ratio: z.number() }),
  'run.asked': z.looseObject({ questionId: z.string().min(1), key: z.string().min(1), question: z.string() }),
  'run.answered': z.looseObject({ questionId: z.string().min(1), by: z.enum(['handler', 'resume']) }),
  'run.finished': z.looseObject({
    stopReason: z.string().min(1),
    stats: z.record(z.string(), z.unknown()),
    errors: z.array(errorObject),
    detail: z.looseObject({ kind: z.string() }).optional(),
    error: errorObject.optional(),
  }),
};

/** A check that answers from the compiled predicate when it can and asks zod (for the message) when not. */
function compiled(schema: z.ZodType): (value: unknown) => z.core.$ZodIssue[] | undefined {
  const parse = compileSafeParse(schema);
  return (value) => {
    const parsed = parse(value);
    return parsed.success ? undefined : parsed.error.issues;
  };
}

function corrupt(where: string, position: number, event: unknown, message: string, issues: unknown[] = []): TotError<'INVALID_FORMAT'> {
  const type = typeof (event as { type?: unknown } | null)?.type === 'string' ? (event as { type: string }).type : undefined;
  return new TotError('INVALID_FORMAT', `${where} is corrupt at event ${position}${type ? ` (${type})` : ''}: ${message}.`, {
    details: { position, ...(type ? { type } : {}), issues },
  });
}

const describeIssue = (issues: z.core.$ZodIssue[]) => {
  const first = issues[0]!;
  return `${first.path.length > 0 ? `${first.path.join('.')}: ` : ''}${first.message}`;
};

/**
 * A check of single events against the shared shapes and `runnerShapes`, for a runner's fold:
 * `INVALID_FORMAT` naming the log (`where`), the event's position and the first field that is wrong.
 */
export function eventShapeCheck(runnerShapes: EventShapes = {}): (event: unknown, position: number, where: string) => void {
  const base = compiled(baseShape);
  const byType = new Map<string, ReturnType<typeof compiled>>();
  for (const [type, schema] of Object.entries({ ...sharedShapes, ...runnerShapes })) byType.set(type, compiled(schema));
  return (event, position, where) => {
    if (typeof event !== 'object' || event === null || Array.isArray(event)) throw corrupt(where, position, event, 'an event must be an object');
    const baseIssues = base(event);
    if (baseIssues) throw corrupt(where, position, event, describeIssue(baseIssues), baseIssues);
    const issues = byType.get((event as { type: string }).type)?.(event);
    if (issues) throw corrupt(where, position, event, describeIssue(issues), issues);
  };
}

const sharedCheck = eventShapeCheck();

/**
 * Checks a whole log before anything folds it: every event of the right shape, `run.started`
 * first and only there, nothing after `run.finished` (but a resume's `run.resumed` after a run
 * that ended `waiting`), each event of this run, and `seq` counting
 * 0, 1, 2, … with the stream. What a resume appends after, and what a replay folds, is sound.
 */
export function checkRunLog(runId: string, events: readonly unknown[]): void {
  const where = `The log of run "${runId}"`;
  events.forEach((event, position) => {
    sharedCheck(event, position, where);
    const e = event as { type: string; runId: string; seq: number };
    if (position === 0 && e.type !== 'run.started') throw corrupt(where, 0, e, 'a run log begins with run.started');
    if (position > 0 && e.type === 'run.started') throw corrupt(where, position, e, 'run.started may only begin the log');
    const before = position > 0 ? (events[position - 1] as { type: string; stopReason?: string }) : undefined;
    // A run that ended waiting for answers goes on where a resume claims it.
    if (before?.type === 'run.finished' && !(before.stopReason === 'waiting' && e.type === 'run.resumed')) {
      throw corrupt(where, position, e, before.stopReason === 'waiting' ? 'only run.resumed may follow a run.finished that is waiting' : 'nothing may follow run.finished');
    }
    if (e.runId !== runId) throw corrupt(where, position, e, `the event belongs to run "${e.runId}"`);
    if (e.seq !== position) throw corrupt(where, position, e, `seq is ${e.seq} where ${position} was expected`);
  });
}
