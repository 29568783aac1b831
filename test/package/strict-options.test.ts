/**
 * Every public options object is strict: a misspelt option is refused with INVALID_ARGUMENT
 * naming it (and the option it was probably meant to be) instead of being dropped without a word.
 *
 * The surface is read from the BUILT package, not from a list kept by hand: the TypeScript
 * compiler reads the declaration files of every entry point in package.json "exports" and finds
 * each exported function, class constructor and public method with an options parameter. Each
 * is called with the first option it declares spelt with one letter changed; a factory must refuse
 * it when it is called, not when what it made is first used.
 *
 * An options parameter is one named `options`, one whose type is named `…Options`, or an object
 * type whose properties are all optional; not an object with methods (a model, a store: an
 * implementation, not options). The other arguments come from {@link fixtures}, keyed by type.
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import * as core from '@tot/core';
import * as aiSdk from '@tot/core/ai-sdk';
import * as cot from '@tot/core/cot';
import * as deliberation from '@tot/core/deliberation';
import * as fractal from '@tot/core/fractal';
import * as graph from '@tot/core/graph';
import * as mcp from '@tot/core/mcp';
import * as openai from '@tot/core/openai';
import * as postgres from '@tot/core/postgres';
import * as search from '@tot/core/search';
import * as sessions from '@tot/core/sessions';
import * as sqlite from '@tot/core/sqlite';
import * as testing from '@tot/core/testing';
import * as viewer from '@tot/core/viewer';
// Not aliased in vitest.config.ts: the sources, as the other entries resolve to.
import * as queue from '../../src/queue/index.js';
import * as otel from '../../src/otel/index.js';
import { ensureDist } from '../helpers/ensure-dist.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The runtime of each entry point (the sources, as every test in this suite sees them). */
const runtime: Record<string, Record<string, unknown>> = {
  '.': core,
  './testing': testing,
  './sqlite': sqlite,
  './postgres': postgres,
  './ai-sdk': aiSdk,
  './openai': openai,
  './mcp': mcp,
  './viewer': viewer,
  './search': search,
  './graph': graph,
  './sessions': sessions,
  './deliberation': deliberation,
  './fractal': fractal,
  './cot': cot,
  './queue': queue,
  './otel': otel,
};

/**
 * Options parameters that are not checked, each with its reason. Keep it tiny: anything else
 * the test cannot call fails under its own name.
 */
const EXCLUDED: Record<string, string> = {
  // An error is built while another failure is being reported; its constructor must never throw.
  'new TotError(options)': 'an error constructor never throws',
  // The plan is a model's reply (snake_case, with fields this scorer does not read): read tolerantly like every reply.
  'RiskScorer#score(plan)': 'a model-written plan',
  // Reads the causal fields of an event, which carries many more (type, data, idempotencyKey…).
  'EventDag#assertCausal(event)': 'an event, not options',
  // A branch's score as recorded in the session's events: stored records are read tolerantly.
  'calculateReward(score)': 'a recorded score, not options',
};

interface Param {
  name: string;
  /** The type's name, type arguments removed (`Operation<S>` → `Operation`), or its text. */
  type: string;
  optional: boolean;
  /** An object type whose properties are all optional: `{}` is a valid value for it. */
  allOptional: boolean;
}

interface Target {
  /** `withRetry(options)`, `new Budget(options)`, `Explorer.resume(options)` (static), `Explorer#run(options)`. */
  label: string;
  entry: string;
  kind: 'function' | 'constructor' | 'static' | 'method';
  /** The export called (the class for a constructor or a method). */
  exportName: string;
  /** For a method: its name, and every exported class that has it (an inherited method is tested once). */
  method?: string;
  owners?: string[];
  /** The parameters before the options, and the options. */
  params: Param[];
  /** The first option the options type declares. */
  key: string;
}

/** The public surface, read from the built declarations. */
function readSurface(): { targets: Target[]; constructors: Map<string, { entry: string; params: Param[] }>; values: Map<string, Set<string>> } {
  const exportsField = JSON.parse(readFileSync(`${root}package.json`, 'utf8')).exports as Record<string, { import?: { types?: string } } | string>;
  const entries = Object.entries(exportsField).flatMap(([entry, value]) => (typeof value === 'object' && value.import?.types ? [[entry, `${root}${value.import.types.replace(/^\.\//, '')}`] as const] : []));
  const program = ts.createProgram(
    entries.map(([, file]) => file),
    { strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, skipLibCheck: true, noEmit: true },
  );
  const checker = program.getTypeChecker();
  const nonNullable = (t: ts.Type) => (t.isUnion() ? t.types.filter((m) => !(m.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null))) : [t]);
  const hasMethods = (t: ts.Type) => checker.getPropertiesOfType(t).some((p) => p.declarations?.some((d) => ts.isMethodSignature(d) || ts.isMethodDeclaration(d)));
  const isObject = (t: ts.Type) =>
    (t.flags & (ts.TypeFlags.Object | ts.TypeFlags.Intersection)) !== 0 && t.getCallSignatures().length === 0 && t.getConstructSignatures().length === 0 && !checker.isArrayType(t) && !checker.isTupleType(t) && !hasMethods(t);
  const allOptional = (t: ts.Type) => {
    const props = checker.getPropertiesOfType(t);
    return props.length > 0 && props.every((p) => (p.flags & ts.SymbolFlags.Optional) !== 0);
  };
  const typeName = (t: ts.Type) => {
    const members = nonNullable(t);
    const one = members.length === 1 ? members[0]! : undefined;
    const isList = one !== undefined && (checker.isArrayType(one) || checker.isTupleType(one));
    const named = one && !isList ? (one.aliasSymbol ?? (one.flags & ts.TypeFlags.Object ? one.getSymbol() : undefined))?.name : undefined;
    if (named && !named.startsWith('__')) return named;
    return checker.typeToString(members.length === 1 ? one! : t).replace(/<[^<>]*(<[^<>]*(<[^<>]*>[^<>]*)*>[^<>]*)*>/g, '').replace(/ \| undefined$/, '');
  };
  const param = (p: ts.Symbol, at: ts.Node): Param => {
    const t = checker.getTypeOfSymbolAtLocation(p, at);
    const d = p.valueDeclaration as ts.ParameterDeclaration | undefined;
    const object = nonNullable(t).find(isObject);
    return { name: p.name, type: typeName(t), optional: Boolean(d && (d.questionToken || d.initializer)), allOptional: object !== undefined && allOptional(object) };
  };
  /** The options type of a parameter, when it is one. */
  const optionsOf = (p: ts.Symbol, at: ts.Node): ts.Type | undefined => {
    const t = checker.getTypeOfSymbolAtLocation(p, at);
    const object = nonNullable(t).find(isObject);
    if (object === undefined) return undefined;
    const name = (object.aliasSymbol ?? object.getSymbol())?.name ?? '';
    return p.name === 'options' || /Options$/.test(name) || allOptional(object) ? object : undefined;
  };

  const targets: Target[] = [];
  const constructors = new Map<string, { entry: string; params: Param[] }>();
  const values = new Map<string, Set<string>>();
  const methods = new Map<ts.Node, Target[]>();
  const add = (base: Omit<Target, 'label' | 'params' | 'key'>, signatures: readonly ts.Signature[], at: ts.Node, name: string) => {
    const seen = new Set<string>();
    const found: Target[] = [];
    for (const signature of signatures) {
      signature.parameters.forEach((p, i) => {
        const options = optionsOf(p, at);
        const label = `${name}(${p.name})`;
        if (options === undefined || seen.has(label)) return;
        seen.add(label);
        const key = checker.getPropertiesOfType(options)[0]?.name;
        if (key === undefined) return;
        found.push({ ...base, label, key, params: signature.parameters.slice(0, i + 1).map((q) => param(q, at)) });
      });
    }
    targets.push(...found);
    return found;
  };

  const declared = new Set<ts.Node>();
  for (const [entry, file] of entries) {
    const source = program.getSourceFile(file);
    if (source === undefined) throw new Error(`${file} is missing: build the package (npx tsup)`);
    const names = new Set<string>();
    values.set(entry, names);
    for (const exported of checker.getExportsOfModule(checker.getSymbolAtLocation(source)!)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const at = symbol.valueDeclaration;
      if (at === undefined || !(symbol.flags & (ts.SymbolFlags.Function | ts.SymbolFlags.Class | ts.SymbolFlags.Variable))) continue;
      const name = exported.name;
      names.add(name);
      // A name two entries export (the search is in the root and in @tot/core/search) is one function: tested once.
      if (declared.has(at)) continue;
      declared.add(at);
      const type = checker.getTypeOfSymbolAtLocation(symbol, at);
      add({ entry, kind: 'function', exportName: name }, type.getCallSignatures(), at, name);
      if (!(symbol.flags & ts.SymbolFlags.Class)) continue;
      const construct = type.getConstructSignatures();
      if (construct.length > 0) {
        constructors.set(name, { entry, params: construct[0]!.parameters.map((p) => param(p, at)) });
      }
      const isPrivate = (d: ts.Declaration) => (ts.getCombinedModifierFlags(d) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) !== 0;
      const constructorDeclaration = (symbol.members?.get(ts.InternalSymbolName.Constructor)?.declarations ?? [])[0];
      if (constructorDeclaration !== undefined && isPrivate(constructorDeclaration)) constructors.delete(name);
      add({ entry, kind: 'constructor', exportName: name }, constructors.has(name) ? construct : [], at, `new ${name}`);
      for (const member of checker.getPropertiesOfType(type)) {
        const declaration = member.valueDeclaration;
        if (declaration === undefined || member.name === 'prototype' || isPrivate(declaration)) continue;
        add({ entry, kind: 'static', exportName: name, method: member.name }, checker.getTypeOfSymbolAtLocation(member, declaration).getCallSignatures(), declaration, `${name}.${member.name}`);
      }
      for (const member of checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol))) {
        const declaration = member.valueDeclaration;
        if (declaration === undefined || member.name.startsWith('__@') || member.name.startsWith('#') || isPrivate(declaration)) continue;
        const existing = methods.get(declaration);
        if (existing !== undefined) {
          for (const t of existing) t.owners!.push(name);
          continue;
        }
        const signatures = checker.getTypeOfSymbolAtLocation(member, declaration).getCallSignatures();
        methods.set(declaration, add({ entry, kind: 'method', exportName: name, method: member.name, owners: [name] }, signatures, declaration, `${name}#${member.name}`));
      }
    }
  }
  return { targets, constructors, values };
}

// `npm test` on a fresh clone has no dist yet; CI builds before testing.
await ensureDist();
const surface = readSurface();

/** The first known option spelt with its last letter changed: `maxCalls` → `maxCallx`. */
const misspell = (key: string) => `${key.slice(0, -1)}${key.endsWith('x') ? 'y' : 'x'}`;

const text = (outputs: string[]) => testing.mockModel(outputs);
const model = () => testing.mockModel('{"score": 5, "confidence": 0.5, "reasoning": "r"}');
const events = () => [{ type: 't', data: 1, idempotencyKey: 'k' }];
const runEvents = [{ type: 'run.started', runId: 'r', seq: 0, at: 0, data: {} }];

/**
 * Valid values for the parameters before an options parameter, and for the constructors of the
 * classes whose methods take options, keyed by parameter type.
 */
const fixtures: Record<string, () => unknown> = {
  string: () => 'x',
  number: () => 1,
  unknown: () => ({}),
  'readonly string[]': () => ['a', 'b'],
  LanguageModel: model,
  PromptFunction: () => () => 'x',
  GenerateRequest: () => ({ messages: [{ role: 'user', content: 'x' }] }),
  NewEvent: () => events()[0],
  'NewEvent[]': events,
  EventStore: () => new core.InMemoryEventStore(),
  EventStoreFactory: () => ({ create: () => new core.InMemoryEventStore() }),
  TestRegistrar: () => ({ describe: () => undefined, it: () => undefined }),
  'MockResponse | readonly MockResponse[] | MockResponder': () => 'x',
  AiSdkLanguageModel: () => ({ specificationVersion: 'v2', provider: 'p', modelId: 'm', doGenerate: async () => ({}) }),
  AiSdkEmbeddingModel: () => ({ specificationVersion: 'v2', provider: 'p', modelId: 'm', maxEmbeddingsPerCall: 8, doEmbed: async () => ({ embeddings: [] }) }),
  SamplingPeer: () => ({ createMessage: async () => ({ role: 'assistant', content: { type: 'text', text: 'x' } }) }),
  'readonly (RunEventBase | StoredEvent)[]': () => runEvents,
  'string | ThoughtTree': () => 'x',
  'readonly AgentTool[]': () => deliberation.agentTools(),
  Operation: () => graph.generate({ prompt: () => 'x', parse: (reply: string) => [reply] }),
  BranchTrigger: () => 'user_input',
  'BranchTrigger[]': () => ['user_input'],
  BranchScore: () => ({}),
  ChainOfThoughtState: () => cot.ChainOfThoughtNode.initialState('x'),
  // withTelemetry's run options: any runner's, passed through.
  O: () => ({}),
  ChainOfThoughtPrep: () => new cot.ChainOfThoughtNode({ model: model() }).prep(cot.ChainOfThoughtNode.initialState('x')),

  // Constructor options of the classes whose methods take options.
  ThoughtTreeOptions: () => ({ problem: 'x' }),
  ExplorerOptions: () => ({ generator: { generate: async () => [] }, evaluator: { evaluate: async () => [] } }),
  ThoughtEvaluator: () => ({ evaluate: async () => ({ evaluations: [], ranking: [], pruningSuggestions: [] }) }),
  ChainOfThoughtOptions: () => ({ model: text(['Final answer: 1']) }),
  FractalSolverOptions: () => ({ model: model() }),
  DeliberationOptions: () => ({
    agents: ['a', 'b'].map((id) => deliberation.llmAgent({ id, model: model(), turn: () => 'x' })),
    host: deliberation.llmHost({ model: model(), turn: () => 'x' }),
  }),
  SessionEngineOptions: () => ({ store: new core.InMemoryEventStore() }),
  SessionEngine: () => new sessions.SessionEngine({ store: new core.InMemoryEventStore() }),
  SqliteEventStoreOptions: () => ({ path: ':memory:' }),
  // Options are checked before the store connects: no server is needed.
  PostgresEventStoreOptions: () => ({ connectionString: 'postgres://localhost:1/none' }),
  // Instances made by the library, not by a constructor.
  AgentSession: () => new sessions.SessionEngine({ store: new core.InMemoryEventStore() }).startSession({ goal: 'g' }),
  ThoughtGraph: async () => {
    const g = new graph.OperationGraph();
    g.add(graph.generate({ prompt: () => 'x', parse: (reply: string) => [reply] }));
    return (await g.run({ model: model(), input: 'x' })).graph;
  },
};

async function valueOf(param: Param, label: string): Promise<unknown> {
  const make = fixtures[param.type];
  if (make !== undefined) return make();
  if (param.allOptional) return {};
  if (param.optional) return undefined;
  throw new Error(`${label}: no fixture for parameter ${param.name}: ${param.type} (add one to the fixtures, keyed by type)`);
}

async function instanceOf(className: string, label: string): Promise<Record<string, (...args: unknown[]) => unknown>> {
  if (fixtures[className] !== undefined) return (await fixtures[className]()) as never;
  const constructor = surface.constructors.get(className);
  if (constructor === undefined) throw new Error(`${label}: no way to make a ${className} (add a fixture keyed by its type)`);
  const args = [];
  for (const p of constructor.params) args.push(await valueOf(p, `new ${className}`));
  const Class = runtime[constructor.entry]![className] as new (...args: unknown[]) => Record<string, (...args: unknown[]) => unknown>;
  return new Class(...args);
}

/** Calls the target with `options` last; a promise is awaited and an async iterable's first step taken. */
async function call(target: Target, options: object): Promise<unknown> {
  const args = [];
  for (const p of target.params.slice(0, -1)) args.push(await valueOf(p, target.label));
  args.push(options);
  const exported = runtime[target.entry]![target.exportName] as (...args: unknown[]) => unknown;
  let result: unknown;
  if (target.kind === 'function') result = exported(...args);
  else if (target.kind === 'constructor') result = new (exported as unknown as new (...args: unknown[]) => unknown)(...args);
  else if (target.kind === 'static') result = (exported as unknown as Record<string, (...args: unknown[]) => unknown>)[target.method!]!(...args);
  else {
    const owner = target.owners!.find((name) => fixtures[name] !== undefined || surface.constructors.has(name)) ?? target.owners![0]!;
    const instance = await instanceOf(owner, target.label);
    result = instance[target.method!]!(...args);
  }
  if (result instanceof Promise) return await result;
  if (result !== null && typeof result === 'object' && Symbol.asyncIterator in result) return await (result as AsyncIterable<unknown>)[Symbol.asyncIterator]().next();
  return result;
}

const covered: { label: string; entry: string; key: string; misspelt: string }[] = [];

describe('every public options object is strict', () => {
  it('reads the surface from declarations that match the built package and the sources', () => {
    for (const [entry, names] of surface.values) {
      const built = Object.keys(runtime[entry]!).filter((n) => n !== 'default');
      // A difference means dist is older than the sources: rebuild it (npx tsup).
      expect([...names].sort(), `exports of ${entry}`).toEqual(built.sort());
    }
    expect(surface.targets.length).toBeGreaterThan(100);
  });

  it('has no exclusion left that names nothing', () => {
    const labels = new Set(surface.targets.map((t) => t.label));
    expect(Object.keys(EXCLUDED).filter((label) => !labels.has(label))).toEqual([]);
  });

  for (const target of surface.targets) {
    if (EXCLUDED[target.label] !== undefined) continue;
    it(`${target.entry === '.' ? '' : `${target.entry.slice(2)}: `}${target.label} refuses a misspelt ${target.key}`, async () => {
      const misspelt = misspell(target.key);
      let caught: unknown;
      try {
        await call(target, { [misspelt]: 1 });
      } catch (error) {
        caught = error;
      }
      expect(core.TotError.isInstance(caught), `${target.label} accepted { ${misspelt} } or failed otherwise: ${String(caught)}`).toBe(true);
      const error = caught as core.TotError<'INVALID_ARGUMENT'>;
      expect(error.code, error.message).toBe('INVALID_ARGUMENT');
      expect(error.message).toContain(`${misspelt}: unknown option; did you mean \`${target.key}\`?`);
      expect(error.details?.suggestion).toBe(target.key);
      covered.push({ label: target.label, entry: target.entry, key: target.key, misspelt });
    });
  }
});

afterAll(() => {
  mkdirSync(`${root}.tmp`, { recursive: true });
  const list = [...covered].sort((a, b) => `${a.entry} ${a.label}`.localeCompare(`${b.entry} ${b.label}`));
  writeFileSync(`${root}.tmp/strict-options.json`, `${JSON.stringify({ covered: list, excluded: EXCLUDED }, null, 2)}\n`);
});
