import type { EventStore } from '../../src/index.js';
import { collect } from './collect.js';

/**
 * One call of each `EventStore` method on stream `s`, by name: for tests of how a store answers
 * in every method (a damaged file, tables never set up, a server it cannot reach). `key` is the
 * appended event's idempotency key and `version` the snapshot's.
 */
export function everyStoreMethod(store: EventStore, { key = 'k', version = 0 } = {}): [string, () => Promise<unknown>][] {
  return [
    ['append', () => store.append('s', [{ type: 't', data: 1, idempotencyKey: key }], { expectedVersion: 'any' })],
    ['readStream', () => collect(store.readStream('s'))],
    ['readAll', () => collect(store.readAll())],
    ['streamVersion', () => store.streamVersion('s')],
    ['saveSnapshot', () => store.saveSnapshot({ streamId: 's', version, state: 1 })],
    ['loadSnapshot', () => store.loadSnapshot('s')],
  ];
}
