/**
 * `@tot/core/fractal`: a fractal solver that splits a goal into sub-goals, solves them in frames and
 * builds the answer back up.
 *
 * @packageDocumentation
 */
export type { EvalFunction, EvalOutput, FractalTool, Frame, FrameContext, ThinkFunction, ThinkOutput, ToolCall } from './types.js';
export type { FractalEvent } from './fractal-events.js';
export {
  FractalSolver,
  type FractalResult,
  type FractalRunOptions,
  type FractalSolveOptions,
  type FractalSolverOptions,
  type FractalStats,
  type FractalStatus,
  type FractalStopReason,
} from './fractal-solver.js';
export { FrameTree, foldFractalEvents, replayFractalRun } from './frame-tree.js';
export { DEFAULT_EVAL_PROMPT, DEFAULT_THINK_PROMPT, evalReplySchema, thinkReplySchema } from './llm-operators.js';
