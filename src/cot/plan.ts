import { z } from 'zod';

/**
 * A step's status in a chain-of-thought plan.
 *
 * @example
 * ```ts
 * import type { PlanStatus } from '@tot/core/cot';
 *
 * const s: PlanStatus = 'Verification Needed';
 * ```
 */
export type PlanStatus = 'Pending' | 'Done' | 'Verification Needed';

/**
 * One step of a chain-of-thought plan; steps nest through `subSteps`.
 *
 * @example
 * ```ts
 * import type { PlanStep } from '@tot/core/cot';
 *
 * const step: PlanStep = { description: 'Compute the total', status: 'Done', result: '42' };
 * ```
 */
export interface PlanStep {
  description: string;
  status: PlanStatus;
  /** A concise result, when the step is done. */
  result?: string;
  /** Why the step needs verification. */
  mark?: string;
  subSteps?: PlanStep[];
}

/** A deep copy of a plan (plans are plain data; this is cheaper than `structuredClone` per thought). */
export function copyPlan(plan: readonly PlanStep[]): PlanStep[] {
  return plan.map((step) => ({
    description: step.description,
    status: step.status,
    ...(step.result === undefined ? {} : { result: step.result }),
    ...(step.mark === undefined ? {} : { mark: step.mark }),
    ...(step.subSteps === undefined ? {} : { subSteps: copyPlan(step.subSteps) }),
  }));
}

/**
 * Deepest nesting of sub-steps accepted from a model.
 *
 * @example
 * ```ts
 * import { MAX_PLAN_DEPTH } from '@tot/core/cot';
 *
 * MAX_PLAN_DEPTH; // 6
 * ```
 */
export const MAX_PLAN_DEPTH = 6;

/**
 * Most steps accepted in one plan: a model listing thousands of steps is broken, not thorough.
 *
 * @example
 * ```ts
 * import { MAX_PLAN_STEPS } from '@tot/core/cot';
 *
 * MAX_PLAN_STEPS; // 200
 * ```
 */
export const MAX_PLAN_STEPS = 200;

const text = z.union([z.string(), z.number(), z.boolean()]).transform(String);

/** A plan step as a model writes it: the original format's snake_case `sub_steps`, or `subSteps`. */
const rawStep: z.ZodType<PlanStep> = z.lazy(() =>
  z
    .object({
      description: text.pipe(z.string().min(1)),
      status: z.enum(['Pending', 'Done', 'Verification Needed']),
      result: text.nullish(),
      mark: text.nullish(),
      sub_steps: z.array(rawStep).nullish(),
      subSteps: z.array(rawStep).nullish(),
    })
    .transform((s): PlanStep => {
      const subSteps = s.subSteps ?? s.sub_steps ?? undefined;
      return {
        description: s.description,
        status: s.status,
        ...(s.result == null ? {} : { result: s.result }),
        ...(s.mark == null ? {} : { mark: s.mark }),
        ...(subSteps && subSteps.length > 0 ? { subSteps } : {}),
      };
    }),
) as z.ZodType<PlanStep>;

function measure(plan: readonly PlanStep[], depth = 1): { steps: number; depth: number } {
  let steps = 0;
  let deepest = depth;
  for (const step of plan) {
    steps += 1;
    if (step.subSteps) {
      const inner = measure(step.subSteps, depth + 1);
      steps += inner.steps;
      deepest = Math.max(deepest, inner.depth);
    }
  }
  return { steps, depth: deepest };
}

/**
 * The zod schema of a whole plan, checked recursively: every step's status is in the enum, every
 * description is text, nesting stays within {@link MAX_PLAN_DEPTH} and the plan within
 * {@link MAX_PLAN_STEPS} steps.
 *
 * @example
 * ```ts
 * import { planSchema } from '@tot/core/cot';
 *
 * planSchema.parse([{ description: 'Understand the problem', status: 'Done', result: 'two unknowns' }]);
 * ```
 */
export const planSchema = z.array(rawStep).superRefine((plan, ctx) => {
  const { steps, depth } = measure(plan);
  if (steps > MAX_PLAN_STEPS) ctx.addIssue({ code: 'custom', message: `the plan has ${steps} steps; keep it under ${MAX_PLAN_STEPS}` });
  if (depth > MAX_PLAN_DEPTH) ctx.addIssue({ code: 'custom', message: `sub-steps nest ${depth} levels deep; keep it under ${MAX_PLAN_DEPTH}` });
});

/**
 * The plan a first thought starts from when the model gives none (the cookbook shape).
 *
 * @example
 * ```ts
 * import { DEFAULT_FIRST_PLAN } from '@tot/core/cot';
 *
 * DEFAULT_FIRST_PLAN.at(-1)?.description; // 'Conclusion'
 * ```
 */
export const DEFAULT_FIRST_PLAN: readonly PlanStep[] = Object.freeze([
  { description: 'Understand the problem', status: 'Pending' },
  { description: 'Develop a high-level plan', status: 'Pending' },
  { description: 'Conclusion', status: 'Pending' },
] as PlanStep[]);

/**
 * A plan as indented text: `- [Done] Step: result`, sub-steps indented, marks of steps that need
 * verification shown.
 *
 * @example
 * ```ts
 * import { formatPlan } from '@tot/core/cot';
 *
 * formatPlan([{ description: 'Add', status: 'Done', result: '5', subSteps: [{ description: 'Carry', status: 'Pending' }] }]);
 * // '- [Done] Add: 5\n  - [Pending] Carry'
 * ```
 */
export function formatPlan(plan: readonly PlanStep[], indent = 0): string {
  const pad = '  '.repeat(indent);
  return plan
    .map((step) => {
      let line = `${pad}- [${step.status}] ${step.description}`;
      if (step.result) line += `: ${step.result}`;
      if (step.mark) line += ` (${step.mark})`;
      return step.subSteps?.length ? `${line}\n${formatPlan(step.subSteps, indent + 1)}` : line;
    })
    .join('\n');
}

/** Rewrites `key: value with: colons` lines of the original format's YAML keys into quoted strings. */
export function quoteUnquotedColons(text: string): string | undefined {
  let changed = false;
  const out = text.split('\n').map((line) => {
    const m = /^(\s*(?:-\s+)?)(current_thinking|description|result|mark)(:\s+)(.*)$/.exec(line);
    if (!m) return line;
    const value = m[4]!;
    if (!value.includes(': ') && !/:$/.test(value)) return line;
    if (/^["'|>]/.test(value)) return line;
    changed = true;
    return `${m[1]}${m[2]}${m[3]}${JSON.stringify(value)}`;
  });
  return changed ? out.join('\n') : undefined;
}
