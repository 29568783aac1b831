// The built `tot` command (dist/cli/tot.js, what users run): tot demo records Game of 24 runs to a
// SQLite file and writes a page; tot runs lists them; tot view writes one as a page; an unknown run
// and a file that is not a store are clear messages with exit code 1, the file left as it was.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCli, totCli, totHelp } from '../helpers/tot-cli.js';

let dir: string;
/** Runs `tot …` in the temp folder; stdout is a pipe, so no progress bar. */
const tot = (...args: string[]) => {
  const r = spawnSync(process.execPath, [totCli(), ...args], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tot-cli-'));
  await ensureCli();
}, 300_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('tot demo, tot runs, tot view on the file the demo wrote', () => {
  let db: string;
  let ids: string[];

  beforeAll(() => {
    db = join(dir, 'd.db');
    const r = tot('demo', '--puzzles', '2', '--db', db, '--out', join(dir, 'p.html'));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // One line per puzzle, then where the page is and how to list the runs.
    const lines = r.stdout.split('\n').filter((l) => / — \d+ nodes, \d+ calls, /.test(l));
    expect(lines).toHaveLength(2);
    expect(r.stdout).toContain(`The first run: ${join(dir, 'p.html')}`);
    expect(r.stdout).toContain(`tot runs ${db}`);
    ids = lines.map((l) => /\(run ([^)]+)\)$/.exec(l)![1]!);
  }, 120_000);

  it('tot demo --puzzles 2 records two runs to the database and writes the first one\'s page, with no progress bar when stdout is a pipe', () => {
    expect(existsSync(db)).toBe(true);
    const page = readFileSync(join(dir, 'p.html'), 'utf8');
    expect(page).toMatch(/^<!doctype html>/);
    expect(page).toContain('<title>Game of 24: 4 9 10 13</title>');
    expect(page).toContain(ids[0]);
    expect(ids[0]).toMatch(/^game24-4-9-10-13-/);
    expect(ids[1]).toMatch(/^game24-1-4-8-8-/);
  });

  it('tot runs lists the two runs: id, runner, stop reason, calls, tokens, time', () => {
    const r = tot('runs', db);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const [header, ...rows] = r.stdout.trimEnd().split('\n');
    expect(header!.split(/\s{2,}/)).toEqual(['id', 'runner', 'stop reason', 'calls', 'tokens', 'time']);
    expect(rows).toHaveLength(2);
    rows.forEach((row, i) => {
      const [id, runner, stop, calls, tokens, time] = row.trim().split(/\s{2,}/);
      expect(id).toBe(ids[i]);
      expect(runner).toBe('search');
      expect(stop).toMatch(/^(completed|max_depth|solution_found)$/);
      expect(Number(calls)).toBeGreaterThan(0);
      expect(Number(tokens)).toBeGreaterThanOrEqual(0);
      expect(time).toMatch(/^\d+\.\d s$/);
    });

    const json = tot('runs', db, '--json');
    expect(json.code).toBe(0);
    const listed = json.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: string; runner: string; stopReason: string; calls: number });
    expect(listed.map((x) => x.id)).toEqual(ids);
    expect(listed.every((x) => x.runner === 'search' && x.calls > 0 && x.stopReason.length > 0)).toBe(true);
  });

  it('tot view writes a run\'s page, which names the run, and leaves the database as it was', () => {
    const before = readFileSync(db);
    const mtime = statSync(db).mtimeMs;
    const out = join(dir, 'v.html');
    const r = tot('view', db, '--run', ids[1]!, '--out', out);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(out);
    const page = readFileSync(out, 'utf8');
    expect(page).toContain(ids[1]);
    expect(page).toContain("default-src 'none'");
    expect(page).toContain('"kind":"search"');
    expect(readFileSync(db).equals(before)).toBe(true);
    expect(statSync(db).mtimeMs).toBe(mtime);
  });

  it('tot view without --out writes <id>.html in the current folder', () => {
    const r = tot('view', db, '--run', ids[0]!);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(join(dir, `${ids[0]}.html`));
    expect(readFileSync(join(dir, `${ids[0]}.html`), 'utf8')).toContain(ids[0]);
  });

  it('tot view with an unknown run id: a message naming it, exit code 1, no page', () => {
    const out = join(dir, 'none.html');
    const r = tot('view', db, '--run', 'run_does_not_exist', '--out', out);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('run_does_not_exist');
    expect(r.stderr).toContain(`tot runs ${db}`);
    // A message, not a stack trace.
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(out)).toBe(false);
  });
});

describe('a file that is not a store', () => {
  /** `tot runs` and `tot view` on `file`: both refuse it saying `message`, and it stays byte for byte as it was. */
  const expectRefusedUntouched = (file: string, message: string) => {
    const before = readFileSync(file);
    // An mtime in the past, so that any write would show.
    const past = new Date(Date.now() - 3_600_000);
    utimesSync(file, past, past);
    const mtime = statSync(file).mtimeMs;

    for (const args of [['runs', file], ['view', file, '--run', 'x']]) {
      const r = tot(...args);
      expect(r.code, args[0]).toBe(1);
      expect(r.stdout, args[0]).toBe('');
      expect(r.stderr, args[0]).toContain(`${file} ${message}`);
      expect(r.stderr, args[0]).toContain('left untouched');
      expect(r.stderr, args[0]).not.toMatch(/\n\s+at /);
    }
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(statSync(file).mtimeMs).toBe(mtime);
    // No SQLite journal left beside it either.
    const name = file.split('/').pop()!;
    expect(readdirSync(dir).filter((f) => f.startsWith(name))).toEqual([name]);
  };

  it('tot runs and tot view refuse it with a clear message and exit code 1, and leave it byte for byte as it was', () => {
    const file = join(dir, 'notes.txt');
    writeFileSync(file, 'These are my notes, not a database.\nSQLite format 3 is what a store starts with.\n');
    expectRefusedUntouched(file, 'is not a SQLite database');
  });

  it('a SQLite database of another program is refused with a clear message and exit code 1, and left byte for byte as it was', () => {
    const file = join(dir, 'other.db');
    const other = new Database(file);
    other.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('not a run')");
    other.close();
    expectRefusedUntouched(file, 'is a SQLite database without recorded runs');
  });

  it('a missing file is a clear message too, and is not created', () => {
    const missing = join(dir, 'missing.db');
    const r = tot('runs', missing);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${missing}: no such file`);
    expect(existsSync(missing)).toBe(false);
  });
});

// `script` (util-linux) runs the command on a pseudo-terminal, as a user at a shell would.
const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
if (!hasScript) console.warn('[tot-commands] `script` (util-linux) is not installed: the progress bar on a terminal is not checked.');

describe.skipIf(!hasScript)('tot demo on a terminal', () => {
  it('draws a progress bar that counts the puzzles up to the total', () => {
    const db = join(dir, 'tty.db');
    const command = [process.execPath, totCli(), 'demo', '--puzzles', '2', '--db', db, '--out', join(dir, 'tty.html')].map((a) => `'${a}'`).join(' ');
    const r = spawnSync('script', ['-qec', command, '/dev/null'], { cwd: dir, encoding: 'utf8', timeout: 120_000, env: { ...process.env, COLUMNS: '100' } });
    expect(r.status).toBe(0);
    // The terminal interleaves the bar (stderr) with the per-puzzle lines (stdout).
    expect(r.stdout).toMatch(/\rpuzzles \[ {24}\] 0\/2/);
    expect(r.stdout).toMatch(/\rpuzzles \[#{24}\] 2\/2/);
    expect(r.stdout.match(/ — \d+ nodes, \d+ calls, /g)).toHaveLength(2);
  }, 120_000);
});

describe('help and unknown commands', () => {
  it.each([
    ['runs', 'Usage: tot runs <db>'],
    ['view', 'Usage: tot view <db> --run <id>'],
    ['demo', 'Usage: tot demo [options]'],
    ['mcp', 'Usage: tot mcp [options]'],
  ])('tot %s --help prints its usage and exits 0', (command, usage) => {
    const r = totHelp([command, '--help']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain(usage);
    expect(r.stdout).toContain('--help');
  });

  it('tot --help lists the commands and exits 0', () => {
    const r = totHelp(['--help']);
    expect(r.code).toBe(0);
    for (const command of ['runs <db>', 'view <db> --run <id>', 'demo', 'mcp']) expect(r.stdout).toContain(command);
  });

  it('an unknown command exits 1, naming it, with the list of commands', () => {
    const r = tot('frobnicate');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('no command "frobnicate"');
    expect(r.stderr).toContain('Usage: tot <command>');
  });

  it('tot runs without a store, and tot view without --run, say what to give and exit 1', () => {
    const runs = tot('runs');
    expect(runs.code).toBe(1);
    expect(runs.stderr).toContain('give the store: tot runs <db>');
    const view = tot('view', 'x.db');
    expect(view.code).toBe(1);
    expect(view.stderr).toContain('tot view <db> --run <id>');
  });
});
