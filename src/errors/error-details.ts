import type { TotErrorCode } from './error-codes.js';

/**
 * Where in a run an error happened: the node, frame, thought or phase whose work failed.
 *
 * @example
 * ```ts
 * import type { ErrorLocation } from '@tot/core';
 *
 * const where: ErrorLocation = { kind: 'node', nodeId: 'node_1_2', role: 'evaluator' };
 * ```
 */
export type ErrorLocation =
  | { kind: 'node'; nodeId: string; role: 'generator' | 'evaluator' | 'isSolution' | 'stateKey' }
  | { kind: 'frame'; frameId: string; operator: 'think' | 'eval' | 'tool' }
  | { kind: 'thought'; thoughtNumber: number }
  /** A branch of an agent session, worked by `runParallel`. */
  | { kind: 'branch'; branchId: string }
  /** A participant of a `Deliberation` (an agent, the host or the reporter) in a round. */
  | { kind: 'agent'; agentId: string; round: number }
  /** An operation of an `OperationGraph`; `parentIds` are the thoughts whose work failed (a dropped thought's parents). */
  | { kind: 'operation'; operationId: string; operation: string; parentIds?: string[] }
  | { kind: 'phase'; phase: 'decompose' | 'synthesize' | 'verify' }
  | { kind: 'strategy'; name: string }
  | { kind: 'model'; callId: string; modelId: string }
  | { kind: 'recording'; runId: string }
  | { kind: 'listener'; event: string };

/**
 * The result fields every runner's result shares, as carried by an error that stops a run
 * (`details.result`). Each runner documents its full result type.
 *
 * @example
 * ```ts
 * import type { PartialRunResult } from '@tot/core';
 *
 * const calls = (r: PartialRunResult) => r.stats.llmCalls;
 * ```
 */
export interface PartialRunResult {
  runId: string;
  stopReason: string;
  errors: readonly { code: string; message: string }[];
  stats: { llmCalls: number; inputTokens: number; outputTokens: number; wallMs: number } & Record<string, unknown>;
}

/**
 * Fields any code may carry: where in a run the error happened, the partial result of the run it
 * stopped, and the error a remote protocol peer reported.
 *
 * @example
 * ```ts
 * import type { CommonErrorDetails } from '@tot/core';
 *
 * const nodeOf = (d: CommonErrorDetails) => (d.where?.kind === 'node' ? d.where.nodeId : undefined);
 * ```
 */
export interface CommonErrorDetails {
  where?: ErrorLocation;
  /** The run's result so far (an aborted or failed run). Cast to the runner's result type for its other fields. */
  result?: PartialRunResult & Record<string, unknown>;
  /** The `{ code, message, recoverable }` a remote peer answered with. */
  remote?: { code: string; message: string; recoverable: boolean };
  /** Attempts made (a call retried by `withRetry`, a reply repaired by `generateStructured`). */
  attempts?: number;
  /** Each attempt's error message, in order. */
  errors?: string[];
  /**
   * A provider's retry-after hint, in milliseconds (on the final error of `withRetry`: a hint longer
   * than `maxRetryAfterMs`, so the call was not retried).
   */
  retryAfterMs?: number;
  maxRetryAfterMs?: number;
}

/**
 * One difference between a recorded run's configuration and a resumer's.
 *
 * @example
 * ```ts
 * import type { ConfigDifference } from '@tot/core';
 *
 * const d: ConfigDifference = { path: 'strategy.options.beamWidth', recorded: 3, current: 1 };
 * ```
 */
export interface ConfigDifference {
  /** Dotted path into the configuration. */
  path: string;
  /** `undefined` when the recorded configuration lacks the field. */
  recorded: unknown;
  current: unknown;
}

/**
 * The `details` of a {@link TotError}, by code. `TotError.hasCode(e, code)` narrows `e.details`
 * to its code's entry, so callers read fields without casting.
 *
 * @example
 * ```ts
 * import { TotError } from '@tot/core';
 *
 * function explain(error: unknown): string {
 *   if (TotError.hasCode(error, 'INVALID_FORMAT')) return `raw outputs: ${error.details?.rawOutputs?.join(' | ')}`;
 *   if (TotError.hasCode(error, 'BUDGET_EXCEEDED')) return `limit ${error.details?.limit}`;
 *   return String(error);
 * }
 * ```
 */
export interface TotErrorDetailsMap {
  INVALID_FORMAT: CommonErrorDetails & {
    format?: 'json' | 'yaml';
    /** Every raw model reply, in order (`errors` says why each could not be used). */
    rawOutputs?: string[];
    /** The last schema issues, each with its `message` and `path` (a zod 4 schema's are zod's own, whole). */
    issues?: readonly unknown[];
    usage?: { inputTokens?: number; outputTokens?: number };
    /** The offending value (a user function's return value, a vote list, …). */
    value?: unknown;
    nodeId?: string;
    frameId?: string;
    /** Events read before the fault (a malformed log). */
    events?: number;
    /** The position (0-based) in its log of the event that is malformed. */
    position?: number;
    /** A protocol message type, or the whole reply, that was not expected. */
    type?: string;
    reply?: unknown;
    /** A reply longer than this many characters (`generateStructured`'s `maxReplyChars`) was not read; `replyChars` is its length. */
    maxReplyChars?: number;
    replyChars?: number;
  };
  GENERATION_FAILED: CommonErrorDetails & {
    modelId?: string;
    /** A malformed model result and what was wrong with it. */
    modelResult?: unknown;
    issues?: readonly unknown[];
    /** The request a mock or scripted model could not answer. */
    request?: unknown;
    file?: string;
    /** The provider's HTTP status (set by the provider adapters). */
    status?: number;
    /** The provider's own error code or type, e.g. `rate_limit_exceeded` or `invalid_request_error`. */
    providerCode?: string;
    /** The provider's request id, for its support. */
    requestId?: string;
    /**
     * A provider adapter's verdict on whether a retry may succeed; `withRetry`'s default policy
     * follows it rather than judging the underlying error again.
     */
    retryable?: boolean;
    /** The system error code of a provider that could not be reached (`ECONNREFUSED`, `ENOTFOUND`, …). */
    unreachable?: string;
  };
  EVALUATION_TIMEOUT: CommonErrorDetails & { ms?: number };
  SEARCH_EXHAUSTED: CommonErrorDetails;
  TIMEOUT: CommonErrorDetails & { ms: number };
  BUDGET_EXCEEDED: CommonErrorDetails & {
    /** The run budget's limit, or an agent session's branch budget (`branches`). */
    limit: 'calls' | 'inputTokens' | 'outputTokens' | 'totalTokens' | 'cost' | 'deadline' | 'branches';
    /** Used plus reserved before the refused request. */
    committed?: number;
    requested?: number;
    max?: number;
  };
  ABORTED: CommonErrorDetails;
  INVALID_ARGUMENT: CommonErrorDetails & {
    /** The offending option or argument, e.g. `options.maxRetries` or `events[2].idempotencyKey`. */
    field?: string;
    issues?: readonly unknown[];
    /** For an unknown option, the known option nearest in spelling (`maxCalls` for `maxCall`). */
    suggestion?: string;
    placeholder?: string;
    nodeId?: string;
    id?: string;
    size?: number;
    maxEventBytes?: number;
    maxSnapshotBytes?: number;
    response?: unknown;
    /** The question an answer was refused for. */
    questionId?: string;
  };
  ILLEGAL_STATE: CommonErrorDetails & {
    nodeId?: string;
    from?: string;
    to?: string;
    status?: string;
    branchId?: string;
    trigger?: string;
    /** The question a person has to answer (or answered no to) first. */
    questionId?: string;
  };
  EXPECTED_VERSION_CONFLICT: CommonErrorDetails & {
    streamId?: string;
    expectedVersion?: unknown;
    actualVersion?: number | null;
    parent?: string;
    order?: string;
    parentClock?: Record<string, number>;
    clock?: Record<string, number>;
  };
  IDEMPOTENCY_CONFLICT: CommonErrorDetails & {
    idempotencyKey: string;
    /** The event id of the batch that another stored event already has (the key is its event's). */
    eventId?: string;
  };
  LOOP_DETECTED: CommonErrorDetails & { frameId: string; goal: string; repeats?: number };
  RESUME_MISMATCH: CommonErrorDetails & {
    runId: string;
    /** Configuration fields that differ (empty when the replay itself diverged). */
    differences: ConfigDifference[];
    /** When the replay diverged: the recorded event's sequence number. */
    seq?: number;
  };
  INTERNAL: CommonErrorDetails;
}

/**
 * The `details` type of a code (the union of all entries for the whole code union).
 *
 * @example
 * ```ts
 * import type { TotErrorDetails } from '@tot/core';
 *
 * const d: TotErrorDetails<'TIMEOUT'> = { ms: 30_000 };
 * ```
 */
export type TotErrorDetails<C extends TotErrorCode = TotErrorCode> = C extends TotErrorCode ? TotErrorDetailsMap[C] : never;
