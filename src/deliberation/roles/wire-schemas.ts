import { z } from 'zod';
import { TotError } from '../../errors/index.js';
import { parseStructured } from '../../structured/parse-structured.js';
import type { PositionSummary } from '../types.js';

/** A position as models write it (snake_case). */
export const positionWireSchema = z.looseObject({
  conclusion: z.string().min(1),
  key_reasons: z.array(z.string()).min(1, 'give at least one key reason'),
  assumptions: z.array(z.string()).default([]),
  confidence: z.coerce.number().min(0).max(1),
});

const task = z.looseObject({ title: z.string().min(1), estimated_hours: z.coerce.number().nonnegative().optional(), deadline: z.string().optional(), tags: z.array(z.string()).optional() });
const phase = z.looseObject({ phase_name: z.string().min(1), duration: z.string().optional(), tasks: z.array(task).default([]) });

/** A plan as models write it. */
export const planWireSchema = z.looseObject({ title: z.string().min(1), goal: z.string().optional(), phases: z.array(phase).min(1), total_estimated_hours: z.coerce.number().nonnegative().optional() });

/** The planner's reply: text, position, plan. */
export const plannerReplySchema = z.looseObject({ content: z.string().min(1), position: positionWireSchema, plan: planWireSchema });

const level = z.enum(['low', 'medium', 'high']);
/** The critic's reply. */
export const criticReplySchema = z.looseObject({
  content: z.string().min(1),
  position: positionWireSchema,
  critique: z.looseObject({
    target_agent: z.string().optional(),
    target_round: z.coerce.number().int().optional(),
    risks: z.array(z.looseObject({ risk: z.string(), severity: level, impact: z.string().optional() })).default([]),
    suggestions: z.array(z.looseObject({ issue: z.string(), solution: z.string(), priority: level })).default([]),
    validity_check: z.looseObject({ feasible: z.boolean(), realistic: z.boolean(), complete: z.boolean() }).optional(),
  }),
});

/** The reporter's reply. */
export const reportReplySchema = z.looseObject({
  content: z.string().min(1),
  final_plan: z.looseObject({ title: z.string().min(1) }),
  summary: z.looseObject({
    key_agreements: z.array(z.string()).default([]),
    resolved_concerns: z.array(z.string()).default([]),
    remaining_uncertainties: z.array(z.string()).default([]),
  }),
});

/** Reads a JSON reply against `schema`, or throws `INVALID_FORMAT` saying what is wrong (the repair turn quotes it). */
export function readReply<S extends z.ZodType>(text: string, schema: S): z.output<S> {
  const parsed = parseStructured(text, { schema });
  if (!parsed.success) throw new TotError('INVALID_FORMAT', parsed.error, { details: { issues: parsed.issues } });
  return parsed.value as z.output<S>;
}

/** A wire position as the library holds it. */
export function toPosition(p: z.output<typeof positionWireSchema>): PositionSummary {
  return { conclusion: p.conclusion, keyReasons: p.key_reasons, assumptions: p.assumptions, confidence: p.confidence };
}
