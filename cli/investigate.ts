/**
 * `sentinel investigate "<symptom>"`: one command, two investigators. With `--harness` (or
 * SENTINEL_HARNESS_URL) the TrueForge harness runs the agent (agent/harness/); without it, the local
 * deterministic investigator runs (agent/investigator/).
 */
import { Option, type Command } from 'commander';
import {
  investigateWithHarness,
  type HarnessInvestigateCliOptions,
  investigateLocally,
  succeeded,
  type LocalInvestigateCliOptions,
} from '../agent/index.ts';
import { SentinelError } from '../core/index.ts';
import {
  dataDirOption,
  harnessTokenOption,
  harnessUrlOption,
  mcpServerUrlOption,
  timeoutOption,
} from './options.ts';

type InvestigateCliOptions = Omit<HarnessInvestigateCliOptions, 'harness'> &
  Omit<LocalInvestigateCliOptions, 'server'> & { harness?: string };

/** Adds `sentinel investigate`. */
export function registerInvestigateCommand(program: Command): void {
  const command = program
    .command('investigate')
    .description('Investigate a symptom in the cluster; remediations run only after you approve them')
    .argument('[symptom]', 'what is wrong, e.g. "checkout returns 502 since 02:10"')
    .addOption(harnessUrlOption())
    .addOption(harnessTokenOption())
    .option('--resume-session <session-id>', 'continue a harness session (pending approvals included)')
    .addOption(
      mcpServerUrlOption(
        'Sentinel MCP URL, for previews and approvals (local investigator: default an in-process server)',
      ),
    )
    .addOption(
      new Option('--token <token>', 'your Sentinel token (an approver; default <data-dir>/local.token)').env(
        'SENTINEL_TOKEN',
      ),
    )
    .addOption(dataDirOption())
    .option('-y, --yes', 'approve every proposed call without asking (scripted runs)')
    .addOption(timeoutOption());
  addLocalInvestigateOptions(command).action(
    async (symptom: string | undefined, options: InvestigateCliOptions, self: Command) => {
      const { harness } = options;
      if (harness) {
        const result = await investigateWithHarness(symptom, { ...options, harness });
        if (result.status !== 'done') process.exitCode = 1;
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
      // Without an explicit --server the local investigator starts its own server in-process.
      const server = self.getOptionValueSource('server') === 'default' ? undefined : options.server;
      const report = await investigateLocally(
        symptom,
        { ...options, server },
        { stdout: process.stdout, stderr: process.stderr },
      );
      if (!succeeded(report)) process.exitCode = 1;
    },
  );
}

/** Adds the local investigator's options: --namespace, --deployment, --json, --resume, --kubeconfig, --context. */
function addLocalInvestigateOptions(command: Command): Command {
  command
    .option('-n, --namespace <namespace>', 'namespace to investigate (local investigator)')
    .option('--deployment <name>', 'the Deployment you suspect (default: the worst one triage finds)')
    .option('--json', 'print the report as JSON instead of Markdown')
    .option(
      '--resume <investigation-id>',
      'continue a local investigation (inv_...) after a crash or from another terminal',
    )
    .addOption(new Option('--kubeconfig <file>', 'kubeconfig of the cluster (in-process server only)'))
    .addOption(new Option('--context <name>', 'kubeconfig context (in-process server only)'));
  if (!command.options.some((option) => option.long === '--data-dir')) command.addOption(dataDirOption());
  return command;
}
