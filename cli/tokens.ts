/**
 * `sentinel tokens add|list|revoke|rotate`: the identities (bearer tokens) the server accepts.
 */
import { sentinelCommand } from '../agent/light.ts';
import {
  defaultTokensFile,
  localTokenFile,
  resolveDataDir,
  LOCAL_IDENTITY_NAME,
  ROLES,
  type Role,
} from '../server/light.ts';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { didYouMean, SentinelError } from '../core/light.ts';
import { resolve } from 'node:path';
import { dataDirOption, parseDuration, tokensFileOption } from './options.ts';

/** Collects one `--role` value: a known role, else a usage error with the nearest one. */
function parseRole(value: string, previous: Role[] | undefined): Role[] {
  if (!(ROLES as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`Allowed choices are ${ROLES.join(', ')}.${didYouMean(value, ROLES)}`);
  }
  return [...(previous ?? []), value as Role];
}

/** The identity store the `tokens` subcommands work on. */
async function storeFor(options: { dataDir?: string; tokensFile?: string }) {
  const { createIdentityStore } = await import('../server/client.ts');
  const tokensFile =
    options.tokensFile === undefined
      ? defaultTokensFile(resolveDataDir(options.dataDir))
      : resolve(options.tokensFile);
  return createIdentityStore({ tokensFile });
}

/**
 * Runs `change` on identity `name` of `store`; an unknown name is a usage error (exit 2, as unknown
 * ids elsewhere) naming the file, the nearest identities and the command that lists them.
 */
function onIdentity<T>(
  store: { tokensFile: string; list(): { name: string }[] },
  name: string,
  change: () => T,
): T {
  try {
    return change();
  } catch (error) {
    if (!(error instanceof SentinelError) || error.code !== 'not_found') throw error;
    const names = store.list().map((identity) => identity.name);
    throw new SentinelError(
      'invalid_input',
      `No identity named '${name}' in ${store.tokensFile}.${didYouMean(name, names)} \`${sentinelCommand()} tokens list\` shows what exists.`,
      { field: 'name', cause: error },
    );
  }
}

/** Adds `tokens` and its subcommands to the program. */
export function registerTokensCommands(program: Command): void {
  const tokens = program
    .command('tokens')
    .description('Manage the identities (bearer tokens) the server accepts; only token hashes are stored.');

  tokens
    .command('add <name>')
    .description('Add an identity; prints its new token alone on the last line of stdout (shown once).')
    .addOption(
      new Option('--role <role...>', 'role(s) of the identity (repeatable)')
        .choices(ROLES)
        .argParser(parseRole)
        .makeOptionMandatory(),
    )
    .option(
      '--trust-upstream-approval',
      "run gated calls on the harness's approval, verified against --upstream-harness (opt-in; see README)",
      false,
    )
    .option('--upstream-harness <url>', 'harness API URL the upstream approvals are verified against')
    .option('--upstream-harness-token-file <file>', 'file holding a read token for that harness')
    .option('--upstream-max-age <duration>', 'oldest harness allow honoured (default 2m)', parseDuration)
    .option('--webhook <url>', 'http(s) URL notified of approval requests routed to this identity')
    .addOption(tokensFileOption())
    .addOption(dataDirOption())
    .action(
      async (
        name: string,
        options: {
          role: Role[];
          trustUpstreamApproval: boolean;
          upstreamHarness?: string;
          upstreamHarnessTokenFile?: string;
          upstreamMaxAge?: string;
          webhook?: string;
          dataDir?: string;
          tokensFile?: string;
        },
      ) => {
        const store = await storeFor(options);
        const { identity, token } = store.add({
          name,
          roles: options.role,
          trustUpstreamApproval: options.trustUpstreamApproval,
          ...(options.upstreamHarness !== undefined && {
            upstreamHarness: {
              url: options.upstreamHarness,
              ...(options.upstreamHarnessTokenFile !== undefined && {
                token_file: options.upstreamHarnessTokenFile,
              }),
              ...(options.upstreamMaxAge !== undefined && { max_age: options.upstreamMaxAge }),
            },
          }),
          ...(options.webhook !== undefined && { webhook: options.webhook }),
        });
        process.stderr.write(
          `Added identity '${identity.name}' (roles: ${identity.roles.join(', ')}) to ${store.tokensFile}.\n` +
            'Its token follows; it is shown only this once (only its hash is stored):\n',
        );
        process.stdout.write(`${token}\n`);
      },
    );

  tokens
    .command('list')
    .description(
      "List identities: name, roles, creation time (the built-in 'local' holds the server's startup token).",
    )
    .addOption(tokensFileOption())
    .addOption(dataDirOption())
    .option('--json', 'print the identities as JSON (times in ISO UTC), never a token or hash')
    .action(async (options: { dataDir?: string; tokensFile?: string; json?: boolean }) => {
      const records = (await storeFor(options)).list();
      if (options.json) {
        const identities = records.map((record) => ({
          name: record.name,
          roles: record.roles,
          created_at: record.created_at,
          trust_upstream_approval: record.trust_upstream_approval === true,
          webhook: record.webhook ?? null,
        }));
        return void process.stdout.write(`${JSON.stringify({ identities }, null, 2)}\n`);
      }
      // People read times in their zone (UTC alongside); --json keeps the recorded ISO UTC value.
      const { localTime } = await import('../server/client.ts');
      const rows = records.map((record) => [
        record.name,
        record.roles.join(','),
        localTime(record.created_at),
        record.trust_upstream_approval ? 'yes' : 'no',
        record.webhook ?? '-',
      ]);
      const table = [['NAME', 'ROLES', 'CREATED', 'TRUST_UPSTREAM', 'WEBHOOK'], ...rows];
      const widths = table[0]!.map((_, column) => Math.max(...table.map((row) => row[column]!.length)));
      for (const row of table) {
        process.stdout.write(
          `${row
            .map((cell, column) => cell.padEnd(widths[column]!))
            .join('  ')
            .trimEnd()}\n`,
        );
      }
      if (rows.length === 0)
        process.stdout.write(
          `(no identities yet: \`${sentinelCommand()} tokens add <name> --role caller\`)\n`,
        );
    });

  tokens
    .command('revoke <name>')
    .description('Remove an identity; its token stops working at once, also in a running server.')
    .addOption(tokensFileOption())
    .addOption(dataDirOption())
    .action(async (name: string, options: { dataDir?: string; tokensFile?: string }) => {
      const store = await storeFor(options);
      onIdentity(store, name, () => store.revoke(name));
      process.stdout.write(`Revoked '${name}' in ${store.tokensFile}; its token no longer authenticates.\n`);
    });

  tokens
    .command('rotate <name>')
    .description(
      "Give an identity a new token (printed alone on the last line of stdout, shown once); the old one stops working at once, also in a running server. 'local' rotates <data-dir>/local.token (printed only on a terminal or with --show-token).",
    )
    .option('--show-token', "with 'local': print the new token on stdout even when it is not a terminal")
    .addOption(tokensFileOption())
    .addOption(dataDirOption())
    .action(async (name: string, options: { dataDir?: string; tokensFile?: string; showToken?: boolean }) => {
      if (name === LOCAL_IDENTITY_NAME) {
        const { rotateLocalToken } = await import('../server/client.ts');
        const dataDir = resolveDataDir(options.dataDir);
        const token = rotateLocalToken(dataDir);
        const file = localTokenFile(dataDir);
        // The local token lives in its file: into a pipe or a log it goes only when asked for.
        const show = options.showToken === true || process.stdout.isTTY === true;
        process.stderr.write(
          `Rotated '${LOCAL_IDENTITY_NAME}': new token in ${file} (0600); running servers on this data directory accept only it from now on.` +
            (show
              ? '\n'
              : ` Not printed (stdout is not a terminal): read it from that file, or pass --show-token.\n`),
        );
        if (show) process.stdout.write(`${token}\n`);
        return;
      }
      const store = await storeFor(options);
      const { identity, token } = onIdentity(store, name, () => store.rotate(name));
      process.stderr.write(
        `Rotated '${identity.name}' in ${store.tokensFile}: its old token no longer authenticates. ` +
          'Grants it gave as an approver stay valid; requests it made with the old token are cancelled. ' +
          'Its new token follows, shown only this once:\n',
      );
      process.stdout.write(`${token}\n`);
    });
}
