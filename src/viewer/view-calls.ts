// The model calls of a run as the viewer shows them: in lanes on the timeline, with what each sent
// and got back, every distinct text stored once. And the one helper every kind of run uses to tie
// calls to nodes: grouping the calls of one request (its samples and its repairs) together.
import { PARTICIPANT_TAG } from '../deliberation/call-tags.js';
import { SAMPLE_INDEX_TAG } from '../model/call-model.js';
import type { ViewCall } from './view-model.js';
import { str, type AnyEvent } from './view-util.js';

interface Message {
  role: string;
  content: string;
}

/** What the linkers read of a call besides its view: its tags, its messages and outputs as text. */
export interface CallMeta {
  tags: Record<string, string>;
  messages: Message[];
  outputs: string[];
}

/** A run's calls: the views, the text table they index, tokens over time, and each call's request as sent. */
export interface CallLog {
  calls: ViewCall[];
  texts: string[];
  tokens: { at: number; total: number }[];
  /** By call index. */
  meta: CallMeta[];
  /** Call id → index. */
  index: Map<string, number>;
  /** Each crash a resume continued after: when the log stopped, and when the run resumed (ms from the start). */
  interruptions: { crashedAt: number; resumedAt: number }[];
}

/** Every distinct string once: a prompt sent a thousand times is one entry. */
class Texts {
  readonly list: string[] = [];
  private readonly at = new Map<string, number>();
  of(text: string): number {
    let i = this.at.get(text);
    if (i === undefined) {
      i = this.list.length;
      this.list.push(text);
      this.at.set(text, i);
    }
    return i;
  }
}

/**
 * Model calls in lanes (each call takes the first lane free when it starts), with their messages
 * and outputs. A call still open when the run resumed was cut off by the crash: it ends at the
 * log's last event before `run.resumed` (the moment the process stopped writing), not when the
 * resumed run ended, so it holds no lane it did not hold and the lanes in use never exceed the
 * calls that were truly in flight. A call still open at the log's end ends there.
 */
export function callsOf(events: readonly AnyEvent[], t0: number, tEnd: number): CallLog {
  const texts = new Texts();
  const open = new Map<string, number>();
  const index = new Map<string, number>();
  const calls: ViewCall[] = [];
  const meta: CallMeta[] = [];
  const tokens: { at: number; total: number }[] = [];
  const interruptions: { crashedAt: number; resumedAt: number }[] = [];
  let total = 0;
  let last = 0;
  let before: AnyEvent | undefined;
  for (const e of events) {
    const at = typeof e.at === 'number' ? e.at - t0 : last;
    if (e.type === 'run.resumed') {
      for (const i of open.values()) calls[i]!.end = Math.max(calls[i]!.start, last);
      open.clear();
      // A run that ended waiting for answers and was resumed with them did not crash.
      if (before?.type !== 'run.finished') interruptions.push({ crashedAt: last, resumedAt: at });
    } else if (e.type === 'llm.requested') {
      const request = (e.request ?? {}) as { tags?: Record<string, string>; messages?: readonly Message[] };
      const tags = request.tags ?? {};
      // The most specific label first: every call also carries its role, which names only the kind.
      const tag = tags.operation ?? tags[PARTICIPANT_TAG] ?? tags.agent ?? tags.role ?? tags.kind;
      const messages = (Array.isArray(request.messages) ? request.messages : []).map((m) => ({ role: str(m?.role), content: str(m?.content) }));
      const c: ViewCall = {
        id: str(e.callId),
        start: at,
        end: at,
        lane: 0,
        outcome: 'open',
        inputTokens: 0,
        outputTokens: 0,
        ...(tag ? { tag } : {}),
        messages: messages.map((m) => ({ role: m.role, text: texts.of(m.content) })),
      };
      open.set(c.id, calls.length);
      index.set(c.id, calls.length);
      calls.push(c);
      meta.push({ tags, messages, outputs: [] });
    } else if (e.type === 'llm.completed' || e.type === 'llm.failed') {
      const i = open.get(str(e.callId));
      if (i === undefined) continue;
      open.delete(str(e.callId));
      const c = calls[i]!;
      c.end = at;
      c.outcome = e.type === 'llm.completed' ? 'completed' : 'failed';
      const charged = e.charged as { inputTokens?: number; outputTokens?: number } | undefined;
      c.inputTokens = charged?.inputTokens ?? 0;
      c.outputTokens = charged?.outputTokens ?? 0;
      if (e.type === 'llm.completed') {
        const outputs = (Array.isArray(e.outputs) ? e.outputs : []).map(str);
        meta[i]!.outputs = outputs;
        c.outputs = outputs.map((o) => texts.of(o));
      } else {
        const error = e.error as { code?: string; message?: string } | undefined;
        c.error = `${error?.code ?? 'ERROR'}: ${error?.message ?? 'the call failed'}`;
      }
      total += c.inputTokens + c.outputTokens;
      tokens.push({ at, total });
    }
    last = at;
    before = e;
  }
  for (const i of open.values()) calls[i]!.end = Math.max(calls[i]!.start, tEnd - t0);
  const ends: number[] = [];
  for (const c of [...calls].sort((a, b) => a.start - b.start)) {
    let lane = ends.findIndex((end) => end <= c.start);
    if (lane === -1) lane = ends.length;
    ends[lane] = c.end;
    c.lane = lane;
  }
  return { calls, texts: texts.list, tokens, meta, index, interruptions };
}

/** Whether `c` repeats `p`'s messages, then `p`'s reply as the assistant, then more: a repair turn of `p`. */
function repairs(c: CallMeta, p: CallMeta): boolean {
  const n = p.messages.length;
  if (c.messages.length <= n + 1) return false;
  const reply = c.messages[n]!;
  if (reply.role !== 'assistant' || reply.content !== p.outputs[0]) return false;
  for (let i = 0; i < n; i++) if (c.messages[i]!.role !== p.messages[i]!.role || c.messages[i]!.content !== p.messages[i]!.content) return false;
  return true;
}

/** The messages as one key. */
const keyOf = (m: CallMeta) => JSON.stringify(m.messages);

/**
 * The calls of one step (in the order they were made) grouped by the request each belongs to: a
 * call starts a group of its own, unless it is a repair turn of an earlier call (it resends that
 * call's messages and reply) or a further sample of one (the `sampleIndex` tag `callModel` puts on
 * emulated `n > 1` calls and samplers put on theirs, with the same messages).
 */
export function groupCalls(indices: readonly number[], log: CallLog): number[][] {
  const groups: { calls: number[]; key: string | undefined; samples: Set<string> }[] = [];
  for (const i of indices) {
    const m = log.meta[i]!;
    const sample = m.tags[SAMPLE_INDEX_TAG];
    let joined = false;
    if (m.messages.some((x) => x.role === 'assistant')) {
      for (let g = groups.length - 1; g >= 0 && !joined; g--) {
        if (groups[g]!.calls.some((j) => repairs(m, log.meta[j]!))) {
          groups[g]!.calls.push(i);
          joined = true;
        }
      }
    } else if (sample !== undefined && sample !== '0') {
      const key = keyOf(m);
      for (let g = groups.length - 1; g >= 0 && !joined; g--) {
        const group = groups[g]!;
        if (group.key === key && !group.samples.has(sample)) {
          group.calls.push(i);
          group.samples.add(sample);
          joined = true;
        }
      }
    }
    // Only a sampled call can be joined by further samples: its key is needed only then.
    if (!joined) groups.push({ calls: [i], key: sample === undefined ? undefined : keyOf(m), samples: new Set(sample === undefined ? [] : [sample]) });
  }
  return groups.map((g) => g.calls);
}

/**
 * The single output each of `count` nodes made from `group` came from, when the group's outputs
 * (those left after removing `dropped`, replies whose parse failed) number exactly `count`: the
 * call and the output's index in it. Otherwise none.
 */
export function outputsFor(group: readonly number[], count: number, log: CallLog, dropped: string[] = []): { call: number; pick?: number }[] | undefined {
  const left = [...dropped];
  const out: { call: number; pick?: number }[] = [];
  for (const c of group) {
    const outputs = log.meta[c]!.outputs;
    outputs.forEach((text, k) => {
      const d = left.indexOf(text);
      if (d !== -1) {
        left.splice(d, 1);
        return;
      }
      out.push(outputs.length > 1 ? { call: c, pick: k } : { call: c });
    });
  }
  return out.length === count ? out : undefined;
}
