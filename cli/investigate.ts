/**
 * `sentinel investigate "<symptom>"`: one command, two investigators. With `--harness` (or
 * SENTINEL_HARNESS_URL) the TrueForge harness runs the agent (agent/harness/); without it, the local
 * deterministic investigator runs (agent/investigator/).
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
// Types only at start-up: the investigators (and the server they start) load when the command runs.
import type {
  HarnessInvestigateCliOptions,
  LocalInvestigateCliOptions,
  Investigation,
} from '../agent/index.ts';
import { OUTPUT_CLOSED_EXIT_CODE, whenOutputCloses } from '../agent/light.ts';
import type { ServerEntry } from '../server/client.ts';
import { resolveDataDir, DEFAULT_SERVER_URL, serverMcpUrl } from '../server/light.ts';
import { SentinelError } from '../core/light.ts';
import { sanitizeText } from '../tools/light.ts';
import { constants as osConstants } from 'node:os';
import {
  dataDirOption,
  harnessTokenOption,
  harnessUrlOption,
  mcpServerUrlOption,
  timeoutOption,
  usingServerLine,
} from './options.ts';

type InvestigateCliOptions = Omit<HarnessInvestigateCliOptions, 'harness'> &
  Omit<LocalInvestigateCliOptions, 'server'> & { harness?: string };

/**
 * What an interrupted investigation leaves (agent/investigator/interrupted.ts): what is pending,
 * where to decide it, and the exact command to resume. `server`: the server that holds the
 * requests, undefined when it was this command's own and has stopped with it.
 */
async function interruptedText(
  started: Investigation | undefined,
  dataDir: string,
  server: string | undefined,
): Promise<string> {
  const { interruptedLines, openInvestigationStore } = await import('../agent/index.ts');
  let saved = started;
  try {
    if (started) saved = openInvestigationStore(dataDir).load(started.id);
  } catch {
    // the record as it started
  }
  const target = server ?? (saved?.server.kind === 'url' ? saved.server.url : undefined);
  return interruptedLines(saved, { dataDir, defaultDataDir: resolveDataDir(undefined), server: target });
}

/** The newest `sentinel serve` running on `dataDir` (its discovery file), or undefined. */
async function runningServe(dataDir: string): Promise<(ServerEntry & { count: number }) | undefined> {
  const { runningServers } = await import('../server/client.ts');
  const all = runningServers(dataDir);
  const newest = all.filter((entry) => entry.kind === 'serve').at(-1);
  // `count`: every server on the data directory, as the client commands count them.
  return newest && { ...newest, count: all.length };
}

/** Adds `sentinel investigate`. */
export function registerInvestigateCommand(program: Command): void {
  const command = program
    .command('investigate')
    .description('Investigate a symptom in the cluster; remediations run only after you approve them')
    .argument(
      '[symptom]',
      'what is wrong, e.g. "checkout returns 502 since 02:10" (not with --resume/--resume-session: they continue with their own)',
    )
    .addOption(harnessUrlOption())
    .addOption(harnessTokenOption())
    .option('--resume-session <session-id>', 'continue a harness session (pending approvals included)')
    .addOption(
      mcpServerUrlOption('Sentinel MCP URL, for previews and approvals').default(
        serverMcpUrl(DEFAULT_SERVER_URL),
        'the `sentinel serve` running on this data directory (<data-dir>/servers/); else, for the local investigator, a server started in-process',
      ),
    )
    .addOption(
      new Option('--token <token>', 'your Sentinel token (an approver; default <data-dir>/local.token)').env(
        'SENTINEL_TOKEN',
      ),
    )
    .addOption(dataDirOption())
    .option(
      '-y, --yes',
      'approve every proposed call without asking (scripted runs); a dangerous one (rollback, restart, scale) only with --confirm <name>, else nothing is approved (exit 2)',
    )
    .option(
      '--confirm <name>',
      'with --yes: the Deployment a dangerous call may be approved for, as `approvals approve --confirm` (repeatable)',
      (name: string, names: string[] = []) => [...names, name],
    )
    .addOption(timeoutOption());
  addLocalInvestigateOptions(command).action(
    async (typed: string | undefined, options: InvestigateCliOptions, self: Command) => {
      const { harness } = options;
      refuseSymptomWithResume(typed, options);
      if (options.confirm && !options.yes) {
        throw new SentinelError(
          'invalid_input',
          '--confirm names the Deployment --yes may approve a dangerous call for: add --yes, or drop --confirm to be asked at the terminal.',
          { field: '--confirm' },
        );
      }
      // A pasted ESC or BEL (`\x1b[2J`) is kept visible as text, for the agent, the saved
      // investigation and the report file alike: no later echo or `cat` can clear the screen.
      const symptom = typed === undefined ? undefined : sanitizeText(typed, { multiline: true });
      const defaulted = self.getOptionValueSource('server') === 'default';
      const running = defaulted ? await runningServe(resolveDataDir(options.dataDir)) : undefined;
      if (harness) {
        const { investigateWithHarness } = await import('../agent/index.ts');
        const server = running ? serverMcpUrl(running.url) : options.server;
        // Output closed (`| head`): the session stays on the harness, resumable; never a silent 0.
        const unregister = whenOutputCloses(() => process.exit(OUTPUT_CLOSED_EXIT_CODE));
        try {
          const result = await investigateWithHarness(symptom, { ...options, server, harness });
          if (result.status !== 'done') process.exitCode = 1;
        } finally {
          unregister();
        }
        return;
      }
      if (options.resumeSession) {
        throw new SentinelError(
          'invalid_input',
          '--resume-session continues a harness session: add --harness <url>.',
          {
            field: 'harness',
          },
        );
      }
      // The investigator (and the server it may start) loads when the command runs; a usage error
      // is told before anything about servers.
      const { checkNewInvestigation, investigateLocally, succeeded } = await import('../agent/index.ts');
      checkNewInvestigation({ ...options, symptom });
      // Without --server: the `sentinel serve` running on this data directory, else (or when
      // resuming, the server the investigation was started with) a server in-process.
      let server: string | undefined = defaulted ? undefined : options.server;
      // --kubeconfig/--context name a cluster: only a server started here reads them, so a running
      // `sentinel serve` (its own cluster) is not used, and an explicit --server is a contradiction.
      const namesCluster = options.kubeconfig !== undefined || options.context !== undefined;
      if (namesCluster && !defaulted) {
        throw new SentinelError(
          'invalid_input',
          '--kubeconfig/--context choose the cluster of a server started in-process; the server at --server investigates its own cluster. Drop one of them.',
          { field: 'kubeconfig' },
        );
      }
      if (defaulted && options.resume === undefined) {
        if (running && !namesCluster) {
          server = serverMcpUrl(running.url);
          process.stderr.write(`${usingServerLine(running, running.count)}\n`);
        } else if (running) {
          process.stderr.write(
            `--kubeconfig/--context given: starting a Sentinel server in-process for that cluster (not the one running at ${running.url}).\n`,
          );
        } else {
          process.stderr.write(
            'No `sentinel serve` is running on this data directory: starting a Sentinel server in-process for this investigation.\n',
          );
        }
      }
      // Ctrl-C (or SIGTERM) stops waiting: the in-process server stops and removes its token file,
      // and the last lines say what is still pending and how to resume; exit 130 (143). A closed
      // stdout/stderr (`| head`) stops the same way, at the next safe point (a wait, or before the
      // next step; a call already sent finishes), and exits 141: never 0 unless resolved.
      const controller = new AbortController();
      let received: NodeJS.Signals | undefined;
      let started: Investigation | undefined;
      const onSignal = (signal: NodeJS.Signals) => {
        if (received) return;
        received = signal;
        process.stderr.write(
          signal === 'SIGPIPE'
            ? '\nOutput closed: stopping at the next safe point (the investigation stays saved)…\n'
            : '\nInterrupted: stopping (the investigation stays saved)…\n',
        );
        controller.abort();
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      const unregisterOutput = whenOutputCloses(() => onSignal('SIGPIPE'));
      try {
        const report = await investigateLocally(
          symptom,
          { ...options, server },
          {
            stdout: process.stdout,
            stderr: process.stderr,
            onStart: (investigation) => (started = investigation),
          },
          { signal: controller.signal },
        );
        if (!succeeded(report)) process.exitCode = 1;
      } catch (error) {
        if (!received) throw unknownResume(error);
        process.stderr.write(await interruptedText(started, resolveDataDir(options.dataDir), server));
        // A prompt may still be reading stdin: end the process here rather than wait for input.
        process.exit(128 + osConstants.signals[received]);
      } finally {
        unregisterOutput();
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    },
  );
}

/**
 * `--resume` of an investigation id the data directory does not hold is a usage error (exit 2), as
 * an unknown id is everywhere else; any other error is returned as it is.
 */
function unknownResume(error: unknown): unknown {
  if (!(error instanceof SentinelError) || error.code !== 'not_found' || error.field !== 'resume')
    return error;
  return new SentinelError('invalid_input', error.message, { field: 'resume', cause: error });
}

/**
 * A symptom given with `--resume`/`--resume-session` is a usage error (exit 2) naming both: a resumed
 * investigation or session continues with the symptom it started with, so a new one would be dropped
 * silently (or, to the harness, read as a different question to the same session).
 */
function refuseSymptomWithResume(
  symptom: string | undefined,
  options: { resume?: string | undefined; resumeSession?: string | undefined },
): void {
  if (symptom === undefined) return;
  const [flag, id, what] =
    options.resume !== undefined
      ? ['--resume', options.resume, 'investigation']
      : options.resumeSession !== undefined
        ? ['--resume-session', options.resumeSession, 'session']
        : [];
  if (!flag) return;
  throw new SentinelError(
    'invalid_input',
    `${flag} ${sanitizeText(id!)} continues that ${what} with its own symptom; the symptom '${sanitizeText(symptom)}' is not used. Drop the symptom to resume, or drop ${flag} to investigate it anew.`,
    { field: 'symptom' },
  );
}

/** Adds the local investigator's options: --namespace, --deployment, --json, --resume, --kubeconfig, --context. */
function addLocalInvestigateOptions(command: Command): Command {
  command
    .option('-n, --namespace <namespace>', 'namespace to investigate (local investigator)')
    .option('--deployment <name>', 'the Deployment you suspect (default: the worst one triage finds)')
    .option('--json', 'print the report as JSON (same as --format json)')
    .addOption(
      new Option(
        '--format <format>',
        'report format: summary (a few lines, the full report saved to <data-dir>/investigations/<id>.md), markdown or json; default summary on a terminal, else markdown',
      ).choices(['summary', 'markdown', 'json']),
    )
    .option(
      '--settle-seconds <seconds>',
      'after the rollout, how long the approved template must hold before the incident counts as resolved (default 60; 0 skips)',
      parseSettleSeconds,
    )
    .option(
      '--ask-again',
      'when the server answers the proposed call with an earlier denial of it, ask the approvers again (a new request)',
    )
    .option(
      '--resume <investigation-id>',
      'continue a local investigation (inv_...) after a crash or from another terminal',
    )
    .addOption(new Option('--kubeconfig <file>', 'kubeconfig of the cluster (in-process server only)'))
    .addOption(new Option('--context <name>', 'kubeconfig context (in-process server only)'));
  if (!command.options.some((option) => option.long === '--data-dir')) command.addOption(dataDirOption());
  return command;
}

/** `--settle-seconds`: a whole number of seconds from 0 (skip the settle window) to 3600. */
function parseSettleSeconds(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 3600) {
    throw new InvalidArgumentError('must be a whole number of seconds from 0 to 3600.');
  }
  return Number(value);
}
