#!/usr/bin/env node
/**
 * The `tot` command.
 */
import { mcpCommand } from './mcp-command.js';

const HELP = `tot: the @tot/core command

Usage: tot <command> [options]

Commands:
  mcp    serve the Graph-of-Thought engine as MCP tools (stdio, or Streamable HTTP)

Run tot <command> --help for a command's options.`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${HELP}\n`);
    return command === undefined ? 1 : 0;
  }
  if (command === 'mcp') return mcpCommand(rest);
  process.stderr.write(`tot: no command "${command}"\n\n${HELP}\n`);
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`tot: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);

