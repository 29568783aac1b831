import { describe, expect, it } from 'vitest';
import type { Embedder } from '../../src/index.js';
import { Deliberation, HOST_REQUIREMENTS, similarityHost, type DeliberationAgent } from '../../src/deliberation/index.js';
import { angleEmbedder, recordingReporter, scriptedAgent, similar } from './fixtures/scripted-debate.js';

/** Two scripted agents, a similarity host on chosen angles, and a recording reporter. */
function debate(agents: DeliberationAgent[], embedder: Embedder, options: { maxRounds?: number; host?: Parameters<typeof similarityHost>[0] } = {}) {
  const reporter = recordingReporter();
  const d = new Deliberation({ agents, host: similarityHost({ embedder, ...options.host }), reporter, maxRounds: options.maxRounds ?? 5 });
  return { d, reporter };
}

describe('similarityHost: the seed\'s decision rules (seed 001 §5)', () => {
  it('converges above 0.90 and has the reporter summarise', async () => {
    const { d, reporter } = debate([scriptedAgent('planner', ['A']), scriptedAgent('critic', ['B'])], angleEmbedder({ A: 0, B: similar(0, 0.95) }));
    const r = await d.run('plan');
    expect(r.stopReason).toBe('converged');
    expect(r.rounds).toHaveLength(1);
    expect(r.rounds[0]!.hostDecision).toMatchObject({ action: 'converge', nextAgents: [], analysis: { consensusLevel: 0.95, backend: 'embedding', mostDifferentPair: ['planner', 'critic'] } });
    expect(r.rounds[0]!.hostDecision!.metadata).toEqual({ instructions: { to_all_agents: HOST_REQUIREMENTS.converge, next_step: 'reporter_summary' } });
    expect(reporter.calls).toHaveLength(1);
    expect(reporter.calls[0]!.divergent).toBe(false);
    expect(r.finalReport?.content).toBe('agreed: A / B');
    expect(r.consensusTrend).toEqual([0.95]);
  });

  it('continues between 0.70 and 0.90 with focus points the next round must address', async () => {
    const critique = { critique: { suggestions: [{ issue: 'writing practice', solution: 'two timed essays a week', priority: 'high' }], risks: [{ risk: 'too few mock exams', severity: 'medium' }] } };
    const planner = scriptedAgent('planner', ['A', 'A2']);
    const critic = scriptedAgent('critic', ['B', 'B2'], () => ({ metadata: critique }));
    const { d } = debate([planner, critic], angleEmbedder({ A: 0, B: similar(0, 0.8), A2: 1, B2: similar(1, 0.95) }));
    const r = await d.run('plan');
    const first = r.rounds[0]!.hostDecision!;
    expect(first.action).toBe('continue');
    expect(first.nextAgents).toEqual(['planner', 'critic']);
    expect(first.constraints.mustAddress).toEqual(['writing practice', 'too few mock exams']);
    expect(first.constraints.avoid).toEqual([HOST_REQUIREMENTS.avoid]);
    expect(first.metadata).toMatchObject({ instructions: { focus_on: ['writing practice', 'too few mock exams'], rounds_remaining: 4 } });
    // The focus points reach the agents of the next round.
    expect(planner.seen[1]!.decision?.constraints.mustAddress).toEqual(['writing practice', 'too few mock exams']);
    expect(r.stopReason).toBe('converged');
  });

  it('forces opposition at or below 0.70, on the target it is given', async () => {
    const critic = scriptedAgent('critic', ['B', 'B2']);
    const { d } = debate([scriptedAgent('planner', ['A', 'A2']), critic], angleEmbedder({ A: 0, B: similar(0, 0.6), A2: 1, B2: similar(1, 0.95) }), { host: { oppositionTarget: 'critic' } });
    const r = await d.run('plan');
    const first = r.rounds[0]!.hostDecision!;
    expect(first.action).toBe('force_opposition');
    expect(first.directives).toEqual([{ agentId: 'critic', role: 'devils_advocate', requirement: HOST_REQUIREMENTS.forceOpposition }]);
    expect(first.metadata).toEqual({ instructions: { role: 'devils_advocate', requirement: HOST_REQUIREMENTS.forceOpposition, target: 'critic' } });
    expect(critic.seen[1]!.directive).toEqual(first.directives[0]);
  });

  describe('at the thresholds exactly (seed 001 §5: "> 0.90" converges, "0.70 < s <= 0.90" continues, "<= 0.70" forces opposition)', () => {
    // The angle a pair starts from changes nothing in exact arithmetic, but in floating point two
    // vectors at cosine 0.9 from angle 1 measure 0.9000000000000001, and at cosine 0.7 from angle
    // 2.5 measure 0.7000000000000001: the rules must still see 0.90 and 0.70.
    const firstDecision = async (from: number, similarity: number) => {
      const { d } = debate([scriptedAgent('planner', ['A']), scriptedAgent('critic', ['B'])], angleEmbedder({ A: from, B: similar(from, similarity) }), { maxRounds: 1 });
      return (await d.run('plan')).rounds[0]!.hostDecision!;
    };

    it.each([0, 1, 0.5, 3])('continues at exactly 0.90 (pair from angle %s)', async (from) => {
      const decision = await firstDecision(from, 0.9);
      expect(decision.action).toBe('continue');
      expect(decision.analysis!.consensusLevel).toBe(0.9);
      expect(decision.reason).toBe('0.7 < similarity 0.90 <= 0.9: continuing');
    });

    it.each([0, 2.5, 1])('forces opposition at exactly 0.70 (pair from angle %s)', async (from) => {
      const decision = await firstDecision(from, 0.7);
      expect(decision.action).toBe('force_opposition');
      expect(decision.analysis!.consensusLevel).toBe(0.7);
      expect(decision.reason).toBe('similarity 0.70 <= 0.7: forcing opposition');
    });

    it('converges just above 0.90 and continues just above 0.70, saying so with the decimals it takes', async () => {
      const above = await firstDecision(0, 0.9004);
      expect(above.action).toBe('converge');
      expect(above.reason).toBe('similarity 0.9004 > 0.9: converging');
      const justContinuing = await firstDecision(0, 0.7001);
      expect(justContinuing.action).toBe('continue');
      expect(justContinuing.reason).toBe('0.7 < similarity 0.7001 <= 0.9: continuing');
    });
  });

  it('by default sets the more confident agent of the least similar pair against the others', async () => {
    const planner = scriptedAgent('planner', ['A'], () => ({ position: { conclusion: 'A', keyReasons: [], assumptions: [], confidence: 0.9 } }));
    const { d } = debate([planner, scriptedAgent('critic', ['B'])], angleEmbedder({ A: 0, B: similar(0, 0.5) }), { maxRounds: 1 });
    const r = await d.run('plan');
    expect(r.rounds[0]!.hostDecision!.directives[0]!.agentId).toBe('planner');
  });

  it('orders an agent that repeated itself twice (self-similarity 0.99) to move, with the seed\'s requirement', async () => {
    const step = Math.acos(0.99);
    const angles = { P1: 0, P2: step, P3: 2 * step, C1: similar(0, 0.8), C2: similar(step, 0.76), C3: similar(2 * step, 0.84) };
    const { d } = debate([scriptedAgent('planner', ['P1', 'P2', 'P3']), scriptedAgent('critic', ['C1', 'C2', 'C3'])], angleEmbedder(angles), { maxRounds: 3 });
    const r = await d.run('plan');
    expect(r.rounds.map((x) => x.hostDecision!.action)).toEqual(['continue', 'continue', 'update_command']);
    const third = r.rounds[2]!.hostDecision!;
    expect(third.analysis!.stubbornAgents).toEqual(['planner']);
    expect(third.analysis!.selfSimilarity.planner).toBeCloseTo(0.99, 3);
    expect(third.directives).toEqual([{ agentId: 'planner', requirement: HOST_REQUIREMENTS.updateCommand, reason: 'self-similarity above 0.98 for 2 rounds in a row' }]);
  });

  it('converges early when consensus stops moving for two rounds (plateau)', async () => {
    const angles = { P1: 0, P2: 1, P3: 2, C1: similar(0, 0.8), C2: similar(1, 0.805), C3: similar(2, 0.81) };
    const { d, reporter } = debate([scriptedAgent('planner', ['P1', 'P2', 'P3']), scriptedAgent('critic', ['C1', 'C2', 'C3'])], angleEmbedder(angles));
    const r = await d.run('plan');
    expect(r.stopReason).toBe('plateau');
    expect(r.rounds).toHaveLength(3);
    expect(r.rounds[2]!.hostDecision).toMatchObject({ action: 'converge', plateau: true });
    expect(reporter.calls).toHaveLength(1);
  });

  it('at the round limit has the reporter write the divergent conclusion (seed 001 §7.2)', async () => {
    const angles = { P1: 0, P2: 1, C1: similar(0, 0.8), C2: similar(1, 0.75) };
    const { d, reporter } = debate([scriptedAgent('planner', ['P1', 'P2']), scriptedAgent('critic', ['C1', 'C2'])], angleEmbedder(angles), { maxRounds: 2 });
    const r = await d.run('plan');
    expect(r.stopReason).toBe('max_rounds_reached');
    expect(reporter.calls[0]).toMatchObject({ divergent: true, stopReason: 'max_rounds_reached' });
    expect(r.divergent).toBe(true);
    expect(r.finalReport?.content).toBe('divergent: P2 / C2');
  });

  it('falls back to the lexical measure when the embedder fails, and records it in the decision', async () => {
    const failing: Embedder = { id: 'down', embed: async () => Promise.reject(new Error('embedding service down')) };
    const { d } = debate([scriptedAgent('planner', ['three phases over twelve weeks']), scriptedAgent('critic', ['three phases over twelve weeks'])], failing);
    const r = await d.run('plan');
    const analysis = r.rounds[0]!.hostDecision!.analysis!;
    expect(analysis).toMatchObject({ backend: 'lexical', fallback: 'lexical', consensusLevel: 1 });
    expect(analysis.fallbackError?.message).toMatch(/embedding service down/);
    expect(r.stopReason).toBe('converged');
  });

  it('measures lexically, with its own thresholds, when there is no embedder', async () => {
    const d = new Deliberation({
      agents: [scriptedAgent('planner', ['weekly mock exams and essays']), scriptedAgent('critic', ['daily vocabulary drills only'])],
      host: similarityHost({ lexicalThresholds: { converge: 0.6, continue: 0.3 } }),
      maxRounds: 1,
    });
    const r = await d.run('plan');
    expect(r.rounds[0]!.hostDecision).toMatchObject({ action: 'force_opposition', analysis: { backend: 'lexical', consensusLevel: 0 } });
    expect(r.rounds[0]!.hostDecision!.analysis!.fallback).toBeUndefined();
  });

  it('embeds only positions it has not seen: a repeated position is served from the cache', async () => {
    const embedder = angleEmbedder({ A: 0, B: similar(0, 0.8), B2: similar(0, 0.75) });
    const { d } = debate([scriptedAgent('planner', ['A']), scriptedAgent('critic', ['B', 'B2'])], embedder, { maxRounds: 2, host: { stubborn: false, plateau: false } });
    await d.run('plan');
    expect(embedder.asked).toEqual([['A', 'B'], ['B2']]);
  });

  it('does not call one position a consensus: with a single position it continues and measures nothing', async () => {
    const failing = { id: 'critic', respond: () => Promise.reject(new Error('unreadable reply')) };
    const { d, reporter } = debate([scriptedAgent('planner', ['A']), failing], angleEmbedder({ A: 0 }), { maxRounds: 2 });
    const r = await d.run('plan');
    expect(r.rounds.map((x) => x.hostDecision!.action)).toEqual(['continue', 'continue']);
    expect(r.rounds[0]!.hostDecision!.analysis).toBeUndefined();
    expect(r.consensusTrend).toEqual([]);
    expect(r.stopReason).toBe('max_rounds_reached');
    expect(reporter.calls[0]!.divergent).toBe(true);
  });
});
