import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { raceAbort, whenAborted } from '../internal/abort.js';
import { clipText as clip } from '../internal/clip-text.js';
import { fnSchema, parseOptions } from '../internal/validate.js';
import { estimateTokens } from '../budget/estimate-tokens.js';
import { languageModelSchema } from '../model/schemas.js';
import type { CallOptions, GenerateRequest, GenerateResult, LanguageModel } from '../model/types.js';
import { describeFunction } from '../run/config-diff.js';
import type { RunEmitter } from '../run/run-emitter.js';
import type { RunEventInput } from '../run/run-event.js';
import { runnerOptionsShape, runOptionsShape, type RunBudget, type RunOptions } from '../run/run-options.js';
import type { RunResult, RunStats } from '../run/run-result.js';
import { startRun, type Run, type RunEnd, type RunProgram } from '../run/run.js';
import type { Question } from '../run/question.js';
import type { SharedStopReason } from '../run/stop-detail.js';
import { UCBScheduler } from '../scheduler/index.js';
import type { BranchState, BranchTrigger } from './branch-state.js';
import { llmBranchWorker, thoughtsBeforeFailure, type BranchRoundOutcome, type BranchWorker } from './branch-worker.js';
import type { AgentSession } from './agent-session.js';
import type { ParallelEvent } from './parallel-events.js';
import type { AssessPlanOptions } from './plans.js';
import { APPROVAL_KEY, approvalPreview, approvalWords, planApprovalSchema } from './plan-approval.js';
import { budgetStop, calculateReward, convergenceStop } from './reward.js';
import type { SessionBranch } from './session-model.js';

/**
 * How `runParallel` picks a winner: `race` (the first branch to validate; the others
 * are stopped at once), `best` (all finish; the highest reward), `vote` (all finish; the answer most
 * validated branches give, ties to the higher reward), `bandit` (UCB gives one round at a time to a
 * branch; the first to validate wins, else the highest reward when the rounds or the budget run out).
 *
 * `best` and `bandit` pick by reward, so when no branch validated they still name the branch with
 * the highest reward (its latest, see {@link ParallelResult.winner}), which is then not `validated`;
 * `race` and `vote` are decided by validation and by validated answers, so without a validated
 * branch they have no winner.
 *
 * @example
 * ```ts
 * import type { ParallelStrategy } from '@tot/core/sessions';
 *
 * const strategy: ParallelStrategy = 'race';
 * ```
 */
export type ParallelStrategy = 'race' | 'best' | 'vote' | 'bandit';

/**
 * Options of {@link AgentSession.runParallel}.
 *
 * @example
 * ```ts
 * import type { RunParallelOptions } from '@tot/core/sessions';
 *
 * const options: RunParallelOptions = { branchIds: ['br0', 'br1', 'br2'], strategy: 'race', maxRounds: 3, roundTokens: 400 };
 * ```
 */
export interface RunParallelOptions extends RunOptions<ParallelEvent> {
  branchIds: string[];
  /** Default `race`. */
  strategy?: ParallelStrategy;
  /** One round of work on a branch. Default {@link llmBranchWorker} (needs a model). */
  worker?: BranchWorker;
  /** Default: the engine's model. */
  model?: LanguageModel;
  /**
   * The tokens a round is given, passed to the worker as its allowance (the default worker caps its
   * calls' output at it). Default 200. Not a hard cap: what a call costs is known only once it
   * returns, and the prompt counts too, so cutting a round off at it would waste the calls already
   * paid for (or refuse the default worker's first call); a round is recorded at what it really
   * cost, and the hard limits are the session's budget and the run's `budget`. Under `bandit`, a
   * branch that overspends pays for it out of the same budgets (the session engine's loop debits what a round
   * cost, not what it was given).
   */
  roundTokens?: number;
  /** Rounds a branch gets at most. Default 3. */
  maxRounds?: number;
  /** How plans are validated (kind, schema). Default: execution plans. */
  validation?: AssessPlanOptions;
  /** Model calls in flight at once. Default: one per branch. */
  concurrency?: number;
  /**
   * Before the run names a validated winner, ask a person to approve its plan (the confirm step
   * before a host executes it): the question (`branch/<id>#approve`) has the plan, its kind and
   * its score as preview, and the answer is `{ approved: boolean, reason? }`. Denied, the run ends
   * `not_approved` without a winner. With the run's `onAsk`, the handler answers in process.
   * Without one the run does not wait (a parallel run has no resume): it ends `waiting`, without a
   * winner, the question in `pending`; the session keeps it, a person answers it from any process
   * with `approvePlan`, and `exportPlan(branchId, { requireApproval: true })` then hands the plan
   * out. Either way the answer is recorded in the session. Default false.
   */
  approveWinner?: boolean;
  /** Limits on the run's model calls (the session's own budget applies as well). */
  budget?: RunBudget;
  /** Wall time of the run, in milliseconds. */
  timeoutMs?: number;
  /** Reject at the first branch whose work fails, with its error. Default false. */
  strict?: boolean;
  /** Clock for event timestamps and `wallMs`. Default `Date.now`. */
  now?: () => number;
}

/**
 * A branch's part in a `runParallel` run.
 *
 * @example
 * ```ts
 * import type { BranchOutcome } from '@tot/core/sessions';
 *
 * const line = (o: BranchOutcome) => `${o.branchId} ${o.state} after ${o.rounds} rounds, ${o.tokens} tokens`;
 * ```
 */
export interface BranchOutcome {
  branchId: string;
  name: string;
  state: BranchState;
  reward?: number;
  answer?: string;
  rounds: number;
  tokens: number;
  ms: number;
  earlyStopReason?: string;
}

/**
 * Why `runParallel` stopped: `decided` (a winner, or none when no branch validated), `quality` (a
 * branch complete with risk under 0.2 won at once), `converged` (best: two validated branches or
 * more were about as good as each other), `session_budget` (90% of the session's tokens or time
 * used), or a shared reason.
 *
 * @example
 * ```ts
 * import type { ParallelStopReason } from '@tot/core/sessions';
 *
 * const early = (r: ParallelStopReason) => r === 'quality' || r === 'converged' || r === 'session_budget';
 * ```
 */
export type ParallelStopReason = 'decided' | 'quality' | 'converged' | 'session_budget' | 'not_approved' | SharedStopReason;

/**
 * What `runParallel` returns: the winner (if any), every branch's outcome, the votes of a vote.
 *
 * @example
 * ```ts
 * import type { ParallelResult } from '@tot/core/sessions';
 *
 * const winner = (r: ParallelResult) => r.winner?.id ?? 'none';
 * ```
 */
export interface ParallelResult extends RunResult<ParallelStopReason, RunStats> {
  strategy: ParallelStrategy;
  /**
   * The winner. Under `best` and `bandit` with no validated branch, the branch with the highest
   * latest reward (the score of the plan it holds now, not a mean over its rounds: the plan it holds
   * is the one a caller revises or validates next, and a mean would hold a branch's earlier, replaced
   * plans against it), ties to the branch listed first; it is then `rejected` or `early_stopped`, so
   * check `winner.state === 'validated'` before exporting its plan. None when no branch was scored.
   */
  winner: SessionBranch | undefined;
  branches: BranchOutcome[];
  votes?: Record<string, number>;
}

const optionsSchema = z.strictObject({
  branchIds: z.array(z.string().min(1)).min(1),
  strategy: z.enum(['race', 'best', 'vote', 'bandit']).default('race'),
  worker: fnSchema<BranchWorker>().optional(),
  model: languageModelSchema.optional(),
  roundTokens: z.number().int().positive().default(200),
  maxRounds: z.number().int().positive().max(100).default(3),
  validation: z.looseObject({}).optional(),
  concurrency: z.number().int().positive().optional(),
  approveWinner: z.boolean().default(false),
  ...runnerOptionsShape,
  ...runOptionsShape,
});


const answerKey = (answer: string) => answer.trim().toLowerCase().replace(/\s+/g, ' ');

/** A branch's model: the run's, aborted with the branch, each call's usage counted for the branch. */
function branchModel(model: LanguageModel, signal: AbortSignal, count: (tokens: number) => void): LanguageModel {
  return {
    modelId: model.modelId,
    ...(model.capabilities ? { capabilities: model.capabilities } : {}),
    async generate(request: GenerateRequest, options: CallOptions = {}): Promise<GenerateResult> {
      const linked = options.signal ? AbortSignal.any([signal, options.signal]) : signal;
      const result = await model.generate(request, { ...options, signal: linked });
      const input = result.usage.inputTokens ?? estimateTokens(request.messages.map((m) => m.content).join('\n'));
      const output = result.usage.outputTokens ?? result.outputs.reduce((n, o) => n + estimateTokens(o), 0);
      count(input + output);
      return result;
    },
  };
}

/** The way out of a state towards `early_stopped` (the original design's table has it from planning and scoring only). */
function stopPath(state: BranchState, trigger: 'race_lost' | 'budget_exceeded'): BranchTrigger[] | undefined {
  if (state === 'planning') return [trigger];
  if (state === 'scoring' && trigger === 'race_lost') return ['race_lost'];
  if (state === 'init' || state === 'rejected') return ['user_input', trigger];
  return undefined;
}

/** @internal Runs branches of a session in parallel, on the run kernel. */
export function runParallel(session: AgentSession, emitter: RunEmitter<ParallelEvent>, engineModel: LanguageModel | undefined, options: RunParallelOptions): Promise<ParallelResult> {
  const o = parseOptions(optionsSchema, options, 'AgentSession.runParallel');
  const snapshot = session.snapshot();
  o.branchIds.forEach((id, i) => {
    if (!snapshot.branches.some((b) => b.id === id)) throw new TotError('INVALID_ARGUMENT', `AgentSession.runParallel: options.branchIds[${i}]: no branch ${id} in session ${snapshot.id}.`, { details: { field: `options.branchIds[${i}]` } });
  });
  if (new Set(o.branchIds).size !== o.branchIds.length) throw new TotError('INVALID_ARGUMENT', 'AgentSession.runParallel: options.branchIds: a branch is listed twice.', { details: { field: 'options.branchIds' } });
  const model = o.model ?? engineModel;
  if (!o.worker && !model) throw new TotError('INVALID_ARGUMENT', 'AgentSession.runParallel: options.model: the default worker calls a model; give a model (here or to the engine), or a worker.', { details: { field: 'options.model' } });
  const worker = o.worker ?? llmBranchWorker();
  return startRun<ParallelEvent, ParallelResult>(
    {
      runner: 'got',
      what: 'parallel run',
      emitter,
      options: o,
      concurrency: o.concurrency ?? o.branchIds.length,
      config: { sessionId: snapshot.id, strategy: o.strategy, branchIds: o.branchIds, roundTokens: o.roundTokens, maxRounds: o.maxRounds, modelId: model?.modelId, worker: o.worker ? describeFunction(o.worker) : 'llmBranchWorker', ...(o.approveWinner ? { approveWinner: true } : {}) },
      resumable: false,
    },
    o,
    { problem: snapshot.goal, input: { sessionId: snapshot.id, branchIds: o.branchIds } },
    (run) => parallelProgram(run, session, o, worker, model),
  );
}

interface Track {
  id: string;
  name: string;
  controller: AbortController;
  rounds: number;
  tokens: number;
  ms: number;
  answer?: string;
  stopped?: string;
}

function parallelProgram(run: Run<ParallelEvent>, session: AgentSession, o: z.output<typeof optionsSchema>, worker: BranchWorker, model: LanguageModel | undefined): RunProgram<ParallelResult> {
  const runModel = model ? run.runModel(model) : undefined;
  const emit = (e: RunEventInput<ParallelEvent>) => run.emit(e);
  const tracks = new Map<string, Track>();
  for (const id of o.branchIds) {
    const controller = new AbortController();
    // A branch stops with its run; a lost race stops it alone.
    whenAborted(run.signal, () => controller.abort(run.signal.reason));
    tracks.set(id, { id, name: session.branch(id)!.name, controller, rounds: 0, tokens: 0, ms: 0 });
  }
  let winner: string | undefined;
  let stopReason: ParallelStopReason = 'decided';
  let waitingFor: Question | undefined;
  let votes: Record<string, number> | undefined;
  const validation = (o.validation ?? {}) as AssessPlanOptions;

  /** One round of a branch: the worker, then its thoughts and plan recorded and the plan validated. */
  const round = async (t: Track, admit?: (ok: boolean) => boolean): Promise<BranchState> => {
    const started = run.now();
    const signal = t.controller.signal;
    const branch = session.branch(t.id)!;
    if (branch.state === 'init' || branch.state === 'rejected') await session.transition(t.id, 'user_input', { reason: t.rounds === 0 ? 'work started' : 'revision', signal });
    t.rounds += 1;
    emit({ type: 'branch.round.started', branchId: t.id, round: t.rounds });
    let spent = 0;
    // The tokens of each of the round's model calls, in the order they returned.
    const calls: number[] = [];
    const snap = session.snapshot();
    const current = session.branch(t.id)!;
    /**
     * Records the round's thoughts, each paid the model calls it claims; what no thought claims goes
     * on the first thought that says neither what it cost nor which calls made it (else the last),
     * so that the session's tokens and model hops hold every call.
     */
    const recordThoughts = async (thoughts: NonNullable<BranchRoundOutcome['thoughts']>, writeSignal: AbortSignal | undefined) => {
      let next = 0;
      const shares = thoughts.map((x) => {
        const claims = Number.isFinite(x.modelCalls) ? Math.max(0, Math.floor(x.modelCalls!)) : 0;
        const n = Math.min(claims, calls.length - next);
        const share = { calls: n, tokens: calls.slice(next, next + n).reduce((a, b) => a + b, 0) };
        next += n;
        return share;
      });
      const payer = thoughts.findIndex((x) => x.tokens === undefined && x.modelCalls === undefined);
      const pays = payer === -1 ? thoughts.length - 1 : payer;
      if (pays >= 0) {
        const claimed = shares.reduce((a, b) => a + b.tokens, 0);
        shares[pays]!.calls += calls.length - next;
        shares[pays]!.tokens += spent - claimed;
      }
      let parent = session.branch(t.id)!.thoughtIds.at(-1) ?? current.from;
      for (const [i, thought] of thoughts.entries()) {
        const { calls: modelCalls, tokens } = shares[i]!;
        const added = await session.addThought({ role: thought.role ?? 'planner', content: thought.content, parentIds: [parent], edge: 'refines', branchId: t.id, tokens: (thought.tokens ?? 0) + tokens, ...(modelCalls > 0 ? { modelCalls } : {}), ...(writeSignal ? { signal: writeSignal } : {}) });
        parent = added.id;
      }
    };
    let outcome: BranchRoundOutcome;
    try {
      try {
        // Raced against the branch's own signal: a worker that ignores it cannot hold a race up.
        outcome = await raceAbort(
          run.guard(
            () =>
              worker(current, {
                goal: snap.goal,
                successCriteria: [...snap.successCriteria],
                round: t.rounds,
                roundTokens: o.roundTokens,
                maxThoughtChars: snap.maxThoughtChars,
                issues: current.issues ?? [],
                thoughts: current.thoughtIds.map((id) => session.thought(id)!).map((x) => ({ role: x.role, content: x.content })),
                model: runModel
                  ? branchModel(runModel, signal, (n) => {
                      calls.push(n);
                      spent += n;
                    })
                  : undefined,
                signal,
                ask: (request) => run.ask(request, { kind: 'branch', branchId: t.id }),
              }),
            'branch worker',
          ),
          signal,
          'branch worker',
        );
      } catch (error) {
        // A round that failed still cost what its calls spent: the thoughts the worker made before it
        // failed (the default worker's critique), and one for the rest of the calls, go on record,
        // or the session's tokens and model hops would miss them. Written without the branch's
        // signal, which a lost race or a stopping run has aborted (as the stop itself is recorded);
        // a write that fails leaves the round's own error to report.
        const made = thoughtsBeforeFailure(error);
        if (made.length > 0 || calls.length > 0) {
          const why = error instanceof Error ? error.message : String(error);
          const thoughts = [...made, { role: 'planner' as const, content: clip(`Round ${t.rounds} of ${t.name} failed: ${why}`, snap.maxThoughtChars) }];
          await recordThoughts(thoughts, undefined).catch(() => undefined);
        }
        throw error;
      }
      spent += outcome.tokens ?? 0;
      const thoughts = [...(outcome.thoughts ?? [])];
      if (thoughts.length === 0 && (calls.length > 0 || spent > 0)) {
        // Spent with nothing to show for it: the round still goes on record, or the session would miss what it cost.
        const did = outcome.plan !== undefined ? 'a plan' : outcome.answer !== undefined ? 'an answer' : 'no plan';
        thoughts.push({ role: 'planner', content: clip(`Round ${t.rounds} of ${t.name}: ${did}.`, snap.maxThoughtChars) });
      }
      await recordThoughts(thoughts, signal);
      if (outcome.answer !== undefined) t.answer = outcome.answer;
      let state = session.branch(t.id)!.state;
      // The plan and its validation in one write: a plan the store refuses, or a race lost, leaves
      // no unvalidated plan behind.
      if (outcome.plan !== undefined) state = (await session.validateAs(t.id, { ...validation, signal }, admit, { plan: outcome.plan, kind: outcome.planKind ?? validation.kind ?? 'execution' })).branch.state;
      const reward = session.branch(t.id)!.reward;
      emit({ type: 'branch.round.completed', branchId: t.id, round: t.rounds, state, ...(reward === undefined ? {} : { reward }), tokens: spent, ms: run.now() - started });
      return state;
    } finally {
      // A round cut short still cost what its calls spent.
      t.tokens += spent;
      t.ms += run.now() - started;
    }
  };

  /** Stops a branch early: its work aborted, and the session engine's early stop recorded when its state allows. */
  const stop = async (t: Track, trigger: 'race_lost' | 'budget_exceeded', reason: string) => {
    if (t.stopped) return;
    t.stopped = trigger;
    t.controller.abort(new TotError('ABORTED', `Branch ${t.id} stopped: ${reason}.`));
    emit({ type: 'branch.stopped', branchId: t.id, reason: trigger });
  };

  const record = async (t: Track, trigger: 'race_lost' | 'budget_exceeded', reason: string) => {
    const state = session.branch(t.id)!.state;
    const path = stopPath(state, trigger);
    // One write: a branch is stopped, or left as it was, never halfway (planning, its work gone).
    if (path) await session.transitions(t.id, path, { reason });
  };

  /** The session's budget rule: more than 90% of its tokens or time used. */
  const sessionBudgetSpent = () => {
    const s = session.snapshot();
    return budgetStop({ tokensUsed: s.tokensUsed, ...(s.budget.maxTokens ? { maxTokens: s.budget.maxTokens } : {}), msElapsed: run.now() - s.startedAt, ...(s.budget.maxMs ? { maxMs: s.budget.maxMs } : {}) });
  };

  /** The quality rule: a validated branch complete with risk under 0.2. */
  const excellent = (id: string) => {
    const b = session.branch(id)!;
    return b.state === 'validated' && (b.score?.completeness ?? 0) === 1 && (b.score?.risk ?? 1) < 0.2;
  };

  /** A branch's rounds until it validates, runs out of rounds, or is stopped; failures are its own. */
  const work = async (t: Track, onValid: (t: Track) => Promise<void> | void, between?: () => Promise<boolean>, admit?: (ok: boolean) => boolean) => {
    try {
      while (!t.stopped && t.rounds < o.maxRounds) {
        if (between && (await between())) return;
        const state = await round(t, admit);
        if (state === 'validated') return onValid(t);
        if (between && (await between())) return;
      }
    } catch (error) {
      if (t.stopped || run.stopping) return;
      run.recordError(error, { kind: 'branch', branchId: t.id });
    }
  };

  const all = () => [...tracks.values()];

  /** The branch with the highest latest reward among `ids`, ties to the first listed; none when none of them was scored. */
  const bestOf = (ids: string[]) => {
    let best: string | undefined;
    let top = Number.NEGATIVE_INFINITY;
    for (const id of ids) {
      const reward = session.branch(id)!.reward;
      if (reward !== undefined && reward > top) [best, top] = [id, reward];
    }
    return best;
  };

  /** The winner by reward (`best`, `bandit`): the best validated branch, else, none validated, the best scored one. */
  const byReward = () => {
    const valid = o.branchIds.filter((id) => session.branch(id)!.state === 'validated');
    return bestOf(valid.length > 0 ? valid : o.branchIds);
  };

  return {
    async main() {
      if (o.strategy === 'race') {
        let spentBudget = false;
        const between = async () => {
          if (!spentBudget && sessionBudgetSpent()) spentBudget = true;
          return spentBudget;
        };
        // The first passing plan claims the win in the tick its validation is written: of branches
        // validating at once, exactly one wins.
        const claim = (id: string) => (ok: boolean) => {
          if (!ok) return true;
          winner ??= id;
          return winner === id;
        };
        await Promise.all(
          all().map((t) =>
            work(
              t,
              async (w) => {
                for (const other of all()) if (other.id !== w.id) await stop(other, 'race_lost', `${w.id} validated first`);
              },
              between,
              claim(t.id),
            ),
          ),
        );
        for (const t of all()) if (t.stopped) await record(t, 'race_lost', `${winner} validated first`);
        if (spentBudget && winner === undefined) {
          stopReason = 'session_budget';
          for (const t of all()) await record(t, 'budget_exceeded', 'the session budget is 90% used');
        }
      } else if (o.strategy === 'best' || o.strategy === 'vote') {
        let early: ParallelStopReason | undefined;
        const between = async () => {
          if (sessionBudgetSpent()) early ??= 'session_budget';
          // The convergence rule: two validated branches or more, about as good as each other.
          const rewards = all().filter((x) => session.branch(x.id)!.state === 'validated').map((x) => session.branch(x.id)!.reward ?? 0);
          if (o.strategy === 'best' && rewards.length >= 2 && convergenceStop(rewards)) early ??= 'converged';
          return early !== undefined;
        };
        await Promise.all(
          all().map((t) =>
            work(
              t,
              () => {
                if (early === undefined && excellent(t.id)) {
                  early = 'quality';
                  winner = t.id;
                }
              },
              between,
            ),
          ),
        );
        if (early === 'session_budget') {
          stopReason = 'session_budget';
          for (const t of all()) if (session.branch(t.id)!.state !== 'validated') await record(t, 'budget_exceeded', 'the session budget is 90% used');
        }
        const valid = all().filter((t) => session.branch(t.id)!.state === 'validated').map((t) => t.id);
        if (early === 'quality') stopReason = 'quality';
        else if (early === 'converged') {
          stopReason = 'converged';
          winner = bestOf(valid);
        }
        else if (o.strategy === 'best') winner = byReward();
        else {
          votes = {};
          for (const id of valid) {
            const key = answerKey(tracks.get(id)!.answer ?? JSON.stringify(session.branch(id)!.plan ?? null));
            votes[key] = (votes[key] ?? 0) + 1;
          }
          const top = Math.max(0, ...Object.values(votes));
          const leaders = valid.filter((id) => votes![answerKey(tracks.get(id)!.answer ?? JSON.stringify(session.branch(id)!.plan ?? null))] === top);
          winner = bestOf(leaders);
        }
      } else {
        const ucb = new UCBScheduler();
        const active = new Set(o.branchIds);
        while (active.size > 0 && !run.stopping) {
          if (sessionBudgetSpent()) {
            stopReason = 'session_budget';
            for (const id of active) await record(tracks.get(id)!, 'budget_exceeded', 'the session budget is 90% used');
            break;
          }
          const id = ucb.select([...active]);
          const t = tracks.get(id)!;
          let state: BranchState;
          try {
            state = await round(t);
          } catch (error) {
            if (run.stopping) break;
            run.recordError(error, { kind: 'branch', branchId: id });
            active.delete(id);
            continue;
          }
          // The round's reward: calculateReward of the score its plan got in validation, passed or
          // not (a round without a plan leaves the branch's standing reward; never scored, 0).
          const b = session.branch(id)!;
          ucb.update(id, b.reward ?? (b.score ? calculateReward(b.score) : 0));
          if (state === 'validated') {
            winner = id;
            break;
          }
          if (t.rounds >= o.maxRounds) active.delete(id);
        }
        // No branch validated (rounds, budget or run spent): the seed's "then best reward".
        winner ??= byReward();
      }
      // The kernel's halt (the run's budget spent, its time limit passed) is the run's stop reason, as
      // result() reports it: the event says the same. A caller's abort is known only once the run
      // ends (and the run then rejects with ABORTED), so it is not said here.
      if (o.approveWinner && winner !== undefined && !run.stopping && session.branch(winner)!.state === 'validated') {
        const b = session.branch(winner)!;
        // The answer lives in the session: asked of onAsk when there is one and none is recorded,
        // else the question waits there (a parallel run cannot be resumed) for approvePlan, from
        // any process, and exportPlan checks it.
        if (!b.approval && o.onAsk) {
          const said = await run.ask({ key: APPROVAL_KEY, question: approvalWords(b), schema: planApprovalSchema, preview: approvalPreview(b) }, { kind: 'branch', branchId: winner });
          await session.approvePlan(winner, { ...said, signal: run.signal });
        }
        const approval = session.branch(winner)!.approval;
        if (!approval) {
          waitingFor = session.approvalQuestion(winner);
          winner = undefined;
          stopReason = 'waiting';
        } else if (!approval.approved) {
          winner = undefined;
          stopReason = 'not_approved';
        }
      }
      emit({ type: 'parallel.decided', strategy: o.strategy, winner: winner ?? null, reason: run.halted?.reason ?? stopReason });
    },
    result(end: RunEnd): ParallelResult {
      const reason: ParallelStopReason = end.halted?.reason ?? stopReason;
      const branches: BranchOutcome[] = all().map((t) => {
        const b = session.branch(t.id)!;
        return { branchId: t.id, name: t.name, state: b.state, ...(b.reward === undefined ? {} : { reward: b.reward }), ...(t.answer === undefined ? {} : { answer: t.answer }), rounds: t.rounds, tokens: t.tokens, ms: t.ms, ...(b.earlyStopReason ? { earlyStopReason: b.earlyStopReason } : {}) };
      });
      return {
        runId: end.runId,
        stopReason: reason,
        ...(end.halted?.detail ? { detail: end.halted.detail } : {}),
        ...(waitingFor && !end.halted ? { detail: { kind: 'waiting' as const, questions: [waitingFor.id] }, pending: [waitingFor] } : {}),
        strategy: o.strategy,
        winner: winner === undefined ? undefined : session.branch(winner),
        branches,
        ...(votes ? { votes } : {}),
        errors: end.errors,
        stats: end.stats,
      };
    },
  };
}
