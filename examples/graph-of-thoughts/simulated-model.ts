/**
 * A deterministic stand-in for a model on the sorting graph's prompts: it splits, sorts, merges and
 * fixes lists as asked, and gets some answers wrong (a digit dropped or doubled) as a function of
 * the prompt and the sample, so that scoring and keeping the best have something to do. For tests,
 * benchmarks and running the example without an API key.
 */
import type { GenerateRequest, GenerateResult, LanguageModel } from '@tot/core';
import { listsIn } from './recording.js';

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

const show = (list: readonly number[]) => `[${list.join(', ')}]`;
const sorted = (list: readonly number[]) => [...list].sort((a, b) => a - b);

/** A sort with a mistake in about half of the samples: one element dropped or doubled. */
function noisy(list: number[], seed: number): number[] {
  const out = sorted(list);
  if (out.length === 0 || seed % 2 === 0) return out;
  const at = (seed >>> 3) % out.length;
  if (seed % 4 === 1) out.splice(at, 1);
  else out.splice(at, 0, out[at]!);
  return out;
}

function answer(prompt: string, sample: number): string {
  const lists = listsIn(prompt);
  const seed = hash(`${prompt}#${sample}`);
  if (prompt.startsWith('Split this list')) {
    const list = lists.at(-1) ?? [];
    const half = Math.ceil(list.length / 2);
    return JSON.stringify({ 'List 1': list.slice(0, half), 'List 2': list.slice(half) });
  }
  if (prompt.startsWith('Sort this list')) return show(noisy(lists.at(-1) ?? [], seed));
  if (prompt.startsWith('Merge these')) return show(noisy(lists.slice(-2).flat(), seed));
  // The improve prompt: the input, then the incorrect sort; a fix is right three times in four.
  return `Output: ${show(seed % 4 === 0 ? noisy(lists.at(-2) ?? [], seed | 1) : sorted(lists.at(-2) ?? []))}`;
}

/** The stand-in model, answering `n` samples natively; `delayMs` per call (default 0: it answers at once). */
export function simulatedSortingModel(options: { delayMs?: number } = {}): LanguageModel & { calls: number } {
  const delayMs = options.delayMs ?? 0;
  const model = {
    modelId: 'simulated-sorting',
    capabilities: { multipleOutputs: true },
    calls: 0,
    generate(request: GenerateRequest, callOptions?: { signal?: AbortSignal }): Promise<GenerateResult> {
      model.calls += 1;
      const prompt = request.messages.at(-1)?.content ?? '';
      const result: GenerateResult = { outputs: Array.from({ length: request.n ?? 1 }, (_, i) => answer(prompt, i)), usage: { inputTokens: Math.ceil(prompt.length / 4), outputTokens: 40 * (request.n ?? 1) } };
      if (delayMs === 0) return Promise.resolve(result);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => resolve(result), delayMs);
        callOptions?.signal?.addEventListener('abort', () => (clearTimeout(timer), reject(callOptions.signal!.reason)), { once: true });
      });
    },
  };
  return model;
}
