import { TotError } from '../errors/index.js';

/** What to do about an error, by its code: the result tells the client what to send instead. */
const GUIDANCE: Record<string, string> = {
  INVALID_ARGUMENT: 'Fix the argument it names and call the tool again.',
  ILLEGAL_STATE: 'The session or branch is not in a state that allows this: think_session_status shows the states (and a branch error names the triggers its state accepts).',
  BUDGET_EXCEEDED: 'The session has spent its budget: complete it, or start a new session with a larger budget.',
  EXPECTED_VERSION_CONFLICT: 'Another writer changed the session at the same moment: call the tool again.',
  IDEMPOTENCY_CONFLICT: 'That idempotency_key was already used for different content: send a new key, or the original content.',
  ABORTED: 'The call was cancelled: call the tool again.',
  TIMEOUT: 'The work took too long: try fewer branches or a smaller round_tokens.',
  GENERATION_FAILED: 'The model failed: call again, or fill the branches yourself with think_plan_step.',
  INVALID_FORMAT: 'Send the value in the format the tool describes.',
};

/** An error as a tool result the client can act on (`isError`), never a crash of the server. */
export function errorResult(error: unknown): { content: { type: 'text'; text: string }[]; isError: true } {
  const code = TotError.isInstance(error) ? error.code : 'INTERNAL';
  const message = error instanceof Error ? error.message : String(error);
  const hint = GUIDANCE[code] ?? 'This is a fault of the server; the session is unchanged by the failed call.';
  return { content: [{ type: 'text', text: `${code}: ${message}\n${hint}` }], isError: true };
}
