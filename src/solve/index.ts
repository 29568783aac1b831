export { resumeSolve, solve, type ResumeSolveOptions, type SolveEvent, type SolveOptions, type SolveAnswered, type SolveFailed, type SolveResult } from './solve.js';
export {
  createProtocolHandler,
  protocolEvaluator,
  protocolGenerator,
  type ProtocolHandler,
  type ProtocolHandlerOptions,
  type ProtocolTransport,
  type RemoteRoleOptions,
} from './protocol-adapter.js';
