export type {
  AppendOptions,
  AppendResult,
  EventStore,
  ExpectedVersion,
  JsonValue,
  NewEvent,
  ReadAllOptions,
  ReadStreamOptions,
  Snapshot,
  StoredEvent,
} from './types.js';
export { InMemoryEventStore, type InMemoryEventStoreOptions } from './in-memory-event-store.js';
