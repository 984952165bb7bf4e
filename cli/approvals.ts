/**
 * `sentinel approvals list|show|approve|deny|withdraw`: decide approval requests on a running
 * server from the terminal. Human output (the one approval renderer) by default, `--json` for the
 * API's own JSON. The token comes from `--token`, else SENTINEL_TOKEN, else `<data-dir>/local.token`
 * (the token `sentinel serve` generated for identity `local` on this machine).
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { palette, sentinelCommand } from '../agent/light.ts';
import { didYouMean, SentinelError } from '../core/light.ts';
import type { ApprovalsClient, ApprovalRequest, ApprovalStatus, ClientToken } from '../server/client.ts';
import { APPROVAL_STATUSES } from '../server/light.ts';
import { confirmDangerousApproval } from './dangerous-approval.ts';
import { dataDirOption, parseDuration, serverUrlOption, useDiscoveredServer } from './options.ts';

interface ConnectionFlags {
  server: string;
  token?: string;
  /** Where commander took `token` from: `cli` (--token), `env` (SENTINEL_TOKEN), unset else. */
  tokenSource?: string;
  dataDir?: string;
  json: boolean;
}

/** The client side of the server module, loaded when a subcommand runs (not for `--help`). */
const server = () => import('../server/client.ts');

/**
 * The token to use and where it came from: `--token`/SENTINEL_TOKEN (commander resolves both), else
 * the server's token found in the data dir.
 */
async function tokenFor(flags: ConnectionFlags): Promise<ClientToken> {
  const { clientToken, ensureServerAnswers, localTokenFile, resolveDataDir, serverBaseUrl } = await server();
  const dataDir = resolveDataDir(flags.dataDir);
  const found = clientToken(flags.token, dataDir, flags.server);
  if (found)
    return flags.token && flags.tokenSource === 'env' ? { ...found, source: 'SENTINEL_TOKEN' } : found;
  // No token and no server: the missing server is what to fix first (exit 3).
  await ensureServerAnswers(serverBaseUrl(flags.server), flags.dataDir);
  const file = localTokenFile(dataDir);
  throw new SentinelError(
    'invalid_input',
    `No token: pass --token or set SENTINEL_TOKEN (an identity with the approver role to decide; any identity to list), or run on the machine where \`${sentinelCommand()} serve\` wrote ${file}.`,
    { field: '--token' },
  );
}

async function clientFor(flags: ConnectionFlags): Promise<ApprovalsClient> {
  const { createApprovalsClient } = await server();
  const { token, source } = await tokenFor(flags);
  return createApprovalsClient({ server: flags.server, token, tokenSource: source });
}

/** `--status <status>`: one of the approval statuses; a near miss gets a "did you mean" (exit 2). */
function parseStatus(value: string): ApprovalStatus {
  if ((APPROVAL_STATUSES as readonly string[]).includes(value)) return value as ApprovalStatus;
  throw new InvalidArgumentError(
    `--status '${value}' is not a status (${APPROVAL_STATUSES.join(', ')}).${didYouMean(value, APPROVAL_STATUSES)}`,
  );
}

/** `--tool`: a tool the server can hold calls of, else a usage error with the nearest names (exit 2). */
async function checkToolName(name: string): Promise<void> {
  const { allTools } = await import('../tools/index.ts');
  const names = allTools.map((tool) => tool.name);
  if (names.includes(name)) return;
  throw new SentinelError(
    'invalid_input',
    `--tool '${name}' is not a tool.${didYouMean(name, names)} The tools are: ${names.join(', ')}.`,
    { field: '--tool' },
  );
}

/**
 * The `sentinel approvals …` command line for `args` against the same server (and data dir), as
 * the same identity: a token given with --token comes back as `--token <your token>` (never the
 * secret itself); one from SENTINEL_TOKEN or the local token file needs no flag to be found again.
 */
function approvalsCommand(flags: ConnectionFlags, ...args: string[]): string {
  const dataDir = flags.dataDir === undefined ? '' : ` --data-dir ${flags.dataDir}`;
  const token = flags.tokenSource === 'cli' ? ' --token <your token>' : '';
  return `${sentinelCommand()} approvals ${args.join(' ')} --server ${flags.server}${dataDir}${token}`;
}

/**
 * Runs `call` on request `id`, saying in the CLI's terms what went wrong with the id: an unknown id
 * is a usage error (exit 2) naming the id and the server, with the command that lists them.
 */
async function onRequest<T>(id: string, flags: ConnectionFlags, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof SentinelError && error.code === 'not_found') {
      throw new SentinelError(
        'invalid_input',
        `No approval request ${id} on ${flags.server}; \`${approvalsCommand(flags, 'list', '--all')}\` lists them.`,
        { field: 'id', cause: error },
      );
    }
    throw error;
  }
}

/**
 * The server refused `--window` (field `validity…`): says which rule allows what, and the command
 * that works — without --window for a once-only rule, with the longest window the rule allows else.
 */
/**
 * Prints, on stderr before the approval, what changed on the target since the request's preview and
 * whether a change freeze is on (`GET /approvals/{id}/check`). Approving a stale request needs no
 * extra confirmation: the gate re-checks at execution and never runs it. A check that fails (an older
 * server, an unknown id) prints nothing; the approval then answers for itself.
 */
async function warnIfStale(client: ApprovalsClient, id: string): Promise<void> {
  const check = await client.check(id).catch(() => undefined);
  for (const warning of check?.warnings ?? []) process.stderr.write(`Warning: ${warning}\n`);
}

async function windowRefused(
  error: SentinelError,
  id: string,
  flags: ConnectionFlags,
  client: ApprovalsClient,
): Promise<SentinelError> {
  // Each command on its own indented line, nothing glued to it: it copies and runs as printed.
  const request = await client.get(id).catch(() => undefined);
  const once = `\n  ${approvalsCommand(flags, 'approve', id)}`;
  if (!request) return new SentinelError('invalid_input', `${error.message} Drop --window:${once}`);
  // Decided (or run) already: approving it again, with or without --window, cannot work.
  if (request.status !== 'pending') {
    return new SentinelError(
      'conflict',
      `Approval request ${id} is already ${request.status}: there is nothing left to approve. Its outcome:\n  ${approvalsCommand(flags, 'show', id)}`,
      { field: 'id', cause: error },
    );
  }
  const { rule, validity } = request.policy;
  const message =
    validity === 'once'
      ? `Policy rule '${rule}' allows only once grants for this call; drop --window to approve this exact call once:${once}`
      : `${error.message} Policy rule '${rule}' allows a window of at most ${validity.window}:\n  ${approvalsCommand(flags, 'approve', id, '--window', validity.window)}\nor drop --window to approve this exact call once:${once}`;
  return new SentinelError('invalid_input', message, { field: '--window', cause: error });
}

function print(flags: ConnectionFlags, value: unknown, human: () => string): void {
  process.stdout.write(flags.json ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
}

/** `--server` (default: the server found by discovery), `--token`, `--data-dir`, `--json` on every subcommand. */
function withConnection(command: Command): Command {
  return useDiscoveredServer(command, 'base')
    .addOption(
      serverUrlOption(
        'Sentinel server URL (base or /mcp); default: the `sentinel serve` running on --data-dir (<data-dir>/servers/), else http://127.0.0.1:7070',
        'base',
      ),
    )
    .addOption(new Option('--token <token>', 'bearer token of your identity').env('SENTINEL_TOKEN'))
    .addOption(dataDirOption())
    .option('--json', 'print the API’s JSON instead of text', false)
    .hook('preAction', (self) => {
      // Hints reprint a command as the same identity; they need to know where the token came from.
      const source = self.getOptionValueSource('token');
      if (source) self.setOptionValue('tokenSource', source);
    });
}

/** Terminal styling of the human output (off on a pipe, with NO_COLOR or --no-color). */
function style() {
  const p = palette(process.stdout);
  return {
    status: (status: string, text: string) => p.status(status, text),
    warning: (text: string) => p.warn(text),
    heading: (text: string) => p.paint('bold', text),
  };
}

const decidedLine = async (verb: string, request: ApprovalRequest) =>
  `${verb} ${request.id} (now ${style().status(request.status, request.status)}): ${(await server()).approvalSentence(request)}`;

/** Adds `sentinel approvals` and its subcommands. */
export function registerApprovalsCommands(program: Command): void {
  const approvals = program
    .command('approvals')
    .description('List and decide approval requests on a running Sentinel server (`sentinel serve`).');

  withConnection(
    approvals
      .command('list')
      .description('List approval requests, newest first (default: pending ones).')
      .addOption(
        new Option('--status <status>', 'only requests in this status')
          .choices(APPROVAL_STATUSES)
          .argParser(parseStatus),
      )
      .option('--all', 'every status, not only pending', false)
      .option('--tool <name>', 'only requests for this tool')
      .option('--requester <identity>', 'only requests made by this identity (e.g. yours, to withdraw one)'),
  ).action(
    async (
      flags: ConnectionFlags & { status?: ApprovalStatus; all: boolean; tool?: string; requester?: string },
    ) => {
      const status = flags.status ?? (flags.all ? undefined : 'pending');
      const { renderApprovalTable, IdentityNameSchema } = await server();
      // A typo would list nothing and look like "no requests": refused before asking the server.
      if (flags.tool !== undefined) await checkToolName(flags.tool);
      const requester =
        flags.requester === undefined ? undefined : IdentityNameSchema.safeParse(flags.requester);
      if (requester && !requester.success) {
        throw new SentinelError(
          'invalid_input',
          `--requester '${flags.requester}' is not an identity name: it ${requester.error.issues[0]?.message ?? 'must be a valid identity name'}.`,
          { field: '--requester' },
        );
      }
      const list = await (
        await clientFor(flags)
      ).list({
        ...(status && { status }),
        ...(flags.tool && { tool: flags.tool }),
        ...(flags.requester && { requester: flags.requester }),
      });
      print(flags, { approvals: list }, () =>
        list.length === 0
          ? `No ${status ?? ''} approval requests.`.replace('  ', ' ')
          : renderApprovalTable(list, { style: style() }),
      );
    },
  );

  withConnection(
    approvals.command('show <id>').description('Show one request: what it does, why, who asked.'),
  ).action(async (id: string, flags: ConnectionFlags) => {
    const { renderApprovalText } = await server();
    const request = await onRequest(id, flags, async () => (await clientFor(flags)).get(id));
    print(flags, request, () => renderApprovalText(request, { style: style() }));
  });

  withConnection(
    approvals
      .command('approve <id>')
      .description('Allow the request (a once grant by default): the requester’s identical retry then runs.')
      .option(
        '--window <duration>',
        'grant a window (e.g. 15m) instead of once, if the policy rule allows it',
        parseDuration,
      )
      .option(
        '--confirm <name>',
        'the Deployment’s name, to approve a dangerous request (rollback, restart, scale, delete) off a terminal; on one you are asked to type it',
      ),
  ).action(async (id: string, flags: ConnectionFlags & { window?: string; confirm?: string }) => {
    const { DurationSchema, withLocalTimes } = await server();
    // A bare number was refused by parseDuration; the rest of the syntax is checked here.
    if (flags.window !== undefined && !DurationSchema.safeParse(flags.window).success) {
      // `0s`, `0m`: a duration, but a window of nothing. The longest is the server's policy's to say.
      const zero = /^\s*[+-]?0*\.?0*\s*[a-z]*\s*$/i.test(flags.window) && /0/.test(flags.window);
      const rule = zero
        ? "must be longer than zero, e.g. 15m, and at most the policy's max_window (1h by default; the request's rule may allow less)"
        : 'must be a duration such as 15m or 1h';
      throw new SentinelError('invalid_input', `--window '${flags.window}' ${rule}.`, { field: '--window' });
    }
    const client = await clientFor(flags);
    const current = await onRequest(id, flags, () => client.get(id));
    // Only a pending request can be approved; a decided one's preview says nothing useful now (an
    // executed request's "fails" because it ran): the server's refusal below is the whole answer.
    if (current.status === 'pending') await warnIfStale(client, id);
    // Dangerous requests need the Deployment's name typed (or --confirm) before approving.
    await confirmDangerousApproval(current, flags.confirm);
    const request = await onRequest(id, flags, () =>
      client.approve(id, flags.window ? { validity: { window: flags.window } } : {}),
    ).catch(async (error: unknown) => {
      const refusedWindow =
        flags.window !== undefined &&
        error instanceof SentinelError &&
        error.code === 'invalid_input' &&
        error.field?.startsWith('validity') === true;
      throw refusedWindow ? await windowRefused(error, id, flags, client) : error;
    });
    const approvedLine = await decidedLine('Approved', request);
    print(flags, request, () =>
      [
        approvedLine,
        // Recorded in ISO UTC; shown in the reader's zone with UTC alongside (as on the page).
        ...(request.grant?.scope ? [`Grant covers: ${withLocalTimes(request.grant.scope.description)}`] : []),
      ].join('\n'),
    );
  });

  withConnection(
    approvals
      .command('deny <id>')
      .description('Deny the request; the reason is shown to the requester.')
      .requiredOption('--reason <text>', 'why (required)'),
  ).action(async (id: string, flags: ConnectionFlags & { reason: string }) => {
    if (flags.reason.trim() === '') {
      throw new SentinelError('invalid_input', '--reason must not be empty: the requester is told why.', {
        field: '--reason',
      });
    }
    const request = await onRequest(id, flags, async () => (await clientFor(flags)).deny(id, flags.reason));
    const line = await decidedLine('Denied', request);
    print(flags, request, () => line);
  });

  withConnection(
    approvals
      .command('revoke <id>')
      .description('Take back an approved grant no call has used yet; the retry is then held again.')
      .requiredOption('--reason <text>', 'why (required)'),
  ).action(async (id: string, flags: ConnectionFlags & { reason: string }) => {
    const request = await onRequest(id, flags, async () => (await clientFor(flags)).revoke(id, flags.reason));
    const line = await decidedLine('Revoked', request);
    print(flags, request, () => line);
  });

  withConnection(
    approvals.command('withdraw <id>').description('Withdraw a pending request you made (requester only).'),
  ).action(async (id: string, flags: ConnectionFlags) => {
    const request = await onRequest(id, flags, async () => (await clientFor(flags)).withdraw(id));
    const line = await decidedLine('Withdrew', request);
    print(flags, request, () => line);
  });
}
