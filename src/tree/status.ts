import { TotError } from '../errors/index.js';
import type { NodeStatus } from './types.js';

/**
 * The legal status changes: a pending node is expanded, pruned or made terminal; an expanded or
 * terminal node can still be pruned (with its subtree); a pruned node is final.
 *
 * @example
 * ```ts
 * import { NODE_TRANSITIONS } from '@tot/core';
 *
 * NODE_TRANSITIONS.pending; // ['expanded', 'pruned', 'terminal']
 * ```
 */
export const NODE_TRANSITIONS: Readonly<Record<NodeStatus, readonly NodeStatus[]>> = {
  pending: ['expanded', 'pruned', 'terminal'],
  expanded: ['pruned'],
  terminal: ['pruned'],
  pruned: [],
};

/**
 * Whether a node may go from `from` to `to`.
 *
 * @example
 * ```ts
 * import { canTransition } from '@tot/core';
 *
 * canTransition('pruned', 'expanded'); // false
 * ```
 */
export function canTransition(from: NodeStatus, to: NodeStatus): boolean {
  return NODE_TRANSITIONS[from].includes(to);
}

export function assertTransition(id: string, from: NodeStatus, to: NodeStatus): void {
  if (!canTransition(from, to)) {
    throw new TotError('ILLEGAL_STATE', `Node "${id}" cannot go from ${from} to ${to}.`, { details: { nodeId: id, from, to } });
  }
}
