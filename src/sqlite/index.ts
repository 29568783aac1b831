/**
 * `@tot/core/sqlite`: the SQLite event store (`EventStore` of `@tot/core`) on better-sqlite3 (an optional peer dependency).
 *
 * @packageDocumentation
 */
export { SqliteEventStore, type SqliteEventStoreOptions } from './sqlite-event-store.js';
