import type { AppendOptions, EventStore, NewEvent } from '../../src/index.js';

/** A store that dies (every append fails) after `limit` events, as a crashed process would stop writing. */
export function dyingStore(inner: EventStore, limit: number): EventStore {
  let written = 0;
  return Object.assign(Object.create(inner) as EventStore, {
    async append(streamId: string, events: NewEvent[], options: AppendOptions) {
      if (written + events.length > limit) throw new Error('the process died');
      written += events.length;
      return inner.append(streamId, events, options);
    },
  });
}
