import type { ToolSpec } from '../tool-spec.js';
import { answerTool } from './approval-tools.js';
import { parallelRunTool } from './parallel-run-tool.js';
import { planTools, reportTools } from './plan-tools.js';
import { sequentialThinkingTool } from './sequential-thinking-tool.js';
import { sessionTools } from './session-tools.js';
import { thoughtTools } from './thought-tools.js';

/** Every tool of the server, in the order they are listed. */
export const TOOLS: readonly ToolSpec[] = Object.freeze([...sessionTools, ...thoughtTools, parallelRunTool, ...planTools, answerTool, ...reportTools, sequentialThinkingTool]);
