export type { StructuredFormat } from './extract-candidates.js';
export { parseStructured, type ParseStructuredOptions, type ParseStructuredResult } from './parse-structured.js';
export {
  generateStructured,
  defaultRepairPrompt,
  type GenerateStructuredOptions,
  type GenerateStructuredResult,
  type RepairContext,
} from './generate-structured.js';
export type { SchemaIssue, SchemaOutput } from '../internal/standard-schema.js';
