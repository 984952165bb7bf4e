/**
 * CLI registrar of the server area: `sentinel serve` and `sentinel tokens add|list|revoke`.
 */
import { Option, type Command } from 'commander';
import { resolve } from 'node:path';
import { parseServeOptions } from './config.ts';
import { dataDirOption, defaultTokensFile, resolveDataDir } from './data-dir.ts';
import { LOCAL_IDENTITY_NAME, ROLES, type Role } from './identity.ts';
import { createIdentityStore } from './identity-store.ts';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

const tokensFileOption = () =>
  new Option('--tokens-file <file>', 'identities file (default <data-dir>/tokens.yaml)');

/** The identity store the `tokens` subcommands work on. */
function storeFor(options: { dataDir?: string; tokensFile?: string }) {
  const tokensFile =
    options.tokensFile === undefined
      ? defaultTokensFile(resolveDataDir(options.dataDir))
      : resolve(options.tokensFile);
  return createIdentityStore({ tokensFile });
}

function registerServe(program: Command): void {
  program
    .command('serve')
    .description(
      'Run the MCP ops server: Streamable HTTP at /mcp on loopback (bearer token required), or stdio with --stdio.',
    )
    .option('--host <host>', 'address to bind; non-loopback needs --allow-remote and a token', '127.0.0.1')
    .option('--port <port>', 'TCP port; 0 picks a free one', '7070')
    .option(
      '--allowed-host <host>',
      'extra host accepted in Host/Origin headers: name (on the server port) or name:port, e.g. a proxy (repeatable)',
      collect,
      [],
    )
    .option('--token-file <file>', "file holding the startup token (identity 'local'); env SENTINEL_TOKEN")
    .addOption(tokensFileOption())
    .option('--allow-remote', 'allow a non-loopback --host (requires at least one token)', false)
    .option('--tls-cert <file>', 'PEM certificate chain: serve HTTPS (with --tls-key)')
    .option('--tls-key <file>', 'PEM private key for --tls-cert')
    .option('--kubeconfig <file>', 'kubeconfig file (default KUBECONFIG or ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context (default: the current context)')
    .addOption(dataDirOption())
    .option(
      '--store <url>',
      'shared store for approvals and audit: postgres://user:pass@host/db (env SENTINEL_STORE_URL); default SQLite in the data dir',
    )
    .option(
      '--policy <file>',
      'approval policy (YAML); default: the commented policy shipped in server/gate/default-policy.yaml',
    )
    .option('--stdio', 'serve MCP over stdin/stdout instead of HTTP (with --identity)', false)
    .option(
      '--identity <name>',
      `with --stdio: identity every call runs as ('${LOCAL_IDENTITY_NAME}' has every role)`,
    )
    .action(async (raw: Record<string, unknown>) => {
      const options = parseServeOptions(raw);
      // Loaded on demand: the MCP SDK and the Kubernetes client are not needed by `sentinel tokens`.
      const { startServe } = await import('./serve.ts');
      const server = await startServe(options, {
        stderr: (text) => process.stderr.write(text),
        terminal: process.stderr.isTTY === true,
        env: process.env,
      });
      const stop = () => void server.close();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      await server.closed;
    });
}

function registerTokens(program: Command): void {
  const tokens = program
    .command('tokens')
    .description('Manage the identities (bearer tokens) the server accepts; only token hashes are stored.');

  tokens
    .command('add <name>')
    .description('Add an identity; prints its new token alone on the last line of stdout (shown once).')
    .addOption(
      new Option('--role <role...>', 'role(s) of the identity (repeatable)')
        .choices(ROLES)
        .makeOptionMandatory(),
    )
    .option(
      '--trust-upstream-approval',
      "run gated calls on the harness's approval, verified against --upstream-harness (opt-in; see README)",
      false,
    )
    .option('--upstream-harness <url>', 'harness API URL the upstream approvals are verified against')
    .option('--upstream-harness-token-file <file>', 'file holding a read token for that harness')
    .option('--upstream-max-age <duration>', 'oldest harness allow honoured (default 2m)')
    .option('--webhook <url>', 'http(s) URL notified of approval requests routed to this identity')
    .addOption(tokensFileOption())
    .addOption(dataDirOption())
    .action(
      (
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
        const store = storeFor(options);
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
    .action((options: { dataDir?: string; tokensFile?: string }) => {
      const rows = storeFor(options)
        .list()
        .map((record) => [
          record.name,
          record.roles.join(','),
          record.created_at,
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
        process.stdout.write('(no identities yet: `sentinel tokens add <name> --role caller`)\n');
    });

  tokens
    .command('revoke <name>')
    .description('Remove an identity; its token stops working at once, also in a running server.')
    .addOption(tokensFileOption())
    .addOption(dataDirOption())
    .action((name: string, options: { dataDir?: string; tokensFile?: string }) => {
      const store = storeFor(options);
      store.revoke(name);
      process.stdout.write(`Revoked '${name}' in ${store.tokensFile}; its token no longer authenticates.\n`);
    });
}

/** Adds `serve` and `tokens` to the program. */
export function registerServerCommands(program: Command): void {
  registerServe(program);
  registerTokens(program);
}
