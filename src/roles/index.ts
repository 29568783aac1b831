export type {
  Candidate,
  Decomposer,
  Decomposition,
  EvaluateThoughtsInput,
  EvaluationBatch,
  FinalSolution,
  GenerateThoughtsInput,
  NodeEvaluation,
  RoleCallOptions,
  RoleDescription,
  SynthesizeInput,
  Synthesizer,
  TaskContext,
  ThoughtEvaluator,
  ThoughtGenerator,
} from './types.js';
export { renderPrompt, type PromptTemplate } from './prompt-template.js';
export { TASK_PRESETS, taskPreset, type TaskPreset, type TaskType } from './task-presets.js';
export { createGenerator, DEFAULT_GENERATOR_PROMPTS, generatorReplySchemas, type GeneratorOptions } from './create-generator.js';
export { createEvaluator, DEFAULT_EVALUATOR_PROMPTS, evaluatorReplySchemas, rankEvaluations, type EvaluatorOptions } from './create-evaluator.js';
export { withEvaluationCache, type EvaluationCacheOptions, type EvaluationStore } from './with-evaluation-cache.js';
export { createDecomposer, DEFAULT_DECOMPOSER_PROMPT, decomposerReplySchema, type DecomposerOptions } from './create-decomposer.js';
export { createSynthesizer, DEFAULT_SYNTHESIZER_PROMPT, runVerifier, synthesizerReplySchema, type SolutionVerifier, type SynthesizerOptions } from './create-synthesizer.js';
