import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InMemoryEventStore, type GenerateRequest, type LanguageModel } from '../../src/index.js';
import { Deliberation, llmAgent, type DeliberationAgent } from '../../src/deliberation/index.js';
import { collect } from '../helpers/collect.js';
import { catchTotError } from '../helpers/expect-tot-error.js';
import { echoModel, fixedRounds, recordingReporter } from './fixtures/scripted-debate.js';


/** An agent whose turn quotes the person's note after the last round, if there is one. */
const agent = (id: string, model: LanguageModel) =>
  llmAgent({ id, model, system: `You are ${id}.`, turn: (ctx) => `turn ${ctx.round}${ctx.history.at(-1)?.note ? ` (the person said: ${ctx.history.at(-1)!.note})` : ''}` });

const debate = (model: LanguageModel, extra: { reporter?: boolean } = {}) =>
  new Deliberation({ agents: [agent('a', model), agent('b', model)], host: fixedRounds(3), askBetweenRounds: true, parallelFirstRound: false, ...(extra.reporter ? { reporter: recordingReporter() } : {}) });

const contents = (r: Awaited<ReturnType<Deliberation['run']>>) => r.rounds.map((x) => x.outputs.map((o) => o.content));

describe('Deliberation asking a person between rounds', () => {
  it('asks after each round that does not end it, and passes the person\'s message to the next round', async () => {
    const asked: string[] = [];
    const r = await debate(echoModel()).run('Q?', {
      onAsk: (q) => {
        asked.push(q.id);
        return q.id.includes('/1#') ? { action: 'continue', message: 'focus on cost' } : { action: 'continue' };
      },
    });
    expect(asked).toEqual(['agent/host/1#between-rounds', 'agent/host/2#between-rounds']);
    expect(r.stopReason).toBe('converged');
    expect(r.rounds[0]!.note).toBe('focus on cost');
    expect(contents(r)[1]![0]).toContain('the person said: focus on cost');
  });

  it('stops with stopped_by_person when the person says stop', async () => {
    const model = echoModel();
    const r = await debate(model).run('Q?', { onAsk: () => ({ action: 'stop' }) });
    expect(r.stopReason).toBe('stopped_by_person');
    expect(r.rounds).toHaveLength(1);
    expect(model.requests).toHaveLength(2);
  });

  it('ends waiting after round 1; resumed with the answer it finishes as the run answered in process did, no model call made twice', async () => {
    const answers = { 'agent/host/1#between-rounds': { action: 'continue', message: 'be brief' }, 'agent/host/2#between-rounds': { action: 'continue' } };
    const inline = echoModel();
    const expected = await debate(inline, { reporter: true }).run('Q?', { onAsk: (q) => answers[q.id as keyof typeof answers] });

    const store = new InMemoryEventStore();
    const first = echoModel();
    const waiting = await debate(first, { reporter: true }).run('Q?', { store, runId: 'd' });
    expect(waiting.stopReason).toBe('waiting');
    expect(waiting.pending!.map((q) => q.id)).toEqual(['agent/host/1#between-rounds']);
    expect(waiting.pending![0]!.preview).toMatchObject({ round: 1, outputs: [{ agentId: 'a' }, { agentId: 'b' }] });

    const second = echoModel();
    const again = await debate(second, { reporter: true }).resume({ store, runId: 'd', answers: { 'agent/host/1#between-rounds': answers['agent/host/1#between-rounds'] } });
    expect(again.stopReason).toBe('waiting');
    expect(again.pending!.map((q) => q.id)).toEqual(['agent/host/2#between-rounds']);
    const third = echoModel();
    const done = await debate(third, { reporter: true }).resume({ store, runId: 'd', answers: { 'agent/host/2#between-rounds': answers['agent/host/2#between-rounds'] } });

    expect(done.stopReason).toBe(expected.stopReason);
    expect(contents(done)).toEqual(contents(expected));
    expect(done.rounds.map((x) => x.note)).toEqual(expected.rounds.map((x) => x.note));
    expect(first.requests.length + second.requests.length + third.requests.length).toBe(inline.requests.length);
    const log = await collect(store.readStream('d'));
    expect(log.filter((e) => e.type === 'run.asked')).toHaveLength(2);
  });

  it('refuses an answer that is neither continue nor stop, and stays waiting', async () => {
    const store = new InMemoryEventStore();
    await debate(echoModel()).run('Q?', { store, runId: 'bad' });
    const before = await collect(store.readStream('bad'));
    const error = await catchTotError(() => debate(echoModel()).resume({ store, runId: 'bad', answers: { 'agent/host/1#between-rounds': { action: 'pause' } } }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('between-rounds');
    expect(await collect(store.readStream('bad'))).toEqual(before);
  });

  it('lets an agent ask in its turn, the question named by the agent and round', async () => {
    const asker: DeliberationAgent = {
      id: 'asker',
      respond: async (ctx) => ({ content: `told ${await ctx.ask({ key: 'hint', question: 'A hint?', schema: z.string() })}` }),
    };
    const r = await new Deliberation({ agents: [asker], host: fixedRounds(1) }).run('Q?', { onAsk: (q) => `${q.id}!` });
    expect(r.rounds[0]!.outputs[0]!.content).toBe('told agent/asker/1#hint!');
  });
});
