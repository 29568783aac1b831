import type { LanguageModel } from '../model/types.js';
import type { RoleCallOptions } from './types.js';

/** The model a role calls: the run's view of it inside a run, the model itself outside one. */
export function roleModel(model: LanguageModel, options: RoleCallOptions = {}): LanguageModel {
  return options.runModel ? options.runModel(model) : model;
}
