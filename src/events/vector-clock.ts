import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { parseOptions } from '../internal/validate.js';

/**
 * How two vector clocks relate.
 *
 * @example
 * ```ts
 * import type { ClockOrder } from '@tot/core';
 *
 * const conflict = (o: ClockOrder) => o === 'concurrent';
 * ```
 */
export type ClockOrder = 'before' | 'after' | 'equal' | 'concurrent';

const clockSchema = z.record(z.string(), z.number().int().nonnegative());

/**
 * The vector clock: one counter per node, for telling causal order from concurrent writes.
 * Immutable: `increment` and `merge` return new clocks.
 *
 * @example
 * ```ts
 * import { VectorClock } from '@tot/core';
 *
 * const a = new VectorClock('worker-a').increment();          // { worker-a: 1 }
 * const b = new VectorClock('worker-b').merge(a.counters);    // { worker-a: 1, worker-b: 1 }
 * a.compare(b); // 'before'
 * ```
 */
export class VectorClock {
  readonly nodeId: string;
  readonly counters: Readonly<Record<string, number>>;

  constructor(nodeId: string, counters: Record<string, number> = {}) {
    this.nodeId = parseOptions(z.string().min(1), nodeId, 'VectorClock', 'nodeId');
    this.counters = Object.freeze({ [this.nodeId]: 0, ...parseOptions(clockSchema, counters, 'VectorClock', 'counters') });
  }

  /**
   * This node's next event: its own counter plus one.
   *
   * @example
   * ```ts
   * import { VectorClock } from '@tot/core';
   *
   * new VectorClock('a').increment().counters; // { a: 1 }
   * ```
   */
  increment(): VectorClock {
    return new VectorClock(this.nodeId, { ...this.counters, [this.nodeId]: (this.counters[this.nodeId] ?? 0) + 1 });
  }

  /**
   * Receiving `other`: the element-wise maximum, then this node's increment.
   *
   * @example
   * ```ts
   * import { VectorClock } from '@tot/core';
   *
   * new VectorClock('a', { a: 2 }).merge({ b: 5 }).counters; // { a: 3, b: 5 }
   * ```
   */
  merge(other: Record<string, number>): VectorClock {
    const o = parseOptions(clockSchema, other, 'VectorClock.merge', 'other');
    const merged: Record<string, number> = { ...this.counters };
    for (const [node, counter] of Object.entries(o)) merged[node] = Math.max(merged[node] ?? 0, counter);
    return new VectorClock(this.nodeId, merged).increment();
  }

  /**
   * How this clock relates to `other`.
   *
   * @example
   * ```ts
   * import { VectorClock } from '@tot/core';
   *
   * new VectorClock('a', { a: 1 }).compare({ b: 1 }); // 'concurrent'
   * ```
   */
  compare(other: Record<string, number> | VectorClock): ClockOrder {
    return compareClocks(this.counters, other instanceof VectorClock ? other.counters : other);
  }

  /**
   * The counters, for storing with an event.
   *
   * @example
   * ```ts
   * import { VectorClock } from '@tot/core';
   *
   * JSON.stringify(new VectorClock('a').increment()); // '{"a":1}'
   * ```
   */
  toJSON(): Record<string, number> {
    return { ...this.counters };
  }
}

/**
 * Compares two clocks: `before` if every counter of `a` is ≤ `b`'s and one is smaller, `after`
 * the other way round, `equal`, or `concurrent` (neither happened before the other). Missing
 * counters count as 0.
 *
 * @example
 * ```ts
 * import { compareClocks } from '@tot/core';
 *
 * compareClocks({ a: 1 }, { a: 2, b: 1 }); // 'before'
 * ```
 */
export function compareClocks(a: Readonly<Record<string, number>>, b: Readonly<Record<string, number>>): ClockOrder {
  let less = false;
  let greater = false;
  for (const node of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const x = a[node] ?? 0;
    const y = b[node] ?? 0;
    if (x < y) less = true;
    else if (x > y) greater = true;
  }
  if (less && greater) return 'concurrent';
  if (less) return 'before';
  if (greater) return 'after';
  return 'equal';
}

/**
 * The causal DAG of events over `parentIds` (its edges), with agent sessions' conflict
 * rule: a new event must come causally after each of its parents.
 *
 * @example
 * ```ts
 * import { EventDag } from '@tot/core';
 *
 * const dag = new EventDag(await collect(store.readStream('session-1')));
 * dag.ancestors('evt-9'); // every event evt-9 follows from
 * dag.assertCausal({ type: 'merge', data: {}, idempotencyKey: 'k', parentIds: ['evt-9'], clock: { a: 4, b: 2 } });
 * ```
 */
export class EventDag {
  private readonly clocks = new Map<string, Record<string, number>>();
  private readonly parentsOf = new Map<string, string[]>();

  constructor(events: Iterable<{ eventId: string; parentIds?: readonly string[]; clock?: Readonly<Record<string, number>> }> = []) {
    for (const e of events) this.add(e);
  }

  /**
   * Adds an event.
   *
   * @example
   * ```ts
   * import { EventDag } from '@tot/core';
   *
   * new EventDag().add({ eventId: 'e1', clock: { a: 1 } });
   * ```
   */
  add(event: { eventId: string; parentIds?: readonly string[]; clock?: Readonly<Record<string, number>> }): this {
    this.clocks.set(event.eventId, { ...event.clock });
    this.parentsOf.set(event.eventId, [...(event.parentIds ?? [])]);
    return this;
  }

  /**
   * Every `[parent, child]` edge.
   *
   * @example
   * ```ts
   * import { EventDag } from '@tot/core';
   *
   * new EventDag([{ eventId: 'a' }, { eventId: 'b', parentIds: ['a'] }]).edges(); // [['a', 'b']]
   * ```
   */
  edges(): [string, string][] {
    return [...this.parentsOf].flatMap(([child, parents]) => parents.map((p): [string, string] => [p, child]));
  }

  /**
   * Every event that `eventId` follows from, directly or not.
   *
   * @example
   * ```ts
   * import { EventDag } from '@tot/core';
   *
   * new EventDag([{ eventId: 'a' }, { eventId: 'b', parentIds: ['a'] }, { eventId: 'c', parentIds: ['b'] }]).ancestors('c'); // Set { 'b', 'a' }
   * ```
   */
  ancestors(eventId: string): Set<string> {
    const out = new Set<string>();
    const stack = [...(this.parentsOf.get(eventId) ?? [])];
    while (stack.length > 0) {
      const id = stack.pop()!;
      if (out.has(id)) continue;
      out.add(id);
      stack.push(...(this.parentsOf.get(id) ?? []));
    }
    return out;
  }

  /**
   * Throws `EXPECTED_VERSION_CONFLICT` (an HTTP 409 conflict) when a parent is unknown or the new
   * event's clock does not come after a parent's clock — a write made concurrently with, or
   * without having seen, its parent.
   *
   * @example
   * ```ts
   * import { EventDag } from '@tot/core';
   *
   * const dag = new EventDag([{ eventId: 'p', clock: { a: 2 } }]);
   * dag.assertCausal({ parentIds: ['p'], clock: { a: 3 } }); // fine
   * ```
   */
  assertCausal(event: { parentIds?: readonly string[]; clock?: Readonly<Record<string, number>> }): void {
    for (const parent of event.parentIds ?? []) {
      const clock = this.clocks.get(parent);
      if (!clock) throw new TotError('EXPECTED_VERSION_CONFLICT', `Parent event "${parent}" is unknown: reload the latest state and retry.`, { details: { parent } });
      const order = compareClocks(clock, event.clock ?? {});
      if (order !== 'before') {
        throw new TotError('EXPECTED_VERSION_CONFLICT', `The new event's clock is ${order === 'concurrent' ? 'concurrent with' : 'not after'} its parent "${parent}": reload the latest state and retry.`, {
          details: { parent, order, parentClock: clock, clock: event.clock ?? {} },
        });
      }
    }
  }
}
