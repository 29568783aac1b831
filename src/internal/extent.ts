/**
 * The smallest and largest of a number over a list, by a loop. `Math.min(...xs)` and
 * `Math.max(...xs)` pass every element as an argument, and past about 120,000 of them the call
 * overflows the stack (a `RangeError`): a run's frontier, calls, events or table rows reach that.
 */

/**
 * The smallest and largest `key` of `items`: `{ min: Infinity, max: -Infinity }` when there are none,
 * as `Math.min()` and `Math.max()` give.
 *
 * @example
 * ```ts
 * extent([{ depth: 2 }, { depth: 1 }], (n) => n.depth); // { min: 1, max: 2 }
 * extent([3, 9, 4], (x) => x).max; // 9
 * ```
 */
export function extent<T>(items: Iterable<T>, key: (item: T) => number): { min: number; max: number } {
  let min = Infinity;
  let max = -Infinity;
  for (const item of items) {
    const value = key(item);
    if (value < min) min = value;
    if (value > max) max = value;
  }
  return { min, max };
}
