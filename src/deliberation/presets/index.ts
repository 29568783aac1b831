export { DEFAULT_MAD_PROMPTS, madDebate, parseMadVerdict, type MadDebateOptions, type MadPrompts } from './mad-debate.js';
export { planningDebate, type PlanningDebateOptions } from './planning-debate.js';
export { DEFAULT_SOCIETY_PROMPTS, majorityVote, societyOfMind, type SocietyOfMindOptions } from './society-of-mind.js';
