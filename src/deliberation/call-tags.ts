// The tags the engine puts on every model call of a deliberation, in a module of their own so that
// the viewer reads the same names without the engine.

/**
 * The tag naming which part of a deliberation made a call: `'round'` (an agent's turn or the
 * host's decision) or `'report'`.
 *
 * @example
 * ```ts
 * import { PHASE_TAG } from './call-tags.js';
 *
 * const isReport = (tags: Record<string, string>) => tags[PHASE_TAG] === 'report';
 * ```
 */
export const PHASE_TAG = 'deliberation.phase';

/**
 * The tag naming the round a call was made in (`'1'`, `'2'`, …; the report's: the last round).
 *
 * @example
 * ```ts
 * import { ROUND_TAG } from './call-tags.js';
 *
 * const roundOf = (tags: Record<string, string>) => Number(tags[ROUND_TAG]);
 * ```
 */
export const ROUND_TAG = 'deliberation.round';

/**
 * The tag naming the participant a call was made for: an agent's id, the host's id or the reporter's id.
 *
 * @example
 * ```ts
 * import { PARTICIPANT_TAG } from './call-tags.js';
 *
 * const isHosts = (tags: Record<string, string>, hostId: string) => tags[PARTICIPANT_TAG] === hostId;
 * ```
 */
export const PARTICIPANT_TAG = 'deliberation.participant';
