import type { CallOptions, GenerateRequest, GenerateResult, LanguageModel } from './types.js';

/**
 * Budgets that admit every call through a model (set by `withBudget`, carried by every wrapper),
 * so that a run whose budget the model already admits through does not charge its calls twice.
 * `Symbol.for`, so that copies of the package agree.
 */
export const ADMITTING_BUDGETS: unique symbol = Symbol.for('tot.model.admittingBudgets') as never;

/** On call options: budgets that have already admitted this call. */
export const ADMITTED_BY: unique symbol = Symbol.for('tot.call.admittedBy') as never;

/**
 * On a model: its calls settle as soon as their signal aborts, whatever the provider under it does
 * (a run's model races every call), so `callModel` need not race it again. Never carried by wrappers.
 */
export const SETTLES_ON_ABORT: unique symbol = Symbol.for('tot.model.settlesOnAbort') as never;

/**
 * On a run's model: `generate` as {@link callModel} makes it, the result already checked against
 * the request and every failure a `TotError`, so that `callModel` adds no check and no promise of
 * its own. A module's own symbol, not `Symbol.for`: only this copy of the library sets it, so no
 * other model can skip the checks.
 */
export const CHECKED_CALL: unique symbol = Symbol('tot.model.checkedCall') as never;
export type CheckedCall = (request: GenerateRequest, options: CallOptions) => Promise<GenerateResult>;

type WithBudgets = { [ADMITTING_BUDGETS]?: ReadonlySet<object> };

/** The budgets that admit calls through `model` (empty for a model no `withBudget` wraps). */
export function admittingBudgets(model: LanguageModel): ReadonlySet<object> {
  return (model as WithBudgets)[ADMITTING_BUDGETS] ?? EMPTY;
}
const EMPTY: ReadonlySet<object> = new Set();

/** A model with `inner`'s identity and capabilities and a new `generate`: the shape of every middleware. */
export function wrapModel<M extends object = object>(inner: LanguageModel, generate: LanguageModel['generate'], extra?: M): LanguageModel & M {
  const model: LanguageModel & WithBudgets = {
    modelId: inner.modelId,
    ...(inner.capabilities === undefined ? {} : { capabilities: inner.capabilities }),
    generate,
  };
  const budgets = (inner as WithBudgets)[ADMITTING_BUDGETS];
  if (budgets !== undefined) Object.defineProperty(model, ADMITTING_BUDGETS, { value: budgets, enumerable: false, configurable: true });
  return extra === undefined ? (model as LanguageModel & M) : Object.defineProperties(model, Object.getOwnPropertyDescriptors(extra)) as LanguageModel & M;
}
