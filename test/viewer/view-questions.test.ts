// What the viewer shows of a run that asked a person: its questions (words, id, where, preview,
// answer and who gave it, or pending), a run waiting for answers as waiting, and a log with several
// run.finished events read by its last one only.
import { beforeAll, describe, expect, it } from 'vitest';
import { InMemoryEventStore, type LanguageModel, type StoredEvent } from '@tot/core';
import { Deliberation, llmAgent } from '@tot/core/deliberation';
import { viewRun, type ViewPanel } from '@tot/core/viewer';
import { fixedRounds } from '../deliberation/fixtures/scripted-debate.js';
import { askingExplorer, readAll, recordAskingSearch, recordChainOfThoughtRun, recordDeliberationRun, type RecordedRun } from './fixtures/runs.js';

type QuestionsPanel = Extract<ViewPanel, { kind: 'questions' }>;
const questionsOf = (events: readonly StoredEvent[]) => viewRun(events).panels.find((p): p is QuestionsPanel => p.kind === 'questions');

/** A stored event of the run, made by hand (for logs no runner writes yet). */
const stored = (streamId: string, version: number, type: string, data: Record<string, unknown>): StoredEvent => ({ streamId, version, globalPosition: version, type, data: { type, runId: streamId, seq: version - 1, at: 0, ...data }, metadata: {} }) as unknown as StoredEvent;

let asking: Awaited<ReturnType<typeof recordAskingSearch>>;
/** The log of the asking search as it stood when it first ended waiting (before the resume). */
let firstWait: StoredEvent[];
beforeAll(async () => {
  asking = await recordAskingSearch();
  firstWait = asking.events.slice(0, asking.events.findIndex((e) => e.type === 'run.finished') + 1);
});

describe('viewRun of a run that asked a person', () => {
  it('shows a run that ended waiting as waiting for the questions it waits for, neither finished nor crashed', () => {
    const view = viewRun(firstWait);
    expect(view.waiting).toEqual([asking.pick]);
    expect(view.stopReason).toBe('waiting');
    expect(view.summary.stop).toBe('waiting for an answer');
    expect(view.interruptions).toEqual([]);
  });

  it('lists each question with its id, key, words, where it was asked, its preview and schema as JSON, and no answer while it is pending', () => {
    const panel = questionsOf(firstWait)!;
    expect(panel.waiting).toBe(true);
    const nodes = viewRun(firstWait).nodes.filter((n) => n.parents[0] === 'root').map((n) => n.content);
    expect(panel.questions).toEqual([
      {
        id: asking.pick,
        key: 'pick',
        question: 'Which thought should the search follow?',
        where: 'strategy (name: ask-twice)',
        preview: JSON.stringify(nodes, null, 2),
        schema: expect.stringContaining('"type": "integer"'),
      },
    ]);
  });

  it('reads a log with two run.finished events by its last: the second question pending, the first answered by the resume', () => {
    expect(asking.events.filter((e) => e.type === 'run.finished')).toHaveLength(2);
    const view = viewRun(asking.events);
    expect(view.waiting).toEqual([asking.deeper]);
    const [pick, deeper] = questionsOf(asking.events)!.questions;
    expect(pick).toMatchObject({ id: asking.pick, answer: '0', by: 'resume' });
    expect(deeper).toMatchObject({ id: asking.deeper, question: expect.stringMatching(/^Go deeper below ".+"\?$/), preview: expect.stringContaining('"path": [') });
    expect(deeper!.answer).toBeUndefined();
  });

  it('does not count a resume that gave a waiting run its answers as a crash', () => {
    const view = viewRun(asking.events);
    expect(view.interruptions).toEqual([]);
    expect(view.summary.resumed).toBeUndefined();
  });

  it('shows the stop reason of the run.finished that ended a resumed run, not that of the wait before it', async () => {
    const store = new InMemoryEventStore();
    await askingExplorer().run('p', { store, runId: 'done' });
    await askingExplorer().resume({ store, runId: 'done', answers: { [asking.pick]: 1 } });
    await askingExplorer().resume({ store, runId: 'done', answers: { [asking.deeper]: true } });
    const view = viewRun(await readAll(store, 'done'));
    expect(view.stopReason).toBe('max_depth');
    expect(view.waiting).toBeUndefined();
    expect(view.summary.stop).toBe('max_depth');
    expect(questionsOf(await readAll(store, 'done'))!.waiting).toBe(false);
  });

  it('shows a resumed run still under way (its log ends after run.resumed) as not finished', () => {
    const upToAnswer = asking.events.slice(0, asking.events.findIndex((e) => e.type === 'run.answered') + 1);
    const view = viewRun(upToAnswer);
    expect(view.stopReason).toBeUndefined();
    expect(view.waiting).toBeUndefined();
    expect(view.summary.stop).toBe('not finished');
    expect(questionsOf(upToAnswer)!.questions[0]).toMatchObject({ answer: '0', by: 'resume' });
  });

  it('shows an answer an onAsk handler gave as given by the handler', async () => {
    const store = new InMemoryEventStore();
    await askingExplorer().run('p', { store, runId: 'handled', onAsk: (q) => (q.key === 'pick' ? 2 : false) });
    const panel = questionsOf(await readAll(store, 'handled'))!;
    expect(panel.questions.map((q) => [q.key, q.answer, q.by])).toEqual([
      ['pick', '2', 'handler'],
      ['deeper', 'false', 'handler'],
    ]);
    expect(panel.waiting).toBe(false);
  });

  it('shows no questions panel for a run that asked nothing', () => {
    expect(viewRun(asking.events.filter((e) => e.type !== 'run.asked' && e.type !== 'run.answered')).panels.some((p) => p.kind === 'questions')).toBe(false);
  });
});

describe('viewRun of a deliberation that asked a person (a log made by hand)', () => {
  let run: RecordedRun;
  beforeAll(async () => {
    run = await recordDeliberationRun();
  });

  it('shows its questions and says it waits', () => {
    const id = run.runId;
    const head = run.events.slice(0, 2);
    const events = [
      ...head,
      stored(id, 3, 'run.asked', { questionId: 'agent/critic/1#go-on', key: 'go-on', question: 'Go on to round 2?', where: { kind: 'agent', agentId: 'critic', round: 1 }, preview: { consensus: 0.4 } }),
      stored(id, 4, 'run.finished', { stopReason: 'waiting', detail: { kind: 'waiting', questions: ['agent/critic/1#go-on'] }, stats: {}, errors: [] }),
    ];
    const view = viewRun(events);
    expect(view.kind).toBe('deliberation');
    expect(view.waiting).toEqual(['agent/critic/1#go-on']);
    expect(questionsOf(events)!.questions).toEqual([{ id: 'agent/critic/1#go-on', key: 'go-on', question: 'Go on to round 2?', where: 'agent (agentId: critic, round: 1)', preview: '{\n  "consensus": 0.4\n}' }]);
  });
});

describe('viewRun of a chain of thought resumed after a wait', () => {
  it('draws no failed thought for an error the wait recorded, when the run then finished without it', async () => {
    const run = await recordChainOfThoughtRun();
    const id = run.runId;
    const last = run.events.at(-1)!;
    expect(last.type).toBe('run.finished');
    const body = run.events.slice(0, -1);
    const n = body.length;
    const events = [
      ...body,
      stored(id, n + 1, 'run.finished', { stopReason: 'waiting', detail: { kind: 'waiting', questions: ['q'] }, stats: {}, errors: [{ code: 'INVALID_FORMAT', message: 'a reply that was no thought', where: { kind: 'thought', thoughtNumber: 9 } }] }),
      stored(id, n + 2, 'run.resumed', { fromVersion: n + 1, fromSeq: n + 1 }),
      { ...last, version: n + 3 },
    ];
    const view = viewRun(events);
    expect(view.nodes.some((node) => node.status === 'failed')).toBe(false);
    expect(view.stopReason).toBe((last.data as { stopReason: string }).stopReason);
  });
});

describe('viewRun of a deliberation that asked a person between rounds', () => {
  const model: LanguageModel = { modelId: 'echo', generate: async (r) => ({ outputs: [`${r.messages.at(-1)!.content} -> ${r.tags?.agent}`], usage: { inputTokens: 10, outputTokens: 5 } }) };
  const debate = () => new Deliberation({ agents: [llmAgent({ id: 'a', model, system: 'You are a.', turn: (ctx) => `turn ${ctx.round}` }), llmAgent({ id: 'b', model, system: 'You are b.', turn: (ctx) => `turn ${ctx.round}` })], host: fixedRounds(3), askBetweenRounds: true });
  const QUESTION = 'agent/host/1#between-rounds';

  it('shows the question of a deliberation waiting after round 1, and the person\'s stop once it is resumed with it', async () => {
    const store = new InMemoryEventStore();
    await debate().run('Q?', { store, runId: 'asks' });
    const waiting = viewRun(await readAll(store, 'asks'));
    expect(waiting.kind).toBe('deliberation');
    expect(waiting.waiting).toEqual([QUESTION]);
    expect(questionsOf(await readAll(store, 'asks'))!.questions[0]).toMatchObject({ id: QUESTION, where: 'agent (agentId: host, round: 1)', preview: expect.stringContaining('"round": 1') });
    await debate().resume({ store, runId: 'asks', answers: { [QUESTION]: { action: 'stop', message: 'enough' } } });
    const stopped = await readAll(store, 'asks');
    expect(viewRun(stopped).stopReason).toBe('stopped_by_person');
    expect(viewRun(stopped).waiting).toBeUndefined();
    expect(questionsOf(stopped)!.questions[0]).toMatchObject({ answer: JSON.stringify({ action: 'stop', message: 'enough' }, null, 2), by: 'resume' });
  });
});
