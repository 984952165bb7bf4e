/**
 * The local branch of `sentinel investigate` (no harness configured): runs the deterministic
 * investigator, progress on stderr, the report on stdout (Markdown, or JSON with `--json`).
 */
import { sentinelCommand } from '../command-name.ts';
import { resolveDataDir } from '../../server/index.ts';
import { terminalPrompter, type ApprovalPrompter } from '../harness/prompter.ts';
import type { Investigation } from './model.ts';
import { renderMarkdown, type Report } from './report.ts';
import { runLocalInvestigation, type LocalInvestigationOptions } from './session.ts';

export { checkNewInvestigation } from './session.ts';

/** The options `sentinel investigate` passes to the local investigator. */
export interface LocalInvestigateCliOptions {
  namespace?: string | undefined;
  deployment?: string | undefined;
  /** Set only when the user gave `--server` (or SENTINEL_SERVER_URL); else an in-process server. */
  server?: string | undefined;
  token?: string | undefined;
  dataDir?: string | undefined;
  kubeconfig?: string | undefined;
  context?: string | undefined;
  yes?: boolean | undefined;
  json?: boolean | undefined;
  resume?: string | undefined;
  /** `--settle-seconds`: how long the approved template must hold after the rollout (default 60). */
  settleSeconds?: number | undefined;
}

export interface CommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Whether a person is at the terminal to answer y/N (default: stdin is a TTY). */
  interactive?: boolean;
  /** Whether stderr is an interactive terminal (default false): only then are secrets shown on it. */
  terminal?: boolean;
  prompter?: ApprovalPrompter;
  env?: NodeJS.ProcessEnv;
  /** Told the investigation once it is saved (after the "Resume with" line). */
  onStart?: (investigation: Investigation) => void;
}

/** Writes the report: Markdown, or one JSON object. */
export function printReport(report: Report, json: boolean, stdout: NodeJS.WritableStream): void {
  stdout.write(json ? `${JSON.stringify(report, null, 2)}\n` : renderMarkdown(report));
}

/**
 * Whether the run ended well: finished, what it was asked about exists, and any executed
 * remediation verified healthy.
 */
export function succeeded(report: Report): boolean {
  if (report.status !== 'done' || report.action.kind === 'not_found') return false;
  if (report.action.status === 'executed') return report.verification?.healthy === true;
  return report.action.status !== 'failed';
}

/**
 * Runs `sentinel investigate` locally. Returns the report (already printed). Throws what
 * `runLocalInvestigation` throws.
 */
export async function investigateLocally(
  symptom: string | undefined,
  options: LocalInvestigateCliOptions,
  io: CommandIo,
  extra: Partial<LocalInvestigationOptions> = {},
): Promise<Report> {
  const interactive = io.interactive ?? process.stdin.isTTY === true;
  const prompter = io.prompter ?? (interactive && !options.yes ? terminalPrompter() : undefined);
  try {
    const { report } = await runLocalInvestigation({
      symptom,
      namespace: options.namespace,
      deployment: options.deployment,
      server: options.server,
      token: options.token,
      dataDir: resolveDataDir(options.dataDir, io.env ?? process.env),
      kubeconfig: options.kubeconfig,
      context: options.context,
      yes: options.yes,
      resume: options.resume,
      ...(options.settleSeconds !== undefined && { settleSeconds: options.settleSeconds }),
      prompter,
      progress: io.stderr,
      onStart: (investigation) => {
        io.stderr.write(
          `Investigation ${investigation.id}${options.resume ? ' (resumed)' : ''}: "${investigation.symptom}" in namespace ${investigation.namespace}. Interrupted? Resume with: ${sentinelCommand()} investigate --resume ${investigation.id}\n`,
        );
        io.onStart?.(investigation);
      },
      ...extra,
    });
    printReport(report, options.json ?? false, io.stdout);
    return report;
  } finally {
    if (!io.prompter) prompter?.close();
  }
}
