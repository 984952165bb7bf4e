/**
 * `sentinel freeze on|off|status`: the change freeze on a running server (admin token).
 */
import { Option, type Command } from 'commander';
import { dataDirOption, parseReason, serverUrlOption, useDiscoveredServer } from './options.ts';

/** The client side of the server module, loaded when a subcommand runs (not for `--help`). */
const client = () => import('../server/client.ts');

/** The connection flags of every `freeze` subcommand. */
interface FreezeFlags {
  server: string;
  token?: string;
  dataDir?: string;
}

/** `flags` with where commander took `--token` from (a refusal names the flag or the variable). */
function withTokenSource(flags: FreezeFlags, command: Command) {
  const source = command.getOptionValueSource('token') === 'env' ? 'SENTINEL_TOKEN' : '--token';
  return { ...flags, tokenSource: source } as const;
}

/** Adds `sentinel freeze on|off|status`. */
export function registerFreezeCommands(program: Command): void {
  const serverOption = () =>
    serverUrlOption(
      'Sentinel server URL (base or /mcp); default: the `sentinel serve` running on --data-dir, else http://127.0.0.1:7070',
      'base',
    );
  const tokenOption = () =>
    new Option('--token <token>', "an admin's bearer token (default: <data-dir>/local.token)").env(
      'SENTINEL_TOKEN',
    );
  const freeze = program
    .command('freeze')
    .description(
      'Freeze changes on a running server: every write/destructive call is denied; reads continue (admin).',
    );
  useDiscoveredServer(freeze.command('on'), 'base')
    .description('Deny every write/destructive call with the given reason until `sentinel freeze off`.')
    .requiredOption('--reason <text>', 'why changes are frozen; shown to every caller', parseReason)
    .addOption(serverOption())
    .addOption(tokenOption())
    .addOption(dataDirOption())
    .action(async (options: { reason: string } & FreezeFlags, command: Command) => {
      const { formatFreeze, requestFreeze } = await client();
      process.stdout.write(
        formatFreeze(
          await requestFreeze(withTokenSource(options, command), { frozen: true, reason: options.reason }),
        ),
      );
    });
  useDiscoveredServer(freeze.command('off'), 'base')
    .description('Lift the freeze.')
    .addOption(serverOption())
    .addOption(tokenOption())
    .addOption(dataDirOption())
    .action(async (options: FreezeFlags, command: Command) => {
      const { formatFreeze, requestFreeze } = await client();
      process.stdout.write(
        formatFreeze(await requestFreeze(withTokenSource(options, command), { frozen: false })),
      );
    });
  useDiscoveredServer(freeze.command('status'), 'base')
    .description('Show whether changes are frozen.')
    .addOption(serverOption())
    .addOption(tokenOption())
    .addOption(dataDirOption())
    .action(async (options: FreezeFlags, command: Command) => {
      const { formatFreeze, requestFreeze } = await client();
      process.stdout.write(formatFreeze(await requestFreeze(withTokenSource(options, command), undefined)));
    });
}
