import { readFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { abortable, abortedError } from '../internal/abort.js';
import { parseOptions } from '../internal/validate.js';
import { isWellFormedResult } from '../model/call-model.js';
import { requestKey } from '../model/request-key.js';
import { generateRequestSchema, generateResultSchema, languageModelSchema } from '../model/schemas.js';
import { wrapModel } from '../model/wrap-model.js';
import type { GenerateRequest, GenerateResult, LanguageModel, ModelCapabilities } from '../model/types.js';
import { describeRequest } from './mock-response.js';

/**
 * One recorded call in a cassette file.
 *
 * @example
 * ```ts
 * import type { CassetteInteraction } from '@tot/core/testing';
 *
 * const i: CassetteInteraction = { request: { messages: [{ role: 'user', content: 'hi' }] }, result: { outputs: ['hello'], usage: {} } };
 * ```
 */
export interface CassetteInteraction {
  request: GenerateRequest;
  result: GenerateResult;
}

/**
 * The JSON stored in a cassette file.
 *
 * @example
 * ```ts
 * import { readFile } from 'node:fs/promises';
 * import type { CassetteFile } from '@tot/core/testing';
 *
 * const cassette = JSON.parse(await readFile('test/cassettes/game24.json', 'utf8')) as CassetteFile;
 * cassette.interactions.length;
 * ```
 */
export interface CassetteFile {
  version: 1;
  modelId: string;
  capabilities: ModelCapabilities;
  interactions: CassetteInteraction[];
}

const fileOptionsSchema = z.strictObject({ file: z.string().min(1) });

const cassetteSchema = z.object({
  version: z.literal(1),
  modelId: z.string().min(1),
  capabilities: z.object({ multipleOutputs: z.boolean().optional() }),
  interactions: z.array(z.object({ request: generateRequestSchema, result: generateResultSchema })),
});

/**
 * Options of {@link recordCassette}.
 *
 * @example
 * ```ts
 * import type { RecordCassetteOptions } from '@tot/core/testing';
 *
 * const options: RecordCassetteOptions = { file: 'test/cassettes/run.json' };
 * ```
 */
export interface RecordCassetteOptions {
  /** Path of the cassette file, rewritten after every call. */
  file: string;
}

/**
 * A recording model, as returned by {@link recordCassette}.
 *
 * @example
 * ```ts
 * import { mockModel, recordCassette } from '@tot/core/testing';
 *
 * const recorder = recordCassette(mockModel('ok'), 'tmp/cassette.json');
 * await recorder.flush();
 * ```
 */
export interface CassetteRecorder extends LanguageModel {
  /** Calls recorded so far. */
  readonly size: number;
  /** Resolves once every recorded call is on disk. */
  flush(): Promise<void>;
}

/**
 * Wraps a real model and writes every request and its result to a JSON cassette, so the run can
 * be replayed offline with {@link replayCassette}. The file is rewritten atomically (temporary
 * file + rename) after each call; failed calls are not recorded, nor are calls whose result is
 * malformed (which `callModel` fails) or whose signal aborted (such a call ends with `ABORTED` at
 * once, even if the model ignores the signal).
 *
 * @example
 * ```ts
 * import { recordCassette } from '@tot/core/testing';
 *
 * // once, with a real model and an API key:
 * const model = recordCassette(openAiModel, 'test/cassettes/game24.json');
 * await solveGame24(model);
 * await model.flush();
 * ```
 */
export function recordCassette(model: LanguageModel, options: string | RecordCassetteOptions): CassetteRecorder {
  parseOptions(languageModelSchema, model, 'recordCassette', 'model');
  const { file } = parseOptions(fileOptionsSchema, typeof options === 'string' ? { file: options } : options, 'recordCassette');
  const cassette: CassetteFile = { version: 1, modelId: model.modelId, capabilities: { ...model.capabilities }, interactions: [] };
  let writes: Promise<void> = Promise.resolve();
  let writeError: unknown;
  const save = () => {
    const text = `${JSON.stringify(cassette, null, 2)}\n`;
    writes = writes
      .then(async () => {
        await mkdir(dirname(file), { recursive: true });
        const tmp = `${file}.${process.pid}.tmp`;
        await writeFile(tmp, text, 'utf8');
        await rename(tmp, file);
      })
      .catch((error: unknown) => {
        writeError ??= error;
      });
  };
  const generate: LanguageModel['generate'] = async (request, callOptions) => {
    // Raced with the signal: an aborted call ends at once, even if the model ignores the signal,
    // and like any failed call it is not recorded.
    const result = await abortable(callOptions?.signal, () => model.generate(request, callOptions), 'model call');
    // A malformed result (one `callModel` fails) is a failed call: a cassette holds only what it can replay.
    if (!isWellFormedResult(result, request.n ?? 1)) return result;
    // The fields a replay gives back, and nothing else (not `raw`, which may not even be cloneable).
    const kept: GenerateResult = { outputs: [...result.outputs], usage: {} };
    if (result.usage.inputTokens !== undefined) kept.usage.inputTokens = result.usage.inputTokens;
    if (result.usage.outputTokens !== undefined) kept.usage.outputTokens = result.usage.outputTokens;
    if (result.finishReason !== undefined) kept.finishReason = result.finishReason;
    cassette.interactions.push({ request: structuredClone(request), result: kept });
    save();
    return result;
  };
  return wrapModel<Omit<CassetteRecorder, keyof LanguageModel>>(model, generate, {
    get size() {
      return cassette.interactions.length;
    },
    async flush() {
      await writes;
      if (writeError !== undefined) throw new TotError('GENERATION_FAILED', `recordCassette: could not write "${file}"`, { cause: writeError, recoverable: false });
    },
  });
}

/**
 * Options of {@link replayCassette}.
 *
 * @example
 * ```ts
 * import type { ReplayCassetteOptions } from '@tot/core/testing';
 *
 * const options: ReplayCassetteOptions = { file: 'test/cassettes/run.json' };
 * ```
 */
export interface ReplayCassetteOptions {
  file: string;
}

/**
 * A replaying model, as returned by {@link replayCassette}.
 *
 * @example
 * ```ts
 * import { replayCassette } from '@tot/core/testing';
 *
 * const model = replayCassette('test/cassettes/run.json');
 * model.unused(); // recorded requests not asked for yet
 * ```
 */
export interface CassettePlayer extends LanguageModel {
  /** Calls served so far. */
  readonly served: number;
  /** Recorded interactions that no call has asked for yet. */
  unused(): CassetteInteraction[];
}

/**
 * A model that serves a cassette written by {@link recordCassette}, offline. A request is matched
 * by its canonical key ({@link requestKey}: messages and sampling settings, not tags); each
 * recording is served once, and identical requests recorded several times are served in recorded
 * order. A request that was never recorded fails loudly (`GENERATION_FAILED`, not recoverable)
 * with the request and the closest recorded one, so a changed prompt is found at once; so does
 * an identical request made more times than it was recorded (the run made more calls than the
 * recorded one).
 *
 * @example
 * ```ts
 * import { replayCassette } from '@tot/core/testing';
 *
 * const model = replayCassette('test/cassettes/game24.json');
 * const result = await solveGame24(model); // no network, same outputs as the recorded run
 * ```
 */
export function replayCassette(options: string | ReplayCassetteOptions): CassettePlayer {
  const { file } = parseOptions(fileOptionsSchema, typeof options === 'string' ? { file: options } : options, 'replayCassette');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new TotError('INVALID_ARGUMENT', `replayCassette: cannot read cassette "${file}": ${(error as Error).message}`, { cause: error, details: { field: 'file' } });
  }
  let cassette: CassetteFile;
  try {
    const checked = cassetteSchema.safeParse(JSON.parse(text));
    if (!checked.success) throw new Error(z.prettifyError(checked.error));
    cassette = checked.data as CassetteFile;
  } catch (error) {
    throw new TotError('INVALID_FORMAT', `replayCassette: "${file}" is not a valid cassette: ${(error as Error).message}`, { cause: error });
  }
  const queues = new Map<string, { entries: CassetteInteraction[]; next: number }>();
  for (const interaction of cassette.interactions) {
    const key = requestKey(cassette.modelId, interaction.request);
    const queue = queues.get(key) ?? { entries: [], next: 0 };
    queue.entries.push(interaction);
    queues.set(key, queue);
  }
  let served = 0;
  return {
    modelId: cassette.modelId,
    capabilities: cassette.capabilities,
    get served() {
      return served;
    },
    unused() {
      return [...queues.values()].flatMap((q) => q.entries.slice(q.next));
    },
    async generate(request, callOptions = {}) {
      if (callOptions.signal?.aborted) throw abortedError(callOptions.signal, 'model call');
      const queue = queues.get(requestKey(cassette.modelId, request));
      const entry = queue?.entries[queue.next];
      if (!queue || !entry) {
        const told = queue ? `has no recording of this request left: its ${queue.entries.length} recording${queue.entries.length === 1 ? ' was' : 's were'} already served.` : 'has no recording of this request.';
        throw new TotError('GENERATION_FAILED', `replayCassette: "${file}" ${told}\nRequest:\n${describeRequest(request)}${queue ? '' : `\n${nearest(cassette, request)}`}`, {
          recoverable: false,
          details: { request, file },
        });
      }
      queue.next += 1;
      served += 1;
      return structuredClone(entry.result);
    },
  };
}

function nearest(cassette: CassetteFile, request: GenerateRequest): string {
  const wanted = request.messages.map((m) => m.content);
  let best: { interaction: CassetteInteraction; score: number } | undefined;
  for (const interaction of cassette.interactions) {
    const got = interaction.request.messages.map((m) => m.content);
    let score = 0;
    for (let i = 0; i < Math.min(got.length, wanted.length); i++) score += commonPrefix(got[i]!, wanted[i]!);
    if (!best || score > best.score) best = { interaction, score };
  }
  if (!best) return 'The cassette is empty.';
  const got = best.interaction.request.messages;
  const i = got.findIndex((m, j) => m.content !== request.messages[j]?.content || m.role !== request.messages[j]?.role);
  if (i === -1 && got.length === request.messages.length) return 'The closest recording has the same messages but other settings (n, temperature, stop, seed, responseFormat).';
  const at = i === -1 ? got.length : i;
  const ours = request.messages[at]?.content ?? '(none)';
  const theirs = got[at]?.content ?? '(none)';
  const p = commonPrefix(ours, theirs);
  return `The closest recording first differs in message ${at + 1} at character ${p + 1}:\n  recorded: …${theirs.slice(Math.max(0, p - 20), p + 60)}\n  asked:    …${ours.slice(Math.max(0, p - 20), p + 60)}`;
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}
