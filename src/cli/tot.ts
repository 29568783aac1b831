#!/usr/bin/env node
/**
 * The `tot` command.
 */
import { demoCommand } from './game24-demo.js';
import { mcpCommand } from './mcp-command.js';
import { CommandError } from './read-store.js';
import { runsCommand, viewCommand } from './view-commands.js';

const HELP = `tot: the @tot/core command

Usage: tot <command> [options]

Commands:
  runs <db>                 the runs recorded in a store
  view <db> --run <id>      one run as a self-contained HTML page
  demo                      Tree-of-Thoughts on Game of 24, recorded and shown
  mcp                       serve the Graph-of-Thought engine as MCP tools (stdio, or Streamable HTTP)

Run tot <command> --help for a command's options.`;

const COMMANDS: Record<string, (argv: string[]) => Promise<number>> = { runs: runsCommand, view: viewCommand, demo: demoCommand, mcp: mcpCommand };

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
    const known = error instanceof CommandError || String((error as { code?: string }).code ?? '').startsWith('ERR_PARSE_ARGS');
    process.stderr.write(`tot: ${error instanceof Error ? (known ? error.message : (error.stack ?? error.message)) : String(error)}\n`);
    process.exitCode = 1;
  },
);
