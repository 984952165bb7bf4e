/**
 * How to approve a held request from somewhere other than this terminal: the approvals page and the
 * `sentinel approvals` command of the server in use, with a token the printed command really finds
 * (issue 18: every printed hint runs where it is printed).
 */
import { sentinelCommand } from '../../core/index.ts';
import { resolveDataDir } from '../../server/index.ts';
import type { LocalServer } from './local-server.ts';

/**
 * Where the human's approver token came from: `--token` (the printed command cannot repeat it),
 * SENTINEL_TOKEN (the same shell has it), a file the `approvals` command reads by itself (the running
 * server's discovery entry, `<data-dir>/local.token`), or nowhere (another approver decides).
 */
export type ApproverToken =
  { kind: 'flag' } | { kind: 'env' } | { kind: 'file'; file: string } | { kind: 'none' };

export interface ApprovalInstructionsContext {
  /** The investigation's data directory (named in the command unless it is the default). */
  dataDir: string;
  /** The human's token, for a server this command did not start. */
  token: ApproverToken;
  /** The data directory `--data-dir` defaults to (default: `resolveDataDir()`). */
  defaultDataDir?: string;
}

/**
 * The lines saying how to approve (or deny) request `id`: open the page of the server, or run
 * `<sentinel> approvals approve <id> --server <base> [--data-dir <dir>]`. With the in-process server
 * (`local`), the token is its token file, valid while this command runs; with another server, the
 * `approvals` command finds the token the way this investigation did (discovery file, local.token,
 * SENTINEL_TOKEN), so no placeholder is printed unless the token was given as `--token` or none is
 * known.
 */
export function approvalInstructions(
  id: string,
  local: Pick<LocalServer, 'url' | 'tokenFile'> | undefined,
  serverUrl: string,
  context: ApprovalInstructionsContext,
): string {
  const base = local?.url ?? serverUrl;
  const dataDir =
    context.dataDir === (context.defaultDataDir ?? resolveDataDir(undefined))
      ? ''
      : ` --data-dir ${context.dataDir}`;
  const command = `${sentinelCommand()} approvals approve ${id} --server ${base}`;
  if (local) {
    return [
      `To approve ${id} (or deny it), either:`,
      `  open ${base}/ui/approvals and sign in with the token in ${local.tokenFile} (valid while this command runs), or`,
      `  run: ${command} --token "$(cat ${local.tokenFile})"`,
    ].join('\n');
  }
  const { token } = context;
  const [signIn, run] =
    token.kind === 'file'
      ? [`the token in ${token.file}`, `${command}${dataDir}`]
      : token.kind === 'env'
        ? ['your approver token (SENTINEL_TOKEN)', `${command}${dataDir}`]
        : token.kind === 'flag'
          ? [
              'the approver token you passed to --token',
              `${command} --token <the token you passed to --token>`,
            ]
          : [
              "an approver's token (not the investigator's)",
              `SENTINEL_TOKEN=<an approver's token> ${command}`,
            ];
  return [
    `To approve ${id} (or deny it), either:`,
    `  open ${base}/ui/approvals and sign in with ${signIn}, or`,
    `  run: ${run}`,
  ].join('\n');
}
