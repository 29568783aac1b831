import type { RunEvent, RunEventBase } from '../run/run-event.js';
import type { PlanStep } from './plan.js';

/**
 * The events of a {@link ChainOfThoughtNode} run: one `thought.completed` per thought, with the
 * plan as it stands after it, plus the shared run events.
 *
 * @example
 * ```ts
 * import type { ChainOfThoughtEvent } from '@tot/core';
 *
 * const line = (e: ChainOfThoughtEvent) => (e.type === 'thought.completed' ? `${e.thoughtNumber}: ${e.currentThinking}` : e.type);
 * ```
 */
export type ChainOfThoughtEvent =
  | RunEvent
  | (RunEventBase & { type: 'thought.completed'; thoughtNumber: number; currentThinking: string; planning: PlanStep[]; nextThoughtNeeded: boolean });
