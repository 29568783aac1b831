/**
 * A mock model that plays seed 001's IELTS scenario with `planningDebate`: the planner proposes
 * three phases over 12 weeks, the critic finds too little writing practice and too few mock exams,
 * the planner adds two timed essays a week and a weekly mock exam, the critic agrees, and the
 * reporter writes the final plan. Replies are chosen by the request's tags (agent, round), so the
 * script does not depend on how the prompts are worded.
 *
 * The positions are worded so that the default lexical similarity host (no embedder) measures
 * about 0.40 after round 1 (continue: between 0.3 and 0.6) and about 0.79 after round 2
 * (converge: above 0.6); test/deliberation/sse-example.test.ts checks both.
 */
import type { GenerateRequest, LanguageModel } from '@tot/core';
import { scriptedModel, withLatency } from '@tot/core/testing';

export interface IeltsModelOptions {
  /** Delay of every call, in milliseconds (aborted calls end at once). Default 0. */
  latencyMs?: number;
}

interface Task {
  title: string;
  estimated_hours: number;
  deadline?: string;
  tags: string[];
}

interface Phase {
  phase_name: string;
  duration: string;
  /** Weeks from the start of preparation to the end of the phase: the deadline of its tasks. */
  endWeek: number;
  tasks: Omit<Task, 'deadline'>[];
}

const FIRST_PLAN: Phase[] = [
  {
    phase_name: 'Phase 1: Foundation',
    duration: '6 weeks',
    endWeek: 6,
    tasks: [
      { title: 'Vocabulary building: 40 academic words a day with spaced repetition', estimated_hours: 42, tags: ['vocabulary', 'foundation'] },
      { title: 'Listening and reading: one Cambridge test section a day', estimated_hours: 30, tags: ['listening', 'reading'] },
    ],
  },
  {
    phase_name: 'Phase 2: Skills in parallel',
    duration: '2 weeks',
    endWeek: 8,
    tasks: [
      { title: 'Writing Task 1 and Task 2: one essay a week', estimated_hours: 12, tags: ['writing'] },
      { title: 'Speaking: Part 1 to 3 topics, recorded and reviewed', estimated_hours: 10, tags: ['speaking'] },
    ],
  },
  {
    phase_name: 'Phase 3: Mock exams',
    duration: '4 weeks',
    endWeek: 12,
    tasks: [
      { title: 'Intensive mock exams: two full timed tests', estimated_hours: 12, tags: ['mock-exam'] },
      { title: 'Review of weak sections', estimated_hours: 16, tags: ['review'] },
    ],
  },
];

const REVISED_PLAN: Phase[] = [
  {
    phase_name: 'Phase 1: Foundation',
    duration: '6 weeks',
    endWeek: 6,
    tasks: [
      { title: 'Vocabulary building: 40 academic words a day with spaced repetition', estimated_hours: 42, tags: ['vocabulary', 'foundation'] },
      { title: 'Listening and reading: one Cambridge test section a day', estimated_hours: 30, tags: ['listening', 'reading'] },
      { title: 'Writing: two timed essays a week (40 minutes each), marked against the band descriptors', estimated_hours: 18, tags: ['writing'] },
    ],
  },
  {
    phase_name: 'Phase 2: Skills in parallel',
    duration: '2 weeks',
    endWeek: 8,
    tasks: [
      { title: 'Writing: two timed essays a week, Task 1 and Task 2', estimated_hours: 6, tags: ['writing'] },
      { title: 'Speaking practice with a partner twice a week', estimated_hours: 8, tags: ['speaking'] },
      { title: 'Weekly full mock exam', estimated_hours: 6, tags: ['mock-exam'] },
    ],
  },
  {
    phase_name: 'Phase 3: Mock exams',
    duration: '4 weeks',
    endWeek: 12,
    tasks: [
      { title: 'Weekly full mock exam under exam conditions', estimated_hours: 12, tags: ['mock-exam'] },
      { title: 'Writing: two timed essays a week', estimated_hours: 12, tags: ['writing'] },
      { title: 'Review of weak sections after each mock', estimated_hours: 16, tags: ['review'] },
    ],
  },
];

/** `YYYY-MM-DD` plus whole weeks, minus a day: the last day of the `weeks`th week. */
function endOfWeek(start: string, weeks: number): string {
  const ms = Date.parse(`${start}T00:00:00Z`) + (weeks * 7 - 1) * 86_400_000;
  return new Date(ms).toISOString().slice(0, 10);
}

function planJson(title: string, phases: Phase[], start: string | undefined) {
  const out = phases.map(({ endWeek, ...p }) => ({
    ...p,
    tasks: p.tasks.map((t) => ({ ...t, ...(start ? { deadline: endOfWeek(start, endWeek) } : {}) })),
  }));
  const total = out.reduce((sum, p) => sum + p.tasks.reduce((s, t) => s + t.estimated_hours, 0), 0);
  return { title, goal: 'Overall band 7.0', phases: out, total_estimated_hours: total };
}

const userTurns = (r: GenerateRequest) => r.messages.filter((m) => m.role === 'user').map((m) => m.content);

/** A user turn that is a tool's answer (`{"success": …, "data": …}`), parsed. */
function toolAnswer(text: string): { success: boolean; data?: { date?: unknown } } | undefined {
  if (!text.startsWith('{')) return undefined;
  try {
    const value = JSON.parse(text) as { success?: unknown };
    return typeof value.success === 'boolean' ? (value as { success: boolean }) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The date `get_now` answered, from the planner's conversation (its memory carries round 1's tool
 * call into round 2). Undefined if the tool failed: the plan then goes without deadlines.
 */
function startDate(r: GenerateRequest): string | undefined {
  for (const text of userTurns(r)) {
    const date = toolAnswer(text)?.data?.date;
    if (typeof date === 'string') return date;
  }
  return undefined;
}

const isToolAnswer = (r: GenerateRequest) => toolAnswer(userTurns(r).at(-1) ?? '') !== undefined;
const is = (agent: string, round?: number) => (r: GenerateRequest) => r.tags?.agent === agent && (round === undefined || r.tags?.round === String(round));

function plannerRound1(r: GenerateRequest): string {
  return JSON.stringify({
    content:
      'I propose three phases over 12 weeks: six weeks of vocabulary building with daily listening and reading, two weeks training the four skills in parallel, then four weeks of intensive mock exams.',
    position: {
      conclusion: 'Prepare for IELTS in three phases over 12 weeks',
      key_reasons: [
        'Vocabulary building needs the first 6 weeks',
        'Listening, reading, writing and speaking are practised in parallel',
        'The last 4 weeks are intensive mock exams',
      ],
      assumptions: ['At least 2 hours of study a day', 'A B1 starting level (about band 5.5)'],
      confidence: 0.85,
    },
    plan: planJson('Three months of IELTS preparation', FIRST_PLAN, startDate(r)),
  });
}

const CRITIC_ROUND_1 = JSON.stringify({
  content:
    'A 12-week plan in three phases is feasible, but Writing is where most candidates miss band 7: one essay a week is not enough practice, and two mock exams at the very end leave no time to correct what they reveal. There is also no one to practise speaking with.',
  position: {
    conclusion: 'A three-phase plan over 12 weeks is feasible, but it needs more writing practice and more frequent mock exams',
    key_reasons: ['Writing practice is insufficient', 'Mock exams are too infrequent', 'Six weeks of vocabulary building first is sound', 'There is no speaking partner'],
    assumptions: ['The candidate keeps to 2 hours a day', 'The candidate studies on their own'],
    confidence: 0.78,
  },
  critique: {
    target_agent: 'planner',
    target_round: 1,
    risks: [
      { risk: 'Writing improves too slowly', severity: 'high', impact: 'Writing below 6.5 pulls the overall band under 7.0' },
      { risk: 'Mock exams only at the end', severity: 'medium', impact: 'Weak sections are found too late to fix' },
    ],
    suggestions: [
      { issue: 'Too little writing practice', solution: 'Two timed essays a week from week 1', priority: 'high' },
      { issue: 'Mock exams too infrequent', solution: 'One full mock exam every week', priority: 'high' },
      { issue: 'No speaking partner', solution: 'Speaking practice with a partner twice a week', priority: 'medium' },
    ],
    validity_check: { feasible: true, realistic: true, complete: false },
  },
});

function plannerRound2(r: GenerateRequest): string {
  return JSON.stringify({
    content:
      'I keep the three phases over 12 weeks and add what the critic asked for: two timed essays a week from week 1, a full mock exam every week from week 7, and speaking practice with a partner twice a week.',
    position: {
      conclusion: 'Prepare for IELTS in three phases over 12 weeks, with two timed essays a week and a weekly mock exam',
      key_reasons: [
        'Writing practice: two timed essays a week',
        'Mock exams: a full mock exam every week',
        'Speaking practice with a partner twice a week',
        'Vocabulary building in the first 6 weeks',
      ],
      assumptions: ['At least 2 hours of study a day', 'A B1 starting level (about band 5.5)'],
      confidence: 0.88,
    },
    plan: planJson('Three months of IELTS preparation (revised)', REVISED_PLAN, startDate(r)),
  });
}

const CRITIC_ROUND_2 = JSON.stringify({
  content:
    'The revision answers my concerns: Writing gets two timed essays a week and the weekly mock exams leave time to act on them. What remains uncertain is whether 2 hours a day is really available every day.',
  position: {
    conclusion: 'The revised three-phase plan over 12 weeks is feasible, with two timed essays a week and a weekly mock exam',
    key_reasons: [
      'Writing practice is now sufficient: two timed essays a week',
      'Mock exams are frequent enough: a full mock exam every week',
      'Speaking practice with a partner twice a week',
    ],
    assumptions: ['The candidate keeps to 2 hours a day'],
    confidence: 0.86,
  },
  critique: {
    target_agent: 'planner',
    target_round: 2,
    risks: [{ risk: 'Fewer than 2 hours a day on busy weeks', severity: 'low', impact: 'The mock exam of that week slips' }],
    suggestions: [{ issue: 'Busy weeks', solution: 'Keep the weekly mock exam and shorten vocabulary review instead', priority: 'low' }],
    validity_check: { feasible: true, realistic: true, complete: true },
  },
});

interface WirePlan {
  title?: string;
  goal?: string;
  phases?: { phase_name?: string; duration?: string; tasks?: { title?: string; estimated_hours?: number; deadline?: string }[] }[];
  total_estimated_hours?: number;
}

/** The latest plan the reporter's request quotes (the reporter role puts it there as one JSON line). */
function quotedPlan(r: GenerateRequest): WirePlan {
  const text = userTurns(r).at(-1) ?? '';
  const line = /Latest plan \(JSON\):\n(.*)/.exec(text)?.[1];
  if (line) {
    try {
      return JSON.parse(line) as WirePlan;
    } catch {
      // Fall through: the report still has its summary.
    }
  }
  return planJson('Three months of IELTS preparation (revised)', REVISED_PLAN, undefined);
}

function report(r: GenerateRequest): string {
  const plan = quotedPlan(r);
  const title = 'IELTS: a 12-week preparation plan';
  const phases = (plan.phases ?? []).map((p) => {
    const tasks = (p.tasks ?? []).map((t) => `- ${t.title} (${t.estimated_hours ?? '?'} h${t.deadline ? `, by ${t.deadline}` : ''})`).join('\n');
    return `## ${p.phase_name} (${p.duration})\n\n${tasks}`;
  });
  const content = [
    `# ${title}`,
    `Goal: ${plan.goal ?? 'overall band 7.0'}. The planner and the critic agreed after two rounds.`,
    ...phases,
    '## Still uncertain',
    '- Whether 2 hours a day are available every week: on a busy week keep the mock exam and shorten vocabulary review.',
  ].join('\n\n');
  return JSON.stringify({
    content,
    final_plan: {
      title,
      goal: plan.goal ?? 'Overall band 7.0',
      consensus_level: 'high',
      participating_agents: ['planner', 'critic'],
      rounds: Number(r.tags?.round ?? 2),
      plan: { phases: plan.phases ?? [], total_estimated_hours: plan.total_estimated_hours ?? 0 },
    },
    summary: {
      key_agreements: ['Three phases over 12 weeks', 'Two timed essays a week', 'A full mock exam every week in the last six weeks'],
      resolved_concerns: ['Too little writing practice -> two timed essays a week from week 1', 'Mock exams too infrequent -> one every week from week 7', 'No speaking partner -> twice a week'],
      remaining_uncertainties: ['Fewer than 2 hours a day may be available on busy weeks'],
    },
  });
}

/**
 * The IELTS scenario's model, for `planningDebate({ model: ieltsModel() })`. The planner first
 * asks the `get_now` tool for today's date and sets its deadlines from it.
 *
 * @example
 * ```ts
 * const d = planningDebate({ model: ieltsModel({ latencyMs: 200 }) });
 * ```
 */
export function ieltsModel(options: IeltsModelOptions = {}): LanguageModel {
  const model = scriptedModel({
    modelId: 'ielts-scenario',
    rules: [
      { name: 'planner asks the date', when: (r) => is('planner', 1)(r) && !isToolAnswer(r), reply: JSON.stringify({ tool: 'get_now' }) },
      { name: 'planner round 1', when: is('planner', 1), reply: plannerRound1 },
      { name: 'critic round 1', when: is('critic', 1), reply: CRITIC_ROUND_1 },
      { name: 'planner round 2', when: is('planner', 2), reply: plannerRound2 },
      { name: 'critic round 2', when: is('critic', 2), reply: CRITIC_ROUND_2 },
      { name: 'reporter', when: is('reporter'), reply: report },
    ],
  });
  const latency = options.latencyMs ?? 0;
  return latency > 0 ? withLatency(model, latency) : model;
}
