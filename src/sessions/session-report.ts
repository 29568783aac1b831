import { estimateTokens } from '../budget/estimate-tokens.js';
import { escapeMermaid } from '../internal/mermaid.js';
import { clipText } from '../internal/clip-text.js';
import { extent } from '../internal/extent.js';
import type { BranchScore } from './reward.js';
import type { SessionBranch, SessionSnapshot } from './session-model.js';

/**
 * A session's metrics (what a session reports): TPST (total prompt and sampling tokens), model
 * hops, whether the first validation passed, the share of tokens spent on branches that did not
 * pay off, early stops, and per branch its tokens, time, score and outcome.
 *
 * @example
 * ```ts
 * import type { SessionMetrics } from '@tot/core/sessions';
 *
 * const line = (m: SessionMetrics) => `${m.tpst} tokens, ${m.modelHops} hops, ${Math.round(m.wasteRatio * 100)}% waste`;
 * ```
 */
export interface SessionMetrics {
  sessionId: string;
  state: string;
  /** Every token the session's thoughts cost. */
  tpst: number;
  /**
   * The model calls the session's thoughts record (`modelCalls`: `runParallel` records each call of
   * a branch's model on the thought it made). Not the thoughts that cost tokens: a thought written
   * by hand costs its estimated tokens without any model call. Logs written before thoughts
   * recorded their calls count none.
   */
  modelHops: number;
  /** Whether the first plan validated passed at once (no rejection before it). */
  firstPassSuccess: boolean;
  /** Tokens on branches that were stopped early or never validated, over all branch tokens. */
  wasteRatio: number;
  earlyStopCount: number;
  branches: { branchId: string; name: string; tokens: number; latencyMs: number; score?: BranchScore; reward?: number; earlyStopped: boolean; outcome: string }[];
}

/** The tokens of a branch's thoughts. */
export const branchTokens = (s: SessionSnapshot, b: SessionBranch) => b.thoughtIds.reduce((n, id) => n + (s.thoughts[Number(id.slice(1))]?.tokens ?? 0), 0);
const paidOff = (b: SessionBranch) => ['validated', 'executing', 'evidence_received', 'completed'].includes(b.state);

/** The metrics of a session's snapshot (see {@link SessionMetrics}). */
export function sessionMetrics(s: SessionSnapshot): SessionMetrics {
  const branches = s.branches.map((b) => {
    const times = [...b.history.map((h) => h.at), ...b.thoughtIds.map((id) => s.thoughts[Number(id.slice(1))]?.at ?? 0)];
    const span = extent(times, (t) => t);
    return {
      branchId: b.id,
      name: b.name,
      tokens: branchTokens(s, b),
      latencyMs: times.length > 1 ? span.max - span.min : 0,
      ...(b.score ? { score: { ...b.score } } : {}),
      ...(b.reward === undefined ? {} : { reward: b.reward }),
      earlyStopped: b.state === 'early_stopped',
      outcome: b.state,
    };
  });
  const total = branches.reduce((n, b) => n + b.tokens, 0);
  const wasted = s.branches.filter((b) => !paidOff(b)).reduce((n, b) => n + branchTokens(s, b), 0);
  // The first validation in time, over every branch.
  let first: { at: number; passed: boolean } | undefined;
  for (const b of s.branches) {
    for (const h of b.history) if ((h.trigger === 'validate_pass' || h.trigger === 'validate_fail') && (!first || h.at < first.at)) first = { at: h.at, passed: h.trigger === 'validate_pass' };
  }
  return {
    sessionId: s.id,
    state: s.state,
    tpst: s.tokensUsed,
    modelHops: s.thoughts.reduce((n, t) => n + (t.modelCalls ?? 0), 0),
    firstPassSuccess: first?.passed ?? false,
    wasteRatio: total === 0 ? 0 : wasted / total,
    earlyStopCount: s.branches.filter((b) => b.state === 'early_stopped').length,
    branches,
  };
}

/** The session engine's token audit bar: the budget as a 10-cell bar, the current branch, every branch, the estimate. */
export function auditBar(s: SessionSnapshot, branchId?: string): string {
  const budget = s.budget.maxTokens;
  const used = s.tokensUsed;
  const cells = budget ? Math.min(10, Math.floor((used / budget) * 10)) : 0;
  const current = s.branches.find((b) => b.id === branchId) ?? [...s.branches].reverse().find((b) => !['early_stopped', 'init'].includes(b.state)) ?? s.branches.at(-1);
  const all = s.branches.reduce((n, b) => n + branchTokens(s, b), 0);
  const lines = [
    budget ? `Token Budget: [${'█'.repeat(cells)}${'░'.repeat(10 - cells)}] ${used}/${budget}` : `Token Budget: [no limit] ${used}`,
    `Current Branch: ${current ? `${current.name} (${branchTokens(s, current)} tokens)` : 'none'}`,
    `Total Branches: ${s.branches.length} (${all} tokens)`,
    budget ? `Estimated: ${used} tokens (${used <= budget ? 'within budget' : 'over budget'})` : `Estimated: ${used} tokens`,
  ];
  const width = Math.max(...lines.map((l) => l.length)) + 2;
  return [`┌${'─'.repeat(width)}┐`, ...lines.map((l) => `│ ${l.padEnd(width - 1)}│`), `└${'─'.repeat(width)}┘`].join('\n');
}

/**
 * One step of a branch's evidence chain (the audit log): its plan, each validation, the
 * export for execution, each piece of evidence, the end.
 *
 * @example
 * ```ts
 * import type { EvidenceStep } from '@tot/core/sessions';
 *
 * const line = (e: EvidenceStep) => `${e.step}: ${e.status}`;
 * ```
 */
export interface EvidenceStep {
  /** `confirm`: a person's word on the validated plan (`approved` or `denied`), when one was asked. */
  step: 'plan' | 'validate' | 'confirm' | 'execution' | 'evidence' | 'complete' | 'early_stop';
  status: string;
  branchId: string;
  at?: number;
  evidenceId?: string;
  tests?: { passed?: number; failed?: number };
}

/** The evidence chain of one branch, or of every branch that got a plan. */
export function evidenceChain(s: SessionSnapshot, branchId?: string): EvidenceStep[] {
  const out: EvidenceStep[] = [];
  for (const b of s.branches) {
    if (branchId !== undefined ? b.id !== branchId : b.plan === undefined) continue;
    if (b.plan !== undefined) out.push({ step: 'plan', status: b.planKind ?? 'execution', branchId: b.id });
    let evidence = 0;
    for (const h of b.history) {
      if (h.trigger === 'validate_pass' || h.trigger === 'validate_fail') {
        out.push({ step: 'validate', status: h.trigger === 'validate_pass' ? 'pass' : 'fail', branchId: b.id, at: h.at });
        // A branch validates once (validated only moves on to executing): its approval follows that pass.
        if (h.trigger === 'validate_pass' && b.approval) out.push({ step: 'confirm', status: b.approval.approved ? 'approved' : 'denied', branchId: b.id, at: b.approval.at });
      }
      else if (h.from === 'validated' && h.to === 'executing') out.push({ step: 'execution', status: 'exported', branchId: b.id, at: h.at });
      else if (h.to === 'evidence_received') {
        const e = b.evidence[evidence++];
        const passed = e?.data.testsPassed as number | undefined;
        const failed = e?.data.testsFailed as number | undefined;
        out.push({ step: 'evidence', status: h.trigger === 'evidence_success' ? 'success' : 'failure', branchId: b.id, at: h.at, ...(e ? { evidenceId: e.evidenceId } : {}), ...(passed !== undefined || failed !== undefined ? { tests: { ...(passed === undefined ? {} : { passed }), ...(failed === undefined ? {} : { failed }) } } : {}) });
      } else if (h.to === 'completed') out.push({ step: 'complete', status: 'done', branchId: b.id, at: h.at });
      else if (h.to === 'early_stopped') out.push({ step: 'early_stop', status: h.reason ?? h.trigger, branchId: b.id, at: h.at });
    }
  }
  return out;
}

/**
 * What a digest may show: `private` (the default) includes the latest thoughts and evidence;
 * `public` only the session's shape (goal redacted, branch names, states, scores, counts).
 *
 * @example
 * ```ts
 * import type { DigestOptions } from '@tot/core/sessions';
 *
 * const options: DigestOptions = { maxTokens: 200, audience: 'public' };
 * ```
 */
export interface DigestOptions {
  /** Default: the engine's `digestTokens` (200). Counted with `estimateTokens`, which errs high. */
  maxTokens?: number;
  audience?: 'public' | 'private';
}

// What a public digest never shows, even in its goal: mail addresses, URLs, paths, long tokens
// (keys, hashes), and anything after a `secret`, `password`, `token` or `key` label.
const REDACTIONS: [RegExp, string][] = [
  [/\b([A-Za-z_]*(?:secret|password|passwd|token|api[_-]?key|key)[A-Za-z_]*)\s*[:=]\s*\S+/gi, '$1=[redacted]'],
  [/\bBearer\s+\S+/gi, 'Bearer [redacted]'],
  [/\b(password|passphrase|secret|token)\s+is\s+\S+/gi, '$1 is [redacted]'],
  [/[\w.+-]+@[\w-]+(\.[\w-]+)+/g, '[email]'],
  [/\b[a-z]+:\/\/\S+/gi, '[url]'],
  [/(?:[A-Za-z]:\\|~\/|\/)[\w.-]+(?:[\\/][\w.-]+)+/g, '[path]'],
  [/\b[A-Za-z0-9_-]{24,}\b/g, '[redacted]'],
];

/**
 * `text` with what a public reader must not see taken out: mail addresses, URLs, paths, long
 * tokens, and values after `secret`, `password`, `token` or `key` labels.
 *
 * @example
 * ```ts
 * import { redact } from '@tot/core/sessions';
 *
 * redact('deploy /srv/app with token=abc123 for bob@example.com'); // 'deploy [path] with token=[redacted] for [email]'
 * ```
 */
export function redact(text: string): string {
  return REDACTIONS.reduce((t, [pattern, by]) => t.replace(pattern, by), text);
}

/** A digest of a session within `maxTokens`: its lines from the most to the least important, as many as fit. */
export function digest(s: SessionSnapshot, options: { maxTokens: number; audience: 'public' | 'private' }): string {
  const pub = options.audience === 'public';
  const text = (t: string, max = 120) => {
    const v = pub ? redact(t) : t;
    return clipText(v, max);
  };
  const budget = s.budget.maxTokens ? `${s.tokensUsed}/${s.budget.maxTokens} tokens` : `${s.tokensUsed} tokens`;
  const lines = [`Goal: ${text(s.goal)}`, `State: ${s.state}; ${s.thoughts.length} thoughts, ${s.branches.length} branches, ${budget}.`];
  const ranked = [...s.branches].sort((a, b) => (b.reward ?? -1) - (a.reward ?? -1));
  for (const b of ranked) lines.push(`Branch ${b.id} ${text(b.name, 40)}: ${b.state}${b.reward === undefined ? '' : `, reward ${b.reward.toFixed(2)}`}${b.issues && b.issues.length > 0 && !pub ? `; issues: ${text(b.issues.join('; '), 80)}` : ''}`);
  if (!pub) {
    for (const b of s.branches) for (const e of b.evidence) lines.push(`Evidence ${e.evidenceId}: ${e.success ? 'success' : `failure${e.failure ? ` (${e.failure.category})` : ''}`}: ${text(e.summary, 80)}`);
    for (const t of s.thoughts.slice(-5).reverse()) lines.push(`${t.id} ${t.role}: ${text(t.content, 100)}`);
  }
  const out: string[] = [];
  for (const line of lines) {
    if (estimateTokens([...out, line].join('\n')) > options.maxTokens) break;
    out.push(line);
  }
  return out.join('\n');
}

/** The session's thought DAG and branches as a Mermaid flowchart. */
export function sessionMermaid(s: SessionSnapshot): string {
  const label = (t: string) => escapeMermaid(t).replace(/\n/g, ' ');
  const short = (t: string) => clipText(t, 48);
  const lines = ['flowchart TD'];
  const onBranch = new Set(s.branches.flatMap((b) => b.thoughtIds));
  for (const t of s.thoughts) if (!onBranch.has(t.id)) lines.push(`  ${t.id}["${label(`${t.id} ${t.role}: ${short(t.content)}`)}"]`);
  for (const b of s.branches) {
    lines.push(`  subgraph ${b.id} ["${label(`${b.id} ${b.name} · ${b.state}`)}"]`);
    lines.push(`    ${b.id}_head(("${label(b.name)}"))`);
    for (const id of b.thoughtIds) {
      const t = s.thoughts[Number(id.slice(1))]!;
      lines.push(`    ${t.id}["${label(`${t.id} ${t.role}: ${short(t.content)}`)}"]`);
    }
    lines.push('  end');
    lines.push(`  ${b.from} --> ${b.id}_head`);
  }
  for (const t of s.thoughts) for (const p of t.parentIds) lines.push(`  ${p} -->${t.edge ? `|${t.edge}|` : ''} ${t.id}`);
  for (const b of s.branches) if (b.state === 'early_stopped') lines.push(`  style ${b.id}_head stroke-dasharray: 5 5`);
  return lines.join('\n');
}
