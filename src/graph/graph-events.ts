import { z } from 'zod';
import type { ProtocolErrorObject } from '../errors/index.js';
import type { RunEvent, RunEventBase } from '../run/run-event.js';
import type { EventShapes } from '../run/run-log-check.js';

/**
 * A thought as events and `toJSON()` carry it.
 *
 * @example
 * ```ts
 * import type { ThoughtRecord } from '@tot/core/graph';
 *
 * const r: ThoughtRecord = { id: 'sort.0', operationId: 'sort', parentIds: ['input.0'], state: { list: [1, 2] }, score: 0 };
 * ```
 */
export interface ThoughtRecord<S = unknown> {
  id: string;
  operationId: string;
  parentIds: string[];
  state: S;
  score?: number;
  valid?: boolean;
  solved?: boolean;
}

/**
 * The events of an {@link OperationGraph} run, besides the shared run events: an operation
 * started (with its input), a thought dropped (a parse that failed, a failed call), an operation
 * completed (every thought it made, and which of them are its output), an operation failed.
 * Independent operations run at once, so these come in the order things happened; folding them
 * ({@link foldGraphEvents}) rebuilds the graph of thoughts.
 *
 * @example
 * ```ts
 * import type { GraphEvent } from '@tot/core/graph';
 *
 * const line = (e: GraphEvent) => (e.type === 'operation.completed' ? `${e.operationId}: ${e.outputIds.length} thoughts` : e.type);
 * ```
 */
export type GraphEvent<S = unknown> =
  | RunEvent
  | (RunEventBase & { type: 'operation.started'; operationId: string; operation: string; inputIds: string[] })
  | (RunEventBase & { type: 'thought.dropped'; operationId: string; operation: string; parentIds: string[]; error: ProtocolErrorObject; response?: string })
  | (RunEventBase & { type: 'operation.completed'; operationId: string; operation: string; thoughts: ThoughtRecord<S>[]; outputIds: string[] })
  | (RunEventBase & { type: 'operation.failed'; operationId: string; operation: string; error: ProtocolErrorObject });

const id = z.string().min(1);
const errorObject = z.looseObject({ code: z.string(), message: z.string() });
const thought = z.looseObject({
  id,
  operationId: id,
  parentIds: z.array(id),
  state: z.unknown(),
  score: z.number().optional(),
  valid: z.boolean().optional(),
  solved: z.boolean().optional(),
});

/** What {@link foldGraphEvents} reads of a graph run's own events: a corrupt log fails with its position. */
export const graphEventShapes: EventShapes = {
  'operation.started': z.looseObject({ operationId: id, operation: z.string(), inputIds: z.array(id) }),
  'thought.dropped': z.looseObject({ operationId: id, operation: z.string(), parentIds: z.array(id), error: errorObject, response: z.string().optional() }),
  'operation.completed': z.looseObject({ operationId: id, operation: z.string(), thoughts: z.array(thought), outputIds: z.array(id) }),
  'operation.failed': z.looseObject({ operationId: id, operation: z.string(), error: errorObject }),
};
