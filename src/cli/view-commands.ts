import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { StoredEvent } from '../events/store/types.js';
import { renderRunHtml } from '../viewer/render-run-html.js';
import { serveRunViewer } from '../viewer/run-viewer-server.js';
import { extent } from '../internal/extent.js';
import { CommandError, listRuns, openRecorded } from './read-store.js';

export const RUNS_HELP = `tot runs: the runs recorded in a store

Usage: tot runs <db> [--json]

<db> is a SQLite file the library recorded runs to (or a postgres:// URL). The file is opened
read-only. Lists each run's id, runner, stop reason, model calls, tokens and time. A run that
asked a person and waits for the answers is "waiting" (its JSON row lists the question ids in
waitingFor): resume it with the answers to go on.

Options:
  --json   one JSON object per run instead of the table
  --help   this text`;

export const VIEW_HELP = `tot view: recorded runs in the browser

Usage: tot view <db> --run <id> [--out run.html] [--open]
       tot view <db> --run <id> --follow [--port <n>] [--open]
       tot view <db> [--port <n>] [--open]

The first form writes one run as a self-contained HTML page. With --follow, the page is served on
localhost and follows the run while it goes: its tree or graph grows as events are recorded. With
no --run, the runs of the store are listed on localhost (with their status), each a link to its
page. Served pages stay up until Ctrl-C.

Options:
  --run <id>     the run (or agent session) to show: tot runs <db> lists them
  --out <file>   where to write the page (default ./<id>.html)
  --follow       serve the page and follow the run instead of writing a file
  --port <n>     the port to serve on (default: a free one)
  --open         open the page in the default browser
  --help         this text`;

export async function runsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: { json: { type: 'boolean', default: false }, help: { type: 'boolean', default: false } }, allowPositionals: true, strict: true });
  if (values.help) {
    process.stdout.write(`${RUNS_HELP}\n`);
    return 0;
  }
  const db = positionals[0];
  if (!db) throw new CommandError(`give the store: tot runs <db>\n\n${RUNS_HELP}`);
  const store = await openRecorded(db);
  try {
    const rows = await listRuns(store);
    if (values.json) {
      for (const r of rows) process.stdout.write(`${JSON.stringify(r)}\n`);
      return 0;
    }
    if (rows.length === 0) {
      process.stdout.write(`No runs recorded in ${db}.\n`);
      return 0;
    }
    const table = [['id', 'runner', 'stop reason', 'calls', 'tokens', 'time'], ...rows.map((r) => [r.id, r.runner, r.waitingFor ? `waiting for ${r.waitingFor.length === 1 ? 'an answer' : `${r.waitingFor.length} answers`}` : r.stopReason, String(r.calls), String(r.tokens), `${(r.ms / 1000).toFixed(1)} s`])];
    const widths = table[0]!.map((_, i) => extent(table, (row) => row[i]!.length).max);
    for (const row of table) process.stdout.write(`${row.map((cell, i) => (i >= 3 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join('  ')}\n`);
    return 0;
  } finally {
    await store.close();
  }
}

function openInBrowser(target: string): void {
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  spawn(opener, [target], { detached: true, stdio: 'ignore' }).on('error', () => process.stderr.write(`tot view: could not start ${opener}; open ${target} yourself.\n`)).unref();
}

/** Serves the viewer until Ctrl-C (or SIGTERM), printing the address to open. */
async function serveUntilStopped(db: string, runId: string | undefined, port: number, open: boolean): Promise<number> {
  if (!/^postgres(ql)?:\/\//i.test(db) && !existsSync(db)) throw new CommandError(`${db}: no such file. Give a store runs were recorded to.\n\n${VIEW_HELP}`);
  const store = await openRecorded(db);
  try {
    if (runId !== undefined) {
      const first = store.readStream(runId)[Symbol.asyncIterator]();
      const head = await first.next();
      await first.return?.();
      if (head.done) throw new CommandError(`No run "${runId}" in ${db}: tot runs ${db} lists the runs it has.`);
    }
    const viewer = await serveRunViewer({ store, port });
    const url = runId === undefined ? viewer.url : viewer.urlOf(runId);
    process.stdout.write(`${url}\n`);
    process.stderr.write('tot view: serving; Ctrl-C to stop.\n');
    if (open) openInBrowser(url);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await viewer.close();
    return 0;
  } finally {
    await store.close();
  }
}

export async function viewCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { run: { type: 'string' }, out: { type: 'string' }, follow: { type: 'boolean', default: false }, port: { type: 'string' }, open: { type: 'boolean', default: false }, help: { type: 'boolean', default: false } },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${VIEW_HELP}\n`);
    return 0;
  }
  const db = positionals[0];
  if (!db) throw new CommandError(`give the store: tot view <db> [--run <id>]\n\n${VIEW_HELP}`);
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new CommandError(`--port takes a port number (0 to 65535), not "${values.port}".`);
  if (values.follow && values.out) throw new CommandError('--follow serves the page; --out writes it to a file: give one of them.');
  if (!values.run || values.follow) return serveUntilStopped(db, values.run, port, values.open);
  const store = await openRecorded(db);
  const events: StoredEvent[] = [];
  try {
    for await (const e of store.readStream(values.run)) events.push(e);
  } finally {
    await store.close();
  }
  if (events.length === 0) throw new CommandError(`No run "${values.run}" in ${db}: tot runs ${db} lists the runs it has.`);
  const out = resolve(values.out ?? `${values.run.replace(/[^\w.-]/g, '_')}.html`);
  writeFileSync(out, renderRunHtml(events));
  process.stdout.write(`${out}\n`);
  if (values.open) openInBrowser(out);
  return 0;
}
