#!/usr/bin/env node
/**
 * The `tot` command.
 */
import { setFlagsFromString } from 'node:v8';
import { CommandError } from './read-store.js';

const HELP = `tot: the @tot/core command

Usage: tot <command> [options]

Commands:
  runs <db>                 the runs recorded in a store (--queue: the queue's runs; answer a waiting one)
  worker --flows <module>   take runs from the PostgreSQL queue and drive them
  view <db> --run <id>      one run as a self-contained HTML page (--follow: served live)
  demo                      Tree-of-Thoughts on Game of 24, recorded and shown
  mcp                       serve the session engine as MCP tools (stdio, or Streamable HTTP)

Run tot <command> --help for a command's options.`;

// Each command is loaded when it runs: `tot mcp` needs the MCP SDK, `tot runs` a database driver,
// and neither is installed unless the user wants that command (they are optional peers).
const COMMANDS: Record<string, (argv: string[]) => Promise<number>> = {
  runs: async (argv) => (argv.includes('--queue') ? (await import('./queue-commands.js')).queueRunsCommand(argv) : (await import('./view-commands.js')).runsCommand(argv)),
  worker: async (argv) => (await import('./queue-commands.js')).workerCommand(argv),
  view: async (argv) => (await import('./view-commands.js')).viewCommand(argv),
  demo: async (argv) => (await import('./game24-demo.js')).demoCommand(argv),
  mcp: async (argv) => {
    // A long-running server keeps V8's young generation at its starting size (two 1 MB halves)
    // instead of letting it grow (to 16 MB halves on Node 20 and 22, 32 MB on 24), and lets its old generation grow by a quarter
    // between full collections instead of V8's dynamic factor (up to 4): what a server held on to
    // was mostly that reserve and garbage waiting, not its sessions. Both flags are read when the
    // heap would grow, so setting them now takes effect (the size limits are fixed at start-up and
    // cannot be set here). `--optimize-for-size` saved about as much memory but cost 1.5 to 2 times
    // the CPU per call (bench:sequential-thinking).
    setFlagsFromString('--semi-space-growth-factor=1');
    setFlagsFromString('--heap-growing-percent=25');
    return (await import('./mcp-command.js')).mcpCommand(argv);
  },
};

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${HELP}\n`);
    return command === undefined ? 1 : 0;
  }
  const run = COMMANDS[command];
  if (!run) {
    process.stderr.write(`tot: no command "${command}"\n\n${HELP}\n`);
    return 1;
  }
  return run(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // Bad arguments and refused files are the user's to fix: their message alone; anything else with its stack.
    const missing = /Cannot find (package|module) '(@modelcontextprotocol\/sdk|better-sqlite3|pg-boss|pg|openai)/.exec(error instanceof Error ? error.message : '');
    if (missing) {
      process.stderr.write(`tot: this command needs ${missing[2]}, an optional dependency: install it (npm install ${missing[2]}), or run npx -p @tot/core -p ${missing[2]} tot …\n`);
      process.exitCode = 1;
      return;
    }
    const known = error instanceof CommandError || String((error as { code?: string }).code ?? '').startsWith('ERR_PARSE_ARGS');
    process.stderr.write(`tot: ${error instanceof Error ? (known ? error.message : (error.stack ?? error.message)) : String(error)}\n`);
    process.exitCode = 1;
  },
);
