/**
 * The `sentinel` command line. Every commander import lives in this `cli/` tree, one file per
 * command group; the libraries behind them take plain options objects. This file only wires the
 * groups together, guards stdout and stderr (./terminal-guard.ts), and turns `SentinelError`s into one
 * clear line on stderr and a non-zero exit code.
 */
import { Command, CommanderError, type Option } from 'commander';
import { readFileSync } from 'node:fs';
// Only light entries at start-up: each command loads what it runs when it runs (test/cli/start-up.test.ts).
import { disableColors, guardTerminalOutput, palette } from '../agent/light.ts';
import { applyDeprecatedServerUrlEnv } from '../server/light.ts';
import { SentinelError } from '../core/light.ts';
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

/**
 * Exit codes of every command (README "Exit codes"): 0 done (the service is healthy again, or
 * nothing needed doing); 1 unresolved (declined, denied, reverted, still broken) or refused;
 * 2 usage or configuration error (a bad flag or argument, named; `serve` on a port in use); 3 the
 * Sentinel server or the cluster cannot be reached; 130 interrupted (Ctrl-C; 143 for SIGTERM).
 */
export const EXIT = { ok: 0, unresolved: 1, usage: 2, unreachable: 3, interrupted: 130 } as const;

/** The exit code of a command that failed with `error`. */
export function exitCodeOf(error: SentinelError): number {
  if (error.code === 'invalid_input') return EXIT.usage;
  if (error.code === 'unavailable') return EXIT.unreachable;
  return EXIT.unresolved;
}

/** A usage error in red on a terminal, the colour ending before its final newline(s). */
function redError(text: string): string {
  const body = text.replace(/\n+$/, '');
  return `${palette(process.stderr).paint('red', body)}${text.slice(body.length)}`;
}

/** Builds the program with every subcommand registered. Exported for tests. */
export function buildProgram(): Command {
  const program = new Command('sentinel')
    .description(
      'Incident-response agent for Kubernetes: investigate read-only, remediate only with human approval.',
    )
    .version(pkg.version)
    .option('--no-color', 'no colours or symbols (as NO_COLOR=1; FORCE_COLOR=1 forces them off a terminal)')
    .configureOutput({ outputError: (text, write) => write(redError(text)) })
    .showHelpAfterError()
    .exitOverride();
  for (const register of registrars) register(program);
  unknownOptionsFirst(program);
  return program;
}

/**
 * Commander checks required options before unknown ones, so `tokens add bob --rol caller` was told
 * "required option '--role' not specified" instead of "unknown option '--rol' (Did you mean
 * --role?)". This moves every required option's check of `program`'s commands to a preAction hook
 * of the program, which runs after the unknown-option check and before any command's own hooks;
 * the message and the exit code (2) stay commander's.
 */
function unknownOptionsFirst(program: Command): void {
  const required = new Map<Command, Option[]>();
  const visit = (command: Command) => {
    const mandatory = command.options.filter((option) => option.mandatory);
    for (const option of mandatory) option.mandatory = false;
    if (mandatory.length > 0) required.set(command, mandatory);
    command.commands.forEach(visit);
  };
  visit(program);
  program.hook('preAction', (_program, action) => {
    for (const option of required.get(action) ?? []) {
      if (action.getOptionValue(option.attributeName()) === undefined) {
        action.error(`error: required option '${option.flags}' not specified`, {
          code: 'commander.missingMandatoryOptionValue',
        });
      }
    }
  });
}

/** Entry point used by `bin/sentinel.js`. Exits the process with the command's status. */
export async function main(argv: string[]): Promise<void> {
  // Whatever a command writes, no terminal escape or hidden character reaches the terminal.
  guardTerminalOutput(process.stdout);
  guardTerminalOutput(process.stderr);
  // Read before parsing, so that a usage error is uncoloured too (anything after `--` is an argument).
  const args = argv.slice(2);
  disableColors(args.slice(0, args.includes('--') ? args.indexOf('--') : undefined).includes('--no-color'));
  const deprecation = applyDeprecatedServerUrlEnv(process.env);
  if (deprecation) process.stderr.write(deprecation);
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; every other commander error is a usage error.
      process.exitCode = error.exitCode === 0 ? 0 : EXIT.usage;
      return;
    }
    if (error instanceof SentinelError) {
      process.stderr.write(
        `${palette(process.stderr).paint(['bold', 'red'], 'sentinel:')} ${error.message}\n`,
      );
      process.exitCode = exitCodeOf(error);
      return;
    }
    process.stderr.write(
      `sentinel: unexpected error: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exitCode = 1;
  }
}
