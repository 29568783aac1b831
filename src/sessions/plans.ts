import { z } from 'zod';
import { parseOptions } from '../internal/validate.js';
import { TotError } from '../errors/index.js';
import { isStandardSchema, issueSentences, NOT_A_SCHEMA, validateSync, type StandardSchemaV1 } from '../internal/standard-schema.js';

/**
 * The rollback strategies an execution plan may name.
 *
 * @example
 * ```ts
 * import { ROLLBACK_STRATEGIES } from '@tot/core/sessions';
 *
 * ROLLBACK_STRATEGIES.includes('git_revert'); // true
 * ```
 */
export const ROLLBACK_STRATEGIES = ['git_revert', 'backup_restore', 'none'] as const;

/**
 * The plan a validated branch hands to an executor (snake_case as on the wire): a dry
 * run first by default, a rollback with one of {@link ROLLBACK_STRATEGIES}, limits with
 * `max_changes` ≤ 1000, the capabilities it needs and its success criteria. Fields the session engine's risk
 * scorer reads (`risk_estimate`, `context_sufficiency`) are optional; others pass through.
 *
 * @example
 * ```ts
 * import { ExecutionPlan } from '@tot/core/sessions';
 *
 * const plan = ExecutionPlan.parse({
 *   rollback: { strategy: 'git_revert' },
 *   limits: { max_changes: 120, max_files: 4 },
 *   capabilities_required: ['safe_edit'],
 *   success_criteria: ['npm test passes'],
 * });
 * plan.dry_run; // true
 * ```
 */
export const ExecutionPlan = z.looseObject({
  dry_run: z.boolean().default(true),
  rollback: z.looseObject({ strategy: z.enum(ROLLBACK_STRATEGIES, { error: () => `rollback.strategy must be one of ${ROLLBACK_STRATEGIES.join(', ')}` }) }),
  limits: z.looseObject({
    max_changes: z.number({ error: 'limits.max_changes is required (a number of changed lines)' }).int().min(0).max(1000, { error: (i) => `limits.max_changes may not exceed 1000 (it is ${String(i.input)})` }),
    max_files: z.number().int().min(0).optional(),
  }),
  capabilities_required: z.array(z.string().min(1)),
  success_criteria: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
  steps: z.array(z.unknown()).optional(),
  risk_estimate: z.looseObject({ test_coverage: z.number().min(0).max(1).optional() }).optional(),
  context_sufficiency: z.looseObject({ unresolved_symbol_rate: z.number().min(0).max(1).optional(), callgraph_coverage: z.number().min(0).max(1).optional() }).optional(),
});

/**
 * An {@link ExecutionPlan} as parsed.
 *
 * @example
 * ```ts
 * import type { ExecutionPlanValue } from '@tot/core/sessions';
 *
 * const changes = (p: ExecutionPlanValue) => p.limits.max_changes;
 * ```
 */
export type ExecutionPlanValue = z.output<typeof ExecutionPlan>;

/**
 * The plan a validated branch hands to a documentation service: where the document
 * goes, its naming convention, its structure and the rules it must pass.
 *
 * @example
 * ```ts
 * import { DocPlan } from '@tot/core/sessions';
 *
 * DocPlan.parse({ target_path: 'docs/adr/0007-cache.md', naming_convention: 'NNNN-kebab-title.md', structure_template: 'adr', validation_rules: ['has a Status section'] });
 * ```
 */
export const DocPlan = z.looseObject({
  target_path: z.string().min(1),
  naming_convention: z.string().min(1),
  structure_template: z.union([z.string().min(1), z.record(z.string(), z.unknown())]),
  validation_rules: z.array(z.string().min(1)),
});

/**
 * A {@link DocPlan} as parsed.
 *
 * @example
 * ```ts
 * import type { DocPlanValue } from '@tot/core/sessions';
 *
 * const where = (p: DocPlanValue) => p.target_path;
 * ```
 */
export type DocPlanValue = z.output<typeof DocPlan>;

/**
 * How complete a plan is (`CompletenessChecker`): the share of the required fields it
 * has (present and not null).
 *
 * @example
 * ```ts
 * import type { CompletenessReport } from '@tot/core/sessions';
 *
 * const say = (r: CompletenessReport) => (r.ok ? 'complete' : `missing ${r.missingFields.join(', ')}`);
 * ```
 */
export interface CompletenessReport {
  completeness: number;
  missingFields: string[];
  ok: boolean;
}

/**
 * The completeness checker: the required fields of an execution plan (`dry_run`,
 * `rollback`, `limits`, `capabilities_required`, `success_criteria`) and of a doc plan
 * (`target_path`, `naming_convention`, `structure_template`, `validation_rules`), overridable; and
 * the context-sufficiency check (unresolved symbols under 5%, call graph coverage over 90%).
 *
 * @example
 * ```ts
 * import { CompletenessChecker } from '@tot/core/sessions';
 *
 * new CompletenessChecker().check({ dry_run: true, rollback: { strategy: 'none' } }, 'execution');
 * // { completeness: 0.4, missingFields: ['limits', 'capabilities_required', 'success_criteria'], ok: false }
 * ```
 */
export class CompletenessChecker {
  readonly required: Readonly<Record<string, readonly string[]>>;

  constructor(options: { required?: Record<string, readonly string[]> } = {}) {
    parseOptions(checkerOptionsSchema, options, 'CompletenessChecker');
    this.required = {
      execution: ['dry_run', 'rollback', 'limits', 'capabilities_required', 'success_criteria'],
      doc: ['target_path', 'naming_convention', 'structure_template', 'validation_rules'],
      ...options.required,
    };
  }

  /**
   * The completeness of `plan` as a plan of `kind` (`execution`, `doc`, or a kind given in `required`).
   *
   * @example
   * ```ts
   * checker.check(plan, 'doc').missingFields;
   * ```
   */
  check(plan: unknown, kind: string): CompletenessReport {
    const fields = this.required[kind] ?? [];
    const record = typeof plan === 'object' && plan !== null ? (plan as Record<string, unknown>) : {};
    const missingFields = fields.filter((f) => record[f] === undefined || record[f] === null);
    const completeness = fields.length === 0 ? 1 : 1 - missingFields.length / fields.length;
    return { completeness, missingFields, ok: missingFields.length === 0 };
  }

  /**
   * Whether the context a plan was made in is enough: fewer than 5% unresolved
   * symbols and more than 90% of the call graph covered.
   *
   * @example
   * ```ts
   * checker.checkContext({ unresolved_symbol_rate: 0.02, callgraph_coverage: 0.95 }).recommendation; // 'proceed'
   * ```
   */
  checkContext(context: { unresolved_symbol_rate?: number; callgraph_coverage?: number }): { sufficient: boolean; recommendation: 'proceed' | 'expand_context' } {
    parseOptions(contextSchema, context, 'CompletenessChecker.checkContext', 'context');
    const sufficient = (context.unresolved_symbol_rate ?? 0) < 0.05 && (context.callgraph_coverage ?? 0) > 0.9;
    return { sufficient, recommendation: sufficient ? 'proceed' : 'expand_context' };
  }
}

/**
 * A risk assessment (`RiskScorer`): the weighted total and its parts, and its level.
 *
 * @example
 * ```ts
 * import type { RiskReport } from '@tot/core/sessions';
 *
 * const alarming = (r: RiskReport) => r.assessment === 'high' || r.assessment === 'critical';
 * ```
 */
export interface RiskReport {
  totalRisk: number;
  scopeRisk: number;
  testRisk: number;
  unknownSymbolsRisk: number;
  historyRisk: number;
  assessment: 'low' | 'medium' | 'high' | 'critical';
}

/**
 * The risk scorer: scope (max of `max_changes`/500 and `max_files`/50), test coverage
 * (1 − coverage), unknown symbols (unresolved rate / 5%), history (1 − success rate of similar
 * operations, 0.5 without any), weighted 0.3, 0.3, 0.2, 0.2; levels under 0.2 low, 0.5 medium,
 * 0.7 high, else critical.
 *
 * @example
 * ```ts
 * import { RiskScorer } from '@tot/core/sessions';
 *
 * new RiskScorer().score({ limits: { max_changes: 100, max_files: 2 }, risk_estimate: { test_coverage: 0.8 } }).assessment; // 'medium'
 * ```
 */
export class RiskScorer {
  /**
   * The risk of a plan, with the outcomes of similar operations when known.
   *
   * @example
   * ```ts
   * scorer.score(plan, { similarOperations: [{ success: true }, { success: false }] }).historyRisk; // 0.5
   * ```
   */
  score(
    plan: { limits?: { max_changes?: number; max_files?: number }; risk_estimate?: { test_coverage?: number }; context_sufficiency?: { unresolved_symbol_rate?: number } },
    context: { similarOperations?: readonly { success: boolean }[] } = {},
  ): RiskReport {
    parseOptions(riskContextSchema, context, 'RiskScorer.score', 'context');
    const scopeRisk = Math.max(Math.min((plan.limits?.max_changes ?? 100) / 500, 1), Math.min((plan.limits?.max_files ?? 10) / 50, 1));
    const testRisk = 1 - (plan.risk_estimate?.test_coverage ?? 0);
    const unknownSymbolsRisk = Math.min((plan.context_sufficiency?.unresolved_symbol_rate ?? 0.1) / 0.05, 1);
    const similar = context.similarOperations ?? [];
    const historyRisk = similar.length === 0 ? 0.5 : 1 - similar.filter((o) => o.success).length / similar.length;
    const totalRisk = 0.3 * scopeRisk + 0.3 * testRisk + 0.2 * unknownSymbolsRisk + 0.2 * historyRisk;
    const assessment = totalRisk < 0.2 ? 'low' : totalRisk < 0.5 ? 'medium' : totalRisk < 0.7 ? 'high' : 'critical';
    return { totalRisk, scopeRisk, testRisk, unknownSymbolsRisk, historyRisk, assessment };
  }
}

/**
 * What {@link assessPlan} finds: whether the plan passes its schema, the schema's issues as
 * sentences (`path: message`), its completeness and its risk, and the parsed plan when it passes.
 *
 * @example
 * ```ts
 * import type { PlanAssessment } from '@tot/core/sessions';
 *
 * const say = (a: PlanAssessment) => (a.ok ? `ok, risk ${a.risk.assessment}` : a.issues.join('; '));
 * ```
 */
export interface PlanAssessment {
  ok: boolean;
  issues: string[];
  completeness: CompletenessReport;
  risk: RiskReport;
  plan?: unknown;
}

// An outcome may be a stored record with more fields: only `success` is read.
const similarOperationsSchema = z.array(z.looseObject({ success: z.boolean() })).optional();
const checkerOptionsSchema = z.strictObject({ required: z.record(z.string(), z.array(z.string())).optional() });
const contextSchema = z.strictObject({ unresolved_symbol_rate: z.number().optional(), callgraph_coverage: z.number().optional() });
const riskContextSchema = z.strictObject({ similarOperations: similarOperationsSchema });

/** The options of {@link assessPlan} (their names and kinds; `schema` is checked where it is used). */
export const assessPlanOptionsSchema = z.strictObject({
  kind: z.string().min(1).optional(),
  schema: z.unknown().optional(),
  checker: z.custom<CompletenessChecker>((v) => typeof (v as CompletenessChecker | null)?.check === 'function', 'expected a CompletenessChecker').optional(),
  scorer: z.custom<RiskScorer>((v) => typeof (v as RiskScorer | null)?.score === 'function', 'expected a RiskScorer').optional(),
  similarOperations: similarOperationsSchema,
});

/**
 * Options of {@link assessPlan}.
 *
 * @example
 * ```ts
 * import type { AssessPlanOptions } from '@tot/core/sessions';
 *
 * const options: AssessPlanOptions = { kind: 'execution', similarOperations: [{ success: true }] };
 * ```
 */
export interface AssessPlanOptions {
  /** `execution` (default, {@link ExecutionPlan}) or `doc` ({@link DocPlan}); the kind the completeness checker uses. */
  kind?: 'execution' | 'doc' | (string & {});
  /**
   * A schema of your own instead of the kind's: any Standard Schema (zod 3.24+, zod 4, valibot,
   * arktype, …) whose validation is synchronous.
   */
  schema?: StandardSchemaV1;
  checker?: CompletenessChecker;
  scorer?: RiskScorer;
  similarOperations?: readonly { success: boolean }[];
}

/**
 * Checks a plan the way a branch is validated: its schema (with the session engine's rules),
 * its completeness and its risk. It passes when the schema accepts it and no required field is
 * missing.
 *
 * @example
 * ```ts
 * import { assessPlan } from '@tot/core/sessions';
 *
 * const a = assessPlan({ rollback: { strategy: 'rm -rf' }, limits: { max_changes: 5000 } });
 * a.ok;     // false
 * a.issues; // ['rollback.strategy: rollback.strategy must be one of git_revert, backup_restore, none', 'limits.max_changes: limits.max_changes may not exceed 1000 (it is 5000)', …]
 * ```
 */
export function assessPlan(plan: unknown, options: AssessPlanOptions = {}): PlanAssessment {
  parseOptions(assessPlanOptionsSchema, options, 'assessPlan');
  const kind = options.kind ?? 'execution';
  if (options.schema !== undefined && !isStandardSchema(options.schema)) {
    throw new TotError('INVALID_ARGUMENT', `assessPlan: options.schema: ${NOT_A_SCHEMA}`, { details: { field: 'options.schema' } });
  }
  const schema = options.schema ?? (kind === 'doc' ? DocPlan : ExecutionPlan);
  const checked = validateSync(schema, plan, 'assessPlan');
  const parsed = checked.ok ? { success: true as const, data: checked.value } : { success: false as const };
  const issues = checked.ok ? [] : issueSentences(checked.issues);
  // A plan the schema refused still has the schema's default for dry_run (a dry run) for its completeness.
  const asChecked = parsed.success ? parsed.data : kind === 'execution' && typeof plan === 'object' && plan !== null ? { dry_run: true, ...plan } : plan;
  const completeness = (options.checker ?? new CompletenessChecker()).check(asChecked, kind);
  for (const field of completeness.missingFields) if (!issues.some((i) => i.startsWith(`${field}:`) || i.startsWith(`${field}.`))) issues.push(`${field}: required`);
  const record = (parsed.success ? parsed.data : plan) as Parameters<RiskScorer['score']>[0];
  const risk = (options.scorer ?? new RiskScorer()).score(typeof record === 'object' && record !== null ? record : {}, options.similarOperations ? { similarOperations: options.similarOperations } : {});
  const ok = parsed.success && completeness.ok;
  return { ok, issues, completeness, risk, ...(parsed.success ? { plan: parsed.data } : {}) };
}
