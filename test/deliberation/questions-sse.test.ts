// A deliberation that asks a person, as its SSE stream and its folded log show it (the events made
// by hand): each question and answer is an event a client can show, a run that ends waiting sends
// `waiting` rather than an error, and a run resumed after a wait has not finished.
import { describe, expect, it } from 'vitest';
import { foldDeliberationLog } from '../../src/deliberation/deliberation-log.js';
import { InMemoryEventStore, type LanguageModel } from '../../src/index.js';
import { Deliberation, llmAgent, toSSE, type DeliberationEvent } from '../../src/deliberation/index.js';
import { fixedRounds } from './fixtures/scripted-debate.js';

const QUESTION = 'agent/critic/1#go-on';
let seq = 0;
const event = (e: Record<string, unknown>) => ({ runId: 'd1', seq: seq++, at: 1_000 + seq, ...e }) as unknown as DeliberationEvent;
const started = () => event({ type: 'run.started', runner: 'deliberation', problem: 'Plan three months of IELTS preparation', config: {} });
const asked = () => event({ type: 'run.asked', questionId: QUESTION, key: 'go-on', question: 'Go on to round 2?', where: { kind: 'agent', agentId: 'critic', round: 1 }, schema: { type: 'boolean' }, preview: { consensus: 0.4 } });
const waits = () => event({ type: 'run.finished', stopReason: 'waiting', detail: { kind: 'waiting', questions: [QUESTION] }, stats: {}, errors: [] });
const resumed = () => event({ type: 'run.resumed', fromVersion: 3, fromSeq: 3 });
const answered = () => event({ type: 'run.answered', questionId: QUESTION, answer: true, by: 'resume' });

async function* from(events: DeliberationEvent[]): AsyncGenerator<DeliberationEvent> {
  yield* events;
}

/** The stream's messages, parsed (`[DONE]` as the string). */
async function messages(stream: ReadableStream<Uint8Array>): Promise<unknown[]> {
  const text = await new Response(stream).text();
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((m) => m.replace(/^data: /, ''))
    .map((m) => (m === '[DONE]' ? m : JSON.parse(m)));
}

describe('toSSE of a deliberation that asks a person', () => {
  it('sends the question with its id, key, words, where, schema and preview', async () => {
    const [question] = await messages(toSSE(from([started(), asked()])));
    expect(question).toEqual({ type: 'question', question_id: QUESTION, key: 'go-on', question: 'Go on to round 2?', where: { kind: 'agent', agentId: 'critic', round: 1 }, schema: { type: 'boolean' }, preview: { consensus: 0.4 } });
  });

  it('ends a run waiting for answers with a waiting message naming the questions, not an error', async () => {
    expect(await messages(toSSE(from([started(), asked(), waits()])))).toEqual([expect.objectContaining({ type: 'question' }), { type: 'waiting', questions: [QUESTION] }, '[DONE]']);
  });

  it('sends the answer with who gave it', async () => {
    const out = await messages(toSSE(from([started(), asked(), waits(), resumed(), answered()])));
    expect(out.at(-2)).toEqual({ type: 'answer', question_id: QUESTION, answer: true, by: 'resume' });
  });
});

describe('toSSE of a deliberation a person stopped between rounds', () => {
  it('ends it as the host would, with no error message', async () => {
    const stopped = event({ type: 'run.finished', stopReason: 'stopped_by_person', stats: {}, errors: [] });
    const answer = event({ type: 'run.answered', questionId: QUESTION, answer: { action: 'stop' }, by: 'handler' });
    expect(await messages(toSSE(from([started(), asked(), answer, stopped])))).toEqual([expect.objectContaining({ type: 'question' }), expect.objectContaining({ type: 'answer', answer: { action: 'stop' } }), '[DONE]']);
  });
});

describe('foldDeliberationLog of a deliberation that waited and was resumed', () => {
  it('has finished waiting while the wait is the log\'s last event', () => {
    expect(foldDeliberationLog([started(), asked(), waits()]).finished).toEqual({ stopReason: 'waiting' });
  });

  it('has not finished once resumed: the wait was not the end', () => {
    expect(foldDeliberationLog([started(), asked(), waits(), resumed(), answered()]).finished).toBeUndefined();
  });
});

describe('toSSE of a deliberation streamed while it asks between rounds', () => {
  it('sends the question after round 1, then waiting, then [DONE]', async () => {
    const model: LanguageModel = { modelId: 'echo', generate: async (r) => ({ outputs: [`${r.messages.at(-1)!.content} -> ${r.tags?.agent}`], usage: { inputTokens: 10, outputTokens: 5 } }) };
    const d = new Deliberation({ agents: [llmAgent({ id: 'a', model, system: 'You are a.', turn: (ctx) => `turn ${ctx.round}` }), llmAgent({ id: 'b', model, system: 'You are b.', turn: (ctx) => `turn ${ctx.round}` })], host: fixedRounds(3), askBetweenRounds: true });
    const out = (await messages(toSSE(d.stream('Q?', { store: new InMemoryEventStore(), runId: 'streamed' })))) as { type?: string }[];
    expect(out.slice(-3)).toEqual([expect.objectContaining({ type: 'question', question_id: 'agent/host/1#between-rounds', where: { kind: 'agent', agentId: 'host', round: 1 } }), { type: 'waiting', questions: ['agent/host/1#between-rounds'] }, '[DONE]']);
  });
});
