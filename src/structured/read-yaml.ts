import { Composer, CST, Lexer, Parser } from 'yaml';
import { indexOfSteps, jsonNestsDeeperThan, MAX_ALIASES, MAX_NESTING, MAX_YAML_LENGTH, type Steps } from './syntax-limits.js';
import { readSimpleYaml } from './simple-yaml.js';

/** The outcome of reading one candidate's syntax. */
export type SyntaxResult = { ok: true; value: unknown } | { ok: false; error: string };

/** Lexemes the YAML parser takes between two pauses: well under a millisecond of work. */
const LEXEMES = 1024;

/** Thrown from the composer's error hook to stop at the first error. */
const STOP = new Error('stop at the first YAML error');

const failure = (message: string): SyntaxResult => ({ ok: false, error: `invalid YAML: ${message}` });

/**
 * Reads YAML text as the `yaml` package's `parseDocument(text).toJS()` would, safe on hostile
 * text. In order: the fast reader; JSON (YAML 1.2 is a superset, and models asked for YAML often
 * answer JSON); else the `yaml` package's parser, fed one lexeme at a time (the generator yields
 * every {@link LEXEMES} lexemes so an async caller can give way and honour its signal), stopping at the first error
 * and checking nesting and aliases on the syntax tree before anything recursive or quadratic
 * touches it.
 */
export function* readYaml(text: string): Steps<SyntaxResult> {
  const simple = yield* readSimpleYaml(text);
  if (simple) return { ok: true, value: simple.value };
  yield 0;
  const json = yield* asJson(text);
  if (json) return json;
  if (text.length > MAX_YAML_LENGTH) return failure(`${text.length} characters is more than the ${MAX_YAML_LENGTH} the YAML reader takes: reply with a shorter document`);

  const parser = new Parser();
  const tokens: CST.Token[] = [];
  let lexemes = 0;
  let read = 0;
  // The parser's own public loop (`lexer.lex` into `parser.next`), run here so that it can stop
  // early and pause: `parse(chunk, true)` would wait for a newline, so a one-line reply would
  // still be read in one go.
  const take = (token: CST.Token): string | undefined => {
    // A stray token at document level: the document is broken whatever follows.
    if (token.type === 'error') return token.message;
    tokens.push(token);
    return undefined;
  };
  let aliases = 0;
  for (const lexeme of new Lexer().lex(text)) {
    // Counted as they come: a document of thousands of aliases is refused before it is built.
    if (lexeme.charCodeAt(0) === 0x2a && CST.tokenType(lexeme) === 'alias' && ++aliases > MAX_ALIASES) return failure(`more than ${MAX_ALIASES} aliases`);
    for (const token of parser.next(lexeme)) {
      const error = take(token);
      if (error !== undefined) return failure(error);
    }
    read += lexeme.length;
    if (++lexemes % LEXEMES === 0) {
      // The parser's stack holds the document, the open collections and at most one token being
      // read: deeper than the limit can be refused now rather than after the whole text.
      if (parserDepth(parser) - 2 > MAX_NESTING) return failure(`nested deeper than ${MAX_NESTING} levels`);
      yield read;
      read = 0;
    }
  }
  for (const token of parser.end()) {
    const error = take(token);
    if (error !== undefined) return failure(error);
  }
  const problem = shapeProblem(tokens);
  if (problem) return failure(problem);

  // `logLevel: 'error'`: the package would otherwise print warnings (odd keys) to the process.
  const composer = new Composer({ uniqueKeys: false, logLevel: 'error' });
  let firstError: string | undefined;
  // The composer's error hook is not public API; replacing it makes a document with thousands of
  // errors fail at the first instead of building an exception (and its stack trace) per error.
  // If a later version stops calling it, errors are collected as before and read below.
  const hooked = composer as unknown as { onError?: (source: unknown, code: string, message: string, warning?: boolean) => void };
  if (typeof hooked.onError === 'function') {
    hooked.onError = (source, code, message, warning) => {
      if (warning) return;
      firstError ??= message;
      throw STOP;
    };
  }
  let documents;
  try {
    documents = [...composer.compose(tokens, true, text.length)];
  } catch (error) {
    if (error === STOP || firstError !== undefined) return failure(firstError ?? 'unreadable');
    throw error;
  }
  if (firstError !== undefined) return failure(firstError);
  if (documents.length > 1) return failure('the reply holds more than one YAML document');
  const document = documents[0]!;
  if (document.errors.length > 0) return failure(document.errors[0]!.message.split('\n')[0]!);
  yield 0;
  return { ok: true, value: document.toJS({ maxAliasCount: MAX_ALIASES }) };
}

function parserDepth(parser: Parser): number {
  const stack = (parser as unknown as { stack?: unknown[] }).stack;
  return Array.isArray(stack) ? stack.length : 0;
}

/**
 * A JSON object or array parsed as JSON. YAML 1.2 reads such text to the same value, except
 * for keys JSON.parse keeps and YAML's `toJS` treats specially (`__proto__`, `<<`), which are
 * left to the YAML reader.
 */
function* asJson(text: string): Steps<SyntaxResult | undefined> {
  const first = text[0];
  if (first !== '{' && first !== '[') return undefined;
  if ((yield* indexOfSteps(text, '"__proto__"')) !== -1 || (yield* indexOfSteps(text, '"<<"')) !== -1) return undefined;
  // Before parsing: V8's JSON.parse takes tens of milliseconds to fail on a megabyte of open
  // brackets, and the count bounds the depth of whatever does parse.
  if (yield* jsonNestsDeeperThan(text, MAX_NESTING)) return failure(`nested deeper than ${MAX_NESTING} levels`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return { ok: true, value };
}

/** Nesting deeper than {@link MAX_NESTING} or more than {@link MAX_ALIASES} aliases, found without recursion. */
function shapeProblem(tokens: CST.Token[]): string | undefined {
  const stack: { token: CST.Token; depth: number }[] = tokens.map((token) => ({ token, depth: 0 }));
  let aliases = 0;
  while (stack.length > 0) {
    const { token, depth } = stack.pop()!;
    switch (token.type) {
      case 'document':
        if (token.value) stack.push({ token: token.value, depth });
        break;
      case 'alias':
        if (++aliases > MAX_ALIASES) return `more than ${MAX_ALIASES} aliases`;
        break;
      case 'block-map':
      case 'block-seq':
      case 'flow-collection': {
        if (depth + 1 > MAX_NESTING) return `nested deeper than ${MAX_NESTING} levels`;
        for (const item of token.items) {
          if (item.key) stack.push({ token: item.key, depth: depth + 1 });
          if (item.value) stack.push({ token: item.value, depth: depth + 1 });
        }
        break;
      }
      default:
        break;
    }
  }
  return undefined;
}
