import type { PositionChanges, PositionSummary } from './types.js';

const norm = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();

/**
 * How `now` moved from `before` (`changes_from_last_round`): computed by the engine
 * rather than asked of the model, which reports its own changes unreliably.
 *
 * @example
 * ```ts
 * import { positionChanges } from '@tot/core/deliberation';
 *
 * const before = { conclusion: 'Three phases', keyReasons: ['vocabulary first'], assumptions: [], confidence: 0.8 };
 * positionChanges(before, { ...before, keyReasons: ['vocabulary first', 'weekly mocks'], confidence: 0.85 });
 * // { conclusionChanged: false, reasonsAdded: ['weekly mocks'], reasonsDropped: [], confidenceDelta: 0.05 }
 * ```
 */
export function positionChanges(before: PositionSummary, now: PositionSummary): PositionChanges {
  const had = new Set(before.keyReasons.map(norm));
  const has = new Set(now.keyReasons.map(norm));
  return {
    conclusionChanged: norm(before.conclusion) !== norm(now.conclusion),
    reasonsAdded: now.keyReasons.filter((r) => !had.has(norm(r))),
    reasonsDropped: before.keyReasons.filter((r) => !has.has(norm(r))),
    confidenceDelta: Math.round((now.confidence - before.confidence) * 1000) / 1000,
  };
}
