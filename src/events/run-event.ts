import type { BudgetLimitName } from '../budget/budget.js';
import type { PlanStep } from '../cot/plan.js';
import type { ProtocolErrorObject } from '../errors/index.js';
import type { FinishReason, Usage } from '../model/types.js';
import type { Evaluation, ThoughtNode } from '../tree/types.js';

/**
 * Fields every run event carries.
 *
 * @example
 * ```ts
 * import type { RunEventBase } from '@tot/core';
 *
 * const base: RunEventBase = { type: 'run.started', runId: 'run-1', seq: 0, at: 1_732_000_000_000 };
 * ```
 */
export interface RunEventBase {
  type: string;
  /** The run this event belongs to (one event stream per run). */
  runId: string;
  /** 0, 1, 2, … within the run, without gaps. */
  seq: number;
  /** Epoch milliseconds. */
  at: number;
}

/**
 * The one event vocabulary of every runner. The same records are written to an event store when
 * a run is recorded, and folding them rebuilds the run.
 *
 * @example
 * ```ts
 * import type { RunEvent } from '@tot/core';
 *
 * function describe(e: RunEvent): string {
 *   switch (e.type) {
 *     case 'node.created': return `+ ${e.node.id}`;
 *     case 'node.evaluated': return `${e.nodeId} scored ${e.evaluation.score}`;
 *     case 'run.finished': return `done: ${e.stopReason}`;
 *     default: return e.type;
 *   }
 * }
 * ```
 */
export type RunEvent =
  | (RunEventBase & { type: 'run.started'; problem: string; config?: Record<string, unknown> })
  | (RunEventBase & { type: 'node.created'; node: ThoughtNode })
  | (RunEventBase & { type: 'node.evaluated'; nodeId: string; evaluation: Evaluation })
  | (RunEventBase & { type: 'node.expanded'; nodeId: string; childIds: string[] })
  | (RunEventBase & { type: 'node.pruned'; nodeId: string; prunedIds: string[]; reason?: string })
  | (RunEventBase & { type: 'node.terminal'; nodeId: string; solution: boolean })
  | (RunEventBase & { type: 'node.metadata'; nodeId: string; patch: Record<string, unknown> })
  | (RunEventBase & { type: 'search.step'; depth: number; frontier: string[] })
  | (RunEventBase & { type: 'search.state'; currentDepth: number; frontier: string[]; bestPath: string[] })
  | (RunEventBase & { type: 'run.resumed'; fromVersion: number })
  | (RunEventBase & { type: 'frame.created'; frameId: string; parentId: string | null; goal: string; depth: number })
  | (RunEventBase & { type: 'frame.thought'; frameId: string; output: { type: string; description: string } })
  | (RunEventBase & { type: 'frame.tool'; frameId: string; tool: string; input: unknown; output?: unknown; error?: string })
  | (RunEventBase & { type: 'frame.evaluated'; frameId: string; done: string[]; output: { type: string; description: string } })
  | (RunEventBase & { type: 'frame.called'; frameId: string; childId: string; goal: string })
  | (RunEventBase & { type: 'frame.returned'; frameId: string; result: string; forced?: string })
  | (RunEventBase & { type: 'frame.failed'; frameId: string; error: ProtocolErrorObject })
  | (RunEventBase & { type: 'thought.completed'; thoughtNumber: number; currentThinking: string; planning: PlanStep[]; nextThoughtNeeded: boolean })
  | (RunEventBase & { type: 'llm.requested'; callId: string; modelId: string; requestKey: string; n: number; tags?: Record<string, string> })
  | (RunEventBase & {
      type: 'llm.completed';
      callId: string;
      outputs: string[];
      usage: Usage;
      finishReason?: FinishReason;
      cacheHit?: boolean;
      durationMs: number;
    })
  | (RunEventBase & { type: 'llm.failed'; callId: string; error: ProtocolErrorObject })
  | (RunEventBase & { type: 'budget.warning'; limit: BudgetLimitName; used: number; max: number; ratio: number })
  | (RunEventBase & { type: 'run.finished'; stopReason: string; stats?: Record<string, unknown>; error?: ProtocolErrorObject });

/**
 * The `type` of a {@link RunEvent}.
 *
 * @example
 * ```ts
 * import type { RunEventType } from '@tot/core';
 *
 * const t: RunEventType = 'node.pruned';
 * ```
 */
export type RunEventType = RunEvent['type'];

/**
 * An event before the emitter stamps it with `seq` and `at`.
 *
 * @example
 * ```ts
 * import type { RunEvent, RunEventInput } from '@tot/core';
 *
 * const input: RunEventInput<RunEvent> = { type: 'search.step', runId: 'r1', depth: 1, frontier: [] };
 * ```
 */
export type RunEventInput<E extends RunEventBase> = E extends unknown ? Omit<E, 'seq' | 'at'> : never;

/**
 * The listener map of a runner: one entry per event type, plus `event` for every event.
 *
 * @example
 * ```ts
 * import type { RunEvent, RunEventMap } from '@tot/core';
 *
 * type OnCreated = RunEventMap<RunEvent>['node.created']; // [event]
 * ```
 */
export type RunEventMap<E extends RunEventBase> = { [K in E['type']]: [Extract<E, { type: K }>] } & { event: [E] };
