import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseGotRecording } from '../../examples/graph-of-thoughts/recording.js';
import { replayKeywordCounting, replayRecording, replaySorting } from '../../examples/graph-of-thoughts/replay.js';
import { InMemoryEventStore } from '../../src/index.js';
import { foldGraphEvents } from '../../src/graph/index.js';
import { collect } from '../helpers/collect.js';

// The Graph-of-Thoughts paper's worked runs (BSD-style licence beside them), read where they are.
const dir = join(import.meta.dirname, '../../../shared/data/got-reference');
const file = (name: string) => join(dir, `example_prompts_${name}.md`);
const present = existsSync(file('sorting_032')) && existsSync(file('keyword_counting'));
if (!present) console.warn(`[graph replay] skipped: no recorded Graph-of-Thoughts runs in ${dir}`);
const read = (name: string) => readFileSync(file(name), 'utf8');

/** The recording with the text of one step's responses changed. */
function edited(text: string, heading: RegExp, edit: (block: string) => string): string {
  const at = text.search(heading);
  expect(at, `heading ${heading}`).toBeGreaterThan(-1);
  const open = text.indexOf('```', at);
  const close = text.indexOf('```', open + 3);
  return text.slice(0, open) + edit(text.slice(open, close)) + text.slice(close);
}

describe.runIf(present)('replaying the Graph-of-Thoughts worked runs', () => {
  it('ends the sorting-32 run in the recorded final result, every keep-the-best choosing what the next step used', async () => {
    const report = await replaySorting(parseGotRecording(read('sorting_032')));
    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(report.finalMatches).toBe(true);
    expect(report.unusedSteps).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.result.thoughts[0]!.solved).toBe(true);
    expect(report.result.stats.llmCalls).toBe(5);
  });

  it('ends the keyword-counting run in the recorded final result, every keep-the-best choosing what the next step used', async () => {
    const report = await replayKeywordCounting(parseGotRecording(read('keyword_counting')));
    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(report.checks).toHaveLength(4 + 6 + 1);
    expect(report.ok).toBe(true);
    expect(report.result.stats.llmCalls).toBe(8);
  });

  it('records the replay, and its log folds to the same graph', async () => {
    const store = new InMemoryEventStore();
    const report = await replayRecording(parseGotRecording(read('keyword_counting')), { store, runId: 'kw' });
    expect(JSON.stringify(foldGraphEvents(await collect(store.readStream('kw'))).toJSON())).toBe(JSON.stringify(report.result.graph.toJSON()));
  });

  it('reports a mismatch when a recorded sort attempt changes so that another one wins', async () => {
    // Response 1 of step 2a (the one the recording kept) gets a digit too many: response 2 now ties… and is not what step 3 merged.
    const text = edited(read('sorting_032'), /### Step 2a - 5 Responses/, (block) => block.replace('1. [0, 0, 1, 1, 1, 1, 1, 1, 2, 3, 3, 4, 5, 7, 8, 9]', '1. [0, 0, 1, 1, 1, 1, 1, 1, 2, 3, 3, 4, 5, 7, 8, 9, 9]'));
    const report = await replaySorting(parseGotRecording(text));
    expect(report.ok).toBe(false);
    expect(report.checks.find((c) => c.what.startsWith('keep the best of step 2a'))!.ok).toBe(false);
  });

  it('reports a mismatch when the final result differs from the recording', async () => {
    const text = edited(read('keyword_counting'), /### Final Result/, (block) => block.replace('"Peru": 1', '"Peru": 2'));
    const report = await replayKeywordCounting(parseGotRecording(text));
    expect(report.finalMatches).toBe(false);
    expect(report.ok).toBe(false);
  });

  it('refuses to serve a step to a request that does not carry the data the step was given', async () => {
    // The recorded split prompt now shows another list than the run's input.
    const text = edited(read('sorting_032'), /### Step 1 - Prompt/, (block) => block.replace(/Input: \[8, 7, 1, 1,/, 'Input: [7, 8, 1, 1,'));
    const report = await replaySorting(parseGotRecording(text));
    expect(report.ok).toBe(false);
    expect(report.result.errors[0]!.message).toContain('did not give the model the data step 1 was given');
  });

  it('reports a recorded step that no operation asked for', async () => {
    const text = `${read('sorting_032').replace('### Final Result', '### Step 5 - Prompt\n```\nmore\n```\n\n### Step 5 - Response\n```\n[1]\n```\n\n### Final Result')}`;
    const report = await replaySorting(parseGotRecording(text));
    expect(report.unusedSteps).toEqual(['5']);
    expect(report.ok).toBe(false);
  });
});

describe('reading a Graph-of-Thoughts recording', () => {
  const minimal = (responses: string) =>
    ['# Sorting 4 Numbers', '## Complete Example Prompts', '### Input', '```', '[2, 1]', '```', '### Step 1 - Prompt', '```', 'Sort: [2, 1]', '```', '### Step 1 - 2 Responses', '```', responses, '```', '### Final Result', '```', '[1, 2]', '```'].join('\n');

  it('reads numbered responses, each over several lines, without their indentation', () => {
    const rec = parseGotRecording(minimal('1. Reason: two numbers\n   Output: [1, 2]\n\n2. [2, 1]'));
    expect(rec.steps.get('1')!.responses).toEqual(['Reason: two numbers\nOutput: [1, 2]', '[2, 1]']);
    expect(rec.input).toBe('[2, 1]');
    expect(rec.finalResult).toBe('[1, 2]');
  });

  it('refuses a step whose heading counts more responses than it holds', () => {
    expect(() => parseGotRecording(minimal('1. [1, 2]'))).toThrow('1 responses where the heading says 2');
  });

  it('refuses a recording without a final result', () => {
    expect(() => parseGotRecording(minimal('1. [1, 2]\n2. [2, 1]').replace('### Final Result', '### Something Else'))).toThrow('no "### Final Result" section');
  });
});
