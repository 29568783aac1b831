export {
  Budget,
  BudgetTemplate,
  type BudgetAmounts,
  type BudgetEstimate,
  type BudgetEvents,
  type BudgetExceeded,
  type BudgetExtension,
  type BudgetLimitName,
  type BudgetOptions,
  type BudgetReservation,
  type BudgetSnapshot,
  type BudgetWarning,
} from './budget.js';
export { chargedUsage, estimateTokens, estimateRequestTokens, type ChargedUsage } from './estimate-tokens.js';
