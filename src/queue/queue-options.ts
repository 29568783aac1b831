import { z } from 'zod';
import { signalSchema, fnSchema } from '../internal/validate.js';
import { flowsSchema } from './flow.js';
import { DEFAULT_LIST_LIMIT } from './list-limit.js';
import type { RunStatus, WorkerRunEvent } from './queue-types.js';

const statuses = ['queued', 'running', 'waiting', 'finished', 'failed', 'cancelled'] as const satisfies readonly RunStatus[];

export const submitOptionsSchema = z.strictObject({
  key: z.string().min(1).max(200).optional(),
  priority: z.number().int().min(-1000).max(1000).optional(),
  signal: signalSchema,
});

export const signalOnlySchema = z.strictObject({ signal: signalSchema });

export const listOptionsSchema = z.strictObject({
  status: z.union([z.enum(statuses), z.array(z.enum(statuses))]).optional(),
  flow: z.string().min(1).optional(),
  limit: z.number().int().positive().max(10_000).default(DEFAULT_LIST_LIMIT),
  signal: signalSchema,
});

export const workOptionsSchema = z.strictObject({
  flows: flowsSchema,
  concurrency: z.number().int().positive().max(1000).default(4),
  signal: signalSchema,
  onRun: fnSchema<(event: WorkerRunEvent) => void>().optional(),
});

export const runIdSchema = z.string().min(1).max(200);

/** The statuses a `list` asks for, as a set (all when none). */
export function statusFilter(status: RunStatus | RunStatus[] | undefined): ReadonlySet<RunStatus> | undefined {
  if (status === undefined) return undefined;
  return new Set(Array.isArray(status) ? status : [status]);
}
