import { z } from 'zod';
import { assessPlan, DocPlan, ExecutionPlan } from '../../sessions/plans.js';
import { bool, branchId, int, num, object, sessionId } from '../input.js';
import { tool, type ToolSpec } from '../tool-spec.js';
import { approvalGate, questionShape } from './approval-tools.js';
import { branchOut, branchShape, readOnly, sessionLine, sessionLineShape, writes, writesOnce } from './shapes.js';

/** A plan kind's JSON Schema, written by zod from the schema think_validate_plan checks plans with. */
function planJsonSchema(schema: z.ZodType, title: string, description: string): Record<string, unknown> {
  // What a client sends is the schema's input (dry_run may be left out: it defaults to true).
  const { $schema: _, ...json } = z.toJSONSchema(schema, { io: 'input', target: 'draft-7' }) as Record<string, unknown>;
  return { title, description, ...json };
}

/**
 * think_plan_step's `plan`: any JSON object (or a string of one) is recorded, as a plan that does
 * not match is the branch's to fix after think_validate_plan rejects it, with its issues on record;
 * but the tool's JSON Schema says what a plan that passes is, an ExecutionPlan or a DocPlan,
 * generated from the very schemas the validation uses, so an agent knows before it writes one.
 */
const planSchemas = [
  planJsonSchema(ExecutionPlan, 'ExecutionPlan', 'plan_kind "execution" (the default): max_changes at most 1000, one of the rollback strategies, the capabilities it needs and its success criteria.'),
  planJsonSchema(DocPlan, 'DocPlan', 'plan_kind "doc": where the document goes, its naming convention, its structure and the rules it must pass.'),
];
const needs = (schema: Record<string, unknown>) => `${String(schema.title)} needs ${(schema.required as string[]).join(', ')}`;

export const planInput = object('plan').meta({
  description: `The branch's plan: an ExecutionPlan (plan_kind "execution", the default) or a DocPlan (plan_kind "doc"); an ${planSchemas.map(needs).join('; a ')}. A plan that does not match is recorded, and think_validate_plan rejects it with its issues.`,
  anyOf: planSchemas,
});

/** What validation would find wrong with `plan` as a plan of `kind`: none when it would pass. */
export function planIssues(plan: unknown, kind: string | undefined): string[] {
  return assessPlan(plan, { kind: kind ?? 'execution' }).issues;
}

/**
 * An exported plan (the plan's own fields and `_got_metadata`), or, when the export waits on a
 * person, `status` approval_pending with the question, or not_approved with the reason.
 */
const exported = z.looseObject({
  _got_metadata: z.looseObject({ session_id: z.string(), branch_id: z.string() }).optional(),
  status: z.enum(['approval_pending', 'not_approved']).optional(),
  question: questionShape.optional(),
  reason: z.string().optional(),
  next: z.string().optional(),
});

/** think_export_plan and think_export_doc_plan: the same tool for the two kinds of plan. */
function exportTool(kind: 'execution' | 'doc'): ToolSpec {
  return tool({
    name: kind === 'doc' ? 'think_export_doc_plan' : 'think_export_plan',
    title: kind === 'doc' ? 'Export a documentation plan' : 'Export an execution plan',
    description:
      (kind === 'doc'
        ? "The validated branch's DocPlan, with _got_metadata, for a documentation writer. Only a validated branch with a doc plan exports."
        : "The validated branch's ExecutionPlan, with _got_metadata (session, branch, confidence, alternatives explored, token cost), for an executor. Only a validated branch exports; the branch then moves on to executing.") +
      ' When the server asks for approval before export, the person is asked through your client (elicitation) when it can; otherwise the result is status approval_pending with the question: ask the person, send their answer with think_answer, and call this tool again. Status not_approved: the person said no.',
    input: z.object({ session_id: sessionId, branch_id: branchId }),
    output: exported,
    annotations: writesOnce,
    async run(a, ctx) {
      const s = await ctx.sessions.get(a.session_id, { signal: ctx.signal });
      await s.refresh({ signal: ctx.signal });
      const held = await approvalGate(s, a.branch_id, ctx, kind === 'doc' ? 'think_export_doc_plan' : 'think_export_plan');
      if (held) return held;
      const options = { requireApproval: ctx.approvePlans, signal: ctx.signal };
      const plan = kind === 'doc' ? await s.exportDocPlan(a.branch_id, options) : await s.exportPlan(a.branch_id, options);
      return { structured: plan, text: JSON.stringify(plan) };
    },
  });
}

export const planTools: ToolSpec[] = [
  tool({
    name: 'think_validate_plan',
    title: 'Validate a branch\'s plan',
    description: 'Checks the branch\'s plan against its schema (ExecutionPlan: rollback strategy, max_changes ≤ 1000, capabilities, success criteria; or DocPlan), scores its risk and completeness, and moves the branch to validated or rejected. A rejected branch lists its issues: fix the plan (think_plan_step with plan) and validate again.',
    input: z.object({ session_id: sessionId, branch_id: branchId }),
    output: z.object({ ...sessionLineShape, ok: z.boolean(), issues: z.array(z.string()), branch: branchShape, risk: z.record(z.string(), z.unknown()), completeness: z.record(z.string(), z.unknown()) }),
    annotations: writes,
    async run(a, ctx) {
      const s = await ctx.sessions.get(a.session_id, { signal: ctx.signal });
      const kind = s.branch(a.branch_id)?.planKind;
      const r = await s.validatePlan(a.branch_id, { ...(kind ? { kind } : {}), signal: ctx.signal });
      return {
        structured: { ...sessionLine(s), ok: r.ok, issues: r.issues, branch: branchOut(r.branch), risk: { ...r.risk }, completeness: { ...r.completeness } },
        text: r.ok ? `${a.branch_id} validated (risk ${r.risk.assessment}).` : `${a.branch_id} rejected: ${r.issues.join('; ')}`,
      };
    },
  }),
  exportTool('execution'),
  exportTool('doc'),
  tool({
    name: 'think_receive_evidence',
    title: 'Report an execution\'s result',
    description: 'Records what executing the branch\'s plan did (success, summary, tests, stderr, exit code). A failure is classified and signed, and a critic review is asked for; the same execution_id is recorded once.',
    input: z.object({
      session_id: sessionId,
      branch_id: branchId,
      execution_result: z.object({
        execution_id: z.string({ error: 'execution_result.execution_id: send the execution\'s id' }).min(1),
        success: bool('execution_result.success'),
        summary: z.string({ error: 'execution_result.summary: send what happened, in a few words' }).max(2000),
        tests_passed: int('execution_result.tests_passed', 0, 1_000_000).optional(),
        tests_failed: int('execution_result.tests_failed', 0, 1_000_000).optional(),
        stderr: z.string().max(20_000).optional(),
        exit_code: int('execution_result.exit_code', -1_000_000, 1_000_000).optional(),
      }),
    }),
    output: z.object({ ...sessionLineShape, evidence_id: z.string(), critic_needed: z.boolean(), next_step: z.string(), failure: z.object({ category: z.string(), signature: z.string() }).optional() }),
    annotations: writesOnce,
    async run(a, ctx) {
      const s = await ctx.sessions.get(a.session_id, { signal: ctx.signal });
      const e = a.execution_result;
      const r = await s.receiveEvidence(a.branch_id, {
        executionId: e.execution_id,
        success: e.success,
        summary: e.summary,
        ...(e.tests_passed === undefined ? {} : { testsPassed: e.tests_passed }),
        ...(e.tests_failed === undefined ? {} : { testsFailed: e.tests_failed }),
        ...(e.stderr === undefined ? {} : { stderr: e.stderr }),
        ...(e.exit_code === undefined ? {} : { exitCode: e.exit_code }),
        signal: ctx.signal,
      });
      return {
        structured: { ...sessionLine(s), evidence_id: r.evidenceId, critic_needed: r.criticNeeded, next_step: r.nextStep, ...(r.failure ? { failure: r.failure } : {}) },
        text: `${r.evidenceId}: ${e.success ? 'success' : `failure${r.failure ? ` (${r.failure.category})` : ''}`}; next: ${r.nextStep}.`,
      };
    },
  }),
  tool({
    name: 'think_receive_doc_validation',
    title: 'Report a documentation check',
    description: 'Records a documentation plan\'s compliance check (compliance score from 0 to 1, placement); compliant at 0.95 or more.',
    input: z.object({
      session_id: sessionId,
      branch_id: branchId,
      validation_result: z.object({
        validation_id: z.string({ error: 'validation_result.validation_id: send the check\'s id' }).min(1),
        compliance_score: num('validation_result.compliance_score', 0, 1),
        placement_correct: bool('validation_result.placement_correct'),
        summary: z.string().max(2000),
      }),
    }),
    output: z.object({ ...sessionLineShape, evidence_id: z.string(), compliant: z.boolean() }),
    annotations: writesOnce,
    async run(a, ctx) {
      const s = await ctx.sessions.get(a.session_id, { signal: ctx.signal });
      const v = a.validation_result;
      const r = await s.receiveDocValidation(a.branch_id, { validationId: v.validation_id, complianceScore: v.compliance_score, placementCorrect: v.placement_correct, summary: v.summary, signal: ctx.signal });
      return { structured: { ...sessionLine(s), evidence_id: r.evidenceId, compliant: r.compliant }, text: `${r.evidenceId}: ${r.compliant ? 'compliant' : 'not compliant'}.` };
    },
  }),
];

export const reportTools: ToolSpec[] = [
  tool({
    name: 'think_digest',
    title: 'Digest of a session',
    description: 'A summary of the session within a token budget (200 by default): the goal, the state, the best branches and what is open. audience "public" removes mail addresses, URLs, paths and long tokens. Give a model this rather than the whole history.',
    input: z.object({ session_id: sessionId, max_tokens: int('max_tokens', 20, 4000).optional(), audience: z.enum(['private', 'public'], { error: 'audience: send private or public' }).optional() }),
    output: z.object({ session_id: z.string(), digest: z.string() }),
    annotations: readOnly,
    async run(a, ctx) {
      const s = await ctx.sessions.get(a.session_id, { signal: ctx.signal });
      await s.refresh({ signal: ctx.signal });
      const digest = s.digest({ ...(a.max_tokens ? { maxTokens: a.max_tokens } : {}), ...(a.audience ? { audience: a.audience } : {}) });
      return { structured: { session_id: s.id, digest }, text: digest };
    },
  }),
  tool({
    name: 'think_graph_export',
    title: 'Export the thought graph',
    description: 'The session\'s graph of thoughts and branches: as Mermaid (format "mermaid", the default) or as the full JSON state (format "json").',
    input: z.object({ session_id: sessionId, format: z.enum(['mermaid', 'json'], { error: 'format: send mermaid or json' }).default('mermaid') }),
    output: z.object({ session_id: z.string(), format: z.string(), mermaid: z.string().optional(), graph: z.record(z.string(), z.unknown()).optional() }),
    annotations: readOnly,
    async run(a, ctx) {
      const s = await ctx.sessions.get(a.session_id, { signal: ctx.signal });
      await s.refresh({ signal: ctx.signal });
      if (a.format === 'json') {
        const graph = s.toJSON() as unknown as Record<string, unknown>;
        return { structured: { session_id: s.id, format: 'json', graph }, text: JSON.stringify(graph) };
      }
      const mermaid = s.toMermaid();
      return { structured: { session_id: s.id, format: 'mermaid', mermaid }, text: mermaid };
    },
  }),
];
