/**
 * Seed 001's front-end flow end to end, on a mock model: starts the deliberation server, POSTs the
 * seed's request (§6.1) with fetch, and prints each server-sent event as it arrives — the planner
 * and the critic in round 1, the host's decision, their revised positions in round 2, the host
 * converging, the final report — until `[DONE]`.
 *
 * Run: npm run example:deliberation
 */
import { startDeliberationServer } from './server.js';

interface SseMessage {
  type: string;
  agent?: string;
  round?: number;
  content?: string;
  output_type?: string;
  metadata?: { position?: { conclusion?: string; confidence?: number } };
  action?: string;
  reason?: string;
  consensus_level?: number;
  plan?: { title?: string } | null;
  divergent?: boolean;
  message?: string;
}

const oneLine = (m: SseMessage): string => {
  switch (m.type) {
    case 'agent_output': {
      const p = m.metadata?.position;
      return `${m.agent!.padEnd(8)} round ${m.round}  ${m.output_type}: ${p?.conclusion ?? m.content} (confidence ${p?.confidence ?? '?'})`;
    }
    case 'host_decision':
      return `${'host'.padEnd(8)} round ${m.round}  ${m.action}: ${m.reason}`;
    case 'final_report':
      return `${(m.agent ?? 'reporter').padEnd(8)} report   ${m.plan?.title ?? '(no plan)'}${m.divergent ? ' (divergent)' : ''}`;
    default:
      return `${m.type}: ${m.message ?? JSON.stringify(m)}`;
  }
};

// A fixed clock, so the plan's deadlines (set from the get_now tool) read the same on every run.
const server = await startDeliberationServer({ now: () => Date.parse('2026-01-05T09:00:00Z'), timeZone: 'UTC' });
try {
  console.log(`POST ${server.url}/deliberate\n`);
  const res = await fetch(`${server.url}/deliberate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: 'Help me plan three months of IELTS preparation', mode: 'multi_agent' }),
  });
  if (!res.ok || !res.body) throw new Error(`the server answered ${res.status}: ${await res.text()}`);

  let report: string | undefined;
  let buffer = '';
  const decoder = new TextDecoder();
  const reader = res.body.getReader();
  read: for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    // Events are separated by a blank line; the last piece may be incomplete.
    const events = buffer.split('\n\n');
    buffer = events.pop()!;
    for (const event of events) {
      const data = event.replace(/^data: /, '');
      if (data === '[DONE]') {
        console.log('[DONE]');
        await reader.cancel();
        break read;
      }
      const m = JSON.parse(data) as SseMessage;
      if (m.type === 'final_report') report = m.content;
      console.log(oneLine(m));
    }
  }
  if (report) console.log(`\n${report}`);
} finally {
  await server.close();
}
