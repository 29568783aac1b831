/**
 * Calibration of the lexical fallback's consensus thresholds (`similarityHost`'s
 * `lexicalThresholds`). Without an embedder the host measures agreement with TF-IDF cosine over
 * {@link tokenize}'s terms, whose scores run well below embeddings' for the same agreement, so the
 * spec's embedding thresholds (converge 0.9, continue 0.7) cannot be reused. This measures what
 * thresholds the lexical measure supports, on a hand-labelled set of position pairs
 * (bench/fixtures/position-pairs.json: agree / partial / disagree), and how much better than
 * chance they label it (the benchmark shuffles the labels for the baseline). On this set the
 * answer is: not better than chance, which is why the shipped lexical thresholds are a policy
 * (converge only on near-identical positions; see docs/deliberation.md), not a fit.
 *
 * Each pair is scored on its own, as the host scores a round of two agents: the two positions'
 * texts ({@link positionText}: conclusion, then key reasons, one a line) in one
 * {@link lexicalSimilarityMatrix}, rounded to 3 decimals as the host's consensus level is. The host
 * then decides: above `converge` → agree, above `continue` → partly agree, at or below → disagree.
 * The thresholds are picked by grid search over `continue < converge`, both in [0.05, 0.95] by 0.05,
 * for the highest 3-class accuracy; ties go to the pair closest (Euclidean) to 0.3 / 0.6 (the
 * first guesses), then to the larger `converge` (caution against false convergence), then to the larger
 * `continue`.
 *
 * @example
 * ```ts
 * import { calibrateLexical, loadPositionPairs } from './similarity-calibration.js';
 *
 * const { thresholds, accuracy } = calibrateLexical(loadPositionPairs());
 * ```
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { lexicalSimilarityMatrix, positionText, tokenize } from '../src/deliberation/index.js';

/** The labels of the calibration set, in the host's order: converge, continue, force opposition. */
export const POSITION_LABELS = ['agree', 'partial', 'disagree'] as const;
export type PositionLabel = (typeof POSITION_LABELS)[number];

const positionSchema = z.strictObject({
  conclusion: z.string().trim().min(1, 'conclusion must not be empty'),
  key_reasons: z.array(z.string().trim().min(1, 'a key reason must not be empty')),
});
const pairSchema = z.strictObject({
  topic: z.string().trim().min(1, 'topic must not be empty'),
  a: positionSchema,
  b: positionSchema,
  label: z.enum(POSITION_LABELS),
});
const fileSchema = z.object({ _about: z.string(), pairs: z.array(z.unknown()).min(1, 'pairs must not be empty') });

/** A position as agents summarise it. */
export type PositionSummary = z.infer<typeof positionSchema>;
/** Two agents' positions on one topic, with how far they agree. */
export type PositionPair = z.infer<typeof pairSchema>;

export interface LabelStats {
  /** Pairs with this label. */
  n: number;
  /** 10th percentile, median and 90th percentile of their lexical similarity (linear interpolation). */
  p10: number;
  median: number;
  p90: number;
}

export interface LexicalCalibration {
  pairs: number;
  byLabel: Record<PositionLabel, LabelStats>;
  /** The grid's best thresholds: similarity above `converge` → agree, above `continue` → partial, else disagree. */
  thresholds: { converge: number; continue: number };
  /** Share of pairs the thresholds label correctly. */
  accuracy: number;
  /** `confusion[label][predicted]`: how many pairs of each label the thresholds put in each class. */
  confusion: Record<PositionLabel, Record<PositionLabel, number>>;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

function checkPairs(pairs: readonly unknown[], source: string): PositionPair[] {
  return pairs.map((pair, index) => {
    const parsed = pairSchema.safeParse(pair);
    if (parsed.success) return parsed.data;
    const topic = typeof (pair as { topic?: unknown } | null)?.topic === 'string' ? ` (topic "${(pair as { topic: string }).topic}")` : '';
    const issues = parsed.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(pair)'}: ${i.message}`).join('; ');
    throw new Error(`${source}: pair ${index}${topic} is not a position pair: ${issues}`);
  });
}

/**
 * The calibration pairs of a fixture file (default bench/fixtures/position-pairs.json beside this
 * file), checked: a pair that is not `{ topic, a, b, label }` throws, naming its index.
 */
export function loadPositionPairs(path?: string | URL): PositionPair[] {
  const file = path ?? new URL('./fixtures/position-pairs.json', import.meta.url);
  const name = typeof file === 'string' ? file : fileURLToPath(file);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${name}: not readable as JSON: ${(error as Error).message}`);
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(file)'}: ${i.message}`).join('; ');
    throw new Error(`${name}: not a calibration set { _about, pairs }: ${issues}`);
  }
  return checkPairs(parsed.data.pairs, name);
}

/** A pair's lexical similarity as the host measures a round of its two positions (3 decimals). */
export function pairSimilarity(pair: PositionPair): number {
  const matrix = lexicalSimilarityMatrix([positionText(pair.a), positionText(pair.b)].map(tokenize));
  return round3(matrix[0]![1]!);
}

function classify(similarity: number, t: { converge: number; continue: number }): PositionLabel {
  return similarity > t.converge ? 'agree' : similarity > t.continue ? 'partial' : 'disagree';
}

function quantile(sorted: readonly number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}

const emptyConfusion = (): Record<PositionLabel, Record<PositionLabel, number>> =>
  Object.fromEntries(POSITION_LABELS.map((l) => [l, Object.fromEntries(POSITION_LABELS.map((p) => [p, 0]))])) as Record<PositionLabel, Record<PositionLabel, number>>;

/** The first guesses, which ties are resolved towards. */
const CURRENT = { converge: 0.6, continue: 0.3 };

/** Share of `pairs` that thresholds `t` label as they are labelled (3 decimals). */
export function accuracyOf(pairs: readonly PositionPair[], t: { converge: number; continue: number }): number {
  return round3(pairs.filter((p) => classify(pairSimilarity(p), t) === p.label).length / pairs.length);
}

/**
 * Lexical similarity of each labelled pair, its spread by label, and the thresholds of the
 * 0.05 grid that label the most pairs correctly (see the top of this file for ties).
 */
export function calibrateLexical(pairs: readonly PositionPair[]): LexicalCalibration {
  const checked = checkPairs(pairs, 'calibrateLexical');
  for (const label of POSITION_LABELS) {
    if (!checked.some((p) => p.label === label)) throw new Error(`calibrateLexical: no pair is labelled '${label}'; each label needs at least one`);
  }
  const scored = checked.map((pair) => ({ label: pair.label, similarity: pairSimilarity(pair) }));

  const byLabel = Object.fromEntries(
    POSITION_LABELS.map((label) => {
      const values = scored
        .filter((s) => s.label === label)
        .map((s) => s.similarity)
        .sort((x, y) => x - y);
      return [label, { n: values.length, p10: round3(quantile(values, 0.1)), median: round3(quantile(values, 0.5)), p90: round3(quantile(values, 0.9)) }];
    }),
  ) as Record<PositionLabel, LabelStats>;

  // k / 20 is the double nearest to 0.05 k, as round3's results are to theirs: comparisons are exact.
  const grid = Array.from({ length: 19 }, (_, i) => (i + 1) / 20);
  let best: { t: { converge: number; continue: number }; correct: number; distance: number } | undefined;
  for (const cont of grid) {
    for (const converge of grid) {
      if (cont >= converge) continue;
      const t = { converge, continue: cont };
      const correct = scored.filter((s) => classify(s.similarity, t) === s.label).length;
      const distance = Math.hypot(converge - CURRENT.converge, cont - CURRENT.continue);
      const better =
        !best ||
        correct > best.correct ||
        (correct === best.correct &&
          (distance < best.distance - 1e-9 ||
            (Math.abs(distance - best.distance) <= 1e-9 && (converge > best.t.converge || (converge === best.t.converge && cont > best.t.continue)))));
      if (better) best = { t, correct, distance };
    }
  }

  const thresholds = best!.t;
  const confusion = emptyConfusion();
  for (const s of scored) confusion[s.label][classify(s.similarity, thresholds)] += 1;
  return { pairs: scored.length, byLabel, thresholds, accuracy: round3(best!.correct / scored.length), confusion };
}
