import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { fnSchema, parseOptions } from '../internal/validate.js';
import type { Embedder } from '../model/embedder.js';
import type { DeliberationHost, HostContext } from './participant.js';
import { EmbeddingCache, PositionComparer, positionText } from './similarity/index.js';
import type { AgentDirective, AgentOutput, ConsensusAnalysis, HostDecision } from './types.js';

/**
 * Consensus thresholds of one similarity measure: above `converge` the agents
 * converge; above `continue` they continue with focus points; at or below it the host forces
 * opposition. The inequalities are the protocol's: a mean of exactly `converge` (0.90) continues, one
 * of exactly `continue` (0.70) forces opposition. Means are compared rounded to 9 decimals, so
 * floating-point noise does not cross a threshold.
 *
 * @example
 * ```ts
 * import type { ConsensusThresholds } from '@tot/core/deliberation';
 *
 * const seed: ConsensusThresholds = { converge: 0.9, continue: 0.7 };
 * ```
 */
export interface ConsensusThresholds {
  /** Mean similarity above which the agents converge. */
  converge: number;
  /** Mean similarity above which they continue (at or below: force opposition). */
  continue: number;
}

/**
 * Options of {@link similarityHost}.
 *
 * @example
 * ```ts
 * import type { SimilarityHostOptions } from '@tot/core/deliberation';
 *
 * const options: SimilarityHostOptions = { embedder, thresholds: { converge: 0.9, continue: 0.7 }, stubborn: { selfSimilarity: 0.98, rounds: 2 } };
 * ```
 */
export interface SimilarityHostOptions {
  /** Turns positions into vectors. Default none: the lexical measure (TF-IDF cosine) answers. */
  embedder?: Embedder;
  /** Shared embedding cache (by embedder id and text). Default: one per host. */
  cache?: EmbeddingCache;
  /** Thresholds for embedding similarity. Default the protocol's `{ converge: 0.9, continue: 0.7 }`. */
  thresholds?: Partial<ConsensusThresholds>;
  /**
   * Thresholds for the lexical measure (no embedder, or it failed). Default `{ converge: 0.9,
   * continue: 0 }`: TF-IDF does not tell paraphrased agreement from disagreement on the same topic
   * (on the library's labelled calibration set it labels no better than chance), so without an
   * embedder the host converges only on near-identical positions and forces opposition only on
   * positions with no term in common; otherwise it continues, and a plateau or the round limit
   * ends the debate. See docs/deliberation.md ("Thresholds per backend").
   */
  lexicalThresholds?: Partial<ConsensusThresholds>;
  /** An agent whose position's similarity to its previous one exceeds `selfSimilarity` for `rounds` rounds in a row is ordered to move. Default `{ selfSimilarity: 0.98, rounds: 2 }`; `false` turns it off. */
  stubborn?: { selfSimilarity?: number; rounds?: number } | false;
  /** Converge early when consensus moved by at most `epsilon` over `rounds` rounds. Default `{ rounds: 2, epsilon: 0.02 }`; `false` turns it off. */
  plateau?: { rounds?: number; epsilon?: number } | false;
  /** Who plays devil's advocate on low consensus. Default: of the least similar pair, the more confident agent. */
  oppositionTarget?: string | ((ctx: HostContext, analysis: ConsensusAnalysis) => string);
  /** Focus points for a `continue`. Default: the round's critiques' issues and risks, then the least similar pair's unshared reasons (3 at most). */
  focus?: (ctx: HostContext, analysis: ConsensusAnalysis) => string[];
}

const thresholds = z.strictObject({ converge: z.number().min(-1).max(1).optional(), continue: z.number().min(-1).max(1).optional() });
const optionsSchema = z.strictObject({
  embedder: z.custom<Embedder>((v) => typeof v === 'object' && v !== null && typeof (v as Embedder).id === 'string' && typeof (v as Embedder).embed === 'function', 'expected an Embedder ({ id, embed })').optional(),
  cache: z.instanceof(EmbeddingCache).optional(),
  thresholds: thresholds.optional(),
  lexicalThresholds: thresholds.optional(),
  stubborn: z.union([z.literal(false), z.strictObject({ selfSimilarity: z.number().min(0).max(1).default(0.98), rounds: z.number().int().min(1).max(20).default(2) })]).default({ selfSimilarity: 0.98, rounds: 2 }),
  plateau: z.union([z.literal(false), z.strictObject({ rounds: z.number().int().min(1).max(20).default(2), epsilon: z.number().min(0).max(1).default(0.02) })]).default({ rounds: 2, epsilon: 0.02 }),
  oppositionTarget: z.union([z.string(), fnSchema<(ctx: HostContext, analysis: ConsensusAnalysis) => string>()]).optional(),
  focus: fnSchema<(ctx: HostContext, analysis: ConsensusAnalysis) => string[]>().optional(),
});

/**
 * The protocol's requirements, in the words the similarity host gives agents.
 *
 * @example
 * ```ts
 * import { HOST_REQUIREMENTS } from '@tot/core/deliberation';
 *
 * const isUpdateCommand = (requirement: string) => requirement === HOST_REQUIREMENTS.updateCommand;
 * ```
 */
export const HOST_REQUIREMENTS = Object.freeze({
  converge: 'List the remaining uncertainties and the worst cases.',
  forceOpposition: 'Argue only from the opposing side, without citing earlier points.',
  updateCommand: "Do at least one of these: revise a key assumption, lower your confidence, or point out a flaw in the other side's logic.",
  avoid: 'repeating earlier arguments',
});

const round3 = (x: number) => Math.round(x * 1000) / 1000;
/**
 * A similarity as the rules compare it: rounded to 9 decimals, so that floating-point noise never
 * crosses a threshold (two vectors at cosine 0.9 may measure 0.9000000000000001, which the protocol's
 * "> 0.90" would otherwise call a consensus).
 */
const settled = (x: number) => Math.round(x * 1e9) / 1e9;
/**
 * `x` with two decimals, or more when two would put it on the other side of one of `limits` (so
 * that a reason never reads "0.90 > 0.9").
 */
function shown(x: number, limits: readonly number[]): string {
  for (let digits = 2; digits < 9; digits++) {
    const text = x.toFixed(digits);
    if (limits.every((t) => Number(text) > t === x > t)) return text;
  }
  return String(x);
}
const textOf = (o: AgentOutput) => (o.position ? positionText({ conclusion: o.position.conclusion, key_reasons: o.position.keyReasons }) : o.content);

function critiquePoints(outputs: readonly AgentOutput[]): string[] {
  const points: string[] = [];
  for (const o of outputs) {
    const critique = o.metadata.critique as { suggestions?: { issue?: unknown; priority?: unknown }[]; risks?: { risk?: unknown; severity?: unknown }[] } | undefined;
    if (!critique || typeof critique !== 'object') continue;
    const rank = (p: unknown) => (p === 'high' ? 0 : p === 'medium' ? 1 : 2);
    const suggestions = Array.isArray(critique.suggestions) ? [...critique.suggestions].sort((a, b) => rank(a?.priority) - rank(b?.priority)) : [];
    for (const s of suggestions) if (typeof s?.issue === 'string') points.push(s.issue);
    const risks = Array.isArray(critique.risks) ? [...critique.risks].sort((a, b) => rank(a?.severity) - rank(b?.severity)) : [];
    for (const r of risks) if (typeof r?.risk === 'string') points.push(r.risk);
  }
  return points;
}

/**
 * The protocol's host: after each round it compares the agents' positions
 * (`comparePositions`: an embedder's cosine, or TF-IDF cosine of conclusion and key reasons when
 * there is no embedder or it fails — recorded as `fallback: 'lexical'`) and decides, in this
 * order: mean similarity above `converge` → converge (the reporter summarises); an agent that
 * repeats itself (self-similarity above 0.98 for 2 rounds) → `update_command` with the protocol's
 * requirement; consensus that stopped moving (plateau) → converge; at or below `continue` →
 * force opposition (a devil's advocate); otherwise continue with focus points and constraints.
 * Only new positions are embedded; pairs already measured are reused.
 *
 * @example
 * ```ts
 * import { Deliberation, similarityHost } from '@tot/core/deliberation';
 *
 * const host = similarityHost({ embedder, thresholds: { converge: 0.9, continue: 0.7 } });
 * const d = new Deliberation({ agents, host, reporter: reporter({ model }) });
 * ```
 */
export function similarityHost(options: SimilarityHostOptions = {}): DeliberationHost & { readonly comparer: PositionComparer } {
  const o = parseOptions(optionsSchema, options, 'similarityHost');
  const comparer = new PositionComparer({ ...(o.embedder ? { embedder: o.embedder } : {}), ...(o.cache ? { cache: o.cache } : {}) });
  const embedding: ConsensusThresholds = { converge: o.thresholds?.converge ?? 0.9, continue: o.thresholds?.continue ?? 0.7 };
  const lexical: ConsensusThresholds = { converge: o.lexicalThresholds?.converge ?? 0.9, continue: o.lexicalThresholds?.continue ?? 0 };
  for (const [field, t] of [['thresholds', embedding], ['lexicalThresholds', lexical]] as const) {
    if (t.continue >= t.converge) {
      throw new TotError('INVALID_ARGUMENT', `similarityHost: options.${field}: continue (${t.continue}) must be below converge (${t.converge}), or one of the decisions can never be taken.`, { details: { field: `options.${field}` } });
    }
  }
  const targetOption = o.oppositionTarget as SimilarityHostOptions['oppositionTarget'];
  const focusOption = o.focus as SimilarityHostOptions['focus'];

  /** Each agent's outputs that were not stale, by round. */
  const freshBy = (ctx: HostContext, agentId: string): Map<number, AgentOutput> => {
    const by = new Map<number, AgentOutput>();
    for (const r of ctx.history) for (const out of r.outputs) if (out.agentId === agentId && !out.stale) by.set(r.round, out);
    for (const out of ctx.outputs) if (out.agentId === agentId && !out.stale) by.set(ctx.round, out);
    return by;
  };

  return Object.freeze({
    id: 'host',
    comparer,
    async decide(ctx: HostContext, { signal }: { signal: AbortSignal }): Promise<HostDecision> {
      const outputs = ctx.outputs;
      const everyone = [...ctx.agents];
      const remaining = ctx.maxRounds - ctx.round;
      // One position agrees with itself: that is no consensus, so nothing is measured.
      if (outputs.length < 2) {
        return { action: 'continue', reason: outputs.length === 0 ? 'no agent gave a position this round' : 'only one position this round: nothing to compare', nextAgents: everyone, constraints: { mustAddress: [], avoid: [] }, directives: [] };
      }
      const comparison = await comparer.compare(outputs.map(textOf), { signal });
      const backend = comparison.backend;
      const limits = backend === 'embedding' ? embedding : lexical;
      const ids = outputs.map((x) => x.agentId);

      // Self-similarity: each agent's position against its own previous one, round by round.
      const selfSimilarity: Record<string, number> = {};
      const stubbornAgents: string[] = [];
      if (o.stubborn !== false) {
        for (const id of new Set(ids)) {
          const by = freshBy(ctx, id);
          let streak = 0;
          for (let r = ctx.round; r > 1 && streak < o.stubborn.rounds; r--) {
            const now = by.get(r);
            const before = by.get(r - 1);
            if (!now || !before) break;
            const { similarity } = await comparer.similarity(textOf(before), textOf(now), { signal });
            if (r === ctx.round) selfSimilarity[id] = round3(similarity);
            if (settled(similarity) > o.stubborn.selfSimilarity) streak += 1;
            else break;
          }
          if (streak >= o.stubborn.rounds) stubbornAgents.push(id);
        }
      }

      const pair = comparison.mostDifferentPair;
      const analysis: ConsensusAnalysis = {
        consensusLevel: round3(comparison.meanSimilarity),
        similarityMatrix: comparison.similarityMatrix.map((row) => row.map(round3)),
        ...(pair ? { mostDifferentPair: [ids[pair[0]]!, ids[pair[1]]!] as [string, string] } : {}),
        stubbornAgents,
        selfSimilarity,
        backend,
        ...(comparison.fallback ? { fallback: comparison.fallback } : {}),
        ...(comparison.fallbackError ? { fallbackError: comparison.fallbackError } : {}),
      };
      // Decided on the measured value (floating-point noise aside: seed 001 §5's "> 0.90" and
      // "<= 0.70" hold at the thresholds exactly); the analysis shows it rounded to 3 decimals.
      const level = settled(comparison.meanSimilarity);
      const measured = `${backend === 'embedding' ? 'similarity' : 'lexical similarity'} ${shown(level, [limits.converge, limits.continue])}`;
      const decision = (action: HostDecision['action'], reason: string, rest: Partial<HostDecision> = {}): HostDecision => ({
        action,
        reason,
        nextAgents: action === 'converge' || action === 'terminate' ? [] : everyone,
        constraints: { mustAddress: [], avoid: [] },
        directives: [],
        analysis,
        ...rest,
      });

      if (level > limits.converge) {
        return decision('converge', `${measured} > ${limits.converge}: converging`, { metadata: { instructions: { to_all_agents: HOST_REQUIREMENTS.converge, next_step: 'reporter_summary' } } });
      }
      if (stubbornAgents.length > 0) {
        const directives: AgentDirective[] = stubbornAgents.map((agentId) => ({
          agentId,
          requirement: HOST_REQUIREMENTS.updateCommand,
          reason: `self-similarity above ${o.stubborn === false ? '' : o.stubborn.selfSimilarity} for ${o.stubborn === false ? '' : o.stubborn.rounds} rounds in a row`,
        }));
        return decision('update_command', `${stubbornAgents.join(', ')} repeated ${stubbornAgents.length === 1 ? 'its' : 'their'} position; ${measured}`, {
          directives,
          constraints: { mustAddress: [], avoid: [HOST_REQUIREMENTS.avoid] },
        });
      }
      // A plateau ends a debate that is partly agreed; one stuck at low consensus goes on to
      // forced opposition, and the round limit then ends it with the divergent report.
      if (o.plateau !== false && level > limits.continue) {
        const trend = [...ctx.consensusTrend, analysis.consensusLevel];
        const window = trend.slice(-(o.plateau.rounds + 1));
        if (window.length === o.plateau.rounds + 1 && Math.max(...window) - Math.min(...window) <= o.plateau.epsilon) {
          return decision('converge', `consensus stayed within ${o.plateau.epsilon} for ${o.plateau.rounds} rounds (${measured}): converging early`, { plateau: true });
        }
      }
      if (level <= limits.continue) {
        const target = typeof targetOption === 'string' ? targetOption : typeof targetOption === 'function' ? targetOption(ctx, analysis) : defaultTarget(outputs, pair);
        return decision('force_opposition', `${measured} <= ${limits.continue}: forcing opposition`, {
          directives: [{ agentId: target, role: 'devils_advocate', requirement: HOST_REQUIREMENTS.forceOpposition }],
          metadata: { instructions: { role: 'devils_advocate', requirement: HOST_REQUIREMENTS.forceOpposition, target } },
        });
      }
      const focus = (focusOption ? focusOption(ctx, analysis) : defaultFocus(outputs, pair)).slice(0, 3);
      return decision('continue', `${limits.continue} < ${measured} <= ${limits.converge}: continuing`, {
        constraints: { mustAddress: focus, avoid: [HOST_REQUIREMENTS.avoid] },
        metadata: { instructions: { to_agents: everyone, focus_on: focus, rounds_remaining: remaining } },
      });
    },
  });
}

function defaultTarget(outputs: readonly AgentOutput[], pair: [number, number] | null): string {
  if (!pair) return outputs[0]!.agentId;
  const [a, b] = [outputs[pair[0]]!, outputs[pair[1]]!];
  return (b.position?.confidence ?? 0) > (a.position?.confidence ?? 0) ? b.agentId : a.agentId;
}

function defaultFocus(outputs: readonly AgentOutput[], pair: [number, number] | null): string[] {
  const points = critiquePoints(outputs);
  if (pair) {
    const [a, b] = [outputs[pair[0]]!, outputs[pair[1]]!];
    const norm = (s: string) => s.toLowerCase().trim();
    const ra = new Set((a.position?.keyReasons ?? []).map(norm));
    const rb = new Set((b.position?.keyReasons ?? []).map(norm));
    for (const r of a.position?.keyReasons ?? []) if (!rb.has(norm(r))) points.push(r);
    for (const r of b.position?.keyReasons ?? []) if (!ra.has(norm(r))) points.push(r);
  }
  return [...new Set(points)];
}
