/**
 * Deliberation (issue #14):
 * 1. Framework overhead per round with a model that answers at once: 4 LLM agents (their memory
 *    rebuilt every round), the similarity host measuring lexically, 5 rounds (target ≤ 1 ms per
 *    round); and with a host that decides without measuring, to separate the two.
 * 2. `PositionComparer` lexical over 5 agents × 5 rounds, as the host uses it (each round's matrix
 *    and every agent's self-similarity), incremental (target ≤ 2 ms for the 5 rounds).
 * 3. The embedding cache over a 5-round debate of 4 agents whose positions settle: hit rate and
 *    texts embedded.
 * 4. Calibration of the lexical thresholds on the hand-labelled position pairs.
 *
 * npm run bench:deliberation
 */
import {
  Deliberation,
  EmbeddingCache,
  llmAgent,
  PositionComparer,
  similarityHost,
  type DeliberationHost,
  type Embedder,
  type LanguageModel,
} from '../src/index.js';
import { benchDir, median, report } from './harness.js';
import { accuracyOf, calibrateLexical, loadPositionPairs } from './similarity-calibration.js';

const round2 = (x: number) => Math.round(x * 100) / 100;

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

async function perRoundMicros(host: () => DeliberationHost, runs: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const d = new Deliberation({ agents: agents(), host: host(), maxRounds: 5, parallelLaterRounds: true });
    const started = performance.now();
    const r = await d.run('Plan three months of IELTS preparation');
    samples.push(((performance.now() - started) * 1000) / r.rounds.length);
  }
  return round2(median(samples.slice(Math.floor(runs / 5))));
}
const similarityRound = await perRoundMicros(() => similarityHost({ plateau: false }), 300);
const plainRound = await perRoundMicros(() => keepGoing, 300);

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
for (let i = 0; i < 500; i++) lexicalSamples.push(await lexicalFiveByFive());

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

// 4. Calibration, and its baseline: the same grid search on the labels shuffled (seeded), 200 times.
const pairs = loadPositionPairs(`${benchDir}/fixtures/position-pairs.json`);
const calibration = calibrateLexical(pairs);
let seed = 14;
const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
const shuffled: number[] = [];
for (let i = 0; i < 200; i++) {
  const labels = pairs.map((p) => p.label);
  for (let j = labels.length - 1; j > 0; j--) {
    const k = Math.floor(random() * (j + 1));
    [labels[j], labels[k]] = [labels[k]!, labels[j]!];
  }
  shuffled.push(calibrateLexical(pairs.map((p, j) => ({ ...p, label: labels[j]! }))).accuracy);
}
const shipped = { converge: 0.9, continue: 0 };

report('deliberation', {
  overhead: {
    agents: 4,
    rounds: 5,
    medianMicrosPerRoundSimilarityHost: similarityRound,
    medianMicrosPerRoundPlainHost: plainRound,
    targetMicros: 1000,
  },
  lexicalCompare: { agents: 5, rounds: 5, medianMsTotal: round2(median(lexicalSamples)), targetMs: 2 },
  embeddingCache: {
    rounds: cached.rounds.length,
    positions: cached.rounds.reduce((n, r) => n + r.outputs.length, 0),
    textsEmbedded: embedded.length,
    hits: cacheStats.hits,
    misses: cacheStats.misses,
    hitRate: round2(cacheStats.hitRate),
  },
  lexicalCalibration: {
    ...calibration,
    shuffledLabels: { runs: shuffled.length, medianAccuracy: round2(median(shuffled)), shareAtLeastAsGood: round2(shuffled.filter((a) => a >= calibration.accuracy).length / shuffled.length) },
    shipped: { thresholds: shipped, accuracy: accuracyOf(pairs, shipped) },
    firstGuess: { thresholds: { converge: 0.6, continue: 0.3 }, accuracy: accuracyOf(pairs, { converge: 0.6, continue: 0.3 }) },
  },
});
