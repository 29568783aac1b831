import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { compileFastCheck } from '../internal/fast-check.js';
import { parseOptions } from '../internal/validate.js';
import { protocolThoughtTreeSchema, type ProtocolThoughtTree } from '../protocol/thought-node.js';
import { fromProtocolTree, toProtocolTree } from './protocol-codec.js';
import { dotOptionsSchema, evaluationSchema, mermaidOptionsSchema, newThoughtSchema, searchStateSchema, searchStateUpdateSchema, treeJsonSchema, treeOptionsSchema } from './schemas.js';
import { assertTransition } from './status.js';
import { toDot, type DotOptions } from './to-dot.js';
import { toMermaid, type MermaidOptions } from './to-mermaid.js';
import type { Evaluation, NewThought, NodeStatus, SearchConfig, SearchState, ThoughtNode, ThoughtTreeJSON } from './types.js';

/**
 * Options of {@link ThoughtTree}.
 *
 * @example
 * ```ts
 * import { ThoughtTree, type ThoughtTreeOptions } from '@tot/core';
 *
 * const options: ThoughtTreeOptions = {
 *   problem: 'Use 4 9 10 13 and + - * / to make 24.',
 *   taskId: 'g24-900',
 *   taskType: 'math_reasoning',
 *   searchConfig: { strategy: 'bfs', maxDepth: 3, branchingFactor: 5 },
 * };
 * const tree = new ThoughtTree(options);
 * ```
 */
export interface ThoughtTreeOptions {
  problem: string;
  /** Default `'task'`. */
  taskId?: string;
  /** Default `'general'`. The Tree-of-Thoughts agent protocol uses `math_reasoning`, `creative_writing`, `planning`, … */
  taskType?: string;
  /** Defaults: `{ strategy: 'bfs', maxDepth: 3, branchingFactor: 5, pruningThreshold: 3 }`. */
  searchConfig?: Partial<SearchConfig>;
  /** Content of the root node. Default: the problem. */
  rootContent?: string;
  rootMetadata?: Record<string, unknown>;
}

interface MutableNode {
  id: string;
  parentId: string | null;
  childrenIds: string[];
  depth: number;
  content: string;
  actionType: string | undefined;
  evaluation: Evaluation | null;
  status: NodeStatus;
  metadata: Record<string, unknown>;
}

const ROOT_ID = 'root';
const NO_METADATA: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;
const DEFAULT_SEARCH_CONFIG: SearchConfig = { strategy: 'bfs', maxDepth: 3, branchingFactor: 5, pruningThreshold: 3 };
const NODE_ID = /^node_(\d+)_(\d+)$/;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** A deep copy, so that the caller changing its object later cannot change the tree. */
const isValidEvaluation = compileFastCheck(evaluationSchema) ?? (() => false);

function copyEvaluation(e: Evaluation): Evaluation {
  const copy: Evaluation = { score: e.score, confidence: e.confidence, reasoning: e.reasoning };
  if (e.dimensionScores !== undefined) copy.dimensionScores = { ...e.dimensionScores };
  return copy;
}

function copyMetadata(metadata: Record<string, unknown>, field: string): Record<string, unknown> {
  if (Object.keys(metadata).length === 0) return NO_METADATA;
  try {
    return structuredClone(metadata);
  } catch (error) {
    throw new TotError('INVALID_ARGUMENT', `ThoughtTree: ${field}: must hold only cloneable data (${(error as Error).message})`, { cause: error, details: { field } });
  }
}

function cloneEvaluation(e: Evaluation): Evaluation {
  const copy: Evaluation = { score: e.score, confidence: e.confidence, reasoning: e.reasoning };
  if (e.dimensionScores !== undefined) copy.dimensionScores = { ...e.dimensionScores };
  return copy;
}

function formatError(message: string, details?: Record<string, unknown>): TotError {
  return new TotError('INVALID_FORMAT', `Invalid thought tree: ${message}`, details === undefined ? {} : { details });
}

/**
 * The Tree-of-Thoughts agent protocol's ThoughtTree: nodes with parent/child links, a status machine
 * (`pending → expanded | pruned | terminal`; illegal changes throw `ILLEGAL_STATE`), deterministic
 * ids (`root`, then `node_<depth>_<n>` in creation order), paths, subtree pruning, and exports to
 * JSON, the protocol's snake_case protocol, Mermaid and Graphviz DOT.
 *
 * @example
 * ```ts
 * import { ThoughtTree } from '@tot/core';
 *
 * const tree = new ThoughtTree({ problem: '4 9 10 13', taskType: 'math_reasoning' });
 * const a = tree.addChild(tree.rootId, { content: '13 - 9 = 4 (left: 4 4 10)' });
 * tree.evaluate(a.id, { score: 8, confidence: 0.9, reasoning: '4 * (10 - 4) = 24' });
 * const b = tree.addChild(a.id, { content: '10 - 4 = 6 (left: 4 6)' });
 * tree.markTerminal(b.id);
 * tree.pathIds(b.id); // ['root', 'node_1_1', 'node_2_1']
 * console.log(tree.toMermaid());
 * ```
 */
export class ThoughtTree {
  readonly taskId: string;
  readonly problem: string;
  readonly taskType: string;
  readonly rootId: string;
  private readonly config: SearchConfig;
  private readonly nodes = new Map<string, MutableNode>();
  private foreignIds = false;
  private readonly counters: number[] = [];
  private state: SearchState = { currentDepth: 0, frontier: [], bestPath: [] };

  constructor(options: ThoughtTreeOptions) {
    const o = parseOptions(treeOptionsSchema, options, 'ThoughtTree');
    this.taskId = o.taskId;
    this.problem = o.problem;
    this.taskType = o.taskType;
    this.config = { ...DEFAULT_SEARCH_CONFIG, ...o.searchConfig };
    this.rootId = ROOT_ID;
    this.nodes.set(ROOT_ID, {
      id: ROOT_ID,
      parentId: null,
      childrenIds: [],
      depth: 0,
      content: o.rootContent ?? o.problem,
      actionType: undefined,
      evaluation: null,
      status: 'pending',
      metadata: o.rootMetadata ? copyMetadata(o.rootMetadata, 'options.rootMetadata') : NO_METADATA,
    });
    this.state = { currentDepth: 0, frontier: [ROOT_ID], bestPath: [ROOT_ID] };
  }

  /**
   * The search configuration recorded with the tree.
   *
   * @example
   * ```ts
   * import { ThoughtTree } from '@tot/core';
   *
   * new ThoughtTree({ problem: 'p' }).searchConfig.branchingFactor; // 5
   * ```
   */
  get searchConfig(): Readonly<SearchConfig> {
    return this.config;
  }

  /**
   * The search state recorded with the tree (set by searches through {@link ThoughtTree.setSearchState}).
   *
   * @example
   * ```ts
   * import { ThoughtTree } from '@tot/core';
   *
   * new ThoughtTree({ problem: 'p' }).searchState.frontier; // ['root']
   * ```
   */
  get searchState(): Readonly<SearchState> {
    return this.state;
  }

  /**
   * Number of nodes, the root included.
   *
   * @example
   * ```ts
   * import { ThoughtTree } from '@tot/core';
   *
   * new ThoughtTree({ problem: 'p' }).size; // 1
   * ```
   */
  get size(): number {
    return this.nodes.size;
  }

  /**
   * The root node.
   *
   * @example
   * ```ts
   * import { ThoughtTree } from '@tot/core';
   *
   * new ThoughtTree({ problem: '4 9 10 13' }).root.content; // '4 9 10 13'
   * ```
   */
  get root(): ThoughtNode {
    return this.nodes.get(this.rootId)!;
  }

  /**
   * The node with `id`, or `undefined`.
   *
   * @example
   * ```ts
   * import { ThoughtTree } from '@tot/core';
   *
   * new ThoughtTree({ problem: 'p' }).get('root')?.depth; // 0
   * ```
   */
  get(id: string): ThoughtNode | undefined {
    return this.nodes.get(id);
  }

  /**
   * Whether a node with `id` exists.
   *
   * @example
   * ```ts
   * import { ThoughtTree } from '@tot/core';
   *
   * new ThoughtTree({ problem: 'p' }).has('node_1_1'); // false
   * ```
   */
  has(id: string): boolean {
    return this.nodes.has(id);
  }

  /**
   * The node with `id`; throws `INVALID_ARGUMENT` if there is none.
   *
   * @example
   * ```ts
   * import { ThoughtTree } from '@tot/core';
   *
   * new ThoughtTree({ problem: 'p' }).node('root').status; // 'pending'
   * ```
   */
  node(id: string): ThoughtNode {
    return this.mustGet(id);
  }

  /**
   * Every node, in creation order.
   *
   * @example
   * ```ts
   * import { ThoughtTree } from '@tot/core';
   *
   * for (const node of new ThoughtTree({ problem: 'p' }).all()) console.log(node.id);
   * ```
   */
  all(): IterableIterator<ThoughtNode> {
    return this.nodes.values();
  }

  /**
   * Adds a child under `parentId` and returns it (status `pending`). A pending parent becomes
   * `expanded`; adding under a pruned or terminal node throws `ILLEGAL_STATE`.
   *
   * @example
   * ```ts
   * import { ThoughtTree } from '@tot/core';
   *
   * const tree = new ThoughtTree({ problem: '4 9 10 13' });
   * tree.addChild('root', { content: '4 + 9 = 13 (left: 10 13 13)', actionType: 'addition' }).id; // 'node_1_1'
   * ```
   */
  addChild(parentId: string, thought: NewThought): ThoughtNode {
    const parent = this.mustGet(parentId, 'parentId');
    const t = this.checkThought(thought);
    if (parent.status === 'pruned' || parent.status === 'terminal') {
      throw new TotError('ILLEGAL_STATE', `Cannot add a child to ${parent.status} node "${parentId}".`, {
        details: { nodeId: parentId, status: parent.status },
      });
    }
    const depth = parent.depth + 1;
    const id = this.nextId(depth);
    const node: MutableNode = {
      id,
      parentId,
      childrenIds: [],
      depth,
      content: t.content,
      actionType: t.actionType,
      evaluation: t.evaluation ? { ...t.evaluation } : null,
      status: 'pending',
      metadata: t.metadata ? copyMetadata(t.metadata, 'thought.metadata') : NO_METADATA,
    };
    this.nodes.set(id, node);
    parent.childrenIds.push(id);
    if (parent.status === 'pending') parent.status = 'expanded';
    return node;
  }

  /**
   * Adds several children under one parent, in order.
   *
   * @example
   * ```ts
   * import { ThoughtTree } from '@tot/core';
   *
   * const tree = new ThoughtTree({ problem: 'p' });
   * tree.addChildren('root', [{ content: 'a' }, { content: 'b' }]).map((n) => n.id); // ['node_1_1', 'node_1_2']
   * ```
   */
  addChildren(parentId: string, thoughts: readonly NewThought[]): ThoughtNode[] {
    if (!Array.isArray(thoughts)) throw new TotError('INVALID_ARGUMENT', 'ThoughtTree.addChildren: thoughts: expected an array', { details: { field: 'thoughts' } });
    return thoughts.map((thought) => this.addChild(parentId, thought));
  }

  /**
   * Sets (or replaces) a node's evaluation. Throws `INVALID_ARGUMENT` for a score outside 0–10 or a
   * confidence outside 0–1, and `ILLEGAL_STATE` for a pruned node.
   *
   * @example
   * ```ts
   * import { ThoughtTree } from '@tot/core';
   *
   * const tree = new ThoughtTree({ problem: 'p' });
   * const n = tree.addChild('root', { content: 'a' });
   * tree.evaluate(n.id, { score: 6, confidence: 0.7, reasoning: 'plausible' });
   * ```
   */
  evaluate(id: string, evaluation: Evaluation): ThoughtNode {
    const node = this.mustGet(id);
    // The common, valid shape is checked by the schema's compiled check and copied; anything else is parsed.
    const e = isValidEvaluation(evaluation) ? copyEvaluation(evaluation) : parseOptions(evaluationSchema, evaluation, 'ThoughtTree.evaluate', 'evaluation');
    if (node.status === 'pruned') throw new TotError('ILLEGAL_STATE', `Cannot evaluate pruned node "${id}".`, { details: { nodeId: id } });
    node.evaluation = e;
    return node;
  }

  /**
   * Merges `patch` into a node's metadata.
   *
   * @example
   * ```ts
   * import { ThoughtTree } from '@tot/core';
   *
   * const tree = new ThoughtTree({ problem: 'p' });
   * tree.updateMetadata('root', { remaining: [4, 9, 10, 13] });
   * ```
   */
  updateMetadata(id: string, patch: Record<string, unknown>): ThoughtNode {
    const node = this.mustGet(id);
    if (!isPlainObject(patch)) throw new TotError('INVALID_ARGUMENT', 'ThoughtTree.updateMetadata: patch: expected a plain object', { details: { field: 'patch' } });
    node.metadata = { ...node.metadata, ...copyMetadata(patch, 'patch') };
    return node;
  }

  /**
   * Changes a node's status, enforcing the status machine ({@link NODE_TRANSITIONS}). Prefer
   * {@link ThoughtTree.prune} and {@link ThoughtTree.markTerminal}, which also keep subtrees and
   * the frontier consistent.
   *
   * @example
   * ```ts
   * import { ThoughtTree } from '@tot/core';
   *
   * const tree = new ThoughtTree({ problem: 'p' });
   * tree.setStatus('root', 'expanded');
   * ```
   */
  setStatus(id: string, status: NodeStatus): ThoughtNode {
    const node = this.mustGet(id);
    if (status === 'pruned') {
      this.prune(id);
      return node;
    }
    assertTransition(id, node.status, status);
    node.status = status;
    return node;
  }

  /**
   * Marks a pending leaf as a final state (a solution, or a dead end at maximum depth).
   *
   * @example
   * ```ts
   * import { ThoughtTree } from '@tot/core';
   *
   * const tree = new ThoughtTree({ problem: 'p' });
   * tree.markTerminal(tree.addChild('root', { content: '24' }).id);
   * ```
   */
  markTerminal(id: string): ThoughtNode {
    return this.setStatus(id, 'terminal');
  }

  /**
   * Prunes a node and its whole subtree; returns the ids that changed (already pruned nodes are
   * left as they are). Pruned nodes leave the frontier and the best path.
   *
   * @example
   * ```ts
   * import { ThoughtTree } from '@tot/core';
   *
   * const tree = new ThoughtTree({ problem: 'p' });
   * const a = tree.addChild('root', { content: 'a' });
   * tree.addChild(a.id, { content: 'a1' });
   * tree.prune(a.id); // ['node_1_1', 'node_2_1']
   * ```
   */
  prune(id: string): string[] {
    const target = this.mustGet(id);
    if (target.childrenIds.length === 0) {
      // A leaf (what a search prunes most): no walk, and the state is rebuilt only if it names the leaf.
      if (target.status === 'pruned') return [];
      assertTransition(id, target.status, 'pruned');
      target.status = 'pruned';
      const { frontier, bestPath } = this.state;
      if (frontier.includes(id) || bestPath.includes(id)) {
        this.state = { currentDepth: this.state.currentDepth, frontier: frontier.filter((f) => f !== id), bestPath: bestPath.includes(id) ? [] : bestPath };
      }
      return [id];
    }
    const changed: string[] = [];
    const stack = [id];
    while (stack.length > 0) {
      const node = this.nodes.get(stack.pop()!)!;
      if (node.status !== 'pruned') {
        assertTransition(node.id, node.status, 'pruned');
        node.status = 'pruned';
        changed.push(node.id);
      }
      for (let i = node.childrenIds.length - 1; i >= 0; i--) stack.push(node.childrenIds[i]!);
    }
    if (changed.length > 0 && (this.state.frontier.length > 0 || this.state.bestPath.length > 0)) {
      const gone = new Set(changed);
      this.state = {
        currentDepth: this.state.currentDepth,
        frontier: this.state.frontier.filter((f) => !gone.has(f)),
        bestPath: this.state.bestPath.some((b) => gone.has(b)) ? [] : this.state.bestPath,
      };
    }
    return changed;
  }

  /**
   * The children of a node, in creation order.
   *
   * @example
   * ```ts
   * import { ThoughtTree } from '@tot/core';
   *
   * new ThoughtTree({ problem: 'p' }).children('root'); // []
   * ```
   */
  children(id: string): ThoughtNode[] {
    return this.mustGet(id).childrenIds.map((c) => this.nodes.get(c)!);
  }

  /**
   * The parent of a node (`undefined` for the root).
   *
   * @example
   * ```ts
   * import { ThoughtTree } from '@tot/core';
   *
   * const tree = new ThoughtTree({ problem: 'p' });
   * tree.parent(tree.addChild('root', { content: 'a' }).id)?.id; // 'root'
   * ```
   */
  parent(id: string): ThoughtNode | undefined {
    const node = this.mustGet(id);
    return node.parentId === null ? undefined : this.nodes.get(node.parentId);
  }

  /**
   * The nodes from the root down to `id`, both included.
   *
   * @example
   * ```ts
   * import { ThoughtTree } from '@tot/core';
   *
   * const tree = new ThoughtTree({ problem: 'p' });
   * const a = tree.addChild('root', { content: 'a' });
   * tree.path(a.id).map((n) => n.content); // ['p', 'a']
   * ```
   */
  path(id: string): ThoughtNode[] {
    let node: MutableNode | undefined = this.mustGet(id);
    const out: ThoughtNode[] = new Array<ThoughtNode>(node.depth + 1);
    for (let i = node.depth; node !== undefined; i--) {
      out[i] = node;
      node = node.parentId === null ? undefined : this.nodes.get(node.parentId);
    }
    return out;
  }

  /**
   * The ids from the root down to `id`.
   *
   * @example
   * ```ts
   * import { ThoughtTree } from '@tot/core';
   *
   * new ThoughtTree({ problem: 'p' }).pathIds('root'); // ['root']
   * ```
   */
  pathIds(id: string): string[] {
    return this.path(id).map((n) => n.id);
  }

  /**
   * Pending nodes that are neither pruned nor terminal — the states still to expand — in creation order.
   *
   * @example
   * ```ts
   * import { ThoughtTree } from '@tot/core';
   *
   * const tree = new ThoughtTree({ problem: 'p' });
   * tree.addChildren('root', [{ content: 'a' }, { content: 'b' }]);
   * tree.frontier().map((n) => n.id); // ['node_1_1', 'node_1_2']
   * ```
   */
  frontier(): ThoughtNode[] {
    const out: ThoughtNode[] = [];
    for (const node of this.nodes.values()) if (node.status === 'pending') out.push(node);
    return out;
  }

  /**
   * The path from the root to the best node: the highest-scoring terminal node if there is one;
   * otherwise the deepest unpruned node, the higher score winning at equal depth. Ties go to the
   * node created first, so the result is deterministic.
   *
   * @example
   * ```ts
   * import { ThoughtTree } from '@tot/core';
   *
   * const tree = new ThoughtTree({ problem: 'p' });
   * const [a, b] = tree.addChildren('root', [{ content: 'a' }, { content: 'b' }]);
   * tree.evaluate(b!.id, { score: 9, confidence: 1, reasoning: '' });
   * tree.bestPath().map((n) => n.id); // ['root', 'node_1_2']
   * ```
   */
  bestPath(): ThoughtNode[] {
    let best: MutableNode | undefined;
    let bestTerminal = false;
    const score = (n: MutableNode) => (n.evaluation === null ? -1 : n.evaluation.score);
    for (const node of this.nodes.values()) {
      if (node.status === 'pruned' || node.parentId === null) continue;
      const terminal = node.status === 'terminal';
      if (best === undefined) {
        best = node;
        bestTerminal = terminal;
        continue;
      }
      if (terminal !== bestTerminal) {
        if (terminal) {
          best = node;
          bestTerminal = true;
        }
        continue;
      }
      if (!terminal && node.depth !== best.depth) {
        if (node.depth > best.depth) best = node;
        continue;
      }
      if (score(node) > score(best)) best = node;
    }
    return this.path((best ?? this.nodes.get(this.rootId)!).id);
  }

  /**
   * Records where a search stands (validated; every id must exist).
   *
   * @example
   * ```ts
   * import { ThoughtTree } from '@tot/core';
   *
   * const tree = new ThoughtTree({ problem: 'p' });
   * tree.setSearchState({ currentDepth: 1, frontier: [], bestPath: ['root'] });
   * ```
   */
  setSearchState(state: Partial<SearchState>): void {
    parseOptions(searchStateUpdateSchema, state, 'ThoughtTree.setSearchState', 'state');
    const next = parseOptions(searchStateSchema, { ...this.state, ...state }, 'ThoughtTree.setSearchState', 'state');
    for (const id of [...next.frontier, ...next.bestPath]) this.mustGet(id, 'state');
    this.state = next;
  }

  /**
   * The tree as camelCase JSON, nodes in creation order. `ThoughtTree.fromJSON(tree.toJSON())`
   * gives an equal tree.
   *
   * @example
   * ```ts
   * import { ThoughtTree } from '@tot/core';
   *
   * const text = JSON.stringify(new ThoughtTree({ problem: 'p' }));
   * ```
   */
  toJSON(): ThoughtTreeJSON {
    const nodes: Record<string, ThoughtNode> = {};
    for (const n of this.nodes.values()) {
      nodes[n.id] = {
        id: n.id,
        parentId: n.parentId,
        childrenIds: [...n.childrenIds],
        depth: n.depth,
        content: n.content,
        ...(n.actionType === undefined ? {} : { actionType: n.actionType }),
        evaluation: n.evaluation === null ? null : cloneEvaluation(n.evaluation),
        status: n.status,
        metadata: n.metadata === NO_METADATA ? {} : structuredClone(n.metadata),
      };
    }
    return {
      version: 1,
      taskId: this.taskId,
      problem: this.problem,
      taskType: this.taskType,
      searchConfig: { ...this.config },
      rootId: this.rootId,
      nodes,
      searchState: structuredClone(this.state),
    };
  }

  /**
   * The tree in the Tree-of-Thoughts agent protocol's snake_case wire format, field for field.
   *
   * @example
   * ```ts
   * import { ThoughtTree } from '@tot/core';
   *
   * const wire = new ThoughtTree({ problem: 'p', searchConfig: { strategy: 'dfs' } }).toProtocol();
   * wire.search_config.strategy; // 'DFS'
   * ```
   */
  toProtocol(): ProtocolThoughtTree {
    return toProtocolTree(this.toJSON());
  }

  /**
   * A Mermaid flowchart of the tree.
   *
   * @example
   * ```ts
   * import { ThoughtTree } from '@tot/core';
   *
   * console.log(new ThoughtTree({ problem: '4 9 10 13' }).toMermaid({ maxLabelLength: 40 }));
   * ```
   */
  toMermaid(options: MermaidOptions = {}): string {
    return toMermaid(this, parseOptions(mermaidOptionsSchema, options, 'ThoughtTree.toMermaid'));
  }

  /**
   * A Graphviz DOT digraph of the tree.
   *
   * @example
   * ```ts
   * import { ThoughtTree } from '@tot/core';
   *
   * const dot = new ThoughtTree({ problem: 'p' }).toDot(); // render with `dot -Tsvg`
   * ```
   */
  toDot(options: DotOptions = {}): string {
    return toDot(this, parseOptions(dotOptionsSchema, options, 'ThoughtTree.toDot'));
  }

  /**
   * Rebuilds a tree from {@link ThoughtTree.toJSON} output (an object or its JSON text). The shape is
   * validated with zod and the structure is checked (one root, consistent parent/child links and
   * depths, pruned subtrees, existing search-state ids); anything else throws `INVALID_FORMAT`.
   *
   * @example
   * ```ts
   * import { ThoughtTree } from '@tot/core';
   *
   * const copy = ThoughtTree.fromJSON(JSON.stringify(new ThoughtTree({ problem: 'p' })));
   * ```
   */
  static fromJSON(json: unknown): ThoughtTree {
    let value = json;
    if (typeof json === 'string') {
      try {
        value = JSON.parse(json);
      } catch (error) {
        throw new TotError('INVALID_FORMAT', `Invalid thought tree: not JSON: ${(error as Error).message}`, { cause: error });
      }
    }
    const parsed = treeJsonSchema.safeParse(value);
    if (!parsed.success) throw formatError(z.prettifyError(parsed.error), { issues: parsed.error.issues });
    return ThoughtTree.build(parsed.data as ThoughtTreeJSON);
  }

  /**
   * Rebuilds a tree from the Tree-of-Thoughts agent protocol's snake_case wire format, with the same checks as {@link ThoughtTree.fromJSON}.
   *
   * @example
   * ```ts
   * import { ThoughtTree } from '@tot/core';
   *
   * const tree = ThoughtTree.fromProtocol(new ThoughtTree({ problem: 'p' }).toProtocol());
   * ```
   */
  static fromProtocol(wire: unknown): ThoughtTree {
    const parsed = protocolThoughtTreeSchema.safeParse(wire);
    if (!parsed.success) throw formatError(z.prettifyError(parsed.error), { issues: parsed.error.issues });
    return ThoughtTree.build(fromProtocolTree(parsed.data));
  }

  private static build(json: ThoughtTreeJSON): ThoughtTree {
    const root = json.nodes[json.rootId];
    if (!root) throw formatError(`root "${json.rootId}" is not among the nodes`);
    const tree = new ThoughtTree({ problem: json.problem, taskId: json.taskId, taskType: json.taskType, searchConfig: json.searchConfig });
    (tree as { rootId: string }).rootId = json.rootId;
    tree.nodes.clear();
    for (const [key, n] of Object.entries(json.nodes)) {
      if (key !== n.id) throw formatError(`node stored under "${key}" has id "${n.id}"`);
      tree.nodes.set(n.id, {
        id: n.id,
        parentId: n.parentId,
        childrenIds: [...n.childrenIds],
        depth: n.depth,
        content: n.content,
        actionType: n.actionType,
        evaluation: n.evaluation === null ? null : { ...n.evaluation },
        status: n.status,
        metadata: Object.keys(n.metadata).length === 0 ? NO_METADATA : { ...n.metadata },
      });
      const m = NODE_ID.exec(n.id);
      if (m) {
        const depth = Number(m[1]);
        tree.counters[depth] = Math.max(tree.counters[depth] ?? 0, Number(m[2]));
      }
    }
    tree.foreignIds = true;
    tree.checkStructure();
    tree.state = structuredClone(json.searchState);
    for (const id of [...tree.state.frontier, ...tree.state.bestPath]) {
      if (!tree.nodes.has(id)) throw formatError(`search state names unknown node "${id}"`);
    }
    return tree;
  }

  private checkStructure(): void {
    // Parent links first: they name the broken node more precisely than the children lists do.
    for (const node of this.nodes.values()) {
      if (node.parentId === null) {
        if (node.id !== this.rootId) throw formatError(`node "${node.id}" has no parent but is not the root`);
        if (node.depth !== 0) throw formatError(`root "${node.id}" has depth ${node.depth}`);
        continue;
      }
      if (node.id === this.rootId) throw formatError(`root "${node.id}" has a parent`);
      const parent = this.nodes.get(node.parentId);
      if (!parent) throw formatError(`node "${node.id}" has unknown parent "${node.parentId}"`);
      if (!parent.childrenIds.includes(node.id)) throw formatError(`node "${node.id}" is missing from its parent's childrenIds`);
      if (node.depth !== parent.depth + 1) throw formatError(`node "${node.id}" has depth ${node.depth} under a parent of depth ${parent.depth}`);
      if (parent.status === 'pruned' && node.status !== 'pruned') throw formatError(`node "${node.id}" is ${node.status} under pruned "${parent.id}"`);
    }
    for (const node of this.nodes.values()) {
      const ids = node.childrenIds;
      if (ids.length > 1 && new Set(ids).size !== ids.length) {
        const twice = ids.find((id, i) => ids.indexOf(id) !== i);
        throw formatError(`node "${node.id}" lists child "${twice}" twice`);
      }
      for (const childId of ids) {
        const child = this.nodes.get(childId);
        if (!child) throw formatError(`node "${node.id}" lists unknown child "${childId}"`);
        if (child.parentId !== node.id) throw formatError(`child "${childId}" of "${node.id}" names "${child.parentId}" as parent`);
      }
      if (node.childrenIds.length > 0 && (node.status === 'pending' || node.status === 'terminal')) {
        throw formatError(`node "${node.id}" has children but is ${node.status}`);
      }
    }
  }

  private nextId(depth: number): string {
    let n = (this.counters[depth] ?? 0) + 1;
    let id = `node_${depth}_${n}`;
    // Trees read from a host may hold ids in our pattern out of sequence; never reuse one. (A tree
    // that made all its ids itself needs no lookup: its counters are past every id it holds.)
    if (this.foreignIds) while (this.nodes.has(id)) id = `node_${depth}_${++n}`;
    this.counters[depth] = n;
    return id;
  }

  private mustGet(id: string, field = 'id'): MutableNode {
    const node = typeof id === 'string' ? this.nodes.get(id) : undefined;
    if (!node) throw new TotError('INVALID_ARGUMENT', `ThoughtTree: ${field}: no node "${String(id)}"`, { details: { field, id } });
    return node;
  }

  private checkThought(thought: NewThought): NewThought {
    // The common shape is checked inline: a zod parse per insert would dominate the cost of large trees.
    if (
      isPlainObject(thought) &&
      typeof thought.content === 'string' &&
      (thought.actionType === undefined || typeof thought.actionType === 'string') &&
      (thought.metadata === undefined || isPlainObject(thought.metadata)) &&
      thought.evaluation === undefined
    ) {
      return thought;
    }
    return parseOptions(newThoughtSchema, thought, 'ThoughtTree.addChild', 'thought');
  }
}
