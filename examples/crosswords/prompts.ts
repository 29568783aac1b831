/**
 * The two prompts of the paper's crossword search, in its reply formats, and their parsers.
 *
 * - Propose: shown the board and every clue under its status, the model lists answers with a
 *   confidence, one per line: `h1. apple (medium)`. Several samples are asked for, and each
 *   answer's confidences are summed over them (certain 1, high 0.5, medium 0.2, low 0.1).
 * - Value: shown one clue and the letters its word has so far, the model reasons and ends with
 *   one word on the last line: `sure`, `maybe` or `impossible`.
 */

export const PROPOSE_PROMPT = `We are solving a 5 x 5 mini crossword. Every answer has exactly 5 letters.

{{board}}

Given the current status, list every answer you consider possible for the unfilled or changed words, each with your confidence (certain/high/medium/low), one per line in the form "h1. apple (medium)". Say "certain" only when you are completely sure the word is correct. You may list several answers for the same word.`;

export const VALUE_PROMPT = `Judge whether some five-letter word with the meaning of the clue fits the letters given (sure/maybe/impossible). End with that one word on the last line.

A large striped cat: t i _ e r
The letters given: 5 letters, letter 1 is t, letter 2 is i, letter 4 is e, letter 5 is r.
Words meaning "A large striped cat":
tiger (t i g e r): 5 letters, letter 1 is t, letter 2 is i, letter 4 is e, letter 5 is r. fits!
sure

A sailing vessel of old: _ _ l _ y
The letters given: 5 letters, letter 3 is l, letter 5 is y.
Words meaning "A sailing vessel of old":
galleon (g a l l e o n): 7 letters, not 5
sloop (s l o o p): 5 letters, letter 3 is o, not l
No word comes to mind, but only 2 letters are given, so one may well exist
maybe

A colour: x q _ _ t
The letters given: 5 letters, letter 1 is x, letter 2 is q, letter 5 is t.
Words meaning "A colour":
green (g r e e n): 5 letters, letter 1 is g, not x
No word comes to mind, and no English word starts with "xq": there is none
impossible

{{clue}}`;

const fill = (template: string, values: Record<string, string>) => template.replace(/\{\{(\w+)\}\}/g, (_, key: string) => values[key] ?? '');

/** The propose prompt for a rendered board ({@link CrosswordBoard.render}). */
export const proposePrompt = (board: string) => fill(PROPOSE_PROMPT, { board });

/** The value prompt for one constrained clue (`<clue>: a _ _ _ b`). */
export const valuePrompt = (clue: string) => fill(VALUE_PROMPT, { clue });

/** The weight of each confidence word. */
export const CONFIDENCE = { certain: 1, high: 0.5, medium: 0.2, low: 0.1 } as const;

const PROPOSAL_LINE = /^([hv][1-5])\. ([a-zA-Z]{5}) \((certain|high|medium|low)\).*$/;

/**
 * Sums the confidence of each answer over a propose prompt's samples, in the order answers are
 * first seen (the search keeps that order among equal scores). Lines in another form are ignored.
 *
 * @example
 * ```ts
 * parseProposals(['h1. apple (high)\nh2. pearl (low)', 'h1. apple (medium)']);
 * // Map { 'h1. apple' => 0.7, 'h2. pearl' => 0.1 }
 * ```
 */
export function parseProposals(samples: readonly string[]): Map<string, number> {
  const scores = new Map<string, number>();
  for (const sample of samples) {
    for (const line of sample.split('\n')) {
      const m = PROPOSAL_LINE.exec(line);
      if (!m) continue;
      const answer = `${m[1]!.toLowerCase()}. ${m[2]!.toLowerCase()}`;
      // Summed in the order the samples say them: the same order of additions gives the same number.
      scores.set(answer, (scores.get(answer) ?? 0) + CONFIDENCE[m[3] as keyof typeof CONFIDENCE]);
    }
  }
  return scores;
}

/** A clue's verdict: the reply's last line, or `undefined` when it is none of the three words. */
export function parseClueVerdict(reply: string): 'sure' | 'maybe' | 'impossible' | undefined {
  const last = reply.split('\n').at(-1)!.trim();
  return last === 'sure' || last === 'maybe' || last === 'impossible' ? last : undefined;
}
