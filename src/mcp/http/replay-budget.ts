/** What a {@link ReplayBudget} asks of the stores that share it. */
export interface ReplayHolder {
  /** Drops the store's oldest event (the budget's oldest is always its store's oldest). */
  dropOldest(): void;
}

/**
 * The bytes that every MCP session's resumability store (`BoundedEventStore`) may hold together,
 * across all the clients of an HTTP server. Past `maxBytes`, the oldest event of all is dropped
 * first, whichever session it belongs to: events are held in the order they were stored, so the
 * oldest of all is always the oldest of its own store.
 *
 * @example
 * ```ts
 * const budget = new ReplayBudget(64 * 2 ** 20);
 * const store = new BoundedEventStore({ maxBytes: 8 * 2 ** 20, budget });
 * budget.stats(); // { bytes: 0, events: 0 }
 * ```
 */
export class ReplayBudget {
  /** Oldest first: the order events were stored in, across stores. */
  private readonly held = new Map<number, { holder: ReplayHolder; bytes: number }>();
  private bytes = 0;
  private next = 0;

  /**
   * @example
   * ```ts
   * const budget = new ReplayBudget(64 * 2 ** 20);
   * ```
   */
  constructor(readonly maxBytes: number) {}

  /**
   * Counts an event a store now holds; returns its ticket for {@link ReplayBudget.release}. Past
   * the budget, the oldest events of all are dropped, possibly this one's store's own.
   *
   * @example
   * ```ts
   * const ticket = budget.hold(store, data.length);
   * ```
   */
  hold(holder: ReplayHolder, bytes: number): number {
    const ticket = this.next++;
    this.held.set(ticket, { holder, bytes });
    this.bytes += bytes;
    while (this.bytes > this.maxBytes && this.held.size > 0) {
      const [oldestTicket, oldest] = this.held.entries().next().value as [number, { holder: ReplayHolder }];
      oldest.holder.dropOldest();
      // The store released it (release() is idempotent): this makes sure the loop ends.
      this.release(oldestTicket);
    }
    return ticket;
  }

  /**
   * Stops counting an event its store dropped.
   *
   * @example
   * ```ts
   * budget.release(ticket);
   * ```
   */
  release(ticket: number): void {
    const entry = this.held.get(ticket);
    if (!entry) return;
    this.held.delete(ticket);
    this.bytes -= entry.bytes;
  }

  /**
   * The bytes and events held under the budget.
   *
   * @example
   * ```ts
   * const { bytes, events } = budget.stats();
   * ```
   */
  stats(): { bytes: number; events: number } {
    return { bytes: this.bytes, events: this.held.size };
  }
}
