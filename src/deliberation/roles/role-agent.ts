import { z } from 'zod';
import { parseOptions } from '../../internal/validate.js';
import { languageModelSchema } from '../../model/schemas.js';
import type { LanguageModel } from '../../model/types.js';
import { llmAgent } from '../llm-agent.js';
import type { AgentContext, DeliberationAgent } from '../participant.js';
import type { OutputType } from '../types.js';
import { debateTurn } from './debate-turn.js';
import { readReply, toPosition, type positionWireSchema } from './wire-schemas.js';

/**
 * Options of {@link planner} and {@link critic}.
 *
 * @example
 * ```ts
 * import type { RoleAgentOptions } from '@tot/core/deliberation';
 *
 * const options: RoleAgentOptions = { model, id: 'planner', temperature: 0.3 };
 * ```
 */
export interface RoleAgentOptions {
  /** Its model. */
  model: LanguageModel;
  /** Its id. Default the role's name. */
  id?: string;
  /** Replaces the role's system message (keep the output format in it). */
  system?: string;
  /** Sampling temperature. Default: the model's. */
  temperature?: number;
  /** Repairs of a reply that is not the required JSON. Default 1. */
  maxRepairs?: number;
}

const roleOptionsSchema = z.strictObject({
  model: languageModelSchema,
  id: z.string().optional(),
  system: z.string().min(1).optional(),
  temperature: z.number().min(0).max(2).optional(),
  maxRepairs: z.number().int().min(0).max(5).default(1),
});

/** What makes a role: its name (its default id), system message, output type, reply schema and task. */
interface Role {
  name: string;
  system: string;
  outputType: OutputType;
  schema: z.ZodType<{ content: string; position: z.output<typeof positionWireSchema> }>;
  task: (ctx: AgentContext) => string;
}

/**
 * A role of the multi-agent planning protocol as an llmAgent: its system message with the output format, JSON replies read
 * against the role's schema (the position summary required) and repaired, its turn from
 * `debateTurn`. The planner and the critic are roles.
 */
export function roleAgent(options: RoleAgentOptions, role: Role): DeliberationAgent {
  const o = parseOptions(roleOptionsSchema, options, role.name);
  const agent = llmAgent({
    id: o.id ?? role.name,
    model: o.model,
    system: o.system ?? role.system,
    json: true,
    outputType: role.outputType,
    maxRepairs: o.maxRepairs,
    ...(o.temperature === undefined ? {} : { temperature: o.temperature }),
    turn: (ctx) => debateTurn(ctx, role.task(ctx)),
    parse: (text) => {
      const { content, position, ...rest } = readReply(text, role.schema) as { content: string; position: z.output<typeof positionWireSchema> } & Record<string, unknown>;
      return { content, outputType: role.outputType, position: toPosition(position), metadata: rest };
    },
  });
  // The role's name on each of its calls, so traces and test models tell a planner's turn from a critic's.
  return Object.freeze({
    id: agent.id,
    respond: (ctx: AgentContext, callOptions: { signal: AbortSignal }) =>
      agent.respond({ ...ctx, generate: (model, request) => ctx.generate(model, { ...request, tags: { ...request.tags, role: role.name } }) }, callOptions),
  });
}
