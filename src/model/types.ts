/**
 * One chat message sent to a model.
 *
 * @example
 * ```ts
 * import type { ChatMessage } from '@tot/core';
 *
 * const message: ChatMessage = { role: 'user', content: 'Use 4 9 10 13 to make 24.' };
 * ```
 */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/**
 * A request to a {@link LanguageModel}.
 *
 * @example
 * ```ts
 * import type { GenerateRequest } from '@tot/core';
 *
 * const request: GenerateRequest = {
 *   messages: [{ role: 'user', content: 'Propose three next steps.' }],
 *   n: 3,
 *   temperature: 0.7,
 *   tags: { role: 'generator' },
 * };
 * ```
 */
export interface GenerateRequest {
  messages: ChatMessage[];
  /** Independent completions wanted (default 1). Emulated with parallel calls when the model cannot do it. */
  n?: number;
  temperature?: number;
  maxOutputTokens?: number;
  stop?: string[];
  seed?: number;
  responseFormat?: { type: 'text' } | { type: 'json'; schema?: object };
  /** Purpose labels for traces and meters, e.g. `{ role: 'evaluator' }`. Never sent to a provider. */
  tags?: Record<string, string>;
}

/**
 * Token usage of one call. A field is `undefined` when the provider did not report it — never `0`.
 * A field that is not a non-negative integer is malformed: `callModel` fails such a result with
 * `GENERATION_FAILED`, and budgets and meters count the figure as unknown (estimated), so it never
 * corrupts a count.
 *
 * @example
 * ```ts
 * import type { Usage } from '@tot/core';
 *
 * const usage: Usage = { inputTokens: 812, outputTokens: 64 };
 * ```
 */
export interface Usage {
  inputTokens?: number;
  outputTokens?: number;
}

/**
 * Why a model stopped producing output.
 *
 * @example
 * ```ts
 * import type { FinishReason } from '@tot/core';
 *
 * const reason: FinishReason = 'length';
 * ```
 */
export type FinishReason = 'stop' | 'length' | 'content-filter' | 'error' | 'other';

/**
 * The result of one {@link LanguageModel.generate} call.
 *
 * @example
 * ```ts
 * import type { GenerateResult } from '@tot/core';
 *
 * const result: GenerateResult = { outputs: ['10 - 4 = 6 (left: 6 9 13)'], usage: { inputTokens: 90 } };
 * ```
 */
export interface GenerateResult {
  /** One output per requested completion (`n` of them). */
  outputs: string[];
  usage: Usage;
  finishReason?: FinishReason;
  /** Set by {@link withCache} when the result was served from its store. */
  cacheHit?: boolean;
  /** The provider's raw response, for debugging. */
  raw?: unknown;
}

/**
 * What {@link withRetry} reports before it retries a failed attempt.
 *
 * @example
 * ```ts
 * import type { RetryNotice } from '@tot/core';
 *
 * const log = (n: RetryNotice) => console.warn(`attempt ${n.attempt} failed, retrying in ${n.delayMs} ms`, n.error);
 * ```
 */
export interface RetryNotice {
  /** The attempt that failed: 1 for the first. */
  attempt: number;
  /** How long the retry waits. */
  delayMs: number;
  error: unknown;
}

/**
 * Per-call options of a model. Middleware passes them on to the model it wraps.
 *
 * @example
 * ```ts
 * import type { CallOptions } from '@tot/core';
 *
 * const options: CallOptions = { signal: AbortSignal.timeout(30_000), onRetry: (n) => console.warn(n.attempt, n.error) };
 * ```
 */
export interface CallOptions {
  signal?: AbortSignal;
  /**
   * Called by {@link withRetry} before each retry. Throwing from it ends the call with that error
   * instead of retrying (a run does this when its budget cannot admit another attempt).
   */
  onRetry?: (notice: RetryNotice) => void;
}

/**
 * What a model can do natively.
 *
 * @example
 * ```ts
 * import type { ModelCapabilities } from '@tot/core';
 *
 * const capabilities: ModelCapabilities = { multipleOutputs: true };
 * ```
 */
export interface ModelCapabilities {
  /** Whether one call can return `n > 1` outputs. When false or absent, the core emulates `n` with parallel calls. */
  multipleOutputs?: boolean;
}

/**
 * The port through which every primitive talks to an LLM. Hosts implement it for their provider
 * (or use {@link fromFunction}); middleware wraps one model into another.
 *
 * @example
 * ```ts
 * import type { LanguageModel } from '@tot/core';
 *
 * const echo: LanguageModel = {
 *   modelId: 'echo',
 *   async generate(request) {
 *     const last = request.messages.at(-1)?.content ?? '';
 *     return { outputs: [last], usage: {} };
 *   },
 * };
 * ```
 */
export interface LanguageModel {
  /** Identifies the model in cache keys, traces and cassettes. */
  readonly modelId: string;
  /** What the model can do natively. Absent means nothing beyond one output per call. */
  readonly capabilities?: ModelCapabilities;
  /**
   * Produces `request.n ?? 1` outputs. Must honour `options.signal`; may throw any error (callers
   * going through `callModel` get it as a typed `TotError`).
   */
  generate(request: GenerateRequest, options?: CallOptions): Promise<GenerateResult>;
}
