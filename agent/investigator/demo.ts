/**
 * `sentinel demo`: the whole loop on a laptop with no cluster, network or key. Starts the embedded
 * Kubernetes API simulator with an incident scenario, a Sentinel server in-process against it, and a
 * local investigation of the scenario's symptom that pauses for the user's approval in the terminal.
 */
import { join } from 'node:path';
import { sentinelCommand } from '../../core/index.ts';
import { resolveDataDir } from '../../server/index.ts';
import type { ReadCacheMode } from '../../tools/index.ts';
import type { ApprovalPrompter } from '../harness/prompter.ts';
import { isTypedConfirmationQuestion } from '../typed-confirmation.ts';
import { investigateLocally, type CommandIo } from './investigate-local.ts';
import type { Report } from './report.ts';
import { startSimulatedIncident } from './simulated-incident.ts';

export interface DemoOptions {
  /** Bundled scenario name or YAML file (default `bad-image-rollout`). */
  scenario: string;
  /** Approve without asking. */
  yes: boolean;
  /** Simulated seconds per real second (default 10: the rollback settles in about a second). */
  timeScale: number;
  json?: boolean;
  /**
   * Without a terminal to ask at: wait for a decision on the approvals page (or `sentinel
   * approvals`) instead of declining at once.
   */
  wait?: boolean;
  /** The server's `--read-cache`; default `sentinel serve`'s. */
  readCache?: ReadCacheMode | undefined;
  /** Aborting it (Ctrl-C) stops the demo: `runDemo` cleans up and throws `DemoInterrupted`. */
  signal?: AbortSignal;
  /**
   * The user's data directory (default `resolveDataDir()`): the summary's full report is kept in
   * `<dataDir>/reports/<id>.md`, since the demo's own data directory is removed at exit.
   */
  dataDir?: string;
}

/** Thrown by `runDemo` when its signal aborted it; everything it started is gone by then. */
export class DemoInterrupted extends Error {
  override name = 'DemoInterrupted';
}

/** The scenario the demo runs by default. */
export const DEFAULT_DEMO_SCENARIO = 'bad-image-rollout';

/**
 * Runs the demo and returns the report (printed on stdout; the walk-through on stderr). Everything
 * it starts is stopped and its temporary data directory removed, whatever happens (an aborted
 * `signal` included). Throws `SentinelError('invalid_input')` for an unknown scenario,
 * `DemoInterrupted` when aborted.
 */
export async function runDemo(options: DemoOptions, io: CommandIo): Promise<Report> {
  const say = (text: string) => io.stderr.write(`${text}\n`);
  const { sim, server, dataDir, kubeconfig, close } = await startSimulatedIncident(
    options.scenario,
    options.timeScale,
    { readCache: options.readCache },
  );
  try {
    const namespace = sim.scenario.namespaces[0]!;
    const interactive = io.interactive ?? process.stdin.isTTY === true;
    say(
      [
        `Sentinel demo — scenario ${sim.scenario.name}: ${sim.scenario.description}`,
        '',
        `  Simulated cluster   ${sim.url} (time runs ${options.timeScale}× faster)`,
        `    kubectl:          kubectl --kubeconfig ${kubeconfig} get pods -n ${namespace}`,
        `  Sentinel server     ${server.url}/mcp (investigator calls go through its approval gate)`,
        // Like `sentinel serve`: a token is shown only on a terminal, never into a file or a pipe.
        io.terminal
          ? `    approvals page:   ${server.url}/ui/approvals (token: ${server.token})`
          : `    approvals page:   ${server.url}/ui/approvals (token in ${server.tokenFile}, 0600, while the demo runs)`,
        '',
        `The pager says: "${sim.scenario.symptom}". Investigating namespace ${namespace}…`,
        options.yes
          ? 'With --yes, the proposed remediation is approved without asking.'
          : interactive
            ? "You will be asked to approve any change before it runs (a rollback, restart or scale: type the Deployment's name to approve it)."
            : options.wait
              ? `No terminal to ask at (--wait): approve or deny on the approvals page, or with \`${sentinelCommand()} approvals\`.`
              : `No terminal to ask at (stdin is not one): the proposed change will be declined, so nothing changes. \`${sentinelCommand()} demo --yes\` approves it; \`--wait\` waits for a decision on the approvals page.`,
        '',
      ].join('\n'),
    );
    const investigation = investigateLocally(
      sim.scenario.symptom,
      {
        namespace,
        server: `${server.url}/mcp`,
        token: server.token,
        dataDir,
        yes: options.yes,
        json: options.json,
      },
      // No terminal and neither --yes nor --wait: nobody can answer here, and waiting out the
      // approval window would look like a hang. The proposal is declined at once.
      {
        ...(interactive || options.yes || options.wait
          ? io
          : { ...io, prompter: decliningPrompter(io.stderr) }),
        reportDir: join(resolveDataDir(options.dataDir, io.env ?? process.env), 'reports'),
        // `demo` has no --format: its summary names just the file (issue 18).
        formatFlags: false,
      },
      {
        clusterNow: () => sim.clock.now(),
        pollMs: 500,
        // --yes approves the simulator's rollback without --confirm; at a terminal the name is typed.
        simulated: true,
        // The demo's cluster and data directory end with it: there is nothing to resume later.
        onStart: (started) =>
          say(`Investigation ${started.id}: "${started.symptom}" in namespace ${namespace}.`),
      },
    );
    // Once interrupted, the investigation fails against the stopped server: nobody waits for it.
    investigation.catch(() => undefined);
    const report = await Promise.race([investigation, interruption(options.signal)]);
    say(
      report.verification?.healthy
        ? `\nDemo complete: ${report.culprit ? `${report.culprit.kind} ${report.culprit.namespace}/${report.culprit.name}` : 'the workload'} is healthy again. Try other scenarios with --scenario, or point \`sentinel investigate\` at a real cluster.`
        : '\nDemo complete. Nothing in the cluster changed without your approval.',
    );
    return report;
  } finally {
    await close();
  }
}

/** Rejects with `DemoInterrupted` when `signal` aborts (never settles without one). */
function interruption(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal?.aborted) reject(new DemoInterrupted('interrupted'));
    signal?.addEventListener('abort', () => reject(new DemoInterrupted('interrupted')), { once: true });
  });
}

/** Reason recorded for a demo proposal declined for want of a terminal. */
export const NO_TERMINAL_REASON = 'No terminal to answer at: sentinel demo ran without --yes or --wait.';

/** A prompter for nobody: every question answered "no" at once, saying so on `progress`. */
function decliningPrompter(progress: NodeJS.WritableStream): ApprovalPrompter {
  return {
    async confirm(question) {
      // No `[y/N] n`: nobody typed an answer, so none is shown as if typed.
      progress.write(`${question}\nDeclined: no terminal to answer at.\n`);
      return false;
    },
    async ask(question) {
      // A rollback's "Type 'checkout' to approve": declined (Enter), as the y/N question is.
      if (!isTypedConfirmationQuestion(question)) return NO_TERMINAL_REASON;
      progress.write(`${question}\nDeclined: no terminal to answer at.\n`);
      return '';
    },
    close() {},
  };
}
