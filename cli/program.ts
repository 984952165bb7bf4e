/**
 * The `sentinel` command line. Every commander import lives in this `cli/` tree, one file per
 * command group; the libraries behind them take plain options objects. This file only wires the
 * groups together, guards stdout and stderr (./terminal-guard.ts), and turns `SentinelError`s into one
 * clear line on stderr and a non-zero exit code.
 */
import { Command, CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import { guardTerminalOutput } from '../agent/index.ts';
import { applyDeprecatedServerUrlEnv } from '../server/index.ts';
import { SentinelError } from '../core/index.ts';
import { registerApprovalsCommands } from './approvals.ts';
import { registerAuditCommands } from './audit.ts';
import { registerDemoCommand } from './demo.ts';
import { registerEvalCommand } from './eval.ts';
import { registerFreezeCommands } from './freeze.ts';
import { registerHarnessCommand } from './harness.ts';
import { registerInvestigateCommand } from './investigate.ts';
import { registerPolicyCommands } from './policy.ts';
import { registerServeCommand } from './serve.ts';
import { registerSimCommand } from './sim.ts';
import { registerTokensCommands } from './tokens.ts';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

/** A module that adds subcommands to the program. */
export type CommandRegistrar = (program: Command) => void;

/** Subcommand registrars, one per command group, in the order `--help` lists them. */
const registrars: CommandRegistrar[] = [
  registerServeCommand,
  registerTokensCommands,
  registerPolicyCommands,
  registerFreezeCommands,
  registerHarnessCommand,
  registerInvestigateCommand,
  registerSimCommand,
  registerApprovalsCommands,
  registerAuditCommands,
  registerDemoCommand,
  registerEvalCommand,
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
