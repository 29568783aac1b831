import type { ProtocolErrorObject } from '../errors/index.js';
import type { RunEvent, RunEventBase } from '../run/run-event.js';
import type { StopDetail } from '../run/stop-detail.js';

/**
 * The events of a {@link FractalSolver} run: every frame created, every think and eval output,
 * every tool call, every return and failure, plus the shared run events. Folding them rebuilds
 * the frames ({@link foldFractalEvents}).
 *
 * @example
 * ```ts
 * import type { FractalEvent } from '@tot/core';
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
