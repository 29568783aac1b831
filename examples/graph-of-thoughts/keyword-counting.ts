/**
 * The Graph-of-Thoughts paper's keyword-counting graph (GoT4): split a text in four paragraphs,
 * count the countries named in each `countResponses` times, score each count against the
 * countries the paragraph really names, keep the best; merge the counts pairwise (1+2, 3+4, then
 * the two merges) `mergeResponses` times each, validate every merge (its counts must be the sums of
 * its inputs') and improve an invalid one up to `tries` times, score, keep the best.
 */
import { aggregate, generate, keepBest, OperationGraph, score, select, validateAndImprove, type OperationRef } from '@tot/core/graph';
import { objectsIn } from './recording.js';

export type Counts = Record<string, number>;

export interface CountState {
  /** The text this thought counts (a paragraph, or the paragraphs a merge covers). */
  text: string;
  part?: string;
  counts?: Counts;
  /** A merge's inputs, for its validation. */
  merged?: Counts[];
}

export interface KeywordGraphOptions {
  countResponses?: number;
  mergeResponses?: number;
  tries?: number;
}

// Countries as texts name them; a longer name is matched before a shorter one inside it.
const COUNTRIES = [
  'Afghanistan', 'Albania', 'Algeria', 'Andorra', 'Angola', 'Antigua and Barbuda', 'Argentina', 'Armenia', 'Australia', 'Austria', 'Azerbaijan',
  'Bahamas', 'Bahrain', 'Bangladesh', 'Barbados', 'Belarus', 'Belgium', 'Belize', 'Benin', 'Bhutan', 'Bolivia', 'Bosnia and Herzegovina', 'Botswana',
  'Brazil', 'Brunei', 'Bulgaria', 'Burkina Faso', 'Burundi', 'Cambodia', 'Cameroon', 'Canada', 'Cape Verde', 'Central African Republic', 'Chad', 'Chile',
  'China', 'Colombia', 'Comoros', 'Congo', 'Costa Rica', 'Croatia', 'Cuba', 'Cyprus', 'Czech Republic', 'Czechia', 'Denmark', 'Djibouti', 'Dominica',
  'Dominican Republic', 'Ecuador', 'Egypt', 'El Salvador', 'Equatorial Guinea', 'Eritrea', 'Estonia', 'Eswatini', 'Ethiopia', 'Fiji', 'Finland', 'France',
  'Gabon', 'Gambia', 'Georgia', 'Germany', 'Ghana', 'Greece', 'Grenada', 'Guatemala', 'Guinea', 'Guinea-Bissau', 'Guyana', 'Haiti', 'Honduras', 'Hungary',
  'Iceland', 'India', 'Indonesia', 'Iran', 'Iraq', 'Ireland', 'Israel', 'Italy', 'Ivory Coast', 'Jamaica', 'Japan', 'Jordan', 'Kazakhstan', 'Kenya',
  'Kiribati', 'Kosovo', 'Kuwait', 'Kyrgyzstan', 'Laos', 'Latvia', 'Lebanon', 'Lesotho', 'Liberia', 'Libya', 'Liechtenstein', 'Lithuania', 'Luxembourg',
  'Madagascar', 'Malawi', 'Malaysia', 'Maldives', 'Mali', 'Malta', 'Marshall Islands', 'Mauritania', 'Mauritius', 'Mexico', 'Micronesia', 'Moldova',
  'Monaco', 'Mongolia', 'Montenegro', 'Morocco', 'Mozambique', 'Myanmar', 'Namibia', 'Nauru', 'Nepal', 'Netherlands', 'New Zealand', 'Nicaragua', 'Niger',
  'Nigeria', 'North Korea', 'North Macedonia', 'Norway', 'Oman', 'Pakistan', 'Palau', 'Palestine', 'Panama', 'Papua New Guinea', 'Paraguay', 'Peru',
  'Philippines', 'Poland', 'Portugal', 'Qatar', 'Romania', 'Russia', 'Rwanda', 'Saint Kitts and Nevis', 'Saint Lucia', 'Samoa', 'San Marino',
  'Saudi Arabia', 'Scotland', 'Senegal', 'Serbia', 'Seychelles', 'Sierra Leone', 'Singapore', 'Slovakia', 'Slovenia', 'Solomon Islands', 'Somalia',
  'South Africa', 'South Korea', 'South Sudan', 'Spain', 'Sri Lanka', 'Sudan', 'Suriname', 'Sweden', 'Switzerland', 'Syria', 'Taiwan', 'Tajikistan',
  'Tanzania', 'Thailand', 'Timor-Leste', 'Togo', 'Tonga', 'Trinidad and Tobago', 'Tunisia', 'Turkey', 'Turkmenistan', 'Tuvalu', 'Uganda', 'Ukraine',
  'United Arab Emirates', 'United Kingdom', 'United States', 'United States of America', 'Uruguay', 'Uzbekistan', 'Vanuatu', 'Vatican City', 'Venezuela',
  'Vietnam', 'Wales', 'England', 'Yemen', 'Zambia', 'Zimbabwe',
];
const countryPattern = new RegExp(`\\b(?:${[...COUNTRIES].sort((a, b) => b.length - a.length).map((c) => c.replace(/[-]/g, '\\-')).join('|')})\\b`, 'g');

/** How often each country is named in a text. */
export function countCountries(text: string): Counts {
  const counts: Counts = {};
  for (const [name] of text.matchAll(countryPattern)) counts[name] = (counts[name] ?? 0) + 1;
  return counts;
}

/** The error of a count: for every country in either, how far the count is from the true one. */
export function countErrors(text: string, counts: Counts): number {
  const truth = countCountries(text);
  let errors = 0;
  for (const c of new Set([...Object.keys(truth), ...Object.keys(counts)])) errors += Math.abs((counts[c] ?? 0) - (truth[c] ?? 0));
  return errors;
}

/** A merge is valid when it has exactly its inputs' countries, each with the sum of their counts. */
export function validMerge(s: CountState): boolean {
  const sum: Counts = {};
  for (const m of s.merged ?? []) for (const [c, n] of Object.entries(m)) sum[c] = (sum[c] ?? 0) + n;
  const keys = Object.keys(s.counts ?? {});
  return keys.length === Object.keys(sum).length && keys.every((c) => s.counts![c] === sum[c]);
}

/** The counts a reply ends with (after its last `Output:` when it has one): the last JSON object of numbers. */
export function parseCounts(text: string): Counts {
  const at = text.lastIndexOf('Output:');
  const found = objectsIn(at === -1 ? text : text.slice(at)).filter((o) => Object.values(o).every((v) => typeof v === 'number'));
  if (found.length === 0) throw new Error('no JSON object of counts in the reply');
  return found.at(-1) as Counts;
}

const show = (counts: Counts | undefined) => JSON.stringify(counts ?? {}, null, 4);

const splitPrompt = (s: CountState) =>
  'Split this text into 4 paragraphs of about the same length, keeping every sentence as it is and in order. ' +
  'Reply with JSON only: {"Paragraph 1": "...", "Paragraph 2": "...", "Paragraph 3": "...", "Paragraph 4": "..."}\n\nText:\n' +
  s.text;
const countPrompt = (s: CountState) =>
  'Count how many times each country is named in the text. Reply with JSON only, the frequency of each country named at least once, ' +
  `spelled as in the text: {"country": frequency, ...}\n\nText:\n${s.text}`;
const mergePrompt = (states: CountState[]) =>
  'Add these country counts together into one JSON dictionary: a country in both gets the sum, a country in one keeps its count. Reply with the JSON only.\n\n' +
  states.map((s) => show(s.counts)).join('\n');
const improvePrompt = (s: CountState) =>
  'The third dictionary should be the sum of the first two (a country in one of them keeps its count) but it has mistakes. Reply with the corrected JSON only.\n\n' +
  `${(s.merged ?? []).map(show).join('\n')}\nIncorrect sum:\n${show(s.counts)}`;

/** The step of the paper's recorded run each model operation of {@link keywordCountingGraph} plays. */
export const KEYWORD_STEPS: Record<string, string> = { split: '1', 'count-1': '2a', 'count-2': '2b', 'count-3': '2c', 'count-4': '2d', 'merge-a': '3a', 'merge-b': '3b', 'merge-c': '3c' };

/** The keyword-counting graph; its last operation's output is the best final merge. */
export function keywordCountingGraph(options: KeywordGraphOptions = {}): OperationGraph<CountState> {
  const { countResponses = 10, mergeResponses = 3, tries = 3 } = options;
  const g = new OperationGraph<CountState>();
  const errors = () => score<CountState>({ score: (s) => countErrors(s.text, s.counts ?? {}) });
  const split = g.add(
    generate<CountState>({
      prompt: splitPrompt,
      parse: (text) => {
        const [parts] = objectsIn(text);
        if (!parts) throw new Error('no JSON object in the reply');
        return [1, 2, 3, 4].map((i) => {
          const paragraph = parts[`Paragraph ${i}`];
          if (typeof paragraph !== 'string') throw new Error(`no "Paragraph ${i}"`);
          return { part: `Paragraph ${i}`, text: paragraph };
        });
      },
    }),
    { id: 'split' },
  );
  const counted = [1, 2, 3, 4].map((i) => {
    const paragraph = g.add(select<CountState>((ts) => ts.filter((t) => t.state.part === `Paragraph ${i}`)), { after: [split], id: `paragraph-${i}` });
    const counts = g.add(generate<CountState>({ prompt: countPrompt, parse: (text, s) => ({ ...s, counts: parseCounts(text) }), responses: countResponses }), { after: [paragraph], id: `count-${i}` });
    const scored = g.add(errors(), { after: [counts], id: `score-count-${i}` });
    return g.add(keepBest({ n: 1, higherIsBetter: false }), { after: [scored], id: `best-count-${i}` });
  });
  const mergeStep = (name: string, after: OperationRef[]) => {
    const merged = g.add(
      aggregate<CountState>({
        prompt: mergePrompt,
        parse: (text, states) => ({ part: `merge ${name}`, text: states.map((s) => s.text).join(' '), counts: parseCounts(text), merged: states.map((s) => s.counts ?? {}) }),
        responses: mergeResponses,
      }),
      { after, id: `merge-${name}` },
    );
    const checked = g.add(validateAndImprove<CountState>({ validate: validMerge, prompt: improvePrompt, parse: (text, s) => ({ ...s, counts: parseCounts(text) }), tries }), { after: [merged], id: `check-${name}` });
    const scored = g.add(errors(), { after: [checked], id: `score-${name}` });
    return g.add(keepBest({ n: 1, higherIsBetter: false }), { after: [scored], id: `best-${name}` });
  };
  const a = mergeStep('a', [counted[0]!, counted[1]!]);
  const b = mergeStep('b', [counted[2]!, counted[3]!]);
  mergeStep('c', [a, b]);
  return g;
}
