import type { LanguageModel } from '../model/types.js';
import { withBudget } from '../model/with-budget.js';
import { withUsage } from '../model/with-usage.js';
import type { RoleCallOptions, Scheduler } from './types.js';

const direct: Scheduler = (task) => task();

/**
 * The model a role calls during a run: counted by the run's meter and admitted by its budget
 * (budget outermost, so a refused call is not counted as made), and the run's scheduler.
 */
export function roleModel(model: LanguageModel, options: RoleCallOptions = {}): { model: LanguageModel; schedule: Scheduler } {
  let wrapped = model;
  if (options.meter) wrapped = withUsage(wrapped, { meter: options.meter });
  if (options.budget) wrapped = withBudget(wrapped, { budget: options.budget });
  return { model: wrapped, schedule: options.schedule ?? direct };
}
