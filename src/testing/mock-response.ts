import { TotError } from '../errors/index.js';
import { abortable } from '../internal/abort.js';
import type { GenerateRequest, GenerateResult, Usage } from '../model/types.js';

/**
 * What a mock model answers with: a string (one output), a full result, or an `Error` to throw.
 *
 * @example
 * ```ts
 * import type { MockResponse } from '@tot/core/testing';
 *
 * const replies: MockResponse[] = ['{"score": 7}', { outputs: ['a', 'b'] }, new Error('provider down')];
 * ```
 */
export type MockResponse = string | (Partial<GenerateResult> & { outputs: string[] }) | Error;

/**
 * A function that computes a mock reply from the request.
 *
 * @example
 * ```ts
 * import type { MockResponder } from '@tot/core/testing';
 *
 * const responder: MockResponder = (request, { callIndex }) => `reply #${callIndex} to ${request.messages.length} messages`;
 * ```
 */
export type MockResponder = (request: GenerateRequest, context: { callIndex: number; signal?: AbortSignal }) => MockResponse | Promise<MockResponse>;

/**
 * How mock models report usage: fixed numbers, a function, or `'estimate'` (the default: one token
 * per four characters of the prompt and of the outputs, so budget tests have real numbers).
 *
 * @example
 * ```ts
 * import type { MockUsage } from '@tot/core/testing';
 *
 * const usage: MockUsage = { inputTokens: 100, outputTokens: 20 };
 * ```
 */
export type MockUsage = 'estimate' | 'unknown' | Usage | ((request: GenerateRequest, outputs: string[]) => Usage);

/**
 * One call a mock model received.
 *
 * @example
 * ```ts
 * import { mockModel } from '@tot/core/testing';
 *
 * const model = mockModel('ok');
 * await model.generate({ messages: [{ role: 'user', content: 'hi' }] });
 * model.calls[0]?.request.messages[0]?.content; // 'hi'
 * ```
 */
export interface MockCall {
  index: number;
  request: GenerateRequest;
  /** Whether a signal was passed with the call. */
  hadSignal: boolean;
  result?: GenerateResult;
  error?: unknown;
  /** For scripted models: the name of the rule that answered. */
  rule?: string;
  /** For role models: the role tag the call carried (`generator`, `evaluator`, …). */
  role?: string;
}

function quarter(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * The usage a mock reports. A usage function's figures are passed on as they are (a test may
 * simulate a provider's malformed usage that way); a usage function that throws fails the call
 * with `INTERNAL` naming `who`, since that is a fault of the test, not of a simulated provider.
 */
export function computeUsage(usage: MockUsage, request: GenerateRequest, outputs: string[], who: string): Usage {
  if (usage === 'unknown') return {};
  if (usage === 'estimate') {
    return {
      inputTokens: request.messages.reduce((sum, m) => sum + quarter(m.content), 0),
      outputTokens: outputs.reduce((sum, o) => sum + quarter(o), 0),
    };
  }
  if (typeof usage !== 'function') return { ...usage };
  try {
    return usage(request, outputs);
  } catch (error) {
    throw new TotError('INTERNAL', `${who}: the usage function threw: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/** Turns a mock reply into a result with `n` outputs (a string is repeated for native `n > 1`); `who` names the mock in errors. */
export function toResult(response: MockResponse, request: GenerateRequest, usage: MockUsage, who: string): GenerateResult {
  if (response instanceof Error) throw response;
  if (typeof response === 'string') {
    const outputs = Array.from({ length: request.n ?? 1 }, () => response);
    return { outputs, usage: computeUsage(usage, request, outputs, who), finishReason: 'stop' };
  }
  if (typeof response !== 'object' || response === null || !Array.isArray(response.outputs)) {
    throw new TotError('INVALID_ARGUMENT', `${who}: a reply must be a string, an Error or { outputs: string[] }`, { details: { response } });
  }
  return { finishReason: 'stop', ...response, usage: response.usage ?? computeUsage(usage, request, response.outputs, who) };
}

/** The whole conversation as one text, for matching and for error messages. */
export function requestText(request: GenerateRequest): string {
  return request.messages.map((m) => m.content).join('\n\n');
}

/** A readable rendering of a request for error messages. */
export function describeRequest(request: GenerateRequest, maxLength = 2_000): string {
  const body = request.messages.map((m) => `[${m.role}] ${m.content}`).join('\n');
  const text = body.length > maxLength ? `${body.slice(0, maxLength)}… (${body.length - maxLength} more characters)` : body;
  const extras = Object.entries({ n: request.n, temperature: request.temperature, tags: request.tags })
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(' ');
  return extras === '' ? text : `${text}\n(${extras})`;
}

/**
 * Records one call in `calls`, refuses it if its signal is already aborted, and stores the result
 * or error that `produce` gives. The call ends with `ABORTED` as soon as its signal fires, even if
 * a reply function ignores the signal.
 */
export async function recordCall(
  calls: MockCall[],
  request: GenerateRequest,
  signal: AbortSignal | undefined,
  produce: (call: MockCall) => Promise<GenerateResult>,
): Promise<GenerateResult> {
  const call: MockCall = { index: calls.length, request: structuredClone(request), hadSignal: signal !== undefined };
  calls.push(call);
  try {
    call.result = await abortable(signal, () => produce(call), 'model call');
    return call.result;
  } catch (error) {
    call.error = error;
    throw error;
  }
}
