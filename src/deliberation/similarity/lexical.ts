// Scripts written without spaces between words. `scx` (rather than `sc`) also takes the marks
// that these scripts share with each other, such as the prolonged sound mark ー and 々.
const CJK = String.raw`\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}`;

// A run of CJK letters, or a word of other letters and digits. A word may carry combining marks
// after its first letter: without them a Devanagari word would break at each vowel sign.
const TOKEN = new RegExp(
  String.raw`(?:(?=[\p{L}\p{N}])[${CJK}])+|(?:(?![${CJK}])[\p{L}\p{N}])(?:(?![${CJK}])[\p{L}\p{N}\p{M}])*`,
  'gu',
);
const CJK_RUN = new RegExp(String.raw`^[${CJK}]`, 'u');

// Function words only. Negations ("not", "no") and modals stay: they are what tells "we should"
// from "we should not".
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or but if then so of to in on at by for with from into onto as about than ' +
    'is are was were be been being am do does did has have had ' +
    'it its this that these those there here ' +
    'i me my we us our you your he him his she her they them their ' +
    's t'
  ).split(' '),
);

/**
 * The terms of a text, as {@link lexicalSimilarityMatrix} compares them: lower-cased (after NFKC,
 * so full-width letters read as ASCII) words of letters and digits, without a small list of
 * English function words. Chinese, Japanese and Korean text has no spaces between words, so its
 * runs become overlapping character bigrams (a lone character stays one term).
 *
 * @example
 * ```ts
 * import { tokenize } from '@tot/core/deliberation';
 *
 * tokenize('The cache is too SMALL'); // ['cache', 'too', 'small']
 * tokenize('缓存太小'); // ['缓存', '存太', '太小']
 * ```
 */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const [word] of text.normalize('NFKC').toLowerCase().matchAll(TOKEN)) {
    if (!CJK_RUN.test(word)) {
      if (!STOP_WORDS.has(word)) tokens.push(word);
      continue;
    }
    // Array.from, not indexes: a Han character beyond the BMP is two UTF-16 units.
    const chars = Array.from(word);
    if (chars.length === 1) tokens.push(word);
    for (let i = 0; i + 1 < chars.length; i++) tokens.push(chars[i]! + chars[i + 1]!);
  }
  return tokens;
}

/**
 * The TF-IDF cosine similarity of every pair of documents (each a list of terms, as
 * {@link tokenize} gives): raw term counts weighed by the smoothed idf `ln((1 + N) / (1 + df)) + 1`,
 * whose `+ 1` keeps a term that every document has from weighing nothing (two documents with the
 * same terms are 1, not 0). The matrix is symmetric, exactly 1 on the diagonal and within [0, 1];
 * a document without terms is 0 with every other one. The idf depends on the whole set, so a
 * pair's value does too.
 *
 * @example
 * ```ts
 * import { lexicalSimilarityMatrix, tokenize } from '@tot/core/deliberation';
 *
 * const m = lexicalSimilarityMatrix(['raise the cache size', 'raise the cache limit', 'rewrite it in Rust'].map(tokenize));
 * m[0][1] > m[0][2]; // true (m[0][2] is 0: no shared term)
 * ```
 */
export function lexicalSimilarityMatrix(tokenLists: readonly (readonly string[])[]): number[][] {
  const n = tokenLists.length;
  const counts = tokenLists.map((tokens) => {
    const count = new Map<string, number>();
    for (const token of tokens) count.set(token, (count.get(token) ?? 0) + 1);
    return count;
  });
  const df = new Map<string, number>();
  for (const count of counts) for (const term of count.keys()) df.set(term, (df.get(term) ?? 0) + 1);
  const weights = counts.map((count) => {
    const weight = new Map<string, number>();
    for (const [term, tf] of count) weight.set(term, tf * (Math.log((1 + n) / (1 + df.get(term)!)) + 1));
    return weight;
  });
  const norms = weights.map((weight) => {
    let sum = 0;
    for (const w of weight.values()) sum += w * w;
    return sum;
  });

  const matrix = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let i = 0; i < n; i++) {
    matrix[i]![i] = 1;
    for (let j = i + 1; j < n; j++) {
      const similarity = cosine(weights[i]!, norms[i]!, weights[j]!, norms[j]!);
      matrix[i]![j] = similarity;
      matrix[j]![i] = similarity;
    }
  }
  return matrix;
}

function cosine(a: Map<string, number>, normA: number, b: Map<string, number>, normB: number): number {
  if (normA === 0 || normB === 0) return 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [term, w] of small) {
    const other = large.get(term);
    if (other !== undefined) dot += w * other;
  }
  // One square root of the product, not a product of roots: a text against a copy of itself
  // (same terms, same order) then comes out 1 exactly, as sqrt(x * x) is x in floating point.
  return Math.min(1, Math.max(0, dot / Math.sqrt(normA * normB)));
}
