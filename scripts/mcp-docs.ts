/**
 * Renders the tools reference of docs/mcp.md from the server's own schemas (`mcpToolList()`), so
 * that the reference says what the server accepts. Rewrites the part of docs/mcp.md between
 * `<!-- tools:start -->` and `<!-- tools:end -->`; test/docs/mcp-docs.test.ts fails when the
 * committed part differs from what this renders.
 *
 *   npm run docs:mcp          (npx tsx scripts/mcp-docs.ts)
 */
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { mcpToolList, type McpToolInfo } from '../src/mcp/index.js';

export const START = '<!-- tools:start -->';
export const END = '<!-- tools:end -->';
export const DOC_PATH = fileURLToPath(new URL('../docs/mcp.md', import.meta.url));

type Schema = Record<string, unknown> & {
  type?: string | string[];
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  default?: unknown;
};

const n = (x: number) => x.toLocaleString('en-US');
const code = (x: unknown) => `\`${typeof x === 'string' ? x : JSON.stringify(x)}\``;
/** Text for a table cell: one line, pipes escaped. */
const cell = (text: string) => text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');

/** A schema's type, as a reader writes it: `string`, `integer`, `string[]`, `"a" | "b"`, `object`. */
function typeOf(s: Schema): string {
  if (s.enum) return s.enum.map(code).join(' | ');
  if (s.const !== undefined) return code(s.const);
  const union = s.anyOf ?? s.oneOf;
  // A named alternative (think_plan_step's ExecutionPlan or DocPlan) reads better by its name.
  if (union) return union.map((u) => (typeof u.title === 'string' ? u.title : typeOf(u))).join(' or ');
  const t = Array.isArray(s.type) ? s.type.join(' or ') : s.type;
  if (t === 'array') return s.items ? `${typeOf(s.items).includes(' ') ? `(${typeOf(s.items)})` : typeOf(s.items)}[]` : 'array';
  if (t === 'object' && !s.properties) return 'JSON object';
  return t ?? 'any';
}

/** A schema's limits in words: lengths, ranges, counts, pattern, default. */
function constraints(s: Schema): string[] {
  const out: string[] = [];
  const { minLength, maxLength, minimum, maximum, minItems, maxItems, pattern } = s as Record<string, number | string | undefined>;
  const range = (min: unknown, max: unknown, unit: string) => {
    const units = (x: number) => (unit === '' ? '' : ` ${x === 1 ? unit : `${unit}s`}`);
    if (typeof min === 'number' && typeof max === 'number') out.push(`${n(min)} to ${n(max)}${units(max)}`);
    else if (typeof min === 'number') out.push(`at least ${n(min)}${units(min)}`);
    else if (typeof max === 'number') out.push(`at most ${n(max)}${units(max)}`);
  };
  range(minLength === 1 && maxLength === undefined ? undefined : minLength, maxLength, 'character');
  if (minLength === 1 && maxLength === undefined) out.push('not empty');
  range(minimum, maximum, '');
  range(minItems === 0 ? undefined : minItems, maxItems, 'item');
  if (typeof pattern === 'string') out.push(`matches ${code(pattern)}`);
  if (s.default !== undefined) out.push(`default ${code(s.default)}`);
  return out;
}

interface Row {
  name: string;
  type: string;
  required: string;
  notes: string;
}

/** The rows of an object's fields, nested objects' fields after their own row (dotted names). */
function rows(s: Schema, prefix = '', parentOptional?: string): Row[] {
  const out: Row[] = [];
  const required = new Set(s.required ?? []);
  for (const [key, field] of Object.entries(s.properties ?? {})) {
    const name = `${prefix}${key}`;
    const isRequired = required.has(key);
    const notes = [field.description, ...constraints(field)].filter(Boolean).join('; ');
    out.push({ name, type: typeOf(field), required: isRequired ? (parentOptional ? `with ${code(parentOptional)}` : 'yes') : 'no', notes });
    if (field.properties) out.push(...rows(field, `${name}.`, isRequired ? parentOptional : (parentOptional ?? name)));
  }
  return out;
}

/** The fields a result carries (its `structuredContent`), required first. */
function returns(s: Schema): string {
  const fields = Object.keys(s.properties ?? {});
  const required = new Set(s.required ?? []);
  const always = fields.filter((f) => required.has(f)).map(code);
  const sometimes = fields.filter((f) => !required.has(f)).map(code);
  const open = s.additionalProperties !== undefined && s.additionalProperties !== false ? ', and further fields' : '';
  return `${always.join(', ')}${sometimes.length > 0 ? `${always.length > 0 ? '; ' : ''}when they apply: ${sometimes.join(', ')}` : ''}${open}`;
}

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/** One tool's reference. */
function renderTool(t: McpToolInfo): string {
  const input = rows(t.inputSchema as Schema);
  const lines = [
    `### ${t.name}`,
    '',
    `**${t.title}.** ${t.description}`,
    '',
    `Hints: ${HINTS.map((h) => `\`${h}: ${t.annotations[h]}\``).join(', ')}.`,
    '',
    '| field | type | required | constraints |',
    '| --- | --- | --- | --- |',
    ...input.map((r) => `| \`${r.name}\` | ${cell(r.type)} | ${r.required} | ${cell(r.notes)} |`),
    '',
    `Returns (\`structuredContent\`): ${returns(t.outputSchema as Schema)}.`,
  ];
  return lines.join('\n');
}

/**
 * The tools reference: what goes between the markers of docs/mcp.md.
 *
 * @example
 * ```ts
 * const section = renderToolsReference();
 * ```
 */
export function renderToolsReference(tools: McpToolInfo[] = mcpToolList()): string {
  const index = tools.map((t) => `[\`${t.name}\`](#${t.name.toLowerCase()})`).join(', ');
  return [`${tools.length} tools: ${index}.`, ...tools.map(renderTool)].join('\n\n');
}

/**
 * The part of a document between the markers (without them), or undefined when it has none.
 *
 * @example
 * ```ts
 * const current = toolsSection(readFileSync('docs/mcp.md', 'utf8'));
 * ```
 */
export function toolsSection(doc: string): string | undefined {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start === -1 || end === -1 || end < start) return undefined;
  return doc.slice(start + START.length, end).replace(/^\n+|\n+$/g, '');
}

/**
 * The document with its tools section replaced by `section`.
 *
 * @example
 * ```ts
 * writeFileSync(path, withToolsSection(doc, renderToolsReference()));
 * ```
 */
export function withToolsSection(doc: string, section: string): string {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start === -1 || end === -1 || end < start) throw new Error(`docs/mcp.md: no ${START} … ${END} section to rewrite`);
  return `${doc.slice(0, start + START.length)}\n\n${section}\n\n${doc.slice(end)}`;
}

const invoked = process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
if (invoked) {
  const doc = readFileSync(DOC_PATH, 'utf8');
  const next = withToolsSection(doc, renderToolsReference());
  if (next === doc) console.log('docs/mcp.md: the tools reference is up to date');
  else {
    writeFileSync(DOC_PATH, next);
    console.log('docs/mcp.md: tools reference rewritten');
  }
}
