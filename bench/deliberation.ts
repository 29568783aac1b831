/**
 * Deliberation (issue #14):
 * 1. Framework overhead per round with a model that answers at once: 4 LLM agents (their memory
 *    rebuilt every round), the similarity host measuring lexically, 5 rounds (target ≤ 1 ms per
 *    round), with the default settings (round 1 at once, later rounds in turn); and with a host
 *    that decides without measuring, to separate the two; and, as a second line, with later rounds
 *    at once too (`parallelLaterRounds: true`, not the default).
 * 2. `PositionComparer` lexical over 5 agents × 5 rounds, as the host uses it (each round's matrix
 *    and every agent's self-similarity), incremental (target ≤ 2 ms for the 5 rounds).
 * 3. The embedding cache over a 5-round debate of 4 agents whose positions settle: the texts
 *    embedded per position (the figure that says what the cache saves), and the cache's look-up hit
 *    rate, which counts every look-up of every comparison (see `hitsCount`).
 * 4. Calibration of the lexical thresholds on the hand-labelled position pairs.
 *
 * npm run bench:deliberation [-- --quick]
 *
 * `--quick` is a smoke run: a few samples of each, printed and not written to bench/results.
 */
import { parseArgs } from 'node:util';
import type { Embedder, LanguageModel } from '../src/index.js';
import {
  Deliberation,
  EmbeddingCache,
  llmAgent,
  PositionComparer,
  positionText,
  similarityHost,
  type DeliberationHost,
} from '../src/deliberation/index.js';
import { benchDir, median, report } from './harness.js';
import { accuracyOf, calibrateLexical, loadPositionPairs } from './similarity-calibration.js';

const round2 = (x: number) => Math.round(x * 100) / 100;
const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
const quick = values.quick === true;
const samples = (full: number) => (quick ? Math.max(5, Math.round(full / 50)) : full);

// 1. Overhead per round.
const reasons = ['vocabulary first', 'timed essays weekly', 'mock exams every Saturday', 'speaking partner twice a week', 'listening daily', 'reading long texts'];
const instant: LanguageModel = {
  modelId: 'instant',
  // A position that moves a little each round, so the host measures real texts.
  generate: async (request) => ({ outputs: [`Plan ${request.tags?.agent} r${request.tags?.round}: ${reasons.slice(0, 2 + (Number(request.tags?.round) % 4)).join(', ')}`], usage: { inputTokens: 100, outputTokens: 40 } }),
};
const agents = () =>
  ['planner', 'critic', 'tester', 'decider'].map((id) =>
    llmAgent({
      id,
      model: instant,
      system: `You are the ${id}.`,
      turn: (ctx) => (ctx.round === 1 ? ctx.query : `Round ${ctx.round}. Others: ${ctx.history.at(-1)!.outputs.map((o) => o.content).join(' | ')}`),
      parse: (text) => ({ content: text, position: { conclusion: text.split(':')[0]!, keyReasons: text.split(': ')[1]!.split(', '), assumptions: [], confidence: 0.7 } }),
    }),
  );
const keepGoing: DeliberationHost = { decide: (ctx) => ({ action: 'continue', reason: '', nextAgents: [...ctx.agents], constraints: { mustAddress: [], avoid: [] }, directives: [] }) };

/** Median microseconds per round (the first fifth of the runs, the warm-up, left out); `settings` on top of the defaults. */
async function perRoundMicros(host: () => DeliberationHost, runs: number, settings: { parallelLaterRounds?: boolean } = {}): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const d = new Deliberation({ agents: agents(), host: host(), maxRounds: 5, ...settings });
    const started = performance.now();
    const r = await d.run('Plan three months of IELTS preparation');
    times.push(((performance.now() - started) * 1000) / r.rounds.length);
  }
  return round2(median(times.slice(Math.floor(runs / 5))));
}
// The default settings: round 1's agents at once, later rounds in turn.
const similarityRound = await perRoundMicros(() => similarityHost({ plateau: false }), samples(300));
const plainRound = await perRoundMicros(() => keepGoing, samples(300));
// Not the default: later rounds at once too.
const similarityRoundParallel = await perRoundMicros(() => similarityHost({ plateau: false }), samples(300), { parallelLaterRounds: true });

// 2. The comparer, lexical, 5 agents × 5 rounds.
const texts = (r: number) => Array.from({ length: 5 }, (_, a) => `Agent ${a} conclusion for round ${Math.min(r, 3)}: ${reasons.slice(a % 3, (a % 3) + 3).join('\n')}${r > a ? ' with weekly reviews' : ''}`);
async function lexicalFiveByFive(): Promise<number> {
  const comparer = new PositionComparer();
  const started = performance.now();
  for (let r = 1; r <= 5; r++) {
    await comparer.compare(texts(r));
    if (r > 1) for (let a = 0; a < 5; a++) await comparer.similarity(texts(r - 1)[a]!, texts(r)[a]!);
  }
  return performance.now() - started;
}
const lexicalSamples: number[] = [];
for (let i = 0; i < samples(500); i++) lexicalSamples.push(await lexicalFiveByFive());

// 3. Embedding cache hit rate over a 5-round debate whose positions settle after round 3.
const embedded: string[] = [];
const hashing: Embedder = {
  id: 'hashing-64',
  embed: async (batch) => {
    embedded.push(...batch);
    return batch.map((t) => {
      const v = new Array<number>(64).fill(0);
      for (const w of t.toLowerCase().split(/\W+/)) if (w) v[[...w].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7) % 64]! += 1;
      return v;
    });
  },
};
const cache = new EmbeddingCache();
const settling: LanguageModel = {
  modelId: 'settling',
  generate: async (request) => ({ outputs: [`Plan ${request.tags?.agent} v${Math.min(Number(request.tags?.round), 3)}: ${reasons.slice(0, 3).join(', ')}`], usage: {} }),
};
const debate = new Deliberation({
  agents: ['planner', 'critic', 'tester', 'decider'].map((id) =>
    llmAgent({ id, model: settling, turn: (ctx) => `round ${ctx.round}`, parse: (text) => ({ content: text, position: { conclusion: text.split(':')[0]!, keyReasons: text.split(': ')[1]!.split(', '), assumptions: [], confidence: 0.7 } }) }),
  ),
  host: similarityHost({ embedder: hashing, cache, stubborn: { selfSimilarity: 0.999, rounds: 5 }, plateau: false, thresholds: { converge: 1 } }),
  maxRounds: 5,
});
const cached = await debate.run('Plan three months of IELTS preparation');
const cacheStats = cache.stats();
// What the host compares of each position (similarity-host.ts): its conclusion and key reasons.
const positionTexts = cached.rounds.flatMap((r) => r.outputs.flatMap((o) => (o.position ? [positionText({ conclusion: o.position.conclusion, key_reasons: o.position.keyReasons })] : [])));

// 4. Calibration, and its baseline: the same grid search on the labels shuffled (seeded), 200 times.
const pairs = loadPositionPairs(`${benchDir}/fixtures/position-pairs.json`);
const calibration = calibrateLexical(pairs);
let seed = 14;
const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
const shuffled: number[] = [];
for (let i = 0; i < samples(200); i++) {
  const labels = pairs.map((p) => p.label);
  for (let j = labels.length - 1; j > 0; j--) {
    const k = Math.floor(random() * (j + 1));
    [labels[j], labels[k]] = [labels[k]!, labels[j]!];
  }
  shuffled.push(calibrateLexical(pairs.map((p, j) => ({ ...p, label: labels[j]! }))).accuracy);
}
const shipped = { converge: 0.9, continue: 0 };

const figures = {
  overhead: {
    agents: 4,
    rounds: 5,
    settings: 'defaults: round 1 at once, later rounds in turn',
    medianMicrosPerRoundSimilarityHost: similarityRound,
    medianMicrosPerRoundPlainHost: plainRound,
    medianMicrosPerRoundSimilarityHostParallelLaterRounds: similarityRoundParallel,
    targetMicros: 1000,
  },
  lexicalCompare: { agents: 5, rounds: 5, medianMsTotal: round2(median(lexicalSamples)), targetMs: 2 },
  embeddingCache: {
    rounds: cached.rounds.length,
    positions: positionTexts.length,
    distinctPositionTexts: new Set(positionTexts).size,
    textsEmbedded: embedded.length,
    // The primary figure: what the embedder was asked for, per position the host compared (1
    // without a cache; at best distinctPositionTexts / positions).
    textsEmbeddedPerPosition: round2(embedded.length / positionTexts.length),
    hits: cacheStats.hits,
    misses: cacheStats.misses,
    hitRate: round2(cacheStats.hitRate),
    hitsCount:
      "every look-up of a text's vector: each round's matrix looks up every position, and each agent's self-similarity looks up its previous and its current position again, so most hits are vectors fetched earlier in the same round, not embeddings saved",
  },
  lexicalCalibration: {
    ...calibration,
    shuffledLabels: { runs: shuffled.length, medianAccuracy: round2(median(shuffled)), shareAtLeastAsGood: round2(shuffled.filter((a) => a >= calibration.accuracy).length / shuffled.length) },
    shipped: { thresholds: shipped, accuracy: accuracyOf(pairs, shipped) },
    firstGuess: { thresholds: { converge: 0.6, continue: 0.3 }, accuracy: accuracyOf(pairs, { converge: 0.6, continue: 0.3 }) },
  },
};
// A smoke run is no measurement: printed, never written over the results.
if (quick) console.log(JSON.stringify({ benchmark: 'deliberation', quick: true, ...figures }, null, 2));
else report('deliberation', figures);
