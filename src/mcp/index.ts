/**
 * `@tot/core/mcp`: the session engine as an MCP server (`@modelcontextprotocol/sdk`,
 * optional peer): the `think_*` tools and a `sequentialthinking`-compatible tool.
 *
 * @packageDocumentation
 */
export { createMcpServer, mcpToolList, type McpServerOptions, type McpToolInfo } from './create-mcp-server.js';
export { samplingModel, type SamplingPeer } from './sampling-model.js';
export { SessionCache } from './session-cache.js';
export type { ToolHints } from './tool-spec.js';
