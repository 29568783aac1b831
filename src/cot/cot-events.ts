import { z } from 'zod';
import type { RunEvent, RunEventBase } from '../run/run-event.js';
import type { EventShapes } from '../run/run-log-check.js';
import { planSchema, type PlanStep } from './plan.js';

/**
 * The events of a {@link ChainOfThoughtNode} run: one `thought.completed` per thought, with the
 * plan as it stands after it, plus the shared run events.
 *
 * @example
 * ```ts
 * import type { ChainOfThoughtEvent } from '@tot/core/cot';
 *
 * const line = (e: ChainOfThoughtEvent) => (e.type === 'thought.completed' ? `${e.thoughtNumber}: ${e.currentThinking}` : e.type);
 * ```
 */
export type ChainOfThoughtEvent =
  | RunEvent
  | (RunEventBase & { type: 'thought.completed'; thoughtNumber: number; currentThinking: string; planning: PlanStep[]; nextThoughtNeeded: boolean });

/** What {@link foldChainOfThoughtEvents} reads of a chain of thought's own events: a corrupt log fails with its position. */
export const chainOfThoughtEventShapes: EventShapes = {
  'thought.completed': z.looseObject({ thoughtNumber: z.number().int().positive(), currentThinking: z.string(), planning: planSchema, nextThoughtNeeded: z.boolean() }),
};
