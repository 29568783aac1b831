export { comparePositions, positionText, type ComparePositionsOptions } from './compare-positions.js';
export { EmbeddingCache, type EmbeddingCacheOptions, type EmbeddingCacheStats } from './embedding-cache.js';
export { lexicalSimilarityMatrix, tokenize } from './lexical.js';
export {
  PositionComparer,
  type CompareOptions,
  type PositionComparerOptions,
  type PositionComparerStats,
  type PositionComparison,
  type PositionSimilarity,
  type SimilarityBackend,
} from './position-comparer.js';
