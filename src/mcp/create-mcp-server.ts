import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { SessionEngine } from '../sessions/session-engine.js';
import { parseOptions } from '../internal/validate.js';
import { languageModelSchema } from '../model/schemas.js';
import type { LanguageModel } from '../model/types.js';
import { clientElicitation } from './elicit.js';
import { samplingModel } from './sampling-model.js';
import { SessionCache } from './session-cache.js';
import { errorResult } from './tool-result.js';
import type { ToolHints } from './tool-spec.js';
import { TOOLS } from './tools/index.js';

/**
 * Options of {@link createMcpServer}.
 *
 * @example
 * ```ts
 * import type { McpServerOptions } from '@tot/core/mcp';
 *
 * const options: McpServerOptions = { engine, model, maxOpenSessions: 64 };
 * ```
 */
export interface McpServerOptions {
  /** The engine whose sessions the tools drive (its store is where sessions live). */
  engine: SessionEngine;
  /** The server's own model, for `think_parallel_run` when the client offers no sampling. Default: the client's sampling, or the client's own plans. */
  model?: LanguageModel;
  /** Sessions held in memory at once (an LRU over the store). Default 64. */
  maxOpenSessions?: number;
  /** A session cache to share between servers (one per connection of an HTTP server). Default: the server's own. */
  sessions?: SessionCache;
  /** The server's name and version, as clients see them. Default `tot` and the library's version. */
  name?: string;
  /** Default the library's version. */
  version?: string;
  /** Sampling requests' token cap when a branch round gives none. Default 1,000. */
  samplingMaxTokens?: number;
  /**
   * The confirm step: `think_export_plan` and `think_export_doc_plan` hand out a plan only once a
   * person approved it. The server asks through the client's elicitation when the client takes
   * forms; otherwise the tool's result names the pending question, which `think_answer` answers.
   * Default false (a recorded approval or denial counts either way).
   */
  approvePlans?: boolean;
}

/**
 * A tool of the server, as listed (for documentation and tests).
 *
 * @example
 * ```ts
 * import { mcpToolList } from '@tot/core/mcp';
 *
 * for (const t of mcpToolList()) console.log(t.name, t.annotations.readOnlyHint);
 * ```
 */
export interface McpToolInfo {
  /** Its name. */
  name: string;
  /** A title for people. */
  title: string;
  /** What it does, for the model. */
  description: string;
  /** Its input, as JSON Schema. */
  inputSchema: Record<string, unknown>;
  /** Its structured output, as JSON Schema. */
  outputSchema: Record<string, unknown>;
  /** Its hints. */
  annotations: ToolHints;
}

/**
 * The server's tools: name, description, input and output JSON Schemas, annotations.
 *
 * @example
 * ```ts
 * import { mcpToolList } from '@tot/core/mcp';
 *
 * mcpToolList().map((t) => t.name); // ['think_session_start', 'think_session_status', …]
 * ```
 */
export function mcpToolList(): McpToolInfo[] {
  return TOOLS.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: z.toJSONSchema(t.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>,
    outputSchema: z.toJSONSchema(t.output, { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>,
    annotations: { ...t.annotations },
  }));
}

const optionsSchema = z.strictObject({
  engine: z.instanceof(SessionEngine, { error: 'expected a SessionEngine' }),
  model: languageModelSchema.optional(),
  maxOpenSessions: z.number().int().min(1).max(1_000_000).default(64),
  sessions: z.instanceof(SessionCache).optional(),
  name: z.string().min(1).default('tot'),
  version: z.string().min(1).default('0.1.0'),
  samplingMaxTokens: z.number().int().min(1).max(1_000_000).default(1000),
  approvePlans: z.boolean().default(false),
});

/**
 * The session engine as an MCP server (the official `@modelcontextprotocol/sdk`): the
 * `think_*` tools over the engine's sessions, and a `sequentialthinking` tool compatible with
 * the reference sequential-thinking server. Connect it to any transport (`StdioServerTransport`,
 * `StreamableHTTPServerTransport`); `tot mcp` does both. Inputs accept `"3"` and `"true"` for
 * numbers and booleans; every result has `structuredContent` matching the tool's output schema
 * and a short text; bad input and state errors are `isError` results saying what to send
 * instead — the server never crashes on input. Sessions are held in an LRU over the engine's
 * store (`maxOpenSessions`), so memory stays flat.
 *
 * @example
 * ```ts
 * import { SessionEngine } from '@tot/core/sessions';
 * import { createMcpServer } from '@tot/core/mcp';
 * import { SqliteEventStore } from '@tot/core/sqlite';
 * import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
 *
 * const engine = new SessionEngine({ store: new SqliteEventStore({ path: 'tot-sessions.db' }) });
 * await createMcpServer({ engine }).connect(new StdioServerTransport());
 * ```
 */
export function createMcpServer(options: McpServerOptions): McpServer {
  const o = parseOptions(optionsSchema, options, 'createMcpServer');
  const server = new McpServer({ name: o.name, version: o.version }, { capabilities: { tools: {} } });
  const sessions = o.sessions ?? new SessionCache(o.engine, { maxOpen: o.maxOpenSessions });
  // Each server keeps its own clients' sequential-thinking sessions: two servers in one process
  // (stdio ones have no MCP session id) never answer from each other's.
  const sequentialSessions = new Map<string, string>();
  const sequentialQueue = new Map<string, Promise<void>>();
  const sampling = (requestId: string | number) => () => (server.server.getClientCapabilities()?.sampling ? samplingModel(server.server, { maxTokens: o.samplingMaxTokens, relatedRequestId: requestId }) : undefined);
  for (const t of TOOLS) {
    server.registerTool(t.name, { title: t.title, description: t.description, inputSchema: t.input, outputSchema: t.output, annotations: { title: t.title, ...t.annotations } }, async (args: unknown, extra: { signal: AbortSignal; sessionId?: string; requestId: string | number }) => {
      try {
        const out = await t.run(args as never, { engine: o.engine, sessions, model: o.model, sampling: sampling(extra.requestId), approvePlans: o.approvePlans, elicit: clientElicitation(server.server, extra.requestId), clientKey: extra.sessionId ?? 'default', sequentialSessions, sequentialQueue, signal: extra.signal });
        return { content: [{ type: 'text' as const, text: out.text }], structuredContent: out.structured };
      } catch (error) {
        return errorResult(error);
      }
    });
  }
  return server;
}
