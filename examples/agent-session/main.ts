/**
 * Seed 004's loop end to end, on a mock model: a session plans a code change, forks three
 * approaches and races them; the winner's plan is validated and exported; the execution fails
 * (its stderr is classified and signed), the healing engine picks a strategy, the critic's revision
 * is validated and exported again, and this time the evidence is good: the branch and the session
 * complete. Prints the race, the audit bar, the public digest and the Mermaid graph.
 *
 * Run: npm run example:agent-session
 */
import { InMemoryEventStore, type GenerateRequest } from '@tot/core';
import { SessionEngine, HealingEngine } from '@tot/core/sessions';
import { mockModel, withLatency } from '@tot/core/testing';

const plan = (maxChanges: number, tests: string[]) => ({
  dry_run: true,
  rollback: { strategy: 'git_revert' },
  limits: { max_changes: maxChanges, max_files: 3 },
  capabilities_required: ['safe_edit', 'run_tests'],
  success_criteria: tests,
  risk_estimate: { test_coverage: 0.85 },
  context_sufficiency: { unresolved_symbol_rate: 0.01, callgraph_coverage: 0.95 },
});

// The planner's reply for each approach (the prompt names it); the AST refactor answers first.
const approachOf = (r: GenerateRequest) => /Approach: (\w+)/.exec(r.messages[0]!.content)?.[1] ?? '';
const replies: Record<string, object> = {
  text_replace: { summary: 'sed over every call site of loadConfig', plan: plan(400, ['npm test']) },
  ast_refactor: { summary: 'ts-morph: replace loadConfig() with getConfig() from a cached module', plan: plan(120, ['npm test']) },
  codemod: { summary: 'jscodeshift transform for loadConfig call sites', plan: plan(150, ['npm test']) },
};
const latency: Record<string, number> = { text_replace: 120, ast_refactor: 30, codemod: 80 };
const model = withLatency(
  mockModel((r) => JSON.stringify(replies[approachOf(r)] ?? replies.ast_refactor)),
  (r) => latency[approachOf(r)] ?? 10,
);

const engine = new SessionEngine({ store: new InMemoryEventStore(), model });
const session = await engine.startSession({
  goal: 'Replace every loadConfig() call with a cached getConfig() in /srv/app (owner: ops@example.com)',
  successCriteria: ['npm test passes', 'no loadConfig() left'],
  budget: { maxTokens: 5000, maxMs: 600_000, maxBranches: 5 },
});
const root = await session.addThought({ role: 'planner', content: 'loadConfig() reads and parses the file on every call; cache it behind getConfig().' });
const branches = await session.fork({ from: root.id, branches: [{ name: 'text_replace' }, { name: 'ast_refactor' }, { name: 'codemod' }] });

engine.on('branch.round.completed', (e) => console.log(`  ${e.branchId} round ${e.round}: ${e.state} (${e.tokens} tokens, ${e.ms} ms)`));
console.log('Race:');
const race = await session.runParallel({ branchIds: branches.map((b) => b.id), strategy: 'race' });
const winner = race.winner!;
console.log(`Winner: ${winner.id} ${winner.name}; ${race.branches.filter((b) => b.state === 'early_stopped').map((b) => b.name).join(', ')} stopped (race_lost)`);

const exported = await session.exportPlan(winner.id);
console.log(`Exported the plan (${(exported.limits as { max_changes: number }).max_changes} changes at most, dry run ${exported.dry_run}).`);

// The executor runs it: one test fails (the SIGHUP reload test; 41 pass).
const stderr = 'FAILED tests/config.test.ts::reloads on SIGHUP - expected 2 reads, got 1\n1 failed, 41 passed in 3.2s';
const evidence = await session.receiveEvidence(winner.id, { executionId: 'exec-1', success: false, summary: 'one test failed: config no longer reloads on SIGHUP', stderr, exitCode: 1, testsPassed: 41, testsFailed: 1 });
const healing = new HealingEngine();
const category = evidence.failure!.category as Parameters<HealingEngine['select']>[0];
const strategy = healing.select(category);
console.log(`Evidence: failure ${evidence.failure!.category} (signature ${evidence.failure!.signature}); healing: ${strategy.action}`);

// The critic's review, and the revision in a new branch from the winner's last thought.
await session.transition(winner.id, 'user_input', { reason: 'critic reviewed the failure' });
const critique = await session.addThought({ role: 'critic', content: 'The cache must be dropped on SIGHUP: the reload test expects a second read.', parentIds: [winner.thoughtIds.at(-1) ?? root.id], edge: 'contradicts' });
const [revision] = await session.fork({ from: critique.id, branches: [{ name: 'ast_refactor_v2' }] });
await session.addThought({ role: 'planner', content: 'Same refactor, and getConfig() clears its cache on SIGHUP.', parentIds: [critique.id], branchId: revision!.id, edge: 'refines' });
await session.setPlan(revision!.id, plan(140, ['npm test', 'SIGHUP reload test']));
const validation = await session.validatePlan(revision!.id);
console.log(`Revision ${revision!.id}: ${validation.ok ? 'validated' : 'rejected'} (risk ${validation.risk.assessment}, completeness ${validation.completeness.completeness})`);
await session.exportPlan(revision!.id);
await session.receiveEvidence(revision!.id, { executionId: 'exec-2', success: true, summary: 'all 42 tests pass', testsPassed: 42, testsFailed: 0 });
healing.record(category, strategy.action, true);
await session.transition(revision!.id, 'user_input', { reason: 'evidence good' });
await session.complete('the change is in and tested');

console.log(`\nSession ${session.state}.`);
console.log(session.auditBar(revision!.id));
console.log(`\nEvidence chain: ${session.evidenceChain(revision!.id).map((e) => `${e.step} ${e.status}`).join(' → ')}`);
console.log(`\nPublic digest:\n${session.digest({ audience: 'public' })}`);
const m = session.metrics();
console.log(`\nMetrics: ${m.tpst} tokens, ${m.modelHops} model hops, first pass ${m.firstPassSuccess ? 'succeeded' : 'failed'}, waste ${Math.round(m.wasteRatio * 100)}%, ${m.earlyStopCount} early stops`);
console.log(`\n${session.toMermaid()}`);
