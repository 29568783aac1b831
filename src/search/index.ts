/**
 * `@tot/core/search`: the Explorer and its search strategies (bfs, dfs, best-first, MCTS). The
 * root entry, `@tot/core`, exports the same names: this subpath is for code that wants only the search.
 *
 * @packageDocumentation
 */
export type {
  DistributiveOmit,
  ExplorationResult,
  ExplorerOptions,
  ExplorerResumeOptions,
  ExplorerRunOptions,
  SearchContext,
  SearchLimits,
  SearchStats,
  SearchStrategy,
  SelectOptions,
  StopReason,
} from './types.js';
export type { SearchEvent } from './search-events.js';
export { Explorer } from './explorer.js';
export { foldSearchEvents, replayRun, type ReplayedRun } from './replay-search.js';
export { bfs, type BfsOptions } from './strategies/bfs.js';
export { dfs, type DfsOptions } from './strategies/dfs.js';
export { bestFirst, type BestFirstOptions } from './strategies/best-first.js';
export { mcts, type MctsOptions } from './strategies/mcts.js';
export { seededRandom } from './random.js';
