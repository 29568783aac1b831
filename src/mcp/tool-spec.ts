import type { z } from 'zod';
import type { SessionEngine } from '../sessions/session-engine.js';
import type { LanguageModel } from '../model/types.js';
import type { Elicit } from './elicit.js';
import type { SessionCache } from './session-cache.js';

/**
 * What a tool may promise its client (MCP tool annotations): hints, which the library keeps honest
 * (a tool that writes to a session is never `readOnlyHint`, nor `idempotentHint` unless a repeat
 * call with the same arguments changes nothing).
 *
 * @example
 * ```ts
 * import type { ToolHints } from '@tot/core/mcp';
 *
 * const readOnly: ToolHints = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
 * ```
 */
export interface ToolHints {
  /** The tool changes nothing. */
  readOnlyHint: boolean;
  /** The tool may destroy or overwrite data (no tool here does: sessions only grow). */
  destructiveHint: boolean;
  /** Calling it again with the same arguments has no further effect. */
  idempotentHint: boolean;
  /** The tool reaches outside the server (a model, through sampling or the server's own). */
  openWorldHint: boolean;
}

/** What a tool's handler is given. */
export interface ToolContext {
  engine: SessionEngine;
  sessions: SessionCache;
  /** The server's own model, if it has one. */
  model: LanguageModel | undefined;
  /** A model answering through the client's sampling (tied to this tool call), when the client offers it. */
  sampling: (() => LanguageModel | undefined) | undefined;
  /** Exports wait for a person's approval of the plan (`createMcpServer`'s `approvePlans`). */
  approvePlans: boolean;
  /** Asks the client's user (MCP elicitation, tied to this tool call), when the client takes forms. */
  elicit: Elicit | undefined;
  /** The MCP session (one per connection), for tools that keep state per client. */
  clientKey: string;
  /** Per server: the session each client's sequential thinking goes into (when it names none). */
  sequentialSessions: Map<string, string>;
  /** Per server: each client's sequential-thinking call in progress (they run one at a time). */
  sequentialQueue: Map<string, Promise<void>>;
  signal: AbortSignal;
}

/** A tool's result: the structured content (matching its output schema) and a short text. */
export interface ToolOutput {
  structured: Record<string, unknown>;
  text: string;
}

/** One tool of the server. */
export interface ToolSpec<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  annotations: ToolHints;
  run(args: z.output<I>, ctx: ToolContext): Promise<ToolOutput>;
}

/** Declares a tool, its argument types following its input schema. */
export function tool<I extends z.ZodObject, O extends z.ZodObject>(spec: ToolSpec<I, O>): ToolSpec {
  return spec as unknown as ToolSpec;
}
