import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { callModel, generateStructured, type LanguageModel } from '../../src/index.js';
import { mockModel, recordCassette, replayCassette, type CassetteFile } from '../../src/testing/index.js';
import { ask, catchTotError, delay } from '../helpers/expect-tot-error.js';
import { settlesWithin } from '../helpers/settles-within.js';

const tmp = () => join(mkdtempSync(join(tmpdir(), 'tot-cassette-')), 'nested', 'cassette.json');

describe('cassettes', () => {
  it('records every request and result to a JSON file', async () => {
    const file = tmp();
    const recorder = recordCassette(mockModel(['one', 'two'], { modelId: 'gpt-test' }), file);
    await callModel(recorder, ask('first', { temperature: 0 }));
    await callModel(recorder, ask('second'));
    await recorder.flush();
    const cassette = JSON.parse(readFileSync(file, 'utf8')) as CassetteFile;
    expect(cassette.version).toBe(1);
    expect(cassette.modelId).toBe('gpt-test');
    expect(cassette.interactions.map((i) => [i.request.messages[0]!.content, i.result.outputs[0]])).toEqual([
      ['first', 'one'],
      ['second', 'two'],
    ]);
    expect(recorder.size).toBe(2);
  });

  it('replays recorded results offline, matching requests by content', async () => {
    const file = tmp();
    const recorder = recordCassette(mockModel((r) => `echo ${r.messages[0]!.content}`, { modelId: 'm' }), { file });
    await callModel(recorder, ask('a'));
    await callModel(recorder, ask('b', { tags: { role: 'x' } }));
    await recorder.flush();

    const player = replayCassette(file);
    expect(player.modelId).toBe('m');
    expect((await callModel(player, ask('b'))).outputs).toEqual(['echo b']);
    expect((await callModel(player, ask('a'))).outputs).toEqual(['echo a']);
    expect(player.served).toBe(2);
    expect(player.unused()).toEqual([]);
  });

  it('serves repeated identical requests in recorded order, each recording once', async () => {
    const file = tmp();
    const recorder = recordCassette(mockModel(['s1', 's2']), file);
    await callModel(recorder, ask('same', { temperature: 1 }));
    await callModel(recorder, ask('same', { temperature: 1 }));
    await recorder.flush();
    const player = replayCassette(file);
    const outputs = [];
    for (let i = 0; i < 2; i++) outputs.push((await callModel(player, ask('same', { temperature: 1 }))).outputs[0]);
    expect(outputs).toEqual(['s1', 's2']);
    expect(player.unused()).toEqual([]);
  });

  it('fails an identical request made more times than it was recorded, like an unrecorded one', async () => {
    const file = tmp();
    const recorder = recordCassette(mockModel('only'), file);
    await callModel(recorder, ask('same'));
    await recorder.flush();
    const player = replayCassette(file);
    expect((await callModel(player, ask('same'))).outputs).toEqual(['only']);
    for (let i = 0; i < 3; i++) {
      const error = await catchTotError(() => callModel(player, ask('same')), 'GENERATION_FAILED');
      expect(error.recoverable).toBe(false);
      expect(error.message).toContain('has no recording of this request left: its 1 recording was already served');
    }
    expect(player.served).toBe(1);
  });

  it('replays emulated n > 1 samples one by one', async () => {
    const file = tmp();
    const recorder = recordCassette(mockModel((_r, { callIndex }) => `sample ${callIndex}`), file);
    const recorded = await callModel(recorder, ask('q', { n: 3 }));
    await recorder.flush();
    expect((await callModel(replayCassette(file), ask('q', { n: 3 }))).outputs).toEqual(recorded.outputs);
  });

  it('fails loudly on a request it has never seen, showing where it differs', async () => {
    const file = tmp();
    const recorder = recordCassette(mockModel('x'), file);
    await callModel(recorder, ask('Evaluate if 10 14 can reach 24'));
    await recorder.flush();
    const error = await catchTotError(() => callModel(replayCassette(file), ask('Evaluate if 10 15 can reach 24')), 'GENERATION_FAILED');
    expect(error.recoverable).toBe(false);
    expect(error.message).toContain('has no recording of this request');
    expect(error.message).toContain('[user] Evaluate if 10 15 can reach 24');
    expect(error.message).toContain('first differs in message 1 at character 17');
  });

  it('says when only the settings differ', async () => {
    const file = tmp();
    const recorder = recordCassette(mockModel('x'), file);
    await callModel(recorder, ask('q', { temperature: 0 }));
    await recorder.flush();
    const error = await catchTotError(() => callModel(replayCassette(file), ask('q', { temperature: 0.7 })), 'GENERATION_FAILED');
    expect(error.message).toContain('same messages but other settings');
  });

  it('makes a recorded structured-output flow, repairs included, replayable', async () => {
    const file = tmp();
    const schema = z.object({ score: z.number() });
    const recorder = recordCassette(mockModel(['garbage', '{"score": 4}']), file);
    const live = await generateStructured(recorder, { prompt: 'Rate', schema });
    await recorder.flush();
    const replayed = await generateStructured(replayCassette(file), { prompt: 'Rate', schema });
    expect(replayed).toEqual(live);
  });

  it('rejects a missing or invalid cassette file', async () => {
    await catchTotError(() => replayCassette('/nonexistent/cassette.json'), 'INVALID_ARGUMENT');
    const file = tmp().replace('nested/', '');
    writeFileSync(file, '{"version": 2}');
    await catchTotError(() => replayCassette(file), 'INVALID_FORMAT');
  });

  it('ends an aborted call at once, even if the model ignores the signal, and does not record it', async () => {
    const file = tmp();
    let calls = 0;
    const deaf: LanguageModel = { modelId: 'deaf', generate: () => ((calls += 1), new Promise<never>(() => undefined)) };
    const recorder = recordCassette(deaf, file);
    const controller = new AbortController();
    const pending = recorder.generate(ask('a'), { signal: controller.signal });
    await delay(1);
    expect(calls).toBe(1);
    controller.abort();
    await catchTotError(() => settlesWithin(pending), 'ABORTED');
    expect(recorder.size).toBe(0);
  });

  it('does not record a malformed result, which a replay could not load', async () => {
    const file = tmp();
    const recorder = recordCassette(mockModel([{ outputs: ['x'], usage: { inputTokens: -1 } }, 'ok']), file);
    await catchTotError(() => callModel(recorder, ask('a')), 'GENERATION_FAILED');
    await callModel(recorder, ask('b'));
    await recorder.flush();
    expect(recorder.size).toBe(1);
    expect((await callModel(replayCassette(file), ask('b'))).outputs).toEqual(['ok']);
  });

  it('does not record failed calls', async () => {
    const file = tmp();
    const recorder = recordCassette(mockModel([new Error('down'), 'ok']), file);
    await callModel(recorder, ask('a')).catch(() => undefined);
    await callModel(recorder, ask('a'));
    await recorder.flush();
    expect((JSON.parse(readFileSync(file, 'utf8')) as CassetteFile).interactions).toHaveLength(1);
  });
});
