/**
 * The `sentinel` command line. Each area registers its own subcommands; this file only wires them
 * together, guards stdout and stderr (./terminal-guard.ts), and turns `SentinelError`s into one
 * clear line on stderr and a non-zero exit code.
 */
import { Command, CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import { SentinelError } from '../tools/errors.ts';
import { registerServerCommands } from '../server/cli.ts';
import { applyDeprecatedServerUrlEnv } from '../server/server-url.ts';
import { registerGateCommands } from '../server/gate/cli.ts';
import { registerSurfacesCommands } from '../server/surfaces-cli.ts';
import { registerHarnessCommand } from './harness/register-command.ts';
import { registerInvestigateCommand } from './investigate-command.ts';
import { registerSimCommand } from '../deploy/sim/cli.ts';
import { registerInvestigatorCommands } from './investigator/commands.ts';
import { guardTerminalOutput } from './terminal-guard.ts';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

/** A module that adds subcommands to the program. */
export type CommandRegistrar = (program: Command) => void;

/** Subcommand registrars, one per area (server, simulator, investigations, ...). */
const registrars: CommandRegistrar[] = [
  registerServerCommands,
  registerGateCommands,
  registerHarnessCommand,
  registerInvestigateCommand,
  registerSimCommand,
  registerSurfacesCommands,
  registerInvestigatorCommands,
];

/** Builds the program with every subcommand registered. Exported for tests. */
export function buildProgram(): Command {
  const program = new Command('sentinel')
    .description(
      'Incident-response agent for Kubernetes: investigate read-only, remediate only with human approval.',
    )
    .version(pkg.version)
    .showHelpAfterError()
    .exitOverride();
  for (const register of registrars) register(program);
  return program;
}

/** Entry point used by `bin/sentinel.js`. Exits the process with the command's status. */
export async function main(argv: string[]): Promise<void> {
  // Whatever a command writes, no terminal escape or hidden character reaches the terminal.
  guardTerminalOutput(process.stdout);
  guardTerminalOutput(process.stderr);
  const deprecation = applyDeprecatedServerUrlEnv(process.env);
  if (deprecation) process.stderr.write(deprecation);
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode;
      return;
    }
    if (error instanceof SentinelError) {
      process.stderr.write(`sentinel: ${error.message}\n`);
      process.exitCode = error.code === 'invalid_input' ? 2 : 1;
      return;
    }
    process.stderr.write(
      `sentinel: unexpected error: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exitCode = 1;
  }
}
