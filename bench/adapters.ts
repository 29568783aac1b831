/**
 * Overhead of the provider adapters over the raw client call, on the same local server.
 *
 * A server speaking the OpenAI wire format runs in a worker thread (its work stays off the
 * measured event loop). Each round makes one raw call and one adapter call, in alternating order,
 * so machine drift affects both alike; the overhead is the median of the per-round differences.
 * Contenders: `openAIModel` against `client.chat.completions.create` (openai 6), `fromAiSdk`
 * against the model's `doGenerate` (@ai-sdk/openai-compatible 2, provider specification v3), and
 * both embedders against their raw calls. Target: ≤ 50 µs median per call over 1,000 calls.
 *
 * The raw call against itself (an A/A comparison) gives the method's own error. A last measure
 * takes the network out: the same calls on clients that answer at once from memory, so what
 * remains is the adapter's own CPU time (request check, mapping, reply check, abort handling).
 */
import { Worker } from 'node:worker_threads';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import OpenAI from 'openai';
import { fromAiSdk, fromAiSdkEmbedding } from '../src/ai-sdk/index.js';
import type { GenerateRequest } from '../src/index.js';
import { openAIEmbedder, openAIModel } from '../src/openai/index.js';
import { median, report } from './harness.js';

const CALLS = 1_000;
const WARM_UP = 200;
const EMBED_CALLS = 1_000;

const completion = {
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: 'bench-model',
  choices: [{ index: 0, message: { role: 'assistant', content: '4 + 8 = 12 (left: 6 12)' }, finish_reason: 'stop', logprobs: null }],
  usage: { prompt_tokens: 120, completion_tokens: 12, total_tokens: 132 },
};
const embeddings = { object: 'list', data: [0, 1, 2].map((index) => ({ object: 'embedding', index, embedding: [0.1, 0.2, 0.3, 0.4] })), model: 'bench-embed', usage: { prompt_tokens: 3, total_tokens: 3 } };

// The server, in a worker: plain JavaScript evaluated there.
const serverCode = `
const { createServer } = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
const chat = JSON.stringify(workerData.completion);
const embed = JSON.stringify(workerData.embeddings);
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const body = req.url.endsWith('/embeddings') ? embed : chat;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
`;
const worker = new Worker(serverCode, { eval: true, workerData: { completion, embeddings } });
const port = await new Promise<number>((resolve) => worker.once('message', resolve));
const baseURL = `http://127.0.0.1:${port}/v1`;

const request: GenerateRequest = {
  messages: [
    { role: 'system', content: 'You play the Game of 24.' },
    { role: 'user', content: 'Puzzle: 4 6 8 12. Propose one next step.' },
  ],
  temperature: 0.7,
  maxOutputTokens: 64,
};
const openAIBody = { model: 'bench-model', messages: request.messages, temperature: 0.7, max_tokens: 64 };
const aiSdkOptions = {
  prompt: [
    { role: 'system' as const, content: request.messages[0]!.content },
    { role: 'user' as const, content: [{ type: 'text' as const, text: request.messages[1]!.content }] },
  ],
  temperature: 0.7,
  maxOutputTokens: 64,
};
const texts = ['sunny day', 'clear sky', 'heavy rain'];

/** Microseconds of each call of `fn`. */
async function timeCall(fn: () => PromiseLike<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return (performance.now() - start) * 1000;
}

/** Alternating rounds of a raw call and an adapter call; medians and the median per-round difference, in µs. */
async function compare(raw: () => PromiseLike<unknown>, adapter: () => PromiseLike<unknown>, calls: number) {
  for (let i = 0; i < WARM_UP; i++) {
    await raw();
    await adapter();
  }
  const rawTimes: number[] = [];
  const adapterTimes: number[] = [];
  const differences: number[] = [];
  for (let i = 0; i < calls; i++) {
    const rawFirst = i % 2 === 0;
    const a = rawFirst ? await timeCall(raw) : 0;
    const b = await timeCall(adapter);
    const c = rawFirst ? a : await timeCall(raw);
    rawTimes.push(c);
    adapterTimes.push(b);
    differences.push(b - c);
  }
  const round = (x: number) => Math.round(x * 10) / 10;
  return {
    calls,
    rawMedianMicros: round(median(rawTimes)),
    adapterMedianMicros: round(median(adapterTimes)),
    overheadMedianMicros: round(median(differences)),
  };
}

// Over HTTP, the real clients.
const client = new OpenAI({ baseURL, apiKey: 'bench', maxRetries: 0 });
const provider = createOpenAICompatible({ name: 'bench', baseURL, apiKey: 'bench' });
const chatModel = provider.chatModel('bench-model');
const embeddingModel = provider.embeddingModel('bench-embed');

const adapters = {
  openAIModel: openAIModel({ client, model: 'bench-model' }),
  fromAiSdk: fromAiSdk(chatModel),
  openAIEmbedder: openAIEmbedder({ client, model: 'bench-embed', clientMaxRetries: 0 }),
  fromAiSdkEmbedding: fromAiSdkEmbedding(embeddingModel),
};

const http = {
  openAIModel: await compare(() => client.chat.completions.create(openAIBody), () => adapters.openAIModel.generate(request), CALLS),
  fromAiSdk: await compare(() => chatModel.doGenerate(aiSdkOptions), () => adapters.fromAiSdk.generate(request), CALLS),
  openAIEmbedder: await compare(() => client.embeddings.create({ model: 'bench-embed', input: texts, encoding_format: 'float' }), () => adapters.openAIEmbedder.embed(texts), EMBED_CALLS),
  fromAiSdkEmbedding: await compare(() => embeddingModel.doEmbed({ values: texts }), () => adapters.fromAiSdkEmbedding.embed(texts), EMBED_CALLS),
};

// The method's own error: the raw call on both sides of each round (an A/A comparison).
const calibration = {
  openai: await compare(() => client.chat.completions.create(openAIBody), () => client.chat.completions.create(openAIBody), CALLS),
  aiSdk: await compare(() => chatModel.doGenerate(aiSdkOptions), () => chatModel.doGenerate(aiSdkOptions), CALLS),
};

// In memory: clients that answer at once, so the difference is the adapter's own CPU time.
const instantClient = { chat: { completions: { create: async () => completion } } };
const instantModel = {
  specificationVersion: 'v3' as const,
  provider: 'bench',
  modelId: 'bench-model',
  doGenerate: async () => ({
    content: [{ type: 'text', text: completion.choices[0]!.message.content }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: { inputTokens: { total: 120 }, outputTokens: { total: 12 } },
    warnings: [],
  }),
};
const openAIAdapter = openAIModel({ client: instantClient, model: 'bench-model' });
const aiSdkAdapter = fromAiSdk(instantModel);
const cpu = {
  openAIModel: await compare(() => instantClient.chat.completions.create(), () => openAIAdapter.generate(request), 20_000),
  fromAiSdk: await compare(() => instantModel.doGenerate(), () => aiSdkAdapter.generate(request), 20_000),
};

await worker.terminate();

report('adapters', {
  server: 'OpenAI wire format on 127.0.0.1, in a worker thread, keep-alive',
  clients: { openai: '6', aiSdkProvider: '@ai-sdk/openai-compatible 2 (specification v3)' },
  http,
  calibration,
  inMemory: cpu,
  targets: { overheadMedianMicros: 50 },
});
