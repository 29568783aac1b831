/**
 * How many runs a queue's `list` gives when no `limit` is asked for, and `tot runs --queue` too:
 * the newest 50, a screenful, enough to see what a queue is doing now. Ask for more with `limit`.
 */
export const DEFAULT_LIST_LIMIT = 50;
