export {
  calculateDate,
  calculateDateInputSchema,
  getNow,
  getNowInputSchema,
  type CalculateDateInput,
  type CalculateDateResult,
  type GetNowOptions,
  type GetNowResult,
} from './date-tools.js';
export { agentTools, parseToolRequest, runToolCall, toolInstructions, type AgentTool, type ToolCallResult, type ToolRequest, type ToolRunContext } from './agent-tool.js';
