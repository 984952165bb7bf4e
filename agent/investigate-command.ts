/**
 * `sentinel investigate "<symptom>"`: one command, two investigators. With `--harness` (or
 * SENTINEL_HARNESS_URL) the TrueForge harness runs the agent (agent/harness/); without it, the local
 * deterministic investigator runs (agent/investigator/).
 */
import { Option, type Command } from 'commander';
import { dataDirOption } from '../server/index.ts';
import { SentinelError } from '../tools/errors.ts';
import {
  harnessTokenOption,
  harnessUrlOption,
  serverUrlOption,
  timeoutOption,
} from './harness/cli-options.ts';
import { investigateWithHarness, type HarnessInvestigateCliOptions } from './harness/investigate-command.ts';
import { investigateLocally, succeeded, type LocalInvestigateCliOptions } from './investigator/command.ts';
import { addLocalInvestigateOptions } from './investigator/cli-options.ts';

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
      serverUrlOption(
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
