import type { ProtocolErrorObject } from '../errors/index.js';
import { z } from 'zod';
import type { RunEvent, RunEventBase } from '../run/run-event.js';
import type { EventShapes } from '../run/run-log-check.js';
import type { StopDetail } from '../run/stop-detail.js';

/**
 * The events of a {@link FractalSolver} run: every frame created, every think and eval output,
 * every tool call, every return and failure, plus the shared run events. Folding them rebuilds
 * the frames ({@link foldFractalEvents}).
 *
 * @example
 * ```ts
 * import type { FractalEvent } from '@tot/core/fractal';
 *
 * const line = (e: FractalEvent) => (e.type === 'frame.returned' ? `${e.frameId} → ${e.result}` : e.type);
 * ```
 */
export type FractalEvent =
  | RunEvent
  | (RunEventBase & { type: 'frame.created'; frameId: string; parentId: string | null; goal: string; depth: number })
  | (RunEventBase & { type: 'frame.thought'; frameId: string; output: { type: string; description: string } })
  | (RunEventBase & { type: 'frame.tool'; frameId: string; tool: string; input: unknown; output?: unknown; error?: string })
  | (RunEventBase & { type: 'frame.evaluated'; frameId: string; done: string[]; output: { type: string; description: string } })
  | (RunEventBase & { type: 'frame.called'; frameId: string; childId: string; goal: string })
  /** `forced`: the frame returned its state because a limit stopped it. */
  | (RunEventBase & { type: 'frame.returned'; frameId: string; result: string; forced?: StopDetail })
  | (RunEventBase & { type: 'frame.failed'; frameId: string; error: ProtocolErrorObject; loop?: StopDetail });

const frameId = z.string().min(1);
const output = z.looseObject({ type: z.string(), description: z.string() });

/** What {@link foldFractalEvents} reads of a fractal run's own events: a corrupt log fails with its position. */
export const fractalEventShapes: EventShapes = {
  'frame.created': z.looseObject({ frameId, parentId: frameId.nullable(), goal: z.string(), depth: z.number().int().nonnegative() }),
  'frame.thought': z.looseObject({ frameId, output }),
  'frame.tool': z.looseObject({ frameId, tool: z.string(), error: z.string().optional() }),
  'frame.evaluated': z.looseObject({ frameId, done: z.array(z.string()), output }),
  'frame.called': z.looseObject({ frameId, childId: frameId, goal: z.string() }),
  'frame.returned': z.looseObject({ frameId, result: z.string(), forced: z.looseObject({ kind: z.string() }).optional() }),
  'frame.failed': z.looseObject({ frameId, error: z.looseObject({ code: z.string(), message: z.string() }) }),
};
