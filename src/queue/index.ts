/**
 * `@tot/core/queue`: runs across a fleet. Flows (named, versioned programs a worker knows how to
 * run), a queue on PostgreSQL through pg-boss (an optional peer, beside `pg`) whose workers take
 * over the runs of a worker that crashed, and a local queue with the same interface for one process.
 *
 * @packageDocumentation
 */
export { defineFlow, FlowRun, type Flow, type FlowDefinition } from './flow.js';
export { localQueue, type LocalQueueOptions } from './local-queue.js';
export { pgBossQueue, type PgBossQueueOptions } from './pg-boss-queue.js';
export type { QueuedRun, RunQueue, RunStatus, SubmitOptions, WorkerRunEvent, WorkOptions } from './queue-types.js';
