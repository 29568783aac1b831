import { EventEmitter } from 'eventemitter3';
import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { fnSchema, parseOptions } from '../internal/validate.js';

/**
 * The limits a {@link Budget} can enforce.
 *
 * @example
 * ```ts
 * import type { BudgetLimitName } from '@tot/core';
 *
 * const limit: BudgetLimitName = 'totalTokens';
 * ```
 */
export type BudgetLimitName = 'calls' | 'inputTokens' | 'outputTokens' | 'totalTokens' | 'cost' | 'deadline';

/**
 * Options of {@link Budget}. Every limit is optional; a budget without limits admits everything
 * and still counts.
 *
 * @example
 * ```ts
 * import { Budget, type BudgetOptions } from '@tot/core';
 *
 * const options: BudgetOptions = {
 *   maxCalls: 200,
 *   maxTotalTokens: 400_000,
 *   maxCost: 2,
 *   pricing: { inputPerMillionTokens: 2.5, outputPerMillionTokens: 10 },
 *   deadlineMs: 120_000,
 * };
 * const budget = new Budget(options);
 * ```
 */
export interface BudgetOptions {
  maxCalls?: number;
  maxInputTokens?: number;
  maxOutputTokens?: number;
  maxTotalTokens?: number;
  /** Cost ceiling, in the currency of `pricing`. Requires `pricing`. */
  maxCost?: number;
  /** Prices per million tokens, used to compute cost. */
  pricing?: { inputPerMillionTokens: number; outputPerMillionTokens: number };
  /**
   * Wall time allowed, in milliseconds, from the budget's start: the start of the run it is given
   * to, or else its first admitted call (`start()` starts it explicitly).
   */
  deadlineMs?: number;
  /** Fraction of a limit at which `budget.warning` is emitted once. Default 0.8. */
  warnAt?: number;
  /**
   * What a run does when a limit (calls, tokens, cost; not the deadline) reaches `warnAt`:
   * `'stop'` (the default) goes on and stops hard at the limit; `'ask'` asks a person for more
   * (`{ more: n }` adds `n` to the limit, `{ more: 0 }` denies) through the run's `onAsk`, or a
   * recorded run waits for the answer when it reaches the limit and a resume gives it. See the
   * Runs guide, "Asking a person".
   */
  onExhausted?: 'stop' | 'ask';
  /** Clock in epoch milliseconds. Default `Date.now`. */
  now?: () => number;
}

/**
 * What one call expects to consume, reserved before it starts.
 *
 * @example
 * ```ts
 * import type { BudgetEstimate } from '@tot/core';
 *
 * const estimate: BudgetEstimate = { calls: 1, inputTokens: 1_200, outputTokens: 256 };
 * ```
 */
export interface BudgetEstimate {
  calls?: number;
  inputTokens?: number;
  outputTokens?: number;
}

/**
 * Amounts in one {@link BudgetSnapshot} bucket.
 *
 * @example
 * ```ts
 * import type { BudgetAmounts } from '@tot/core';
 *
 * const used: BudgetAmounts = { calls: 3, inputTokens: 900, outputTokens: 120, totalTokens: 1_020, cost: 0.0035 };
 * ```
 */
export interface BudgetAmounts {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cost: number;
}

/**
 * A point-in-time view of a {@link Budget}.
 *
 * @example
 * ```ts
 * import { Budget, type BudgetSnapshot } from '@tot/core';
 *
 * const s: BudgetSnapshot = new Budget({ maxCalls: 10 }).snapshot();
 * s.remaining.calls; // 10
 * ```
 */
export interface BudgetSnapshot {
  /** Consumed by settled calls. */
  used: BudgetAmounts;
  /** Held by calls in flight. */
  reserved: BudgetAmounts;
  /** What is left of each limit (`undefined` for a limit that is not set). */
  remaining: Partial<Record<Exclude<BudgetLimitName, 'deadline'>, number>> & { deadlineMs?: number };
  limits: Omit<BudgetOptions, 'now' | 'warnAt' | 'onExhausted'>;
  elapsedMs: number;
  /** Whether any admission has been refused or the deadline has passed. */
  exhausted: boolean;
  /** The limit that refused the first refused admission (`'deadline'` once it has passed), when exhausted. */
  exhaustedLimit?: BudgetLimitName;
}

/**
 * Payload of the `budget.warning` event.
 *
 * @example
 * ```ts
 * import type { BudgetWarning } from '@tot/core';
 *
 * const onWarning = (w: BudgetWarning) => console.warn(`${w.limit} at ${Math.round(w.ratio * 100)}%`);
 * ```
 */
export interface BudgetWarning {
  type: 'budget.warning';
  limit: BudgetLimitName;
  used: number;
  max: number;
  ratio: number;
}

/**
 * Payload of the `budget.exceeded` event, emitted when an admission is refused.
 *
 * @example
 * ```ts
 * import type { BudgetExceeded } from '@tot/core';
 *
 * const onExceeded = (e: BudgetExceeded) => console.error(`refused: ${e.limit}`);
 * ```
 */
export interface BudgetExceeded {
  type: 'budget.exceeded';
  limit: BudgetLimitName;
  /** Used plus reserved before the refused request. */
  committed: number;
  requested: number;
  max: number;
}

/**
 * Events of a {@link Budget}.
 *
 * @example
 * ```ts
 * import { Budget, type BudgetEvents } from '@tot/core';
 *
 * const names: (keyof BudgetEvents)[] = ['budget.warning', 'budget.exceeded'];
 * ```
 */
export interface BudgetEvents {
  'budget.warning': [BudgetWarning];
  'budget.exceeded': [BudgetExceeded];
}

/**
 * A call's hold on a {@link Budget}: settle it with the real usage, or release it if the call
 * never happened.
 *
 * @example
 * ```ts
 * import { Budget } from '@tot/core';
 *
 * const budget = new Budget({ maxCalls: 5 });
 * const hold = budget.reserve({ calls: 1, inputTokens: 100, outputTokens: 50 });
 * hold.settle({ inputTokens: 96, outputTokens: 12 });
 * ```
 */
export interface BudgetReservation {
  /**
   * Records what the call really used and frees the hold. A field that is absent or malformed
   * (not a finite non-negative number; for `calls`, not an integer) counts as reserved; settle
   * never throws.
   */
  settle(actual?: BudgetEstimate): void;
  /** Frees the hold without consuming anything. */
  release(): void;
}

const positive = z.number().positive();
const optionsSchema = z
  .strictObject({
    maxCalls: z.number().int().nonnegative().optional(),
    maxInputTokens: z.number().int().nonnegative().optional(),
    maxOutputTokens: z.number().int().nonnegative().optional(),
    maxTotalTokens: z.number().int().nonnegative().optional(),
    maxCost: z.number().nonnegative().optional(),
    pricing: z.strictObject({ inputPerMillionTokens: z.number().nonnegative(), outputPerMillionTokens: z.number().nonnegative() }).optional(),
    deadlineMs: positive.optional(),
    warnAt: z.number().gt(0).max(1).default(0.8),
    onExhausted: z.enum(['stop', 'ask']).default('stop'),
    now: fnSchema<() => number>().optional(),
  })
  .refine((o) => o.maxCost === undefined || o.pricing !== undefined, { message: 'maxCost requires pricing', path: ['pricing'] });

/**
 * What {@link Budget.extend} adds to a budget's limits.
 *
 * @example
 * ```ts
 * import type { BudgetExtension } from '@tot/core';
 *
 * const more: BudgetExtension = { maxCalls: 20, maxTotalTokens: 50_000 };
 * ```
 */
export type BudgetExtension = Partial<Pick<BudgetOptions, 'maxCalls' | 'maxInputTokens' | 'maxOutputTokens' | 'maxTotalTokens' | 'maxCost'>>;

const extensionSchema = z.strictObject({
  maxCalls: z.number().int().nonnegative().optional(),
  maxInputTokens: z.number().int().nonnegative().optional(),
  maxOutputTokens: z.number().int().nonnegative().optional(),
  maxTotalTokens: z.number().int().nonnegative().optional(),
  maxCost: z.number().nonnegative().optional(),
});

/** The limit each option of {@link BudgetExtension} sets. */
export const LIMIT_OF = { maxCalls: 'calls', maxInputTokens: 'inputTokens', maxOutputTokens: 'outputTokens', maxTotalTokens: 'totalTokens', maxCost: 'cost' } as const satisfies Record<keyof BudgetExtension, BudgetLimitName>;

const estimateSchema = z.strictObject({
  calls: z.number().int().nonnegative().optional(),
  inputTokens: z.number().nonnegative().optional(),
  outputTokens: z.number().nonnegative().optional(),
});

const allowanceSchema = estimateSchema.pick({ inputTokens: true });

/** A figure `settle` can add to a total: a finite, non-negative number (what `estimateSchema` accepts). */
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;

const zero = (): BudgetAmounts => ({ calls: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0, cost: 0 });

/**
 * Hard limits on calls, tokens, cost and wall time, shared by everything in one run.
 *
 * Admission is reserve-before, settle-after: a call is admitted only if what it reserves fits
 * beside what is used and what calls in flight have reserved, so a batch of concurrent calls can
 * never overshoot a limit together. The call limit is exact, and so is the deadline (it refuses
 * new calls and cancels the calls in flight). A token or cost limit is exact on what calls
 * reserve; a call that then uses more than it reserved is charged what it used, so usage can
 * pass the limit by that excess, after which nothing more is admitted (see {@link withBudget}
 * for when reservations are exact).
 *
 * @example
 * ```ts
 * import { Budget, withBudget } from '@tot/core';
 *
 * const budget = new Budget({ maxCalls: 100, maxTotalTokens: 200_000, deadlineMs: 60_000 });
 * budget.on('budget.warning', (w) => console.warn(w));
 * const model = withBudget(provider, { budget });
 * ```
 */
export class Budget extends EventEmitter<BudgetEvents> {
  private readonly limits: Omit<BudgetOptions, 'now' | 'warnAt' | 'onExhausted'>;
  /** The fraction of a limit at which the budget warns (and, with `onExhausted: 'ask'`, a run asks for more). */
  readonly warnAt: number;
  /** What a run does at `warnAt` of a limit: stop at the limit, or ask a person for more. */
  readonly onExhausted: 'stop' | 'ask';
  private readonly now: () => number;
  private readonly options: BudgetOptions;
  private startedAt: number | undefined;
  private readonly used = zero();
  private readonly reserved = zero();
  private readonly warned = new Set<BudgetLimitName>();
  private refused: BudgetLimitName | undefined;
  private controller: AbortController | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(options: BudgetOptions = {}) {
    super();
    const { warnAt, now, onExhausted, ...limits } = parseOptions(optionsSchema, options, 'Budget');
    this.options = { ...options };
    this.limits = limits;
    this.warnAt = warnAt;
    this.onExhausted = onExhausted;
    this.now = now ?? Date.now;
  }

  /**
   * Starts the budget's clock, if it has not started yet: the deadline counts from here. A runner
   * starts the budget it is given when its run starts; a budget used only through
   * {@link withBudget} starts at its first admitted call. Returns the budget.
   *
   * @example
   * ```ts
   * import { Budget } from '@tot/core';
   *
   * const budget = new Budget({ deadlineMs: 60_000 }).start();
   * ```
   */
  start(): this {
    this.startedAt ??= this.now();
    return this;
  }

  /**
   * Whether the clock has started (see {@link Budget.start}).
   *
   * @example
   * ```ts
   * import { Budget } from '@tot/core';
   *
   * new Budget().started; // false
   * ```
   */
  get started(): boolean {
    return this.startedAt !== undefined;
  }

  /**
   * A template that gives each run its own budget with these limits: pass it as a runner's
   * `budget` in a server, where one module-level budget would be shared (and its deadline spent)
   * by every request.
   *
   * @example
   * ```ts
   * import { Budget, Explorer } from '@tot/core';
   *
   * const perRequest = new Budget({ maxCalls: 60, deadlineMs: 120_000 }).perRun();
   * const explorer = new Explorer({ generator, evaluator, budget: perRequest });
   * // every explorer.run(…) gets a fresh Budget whose deadline starts with that run
   * ```
   */
  perRun(): BudgetTemplate {
    return new BudgetTemplate(this.options);
  }

  /**
   * Epoch milliseconds at which the deadline passes, if there is one and the budget has started.
   *
   * @example
   * ```ts
   * import { Budget } from '@tot/core';
   *
   * new Budget({ deadlineMs: 1_000 }).start().deadline; // Date.now() + 1000
   * ```
   */
  get deadline(): number | undefined {
    return this.limits.deadlineMs === undefined || this.startedAt === undefined ? undefined : this.startedAt + this.limits.deadlineMs;
  }

  /**
   * A signal that aborts with `BUDGET_EXCEEDED` when the deadline passes (never, without one).
   * Model calls under the budget are cancelled by it, so the wall-time limit holds for calls in
   * flight. Reading it starts the budget's clock.
   *
   * @example
   * ```ts
   * import { Budget } from '@tot/core';
   *
   * const budget = new Budget({ deadlineMs: 30_000 });
   * await fetch(url, { signal: AbortSignal.any([userSignal, budget.signal]) });
   * ```
   */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      this.start();
      const deadline = this.deadline;
      if (deadline !== undefined) {
        const fire = () => this.controller!.abort(this.deadlineError());
        const wait = deadline - this.now();
        if (wait <= 0) fire();
        else {
          this.timer = setTimeout(fire, wait);
          // A budget must never keep a process alive on its own.
          (this.timer as { unref?: () => void }).unref?.();
        }
      }
    }
    return this.controller.signal;
  }

  /**
   * Whether `estimate` would be admitted now (without reserving it).
   *
   * @example
   * ```ts
   * import { Budget } from '@tot/core';
   *
   * new Budget({ maxCalls: 1 }).canAfford({ calls: 2 }); // false
   * ```
   */
  canAfford(estimate: BudgetEstimate): boolean {
    return this.firstViolation(this.normalize(estimate)) === undefined;
  }

  /**
   * Reserves `estimate` or throws `BUDGET_EXCEEDED` (and emits `budget.exceeded`) if any limit
   * could be passed. Synchronous, so concurrent callers are admitted one at a time.
   *
   * @example
   * ```ts
   * import { Budget, TotError } from '@tot/core';
   *
   * const budget = new Budget({ maxCalls: 1 });
   * budget.reserve({ calls: 1 });
   * try { budget.reserve({ calls: 1 }); } catch (e) { TotError.hasCode(e, 'BUDGET_EXCEEDED'); } // true
   * ```
   */
  reserve(estimate: BudgetEstimate): BudgetReservation {
    this.start();
    const amount = this.normalize(estimate);
    const violation = this.firstViolation(amount);
    if (violation) {
      this.refused ??= violation.limit;
      this.emit('budget.exceeded', violation);
      throw new TotError(
        'BUDGET_EXCEEDED',
        violation.limit === 'deadline'
          ? 'The budget deadline has passed.'
          : `Budget limit "${violation.limit}" would be exceeded: ${violation.committed} committed + ${violation.requested} requested > ${violation.max}.`,
        { details: { ...violation } },
      );
    }
    add(this.reserved, amount, 1);
    let open = true;
    return {
      settle: (actual = {}) => {
        if (!open) return;
        // Worked out before the hold is freed, and never throws: a malformed figure (NaN, negative,
        // a string, …) counts as unknown, so it can neither uncount the call nor poison a total.
        const given: BudgetEstimate = typeof actual === 'object' && actual !== null ? actual : {};
        const real = this.priced({
          calls: isCount(given.calls) && Number.isInteger(given.calls) ? given.calls : amount.calls,
          inputTokens: isCount(given.inputTokens) ? given.inputTokens : amount.inputTokens,
          outputTokens: isCount(given.outputTokens) ? given.outputTokens : amount.outputTokens,
        });
        open = false;
        add(this.reserved, amount, -1);
        add(this.used, real, 1);
        this.checkWarnings();
      },
      release: () => {
        if (!open) return;
        open = false;
        add(this.reserved, amount, -1);
      },
    };
  }

  /**
   * Raises limits the budget has by the amounts given (a person granted more): each limit warns
   * again at `warnAt` of its new value, and a limit that had refused a call admits again.
   * `INVALID_ARGUMENT` for a limit the budget does not have, or an amount that is not a
   * non-negative number.
   *
   * @example
   * ```ts
   * import { Budget } from '@tot/core';
   *
   * const budget = new Budget({ maxCalls: 10 });
   * budget.extend({ maxCalls: 5 }); // 15 calls in all
   * ```
   */
  extend(more: BudgetExtension): this {
    const m = parseOptions(extensionSchema, more, 'Budget.extend');
    const limits = this.limits as Record<string, number | undefined>;
    for (const [key, amount] of Object.entries(m) as [keyof BudgetExtension, number][]) {
      if (limits[key] === undefined) throw new TotError('INVALID_ARGUMENT', `Budget.extend: the budget has no ${key} to raise.`, { details: { field: key } });
      limits[key] = limits[key]! + amount;
      const name = LIMIT_OF[key];
      this.warned.delete(name);
      if (this.refused === name) this.refused = undefined;
    }
    return this;
  }

  /**
   * The budget's state: used, reserved, remaining, limits and elapsed time.
   *
   * @example
   * ```ts
   * import { Budget } from '@tot/core';
   *
   * const { used, remaining } = new Budget({ maxCalls: 3 }).snapshot();
   * ```
   */
  snapshot(): BudgetSnapshot {
    const elapsedMs = this.elapsed();
    const l = this.limits;
    const remaining: BudgetSnapshot['remaining'] = {};
    const committed = (k: keyof BudgetAmounts) => this.used[k] + this.reserved[k];
    if (l.maxCalls !== undefined) remaining.calls = l.maxCalls - committed('calls');
    if (l.maxInputTokens !== undefined) remaining.inputTokens = l.maxInputTokens - committed('inputTokens');
    if (l.maxOutputTokens !== undefined) remaining.outputTokens = l.maxOutputTokens - committed('outputTokens');
    if (l.maxTotalTokens !== undefined) remaining.totalTokens = l.maxTotalTokens - committed('totalTokens');
    if (l.maxCost !== undefined) remaining.cost = l.maxCost - committed('cost');
    if (l.deadlineMs !== undefined) remaining.deadlineMs = Math.max(0, l.deadlineMs - elapsedMs);
    const deadlinePassed = l.deadlineMs !== undefined && elapsedMs >= l.deadlineMs;
    return {
      used: { ...this.used },
      reserved: { ...this.reserved },
      remaining,
      limits: structuredClone(l),
      elapsedMs,
      exhausted: this.refused !== undefined || deadlinePassed,
      ...(this.refused !== undefined ? { exhaustedLimit: this.refused } : deadlinePassed ? { exhaustedLimit: 'deadline' as const } : {}),
    };
  }

  /**
   * The most output tokens one more call may reserve now, or `undefined` when no limit bounds
   * output tokens.
   *
   * @example
   * ```ts
   * import { Budget } from '@tot/core';
   *
   * new Budget({ maxTotalTokens: 1_000 }).outputTokenAllowance({ inputTokens: 600 }); // 400
   * ```
   */
  outputTokenAllowance(estimate: { inputTokens?: number } = {}): number | undefined {
    const l = this.limits;
    const input = parseOptions(allowanceSchema, estimate, 'Budget.outputTokenAllowance', 'estimate').inputTokens ?? 0;
    const bounds: number[] = [];
    if (l.maxOutputTokens !== undefined) bounds.push(l.maxOutputTokens - this.used.outputTokens - this.reserved.outputTokens);
    if (l.maxTotalTokens !== undefined) bounds.push(l.maxTotalTokens - this.used.totalTokens - this.reserved.totalTokens - input);
    if (l.maxCost !== undefined && l.pricing && l.pricing.outputPerMillionTokens > 0) {
      const left = l.maxCost - this.used.cost - this.reserved.cost - (input * l.pricing.inputPerMillionTokens) / 1e6;
      bounds.push(Math.floor((left * 1e6) / l.pricing.outputPerMillionTokens + 1e-9));
    }
    return bounds.length === 0 ? undefined : Math.max(0, Math.min(...bounds));
  }

  /**
   * Stops the deadline timer. Call it when the run is over if the budget has a deadline and its
   * `signal` was used.
   *
   * @example
   * ```ts
   * import { Budget } from '@tot/core';
   *
   * const budget = new Budget({ deadlineMs: 60_000 });
   * budget.dispose();
   * ```
   */
  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private elapsed(): number {
    return this.startedAt === undefined ? 0 : this.now() - this.startedAt;
  }

  private deadlineError(): TotError {
    return new TotError('BUDGET_EXCEEDED', 'The budget deadline has passed.', {
      details: { limit: 'deadline', max: this.limits.deadlineMs },
    });
  }

  private normalize(estimate: BudgetEstimate): BudgetAmounts {
    const e = parseOptions(estimateSchema, estimate, 'Budget', 'estimate');
    return this.priced({ calls: e.calls ?? 0, inputTokens: e.inputTokens ?? 0, outputTokens: e.outputTokens ?? 0 });
  }

  private priced({ calls, inputTokens, outputTokens }: Required<BudgetEstimate>): BudgetAmounts {
    const p = this.limits.pricing;
    const cost = p ? (inputTokens * p.inputPerMillionTokens + outputTokens * p.outputPerMillionTokens) / 1e6 : 0;
    return { calls, inputTokens, outputTokens, totalTokens: inputTokens + outputTokens, cost };
  }

  private firstViolation(amount: BudgetAmounts): BudgetExceeded | undefined {
    const l = this.limits;
    if (l.deadlineMs !== undefined && this.elapsed() >= l.deadlineMs) {
      return { type: 'budget.exceeded', limit: 'deadline', committed: this.elapsed(), requested: 0, max: l.deadlineMs };
    }
    const checks: [BudgetLimitName, keyof BudgetAmounts, number | undefined][] = [
      ['calls', 'calls', l.maxCalls],
      ['inputTokens', 'inputTokens', l.maxInputTokens],
      ['outputTokens', 'outputTokens', l.maxOutputTokens],
      ['totalTokens', 'totalTokens', l.maxTotalTokens],
      ['cost', 'cost', l.maxCost],
    ];
    for (const [limit, key, max] of checks) {
      if (max === undefined) continue;
      const committed = this.used[key] + this.reserved[key];
      // A tiny tolerance keeps floating-point cost sums from refusing a call that exactly fits.
      if (committed + amount[key] > max + 1e-9) return { type: 'budget.exceeded', limit, committed, requested: amount[key], max };
    }
    return undefined;
  }

  private checkWarnings(): void {
    const l = this.limits;
    const pairs: [BudgetLimitName, number, number | undefined][] = [
      ['calls', this.used.calls, l.maxCalls],
      ['inputTokens', this.used.inputTokens, l.maxInputTokens],
      ['outputTokens', this.used.outputTokens, l.maxOutputTokens],
      ['totalTokens', this.used.totalTokens, l.maxTotalTokens],
      ['cost', this.used.cost, l.maxCost],
      ['deadline', this.elapsed(), l.deadlineMs],
    ];
    for (const [limit, used, max] of pairs) {
      if (max === undefined || max === 0 || this.warned.has(limit)) continue;
      const ratio = used / max;
      if (ratio >= this.warnAt) {
        this.warned.add(limit);
        this.emit('budget.warning', { type: 'budget.warning', limit, used, max, ratio });
      }
    }
  }
}

function add(target: BudgetAmounts, amount: BudgetAmounts, sign: 1 | -1): void {
  target.calls += sign * amount.calls;
  target.inputTokens += sign * amount.inputTokens;
  target.outputTokens += sign * amount.outputTokens;
  target.totalTokens += sign * amount.totalTokens;
  target.cost += sign * amount.cost;
}

/**
 * Limits that give each run its own {@link Budget} (see {@link Budget.perRun}). A runner's
 * `budget` option takes a `Budget` (shared by every run it is given to), a template, or plain
 * {@link BudgetOptions} (treated as a template).
 *
 * @example
 * ```ts
 * import { Budget, BudgetTemplate } from '@tot/core';
 *
 * const template = new BudgetTemplate({ maxCalls: 20 });
 * const forThisRun: Budget = template.create();
 * ```
 */
export class BudgetTemplate {
  /** The options each created budget gets. */
  readonly options: Readonly<BudgetOptions>;

  constructor(options: BudgetOptions = {}) {
    // Validated now, so that a bad template fails where it is written, not at the first run.
    parseOptions(optionsSchema, options, 'BudgetTemplate');
    this.options = Object.freeze({ ...options });
  }

  /**
   * A fresh budget with the template's limits, not started.
   *
   * @example
   * ```ts
   * import { BudgetTemplate } from '@tot/core';
   *
   * const a = new BudgetTemplate({ maxCalls: 5 }).create();
   * ```
   */
  create(): Budget {
    return new Budget({ ...this.options });
  }
}
