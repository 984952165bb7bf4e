/**
 * The harness branch of `sentinel investigate`: builds the harness client, the Sentinel server
 * client (the human's approver token) and the terminal prompter from the command-line options, runs
 * the investigation, and releases everything.
 */
import { localTokenFile, resolveDataDir, clientToken } from '../../server/index.ts';
import { SentinelError } from '../../core/index.ts';
import { harnessClient, type HarnessConnectionOptions } from './connection.ts';
import { runHarnessInvestigation, type HarnessInvestigationResult } from './investigate.ts';
import type { Output } from './printer.ts';
import { terminalPrompter, type ApprovalPrompter } from './prompter.ts';
import { SentinelServerClient } from './sentinel-server.ts';

export interface HarnessInvestigateCliOptions extends HarnessConnectionOptions {
  harness: string;
  /** The human's Sentinel token (an approver), for previews and grants; default: `<data-dir>/local.token`. */
  token?: string | undefined;
  dataDir?: string | undefined;
  resumeSession?: string | undefined;
  yes?: boolean | undefined;
  /** With `yes`: the Deployments a dangerous call may be approved for (`--confirm`, repeatable). */
  confirm?: readonly string[] | undefined;
}

/**
 * Runs `sentinel investigate --harness`. Throws `SentinelError('invalid_input')` without the human's
 * Sentinel token (needed to preview and grant approved calls), and whatever the investigation throws.
 */
export async function investigateWithHarness(
  symptom: string | undefined,
  options: HarnessInvestigateCliOptions,
  io: { output?: Output; prompter?: ApprovalPrompter } = {},
): Promise<HarnessInvestigationResult> {
  const token = clientToken(options.token, resolveDataDir(options.dataDir), options.server)?.token;
  if (!token) {
    throw new SentinelError(
      'invalid_input',
      `Harness mode needs your Sentinel token (an approver) to preview and approve calls on the Sentinel server: pass --token or set SENTINEL_TOKEN (on the server's machine, ${localTokenFile(resolveDataDir(options.dataDir))} is used when present).`,
      { field: 'token' },
    );
  }
  const grants = new SentinelServerClient({ url: options.server, token, timeoutMs: options.timeout * 1000 });
  const prompter = io.prompter ?? terminalPrompter();
  try {
    return await runHarnessInvestigation({
      client: harnessClient(options),
      grants,
      prompter,
      output: io.output ?? { stdout: process.stdout, stderr: process.stderr },
      symptom,
      resumeSessionId: options.resumeSession,
      autoApprove: options.yes ?? false,
      confirm: options.confirm,
      dataDir: resolveDataDir(options.dataDir),
    });
  } finally {
    prompter.close();
    await grants.close();
  }
}
