/**
 * `@tot/core/postgres`: the PostgreSQL event store (`EventStore` of `@tot/core`) on `pg` (an
 * optional peer dependency).
 *
 * @packageDocumentation
 */
export { PostgresEventStore, type FollowOptions, type PostgresEventStoreOptions } from './postgres-event-store.js';
