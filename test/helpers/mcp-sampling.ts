// A client's model for the MCP tests: answers the server's sampling requests (the default branch
// worker's prompt, DEFAULT_BRANCH_PROMPT) with plans, per approach (the branch's name).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateMessageRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** A plan ExecutionPlan accepts. */
export const validPlan = (name: string) => ({
  dry_run: true,
  rollback: { strategy: 'git_revert' },
  limits: { max_changes: 40, max_files: 3 },
  capabilities_required: ['safe_edit'],
  success_criteria: ['tests pass'],
  steps: [`apply ${name}`, 'run the tests'],
});

/** A plan ExecutionPlan refuses: 5,000 changes, over the limit of 1,000. */
export const invalidPlan = (name: string) => ({ ...validPlan(name), limits: { max_changes: 5000, max_files: 3 } });

/** The worker's JSON reply. */
export const planReply = (name: string, plan: Record<string, unknown>) => JSON.stringify({ summary: `${name}: the approach in one line`, plan });

/** One sampling request as the client saw it. */
export interface SamplingSeen {
  approach: string;
  prompt: string;
  maxTokens: number;
}

/**
 * Answers sampling requests: `answer(approach, seen)` gives the reply text (the approach is the
 * prompt's `Approach:` line). Returns the requests seen, in order.
 */
export function answerSampling(client: Client, answer: (approach: string, seen: SamplingSeen[]) => string | Promise<string>): SamplingSeen[] {
  const seen: SamplingSeen[] = [];
  client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
    const first = req.params.messages[0]?.content;
    const prompt = first && !Array.isArray(first) && first.type === 'text' ? first.text : '';
    const approach = /^Approach: (.*)$/m.exec(prompt)?.[1] ?? '';
    seen.push({ approach, prompt, maxTokens: req.params.maxTokens });
    const text = await answer(approach, seen);
    return { model: 'test', role: 'assistant' as const, content: { type: 'text' as const, text } };
  });
  return seen;
}

/**
 * A race the bad branch visibly loses: `bad` always answers with a plan over the limit; `good`
 * answers with a valid plan only once `bad` has asked to revise a rejected plan (its prompt then
 * carries the critic's issues), so the rejection is on record before the race is decided.
 */
export function raceWithRejection(client: Client, names: { good: string; bad: string }): { seen: SamplingSeen[] } {
  let revised!: () => void;
  const badRevises = new Promise<void>((resolve) => (revised = resolve));
  const seen = answerSampling(client, async (approach, all) => {
    if (approach === names.bad) {
      if (all.filter((s) => s.approach === names.bad).length >= 2) revised();
      return planReply(approach, invalidPlan(approach));
    }
    // A guard, not a wait for time to pass: fails the good branch's round loudly if bad never revises.
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([badRevises, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${names.bad} never asked to revise its rejected plan`)), 15_000)))]).finally(() => clearTimeout(timer));
    return planReply(approach, validPlan(approach));
  });
  return { seen };
}

/** A tool result's structured content, failing loudly when the call was an error. */
export function structured<T = Record<string, unknown>>(result: unknown): T {
  const r = result as CallToolResult;
  if (r.isError) throw new Error(`the tool call failed: ${text(r)}`);
  if (!r.structuredContent) throw new Error(`no structuredContent in ${JSON.stringify(r)}`);
  return r.structuredContent as T;
}

/** A tool result's text. */
export function text(result: unknown): string {
  return ((result as CallToolResult).content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}
