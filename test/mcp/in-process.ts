// The MCP server in process for the tests of test/mcp: createMcpServer over a store, the SDK's
// linked in-memory transports, the SDK's Client; every result's structuredContent checked against
// the output schema the server advertises (JSON Schema, as a client reads it), with the SDK's own
// validator.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, JSONRPCMessage, Tool } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { InMemoryEventStore, type EventStore } from '../../src/index.js';
import { SessionEngine } from '../../src/sessions/index.js';
import { createMcpServer, type McpServerOptions } from '../../src/mcp/index.js';
import { structured, text } from '../helpers/mcp-sampling.js';

export interface InProcess {
  client: Client;
  server: McpServer;
  engine: SessionEngine;
  store: EventStore;
  /** The tools as listed to the client. */
  tools: Tool[];
  /** Every message the server sent its client, in order. */
  sent: JSONRPCMessage[];
  /** Calls a tool; the raw result. */
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  /** Calls a tool that must succeed: its structuredContent, checked against the tool's advertised output schema. */
  ok<T = Record<string, unknown>>(name: string, args: Record<string, unknown>): Promise<T>;
}

const open: { client: Client; server: McpServer }[] = [];
const validator = new AjvJsonSchemaValidator();

/** Checks `value` against the advertised output schema of `tool`; throws naming what does not match. */
export function checkOutput(tools: Tool[], name: string, value: unknown): void {
  const tool = tools.find((t) => t.name === name);
  if (!tool?.outputSchema) throw new Error(`${name} advertises no output schema`);
  const result = validator.getValidator(tool.outputSchema as never)(value);
  if (!result.valid) throw new Error(`${name}: structuredContent does not match its output schema: ${result.errorMessage}\n${JSON.stringify(value)}`);
}

/**
 * A server on `engine` (default: its own, over `store` or a new in-memory store) and a client
 * connected to it; `sampling` declares the sampling capability, `elicitation` the elicitation
 * capability as given (`{ form: {} }`, or `{}` as clients before URL mode declared it), `setup` runs on the client before
 * it connects (a sampling handler).
 */
export async function connectInProcess(
  options: Partial<Omit<McpServerOptions, 'engine'>> & { engine?: SessionEngine; store?: EventStore; sampling?: boolean; elicitation?: Record<string, unknown>; setup?: (client: Client) => void } = {},
): Promise<InProcess> {
  const { store: givenStore, sampling, elicitation, setup, engine: givenEngine, ...serverOptions } = options;
  const store = givenStore ?? new InMemoryEventStore();
  const engine = givenEngine ?? new SessionEngine({ store });
  const server = createMcpServer({ engine, ...serverOptions });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const sent: JSONRPCMessage[] = [];
  const send = serverSide.send.bind(serverSide);
  serverSide.send = (message, sendOptions) => {
    sent.push(message);
    return send(message, sendOptions);
  };
  await server.connect(serverSide);
  const client = new Client({ name: 'in-process-test', version: '1.0.0' }, { capabilities: { ...(sampling ? { sampling: {} } : {}), ...(elicitation ? { elicitation } : {}) } });
  setup?.(client);
  await client.connect(clientSide);
  open.push({ client, server });
  const { tools } = await client.listTools();
  const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
  return {
    client,
    server,
    engine,
    store,
    tools,
    sent,
    call,
    async ok<T>(name: string, args: Record<string, unknown>) {
      const r = await call(name, args);
      const value = structured<T>(r);
      checkOutput(tools, name, value);
      return value;
    },
  };
}

/** Closes every client and server connectInProcess opened (afterEach). */
export async function closeInProcess(): Promise<void> {
  for (const { client, server } of open.splice(0)) {
    await client.close();
    await server.close();
  }
}

/** The text of an isError result (throws when the result is not an error). */
export function errorText(result: CallToolResult): string {
  if (!result.isError) throw new Error(`expected an isError result, got ${JSON.stringify(result)}`);
  return text(result);
}
