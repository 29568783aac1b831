import type { LanguageModel } from '../model/types.js';
import { withBudget } from '../model/with-budget.js';
import { withUsage } from '../model/with-usage.js';
import { wrapModel } from '../model/wrap-model.js';
import type { ModelCallLog, RoleCallOptions, Scheduler } from './types.js';

const direct: Scheduler = (task) => task();

/**
 * The model a role calls during a run: counted by the run's meter and admitted by its budget
 * (budget outermost, so a refused call is not counted as made), and the run's scheduler.
 */
export function roleModel(model: LanguageModel, options: RoleCallOptions = {}): { model: LanguageModel; schedule: Scheduler } {
  // Outermost first: the meter counts every call of the run (served or live), the log serves
  // recorded calls without touching the budget, the budget admits live calls.
  let wrapped = model;
  if (options.budget) wrapped = withBudget(wrapped, { budget: options.budget });
  if (options.modelCalls) wrapped = withModelLog(wrapped, options.modelCalls);
  if (options.meter) wrapped = withUsage(wrapped, { meter: options.meter });
  return { model: wrapped, schedule: options.schedule ?? direct };
}

function withModelLog(model: LanguageModel, log: ModelCallLog): LanguageModel {
  return wrapModel(model, async (request, callOptions) => {
    const recorded = log.recorded(model.modelId, request);
    if (recorded) return recorded;
    const callId = log.started(model.modelId, request);
    const started = Date.now();
    try {
      const result = await model.generate(request, callOptions);
      // The result is used only once it is stored: a crash can never lose a call that was made.
      await log.completed(callId, result, Date.now() - started);
      return result;
    } catch (error) {
      log.failed(callId, error);
      throw error;
    }
  });
}
