export {
  Budget,
  type BudgetAmounts,
  type BudgetEstimate,
  type BudgetEvents,
  type BudgetExceeded,
  type BudgetLimitName,
  type BudgetOptions,
  type BudgetReservation,
  type BudgetSnapshot,
  type BudgetWarning,
} from './budget.js';
export { estimateTokens, estimateRequestTokens } from './estimate-tokens.js';
