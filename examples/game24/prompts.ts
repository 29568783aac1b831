/**
 * Game of 24 roles for a real model: a proposal prompt that asks for next steps in the
 * "a op b = c (left: …)" form and a value prompt that judges whether the numbers left can still
 * reach 24. Both reply in JSON, parsed by the library's structured output.
 */
import { createEvaluator, createGenerator, type LanguageModel, type ThoughtNode } from '@tot/core';
import { checkAnswer } from './verifier.js';

export const PROPOSE_PROMPT = `We play the Game of 24: combine the given numbers with + - * / so that the result is 24, using every number exactly once.
Puzzle: {{problem}}
Steps so far:
{{path}}

If the last step left only 24, write the final answer as one expression over the original puzzle numbers, as a single candidate of the form "Answer: <expression> = 24".
Otherwise propose up to {{k}} different next steps. Each step combines two of the numbers left with one operation and lists the numbers left after it, exactly in this form: "4 + 8 = 12 (left: 6 12)".

Reply with JSON only: {"candidates": [{"content": "<step>", "actionType": "<+|-|*|/|answer>"}]}`;

export const VALUE_PROMPT = `We play the Game of 24: combine numbers with + - * / to reach 24, using every number exactly once.
Puzzle: {{problem}}
Steps so far, the last one being judged:
{{path}}

Judge whether the numbers left after the last step can still reach 24. Try a few combinations. Score 10 if you are sure they can (or the step is a correct final answer), 5 if it is likely, 0 if it is impossible (too big or too small to combine into 24).

Reply with JSON only: {"score": <0|5|10>, "confidence": <0-1>, "reasoning": "<the combination you tried>"}`;

export function game24Generator(model: LanguageModel) {
  return createGenerator({ model, strategy: 'sequential_proposal', prompt: PROPOSE_PROMPT, temperature: 0.7 });
}

export function game24Evaluator(model: LanguageModel, samples = 3) {
  return createEvaluator({ model, strategy: 'independent_scoring', samples, prompt: VALUE_PROMPT });
}

/** A node solves the puzzle when it is an answer line that the exact verifier accepts. */
export function isGame24Solution(puzzle: string) {
  return (node: ThoughtNode) => /^answer:/i.test(node.content.trim()) && checkAnswer(puzzle, node.content).valid;
}
