import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { whenAborted } from '../internal/abort.js';
import { parseOptions } from '../internal/validate.js';
import type { GenerateRequest, GenerateResult, LanguageModel } from '../model/types.js';

const optionsSchema = z.strictObject({ maxTokens: z.number().optional(), timeoutMs: z.number().optional(), relatedRequestId: z.union([z.string(), z.number()]).optional() });

/**
 * The part of an MCP server that asks its client's model (`sampling/createMessage`): the SDK's
 * `Server` (`mcpServer.server`) is one.
 *
 * @example
 * ```ts
 * import type { SamplingPeer } from '@tot/core/mcp';
 *
 * const peer: SamplingPeer = mcpServer.server;
 * ```
 */
export interface SamplingPeer {
  /** Asks the client's model for one message. */
  createMessage(
    params: {
      messages: { role: 'user' | 'assistant'; content: { type: 'text'; text: string } }[];
      systemPrompt?: string;
      maxTokens: number;
      temperature?: number;
      stopSequences?: string[];
      includeContext?: 'none';
    },
    options?: { signal?: AbortSignal; timeout?: number; relatedRequestId?: string | number },
  ): Promise<{ content: unknown; model?: string; stopReason?: string }>;
}

const textOf = (content: unknown): string => {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks
    .filter((b): b is { type: 'text'; text: string } => typeof b === 'object' && b !== null && (b as { type?: unknown }).type === 'text' && typeof (b as { text?: unknown }).text === 'string')
    .map((b) => b.text)
    .join('');
};

/**
 * The client's model, through MCP sampling, as a `LanguageModel`: system messages become the
 * sampling request's system prompt, the rest its messages. `n > 1` is emulated by the library
 * (one sampling request per output). The client may refuse (its user declines): that is a
 * `GENERATION_FAILED` error, never retried.
 *
 * @example
 * ```ts
 * import { samplingModel } from '@tot/core/mcp';
 *
 * const model = samplingModel(mcpServer.server, { maxTokens: 800 });
 * ```
 */
export function samplingModel(peer: SamplingPeer, options: { maxTokens?: number; timeoutMs?: number; relatedRequestId?: string | number } = {}): LanguageModel {
  parseOptions(optionsSchema, options, 'samplingModel');
  return {
    modelId: 'mcp-sampling',
    async generate(request: GenerateRequest, callOptions: { signal?: AbortSignal } = {}): Promise<GenerateResult> {
      const system = request.messages.filter((m) => m.role === 'system').map((m) => m.content);
      const messages = request.messages.filter((m) => m.role !== 'system').map((m) => ({ role: m.role as 'user' | 'assistant', content: { type: 'text' as const, text: m.content } }));
      // The request's own signal, tied to the caller's only while the request is out: the SDK keeps
      // its listener on the signal it is given after the answer, and would send the client a
      // notifications/cancelled for an answered request when the caller's signal aborts later (a
      // run aborts its signals when it ends). A cancellation must name a request still in progress.
      const outer = callOptions.signal;
      const own = new AbortController();
      const release = outer ? whenAborted(outer, () => own.abort(outer.reason)) : undefined;
      let result;
      try {
        result = await peer.createMessage(
          {
            messages,
            ...(system.length > 0 ? { systemPrompt: system.join('\n\n') } : {}),
            maxTokens: request.maxOutputTokens ?? options.maxTokens ?? 1000,
            ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
            ...(request.stop ? { stopSequences: request.stop } : {}),
            includeContext: 'none',
          },
          // Tied to the tool call that asks: over Streamable HTTP the request then goes out on that
          // call's own response stream, which the client is reading, not on a stream it may never open.
          { ...(outer ? { signal: own.signal } : {}), ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}), ...(options.relatedRequestId === undefined ? {} : { relatedRequestId: options.relatedRequestId }) },
        );
      } catch (error) {
        if (outer?.aborted) throw error;
        throw new TotError('GENERATION_FAILED', `The client's model did not answer the sampling request: ${error instanceof Error ? error.message : String(error)}`, { recoverable: false, cause: error, details: { modelId: 'mcp-sampling', retryable: false } });
      } finally {
        release?.();
      }
      const finish = result.stopReason === 'maxTokens' ? 'length' : 'stop';
      return { outputs: [textOf(result.content)], usage: {}, finishReason: finish };
    },
  };
}
