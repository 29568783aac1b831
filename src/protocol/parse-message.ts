import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { parseOptions } from '../internal/validate.js';
import { protocolMessageSchema, protocolPayloadSchemas, type ProtocolMessage, type ProtocolMessageType, type ProtocolPayload } from './messages.js';

/**
 * Validates a Tree-of-Thoughts protocol message (an object or its JSON text). Anything else throws
 * `INVALID_FORMAT` — the protocol's code for "the message does not follow the protocol" — with the
 * zod issues in `details.issues`.
 *
 * @example
 * ```ts
 * import { parseProtocolMessage } from '@tot/core';
 *
 * const msg = parseProtocolMessage('{"from":"orchestrator","to":"decomposer","task_id":"t1","type":"decompose_task","payload":{"problem":"4 9 10 13","task_type":"math_reasoning"}}');
 * if (msg.type === 'decompose_task') msg.payload.problem;
 * ```
 */
export function parseProtocolMessage(input: unknown): ProtocolMessage {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch (error) {
      throw new TotError('INVALID_FORMAT', `Protocol message is not JSON: ${(error as Error).message}`, { cause: error });
    }
  }
  const result = protocolMessageSchema.safeParse(value);
  if (!result.success) {
    throw new TotError('INVALID_FORMAT', `Invalid protocol message:\n${z.prettifyError(result.error)}`, {
      details: { issues: result.error.issues },
    });
  }
  return result.data;
}

// The names only: the message built from them is checked against the protocol's schemas.
const optionsSchema = z.strictObject({ from: z.unknown(), to: z.unknown(), taskId: z.unknown(), type: z.unknown(), payload: z.unknown(), error: z.unknown() }).partial();

/**
 * Options of {@link createProtocolMessage}.
 *
 * @example
 * ```ts
 * import type { CreateProtocolMessageOptions } from '@tot/core';
 *
 * const o: CreateProtocolMessageOptions<'decompose_task'> = {
 *   from: 'orchestrator', to: 'decomposer', taskId: 't1', type: 'decompose_task',
 *   payload: { problem: '4 9 10 13', task_type: 'math_reasoning' },
 * };
 * ```
 */
export interface CreateProtocolMessageOptions<T extends ProtocolMessageType> {
  from: ProtocolMessage['from'];
  to: string;
  taskId: string;
  type: T;
  payload: ProtocolPayload<T>;
  error?: TotError | ProtocolMessage['error'];
}

/**
 * Builds a validated Tree-of-Thoughts protocol message. Throws `INVALID_ARGUMENT` if the payload does not match
 * the type, so a host never sends a message its peers would reject.
 *
 * @example
 * ```ts
 * import { createProtocolMessage } from '@tot/core';
 *
 * const msg = createProtocolMessage({
 *   from: 'orchestrator', to: 'decomposer', taskId: 't1',
 *   type: 'decompose_task', payload: { problem: '4 9 10 13', task_type: 'math_reasoning' },
 * });
 * JSON.stringify(msg);
 * ```
 */
export function createProtocolMessage<T extends ProtocolMessageType>(options: CreateProtocolMessageOptions<T>): Extract<ProtocolMessage, { type: T }> {
  parseOptions(optionsSchema, options, 'createProtocolMessage');
  const { from, to, taskId, type, payload, error } = options;
  const wireError = TotError.isInstance(error) ? error.toProtocolError() : error;
  const candidate = { from, to, task_id: taskId, type, payload, ...(wireError === undefined ? {} : { error: wireError }) };
  if (!(type in protocolPayloadSchemas)) {
    throw new TotError('INVALID_ARGUMENT', `createProtocolMessage: options.type: unknown message type "${String(type)}"`, { details: { field: 'options.type' } });
  }
  const result = protocolMessageSchema.safeParse(candidate);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const field = ['options', ...issue.path.map(String)].join('.').replace('options.task_id', 'options.taskId');
    throw new TotError('INVALID_ARGUMENT', `createProtocolMessage: ${field}: ${issue.message}`, { details: { field, issues: result.error.issues } });
  }
  return result.data as Extract<ProtocolMessage, { type: T }>;
}
