import { requestKey, type GenerateRequest, type LlmCompletedEvent, type LlmRequestedEvent, type StoredEvent } from '../../src/index.js';

/** The request key of each model call a log completed, in order: a call made twice shows twice. */
export function completedRequests(events: StoredEvent[]): string[] {
  const keys = new Map<string, string>();
  const out: string[] = [];
  for (const e of events) {
    if (e.type === 'llm.requested') {
      const r = e.data as LlmRequestedEvent;
      keys.set(r.callId, requestKey(r.modelId, r.request as GenerateRequest));
    }
    if (e.type === 'llm.completed') out.push(keys.get((e.data as LlmCompletedEvent).callId)!);
  }
  return out;
}
