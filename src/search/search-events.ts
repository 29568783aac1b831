import { z } from 'zod';
import type { RunEvent, RunEventBase } from '../run/run-event.js';
import type { EventShapes } from '../run/run-log-check.js';
import { evaluationSchema, nodeSchema, searchStateSchema } from '../tree/schemas.js';
import type { Evaluation, SearchConfig, ThoughtNode } from '../tree/types.js';

/**
 * The events of a search (`Explorer`, and the search inside `solve()`): every change to the
 * tree, so that folding them rebuilds it, plus the shared run events.
 *
 * @example
 * ```ts
 * import type { SearchEvent } from '@tot/core';
 *
 * function describe(e: SearchEvent): string {
 *   switch (e.type) {
 *     case 'node.created': return `+ ${e.node.id}`;
 *     case 'node.evaluated': return `${e.nodeId} scored ${e.evaluation.score}`;
 *     case 'run.finished': return `done: ${e.stopReason}`;
 *     default: return e.type;
 *   }
 * }
 * ```
 */
export type SearchEvent =
  | RunEvent
  /** The tree a search starts from: its header, and how many of the `node.created` events that follow are its existing nodes. */
  | (RunEventBase & { type: 'search.started'; taskId: string; taskType: string; searchConfig: SearchConfig; nodes: number })
  | (RunEventBase & { type: 'node.created'; node: ThoughtNode })
  | (RunEventBase & { type: 'node.evaluated'; nodeId: string; evaluation: Evaluation })
  | (RunEventBase & { type: 'node.expanded'; nodeId: string; childIds: string[] })
  | (RunEventBase & { type: 'node.pruned'; nodeId: string; prunedIds: string[]; reason?: string })
  | (RunEventBase & { type: 'node.terminal'; nodeId: string; solution: boolean })
  | (RunEventBase & { type: 'node.metadata'; nodeId: string; patch: Record<string, unknown> })
  | (RunEventBase & { type: 'search.step'; depth: number; frontier: string[] })
  | (RunEventBase & { type: 'search.state'; currentDepth: number; frontier: string[]; bestPath: string[] });

const id = z.string().min(1);

/** What {@link foldSearchEvents} reads of a search's own events: a corrupt log fails with its position. */
export const searchEventShapes: EventShapes = {
  'search.started': z.looseObject({ taskId: z.string(), taskType: z.string(), searchConfig: z.record(z.string(), z.unknown()), nodes: z.number().int().nonnegative() }),
  'node.created': z.looseObject({ node: nodeSchema }),
  'node.evaluated': z.looseObject({ nodeId: id, evaluation: evaluationSchema }),
  'node.expanded': z.looseObject({ nodeId: id }),
  'node.pruned': z.looseObject({ nodeId: id, prunedIds: z.array(id) }),
  'node.terminal': z.looseObject({ nodeId: id }),
  'node.metadata': z.looseObject({ nodeId: id, patch: z.record(z.string(), z.unknown()) }),
  'search.state': searchStateSchema,
};
