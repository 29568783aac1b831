// Unit-testing a SessionEngine session: the default branch worker's planner answered by branch.
import { InMemoryEventStore } from '@tot/core';
import { SessionEngine } from '@tot/core/sessions';
import { roleModel } from '@tot/core/testing';
import { expect, it } from 'vitest';

const plan = (maxChanges: number) => ({
  dry_run: true,
  rollback: { strategy: 'git_revert' },
  limits: { max_changes: maxChanges, max_files: 3 },
  capabilities_required: ['safe_edit', 'run_tests'],
  success_criteria: ['npm test passes'],
  risk_estimate: { test_coverage: 0.85 },
  context_sufficiency: { unresolved_symbol_rate: 0.01, callgraph_coverage: 0.95 },
});

it('races two branches and the branch whose plan validates wins', async () => {
  let goodBranch = '';
  const model = roleModel({
    replies: {
      // The other branch's plan has no rollback, so it never validates.
      planner: ({ branch }) => (branch === goodBranch ? { summary: 'codemod over the call sites', plan: plan(120) } : { summary: 'edit by hand', plan: { dry_run: false } }),
      critic: 'The plan lacks a rollback.',
    },
  });
  const engine = new SessionEngine({ store: new InMemoryEventStore(), model });
  const session = await engine.startSession({ goal: 'Replace loadConfig() with getConfig()', successCriteria: ['npm test passes'], budget: { maxTokens: 20_000, maxMs: 60_000, maxBranches: 4 } });
  const root = await session.addThought({ role: 'planner', content: 'Cache the configuration behind getConfig().' });
  const [byHand, codemod] = await session.fork({ from: root.id, branches: [{ name: 'by_hand' }, { name: 'codemod' }] });
  goodBranch = codemod!.id;

  const race = await session.runParallel({ branchIds: [byHand!.id, codemod!.id], strategy: 'race', strict: true });

  expect(race.stopReason).toBe('decided');
  expect(race.winner?.name).toBe('codemod');
});
