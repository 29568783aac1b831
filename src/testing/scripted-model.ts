import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { parseOptions } from '../internal/validate.js';
import type { GenerateRequest, GenerateResult, LanguageModel } from '../model/types.js';
import { describeRequest, recordCall, requestText, toResult, type MockCall, type MockResponder, type MockResponse, type MockUsage } from './mock-response.js';

/**
 * One rule of a {@link scriptedModel}.
 *
 * @example
 * ```ts
 * import type { ScriptRule } from '@tot/core/testing';
 *
 * const rule: ScriptRule = { name: 'value', when: /Evaluate if given numbers can reach 24/, reply: 'sure' };
 * ```
 */
export interface ScriptRule {
  /** Shown in errors and recorded on each call. Default `rule #<index>`. */
  name?: string;
  /**
   * A string (contained in the conversation text), a RegExp (tested on it), or a predicate on the
   * request. The conversation text is every message's content joined by blank lines.
   */
  when: string | RegExp | ((request: GenerateRequest) => boolean);
  /** A reply, replies consumed in order (the rule is spent when they run out), or a function. */
  reply: MockResponse | readonly MockResponse[] | MockResponder;
  /** How many times the rule may answer. Default: unlimited (or the number of replies in an array). */
  times?: number;
}

/**
 * Options of {@link scriptedModel}.
 *
 * @example
 * ```ts
 * import { scriptedModel, type ScriptedModelOptions } from '@tot/core/testing';
 *
 * const options: ScriptedModelOptions = { rules: [{ when: 'hello', reply: 'hi' }], modelId: 'script' };
 * const model = scriptedModel(options);
 * ```
 */
export interface ScriptedModelOptions {
  rules: ScriptRule[];
  /** Default `'scripted'`. */
  modelId?: string;
  /** Declare native `n > 1`. Default false. */
  multipleOutputs?: boolean;
  /** Default `'estimate'`. */
  usage?: MockUsage;
}

/**
 * A scripted model, as returned by {@link scriptedModel}.
 *
 * @example
 * ```ts
 * import { scriptedModel } from '@tot/core/testing';
 *
 * const model = scriptedModel({ rules: [{ name: 'greet', when: 'hello', reply: 'hi' }] });
 * await model.generate({ messages: [{ role: 'user', content: 'hello' }] });
 * model.calls[0]?.rule; // 'greet'
 * ```
 */
export interface ScriptedModel extends LanguageModel {
  readonly calls: readonly MockCall[];
  readonly callCount: number;
  /** How many times each rule has answered, by name. */
  usesByRule(): Record<string, number>;
}

const ruleSchema = z.object({
  name: z.string().min(1).optional(),
  when: z.union([z.string().min(1), z.instanceof(RegExp), z.custom<(r: GenerateRequest) => boolean>((v) => typeof v === 'function')]),
  reply: z.unknown().refine((v) => v !== undefined, 'expected a reply'),
  times: z.number().int().positive().optional(),
});

const optionsSchema = z.strictObject({
  rules: z.array(ruleSchema).min(1, 'expected at least one rule'),
  modelId: z.string().min(1).default('scripted'),
  multipleOutputs: z.boolean().default(false),
  usage: z.unknown().optional(),
});

/**
 * A model that answers by ordered rules: the first rule whose `when` matches the request (and is
 * not spent) replies. A request that no rule matches fails with an error that prints the request
 * and the rules, so a test shows at once which prompt it did not expect; a `when` predicate that
 * throws fails the call with `INTERNAL` naming the rule (the predicate's error is the cause). A
 * reply function fails the call by returning or throwing an `Error`, as a provider would; a call
 * ends with `ABORTED` as soon as its signal fires, even if a reply function ignores it.
 *
 * @example
 * ```ts
 * import { scriptedModel } from '@tot/core/testing';
 *
 * const model = scriptedModel({
 *   rules: [
 *     { name: 'propose', when: /Possible next steps/, reply: '4 + 9 = 13 (left: 10 13 13)\n10 - 4 = 6 (left: 6 9 13)' },
 *     { name: 'value', when: /Evaluate/, reply: ['sure', 'likely', 'impossible'] },
 *   ],
 * });
 * ```
 */
export function scriptedModel(options: ScriptedModelOptions): ScriptedModel {
  const o = parseOptions(optionsSchema, options, 'scriptedModel');
  const usage = (o.usage ?? 'estimate') as MockUsage;
  const rules = options.rules.map((rule, i) => ({
    ...rule,
    name: rule.name ?? `rule #${i + 1}`,
    uses: 0,
    limit: rule.times ?? (Array.isArray(rule.reply) ? rule.reply.length : Number.POSITIVE_INFINITY),
  }));
  const calls: MockCall[] = [];

  const who = `scriptedModel "${o.modelId}"`;
  const matches = (rule: (typeof rules)[number], request: GenerateRequest, text: string, index: number): boolean => {
    const { when } = rule;
    if (typeof when === 'string') return text.includes(when);
    if (when instanceof RegExp) {
      when.lastIndex = 0;
      return when.test(text);
    }
    try {
      return when(request);
    } catch (error) {
      // A fault of the script, not of a simulated provider: named, so the test shows which rule.
      throw new TotError('INTERNAL', `${who}: the \`when\` of ${quoted(rule.name)} threw on call #${index + 1}: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    }
  };

  return {
    modelId: o.modelId,
    capabilities: { multipleOutputs: o.multipleOutputs },
    get calls() {
      return calls;
    },
    get callCount() {
      return calls.length;
    },
    usesByRule() {
      return Object.fromEntries(rules.map((r) => [r.name, r.uses]));
    },
    generate(request, callOptions = {}): Promise<GenerateResult> {
      const { signal } = callOptions;
      return recordCall(calls, request, signal, async (call) => {
        const text = requestText(request);
        const rule = rules.find((r) => r.uses < r.limit && matches(r, request, text, call.index));
        if (!rule) {
          const list = rules.map((r) => `  - ${r.name} (${r.uses}/${r.limit === Number.POSITIVE_INFINITY ? '∞' : r.limit} uses): ${String(r.when)}`).join('\n');
          throw new TotError('GENERATION_FAILED', `${who}: no rule matches call #${call.index + 1}.\nRequest:\n${describeRequest(request)}\nRules:\n${list}`, {
            recoverable: false,
            details: { request },
          });
        }
        const use = rule.uses++;
        call.rule = rule.name;
        const reply = Array.isArray(rule.reply)
          ? (rule.reply as readonly MockResponse[])[use]!
          : typeof rule.reply === 'function'
            ? await (rule.reply as MockResponder)(request, { callIndex: call.index, ...(signal ? { signal } : {}) })
            : (rule.reply as MockResponse);
        return toResult(reply, request, usage, who);
      });
    },
  };
}

/** A rule's name as errors show it: `rule #2` as is, a given name in quotes. */
function quoted(name: string): string {
  return /^rule #\d+$/.test(name) ? name : `rule "${name}"`;
}
