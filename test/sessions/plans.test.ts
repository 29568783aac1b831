import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { assessPlan, CompletenessChecker, DocPlan, ExecutionPlan, RiskScorer } from '../../src/sessions/index.js';

const good = { rollback: { strategy: 'git_revert' }, limits: { max_changes: 120, max_files: 4 }, capabilities_required: ['safe_edit'], success_criteria: ['npm test passes'] };

describe('ExecutionPlan and DocPlan (seed 004)', () => {
  it('accepts a whole execution plan, a dry run by default, and keeps fields it does not know', () => {
    const plan = ExecutionPlan.parse({ ...good, owner: 'ci' });
    expect(plan.dry_run).toBe(true);
    expect(plan.owner).toBe('ci');
  });

  it('refuses a rollback strategy the seed does not allow', () => {
    const r = ExecutionPlan.safeParse({ ...good, rollback: { strategy: 'rm -rf' } });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.message).toBe('rollback.strategy must be one of git_revert, backup_restore, none');
  });

  it('refuses more than 1000 changes, and limits without max_changes', () => {
    expect(ExecutionPlan.safeParse({ ...good, limits: { max_changes: 1000 } }).success).toBe(true);
    expect(ExecutionPlan.safeParse({ ...good, limits: { max_changes: 1001 } }).error!.issues[0]!.message).toBe('limits.max_changes may not exceed 1000 (it is 1001)');
    expect(ExecutionPlan.safeParse({ ...good, limits: {} }).error!.issues[0]!.message).toContain('limits.max_changes is required');
  });

  it('accepts a doc plan with its four fields and refuses one without a target path', () => {
    const doc = { target_path: 'docs/adr/0007.md', naming_convention: 'NNNN-title.md', structure_template: 'adr', validation_rules: ['has Status'] };
    expect(DocPlan.safeParse(doc).success).toBe(true);
    expect(DocPlan.safeParse({ ...doc, target_path: '' }).success).toBe(false);
  });
});

describe('CompletenessChecker', () => {
  it('is the share of required fields present and not null', () => {
    const report = new CompletenessChecker().check({ dry_run: true, rollback: { strategy: 'none' }, limits: null }, 'execution');
    expect(report).toEqual({ completeness: 0.4, missingFields: ['limits', 'capabilities_required', 'success_criteria'], ok: false });
  });

  it('finds a context sufficient under 5% unresolved symbols and over 90% call-graph coverage only', () => {
    const c = new CompletenessChecker();
    expect(c.checkContext({ unresolved_symbol_rate: 0.04, callgraph_coverage: 0.91 })).toEqual({ sufficient: true, recommendation: 'proceed' });
    expect(c.checkContext({ unresolved_symbol_rate: 0.05, callgraph_coverage: 0.99 }).sufficient).toBe(false);
    expect(c.checkContext({ unresolved_symbol_rate: 0, callgraph_coverage: 0.9 }).sufficient).toBe(false);
  });
});

describe('RiskScorer (seed 004)', () => {
  it('weighs scope 0.3, tests 0.3, unknown symbols 0.2 and history 0.2', () => {
    const r = new RiskScorer().score({ limits: { max_changes: 100, max_files: 2 }, risk_estimate: { test_coverage: 0.8 }, context_sufficiency: { unresolved_symbol_rate: 0.01 } }, { similarOperations: [{ success: true }, { success: true }, { success: false }, { success: true }] });
    expect(r.scopeRisk).toBeCloseTo(0.2, 12);
    expect(r.testRisk).toBeCloseTo(0.2, 12);
    expect(r.unknownSymbolsRisk).toBeCloseTo(0.2, 12);
    expect(r.historyRisk).toBeCloseTo(0.25, 12);
    expect(r.totalRisk).toBeCloseTo(0.06 + 0.06 + 0.04 + 0.05, 12);
    expect(r.assessment).toBe('medium');
  });

  it('takes the seed\'s defaults: 100 changes, 10 files, no coverage, 10% unresolved, no history', () => {
    const r = new RiskScorer().score({});
    expect([r.scopeRisk, r.testRisk, r.unknownSymbolsRisk, r.historyRisk]).toEqual([0.2, 1, 1, 0.5]);
    expect(r.assessment).toBe('high');
  });

  it.each([
    [0.19, 'low'],
    [0.2, 'medium'],
    [0.49, 'medium'],
    [0.5, 'high'],
    [0.69, 'high'],
    [0.7, 'critical'],
  ] as const)('calls a total risk of %s %s', (coverageRisk, level) => {
    // Only the test term varies: scope 0 (no changes, no files), unknown symbols 0, history 0.
    const total = coverageRisk;
    const r = new RiskScorer().score({ limits: { max_changes: 0, max_files: 0 }, risk_estimate: { test_coverage: 1 - total / 0.3 }, context_sufficiency: { unresolved_symbol_rate: 0 } }, { similarOperations: [{ success: true }] });
    if (total / 0.3 <= 1) {
      expect(r.totalRisk).toBeCloseTo(total, 9);
      expect(r.assessment).toBe(level);
    } else {
      expect(new RiskScorer().score({ limits: { max_changes: 500 }, risk_estimate: { test_coverage: 1 - (total - 0.3) / 0.3 }, context_sufficiency: { unresolved_symbol_rate: 0 } }, { similarOperations: [{ success: true }] }).assessment).toBe(level);
    }
  });
});

describe('assessPlan', () => {
  it('passes a whole plan, with its completeness and risk', () => {
    const a = assessPlan(good);
    expect(a.ok).toBe(true);
    expect(a.issues).toEqual([]);
    expect(a.completeness.completeness).toBe(1);
    expect(a.plan).toMatchObject({ dry_run: true });
  });

  it('lists every problem of a bad plan as path: message', () => {
    const a = assessPlan({ rollback: { strategy: 'rm -rf' }, limits: { max_changes: 5000 } });
    expect(a.ok).toBe(false);
    expect(a.issues).toEqual([
      'rollback.strategy: rollback.strategy must be one of git_revert, backup_restore, none',
      'limits.max_changes: limits.max_changes may not exceed 1000 (it is 5000)',
      'capabilities_required: Invalid input: expected array, received undefined',
      'success_criteria: Invalid input',
    ]);
  });

  it('checks a doc plan against DocPlan, and any plan against a schema of your own', () => {
    expect(assessPlan({ target_path: 'x.md' }, { kind: 'doc' }).completeness.missingFields).toEqual(['naming_convention', 'structure_template', 'validation_rules']);
    const mine = z.object({ ticket: z.string().regex(/^OPS-\d+$/) });
    expect(assessPlan({ ticket: 'OPS-12' }, { kind: 'ops', schema: mine }).ok).toBe(true);
    expect(assessPlan({ ticket: 'x' }, { kind: 'ops', schema: mine }).ok).toBe(false);
  });
});
