import type { DeliberationEvent } from './deliberation-events.js';
import { outputToProtocol } from './protocol.js';

/** The ids of the questions a run that ended waiting waits for. */
function waitingFor(e: Extract<DeliberationEvent, { type: 'run.finished' }>): string[] {
  const questions = (e.detail as { questions?: unknown } | undefined)?.questions;
  return Array.isArray(questions) ? questions.map(String) : [];
}

/** The protocol's SSE message for an event, or nothing for events the protocol does not show. */
function message(e: DeliberationEvent, reported: boolean): Record<string, unknown> | undefined {
  switch (e.type) {
    case 'agent.output': {
      const wire = outputToProtocol(e.output);
      return {
        type: 'agent_output',
        agent: e.output.agentId,
        round: e.round,
        content: e.output.content,
        output_type: e.output.outputType,
        metadata: wire.metadata,
        ...(wire.truncated ? { truncated: wire.truncated } : {}),
      };
    }
    case 'agent.skipped':
      return { type: 'agent_error', error: e.reason, agent: e.agentId, round: e.round, action: 'skip_agent', fallback: e.reused ? 'previous_output' : 'none', message: e.error.message };
    case 'host.decision':
      return {
        type: 'host_decision',
        round: e.round,
        action: e.decision.action,
        reason: e.decision.reason,
        next_agents: e.decision.nextAgents,
        constraints: { must_address: e.decision.constraints.mustAddress, avoid: e.decision.constraints.avoid },
        ...(e.decision.directives.length > 0 ? { directives: e.decision.directives.map((d) => ({ target_agent: d.agentId, ...(d.role ? { role: d.role } : {}), requirement: d.requirement })) } : {}),
        ...(e.decision.analysis ? { consensus_level: e.decision.analysis.consensusLevel } : {}),
        ...(e.decision.withheld ? { withheld: true } : {}),
        ...(e.decision.truncated ? { truncated: true } : {}),
      };
    case 'report':
      return { type: 'final_report', agent: e.output.agentId, content: e.output.content, plan: e.output.metadata.final_plan ?? null, divergent: e.divergent, ...(e.output.truncated ? { truncated: true } : {}) };
    case 'run.asked':
      return {
        type: 'question',
        question_id: e.questionId,
        key: e.key,
        question: e.question,
        ...(e.where ? { where: e.where } : {}),
        ...(e.schema ? { schema: e.schema } : {}),
        ...(e.preview !== undefined ? { preview: e.preview } : {}),
      };
    case 'run.answered':
      return { type: 'answer', question_id: e.questionId, answer: e.answer, by: e.by };
    case 'run.finished': {
      // Not an error: the run waits for a person's answers, and a resume given them goes on.
      if (e.stopReason === 'waiting') return { type: 'waiting', questions: waitingFor(e) };
      // A person who stops the rounds (askBetweenRounds) ends them as the host would: not an error.
      const normal = ['converged', 'plateau', 'terminated', 'stopped_by_person', 'max_rounds_reached'].includes(e.stopReason);
      if (!normal) return { type: 'error', stop_reason: e.stopReason, message: e.error?.message ?? `the deliberation stopped: ${e.stopReason}` };
      // Rounds that ended normally, and no report: the reporter failed (or there is none).
      const last = e.errors.at(-1);
      return !reported && last ? { type: 'error', stop_reason: e.stopReason, message: `no final report: ${last.message}` } : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * A deliberation's events as the protocol's server-sent events: `data: {"type":
 * "agent_output", …}`, `host_decision`, `final_report` (and `agent_error` for a skipped agent,
 * `error` when the run stopped abnormally), then `data: [DONE]`. A question the run asked a person
 * is `question` (`question_id`, `key`, `question`, and `where`, `schema`, `preview` when it has
 * them), its answer `answer` (`question_id`, `answer`, `by`: `handler` or `resume`); a run that
 * ends waiting for answers sends `waiting` (`questions`: the ids it waits for) instead of an error. An output cut to the token cap
 * carries `truncated`; a decision whose text the content filter withheld, `withheld: true`. A web `ReadableStream` of UTF-8
 * bytes: return it from a fetch handler or hono (`new Response(stream, { headers: {
 * 'content-type': 'text/event-stream' } })`), or pipe it to a node:http response. Cancelling the
 * stream (a client that disconnects) closes the events, which aborts a run started by
 * `Deliberation.stream(query)`.
 *
 * @example
 * ```ts
 * import { toSSE } from '@tot/core/deliberation';
 *
 * export default {
 *   fetch: (req: Request) => new Response(toSSE(debate.stream('Help me plan three months of IELTS preparation')), { headers: { 'content-type': 'text/event-stream' } }),
 * };
 * ```
 */
export function toSSE(events: AsyncIterable<DeliberationEvent>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const iterator = events[Symbol.asyncIterator]();
  let ended = false;
  let reported = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (ended) return;
      try {
        for (;;) {
          const step = await iterator.next();
          // Cancelled while waiting: the stream is closed, nothing more may be written.
          if (ended) return;
          if (step.done) {
            ended = true;
            controller.enqueue(encoder.encode('data: [DONE]\n\n'));
            controller.close();
            return;
          }
          if (step.value.type === 'report') reported = true;
          const m = message(step.value, reported);
          if (m) {
            controller.enqueue(encoder.encode(`data: ${JSON.stringify(m)}\n\n`));
            return;
          }
        }
      } catch (error) {
        if (ended) return;
        ended = true;
        const e = error as { code?: unknown; message?: unknown };
        controller.enqueue(encoder.encode(`data: ${JSON.stringify({ type: 'error', code: typeof e?.code === 'string' ? e.code : 'INTERNAL', message: typeof e?.message === 'string' ? e.message : String(error) })}\n\n`));
        controller.enqueue(encoder.encode('data: [DONE]\n\n'));
        controller.close();
      }
    },
    async cancel() {
      ended = true;
      await iterator.return?.();
    },
  });
}
