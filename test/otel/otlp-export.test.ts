// Telemetry through the real OTLP/HTTP exporter to a receiver this test starts, across processes:
// a recorded graph run killed with kill -9 and resumed in another process continues the same
// trace, its resumed run span a child of the run span the first process started.
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
} from '@opentelemetry/semantic-conventions/incubating';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '@tot/core/sqlite';
import { bundleFixture } from '../helpers/bundle-fixture.js';
import { collect } from '../helpers/collect.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** A span as the OTLP/JSON body carries it, its attributes flattened. */
interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Record<string, unknown>;
}

type OtlpValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean; arrayValue?: { values?: OtlpValue[] } };
const valueOf = (v: OtlpValue): unknown =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.doubleValue ?? v.boolValue ?? v.arrayValue?.values?.map(valueOf);

function decode(body: { resourceSpans?: { scopeSpans?: { spans?: { traceId: string; spanId: string; parentSpanId?: string; name: string; attributes?: { key: string; value: OtlpValue }[] }[] }[] }[] }): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((r) =>
    (r.scopeSpans ?? []).flatMap((s) =>
      (s.spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        attributes: Object.fromEntries((span.attributes ?? []).map((a) => [a.key, valueOf(a.value)])),
      })),
    ),
  );
}

describe('telemetry over OTLP/HTTP, across a kill and a resume in another process', () => {
  const received: { pid: string; spans: ReceivedSpan[] }[] = [];
  let server: Server;
  let url: string;
  let stage = 'run';
  let traceparent: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        expect(req.headers['content-type']).toBe('application/json');
        received.push({ pid: stage, spans: decode(JSON.parse(Buffer.concat(chunks).toString('utf8'))) });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;

    const path = join(mkdtempSync(join(tmpdir(), 'tot-otel-')), 'runs.db');
    // The fixture bundled with its sources, under plain node: tsx would compile them on every start.
    const fixture = await bundleFixture('test/otel/fixtures/traced-graph.ts');
    const args = (mode: string) => [fixture, mode, path, url];
    const child = spawn(process.execPath, args('run'), { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 30));
      const chats = received.flatMap((r) => r.spans).filter((s) => s.attributes[ATTR_GEN_AI_OPERATION_NAME] === GEN_AI_OPERATION_NAME_VALUE_CHAT).length;
      if (chats >= 2 || child.exitCode !== null) break;
    }
    child.kill('SIGKILL');
    await new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(undefined) : child.once('exit', resolve)));
    const probe = new SqliteEventStore({ path });
    const log = await collect(probe.readStream('traced-graph'));
    await probe.close();
    expect(log.some((e) => e.type === 'run.finished'), 'the run was killed before it finished').toBe(false);
    traceparent = (log[0]!.data as { trace: { traceparent: string } }).trace.traceparent;
    stage = 'resume';
    // Not execFileSync: the receiver lives in this process and must answer while the resume runs.
    const { stdout } = await promisify(execFile)(process.execPath, args('resume'), { cwd: root, encoding: 'utf8' });
    const out = JSON.parse(stdout);
    expect(out.stopReason).toBe('completed');
  }, 60_000);
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const spansOf = (stage: string) => received.filter((r) => r.pid === stage).flatMap((r) => r.spans);

  it('sends GenAI client spans whose attribute names are the conventions\' own', () => {
    const chats = spansOf('run').filter((s) => s.attributes[ATTR_GEN_AI_OPERATION_NAME] === GEN_AI_OPERATION_NAME_VALUE_CHAT);
    expect(chats.length).toBeGreaterThanOrEqual(2);
    for (const s of chats) {
      expect(s.name).toBe(`chat ${s.attributes[ATTR_GEN_AI_REQUEST_MODEL]}`);
      expect(s.attributes[ATTR_GEN_AI_PROVIDER_NAME]).toBeTypeOf('string');
      expect(s.attributes[ATTR_GEN_AI_RESPONSE_FINISH_REASONS]).toBeUndefined(); // the simulated model reports none
    }
  });

  it('continues the same trace in the resuming process: its run span is a child of the first process\'s run span', () => {
    const [, traceId, runSpanId] = traceparent.split('-');
    const first = spansOf('run');
    const second = spansOf('resume');
    expect(second.length).toBeGreaterThan(first.length);
    for (const s of [...first, ...second]) expect(s.traceId).toBe(traceId);
    // The first process's run span was never ended (the process was killed); its calls name it as parent.
    expect(first.filter((s) => s.attributes[ATTR_GEN_AI_OPERATION_NAME] === GEN_AI_OPERATION_NAME_VALUE_CHAT).every((s) => s.parentSpanId === runSpanId)).toBe(true);
    const resumed = second.filter((s) => s.name === 'invoke_workflow graph');
    expect(resumed).toHaveLength(1);
    expect(resumed[0]!.parentSpanId).toBe(runSpanId);
    expect(resumed[0]!.attributes['tot.run.stop_reason']).toBe('completed');
    expect(resumed[0]!.attributes['tot.run.resumed_from_seq']).toBeTypeOf('number');
    // The second process's calls hang under its own run span.
    expect(second.filter((s) => s.attributes[ATTR_GEN_AI_OPERATION_NAME] === GEN_AI_OPERATION_NAME_VALUE_CHAT).every((s) => s.parentSpanId === resumed[0]!.spanId)).toBe(true);
  });

  it('sends no span twice: the resuming process does not re-export what the log replays', () => {
    const ids = received.flatMap((r) => r.spans).map((s) => s.spanId);
    expect(new Set(ids).size).toBe(ids.length);
    const callIds = received.flatMap((r) => r.spans).filter((s) => s.attributes[ATTR_GEN_AI_OPERATION_NAME] === GEN_AI_OPERATION_NAME_VALUE_CHAT).map((s) => s.attributes['tot.call.id']);
    expect(new Set(callIds).size).toBe(callIds.length);
  });
});
