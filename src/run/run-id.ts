import { TimeOrderedIds } from '../events/store/event-ids.js';

/**
 * A new run id: `run_` and a time-ordered UUID (version 7), so that ids sort by start time and
 * never collide between processes recording into one store.
 *
 * @example
 * ```ts
 * import { createRunId } from '@tot/core';
 *
 * createRunId(); // 'run_01937c1e-5a2b-7c3d-8e4f-0a1b2c3d0000'
 * ```
 */
export function createRunId(): string {
  return `run_${new TimeOrderedIds(1).at(0)}`;
}
