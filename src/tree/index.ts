export type { Evaluation, NewThought, NodeStatus, SearchConfig, SearchState, ThoughtNode, ThoughtTreeJSON } from './types.js';
export { ThoughtTree, type ThoughtTreeOptions } from './thought-tree.js';
export { NODE_TRANSITIONS, canTransition } from './status.js';
export { nodeToProtocol, nodeFromProtocol } from './protocol-codec.js';
export type { MermaidOptions } from './to-mermaid.js';
export type { DotOptions } from './to-dot.js';
