/**
 * The local branch of `sentinel investigate` (no harness configured): runs the deterministic
 * investigator, progress on stderr, the report on stdout (Markdown, or JSON with `--json`).
 */
import { sentinelCommand } from '../../core/index.ts';
import { palette } from '../colors.ts';
import { resolveDataDir } from '../../server/index.ts';
import { terminalPrompter, type ApprovalPrompter } from '../harness/prompter.ts';
import type { Investigation } from './model.ts';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { renderMarkdown, renderSummary, type Report } from './report.ts';
import { investigationsDir } from './store.ts';
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
  /** `--confirm <name>` (repeatable): with `yes`, the Deployments a dangerous call may be approved for. */
  confirm?: readonly string[] | undefined;
  json?: boolean | undefined;
  /**
   * `--format`: `summary` (a few lines and where the full report is), `markdown` or `json`.
   * Default: `json` with `--json`, else `summary` when stdout is a terminal, else `markdown`.
   */
  format?: ReportFormat | undefined;
  resume?: string | undefined;
  /** `--ask-again`: ask the approvers again for a call an earlier denial answers. */
  askAgain?: boolean | undefined;
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
  /**
   * Where the summary format saves the full Markdown report (`<reportDir>/<id>.md`); default
   * `<data-dir>/investigations`. The demo, whose data directory is deleted at exit, keeps it in the
   * user's data directory instead.
   */
  reportDir?: string;
  /** Whether the summary names --format/--json (default true); false for `demo`, which has neither. */
  formatFlags?: boolean;
}

/** How the report is printed (`--format`). */
export const REPORT_FORMATS = ['summary', 'markdown', 'json'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/**
 * Writes the report in `format`. `summary` also writes the full Markdown report to
 * `<reportDir>/<id>.md` (0600; default `<data-dir>/investigations`) and names that file (and,
 * with `formatFlags`, the flags that print it).
 */
export function printReport(
  report: Report,
  format: ReportFormat,
  stdout: NodeJS.WritableStream,
  dataDir: string,
  reportDir: string = investigationsDir(dataDir),
  formatFlags = true,
): void {
  if (format === 'json') return void stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  const markdown = renderMarkdown(report);
  if (format === 'markdown') return void stdout.write(markdown);
  const file = join(reportDir, `${report.id}.md`);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, markdown, { mode: 0o600 });
  stdout.write(renderSummary(report, file, palette(stdout), formatFlags));
}

/** The format to print in: `--json`, else `--format`, else summary on a terminal, Markdown otherwise. */
export function reportFormat(
  options: Pick<LocalInvestigateCliOptions, 'json' | 'format'>,
  stdout: NodeJS.WritableStream,
): ReportFormat {
  if (options.json) return 'json';
  return options.format ?? ((stdout as Partial<NodeJS.WriteStream>).isTTY === true ? 'summary' : 'markdown');
}

/**
 * Whether the run ended well (exit 0; README "Exit codes"): finished, and either nothing was
 * unhealthy or the executed remediation verified healthy. Unresolved (exit 1): not found, refused
 * (the cause is nothing the tools can fix), declined or denied, still awaiting a decision, failed,
 * or verified unhealthy or reverted.
 */
export function succeeded(report: Report): boolean {
  if (report.status !== 'done') return false;
  if (report.action.kind === 'none') return true;
  if (report.action.kind === 'not_found' || report.action.kind === 'refused') return false;
  return report.action.status === 'executed' && report.verification?.healthy === true;
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
      confirm: options.confirm,
      resume: options.resume,
      askAgain: options.askAgain,
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
    const dataDir = resolveDataDir(options.dataDir, io.env ?? process.env);
    printReport(report, reportFormat(options, io.stdout), io.stdout, dataDir, io.reportDir, io.formatFlags);
    return report;
  } finally {
    if (!io.prompter) prompter?.close();
  }
}
