/**
 * `sentinel demo`: the local investigator against the embedded simulator, end to end.
 */
import { sentinelCommand } from '../agent/light.ts';
import type { Command } from 'commander';
import { constants as osConstants } from 'node:os';
// The demo (simulator, server, investigator) loads when the command runs.
/** Default of `--scenario` (agent/investigator/demo.ts DEFAULT_DEMO_SCENARIO; checked equal in a test). */
export const DEMO_SCENARIO = 'bad-image-rollout';
import { parseTimeScale, readCacheOption } from './options.ts';

/** Adds `sentinel demo`. */
export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description(
      'Walk through an incident end to end on a simulated cluster (no cluster, network or key needed): investigate, see the evidence, approve the fix, watch it verified',
    )
    .option(
      '--scenario <name|file>',
      'incident scenario: a bundled name or a scenario YAML file',
      DEMO_SCENARIO,
    )
    .option('-y, --yes', 'approve the proposed remediation without asking')
    .option(
      '--wait',
      'without a terminal: wait for a decision on the approvals page instead of declining at once',
    )
    .option('--json', 'print the report as JSON instead of Markdown')
    .option('--time-scale <n>', 'simulated seconds per real second', parseTimeScale, 10)
    .addOption(readCacheOption())
    .action(
      async (options: {
        scenario: string;
        yes?: boolean;
        wait?: boolean;
        json?: boolean;
        timeScale: number;
        readCache?: string;
      }) => {
        // Ctrl-C (or SIGTERM) stops the demo cleanly: simulator and server stopped, temporary data
        // directory removed, exit 128 + the signal's number. Repeated signals (a terminal and a
        // re-executing launcher both deliver Ctrl-C) do not cut the cleanup short.
        const { DemoInterrupted, runDemo, succeeded } = await import('../agent/index.ts');
        const { parseReadCacheMode } = await import('../server/index.ts');
        const readCache = parseReadCacheMode(options.readCache);
        const controller = new AbortController();
        let received: NodeJS.Signals | undefined;
        const onSignal = (signal: NodeJS.Signals) => {
          if (received) return;
          received = signal;
          process.stderr.write(
            '\nInterrupted: stopping the simulated cluster and removing its temporary files…\n',
          );
          controller.abort();
        };
        process.on('SIGINT', onSignal);
        process.on('SIGTERM', onSignal);
        try {
          const report = await runDemo(
            {
              scenario: options.scenario,
              yes: options.yes ?? false,
              wait: options.wait ?? false,
              timeScale: options.timeScale,
              readCache,
              json: options.json ?? false,
              signal: controller.signal,
            },
            { stdout: process.stdout, stderr: process.stderr, terminal: process.stderr.isTTY === true },
          );
          if (!succeeded(report)) process.exitCode = 1;
        } catch (error) {
          if (!(error instanceof DemoInterrupted) || !received) throw error;
          process.stderr.write(
            `Demo stopped. Nothing is left behind: the simulated cluster, its server and their data are gone, so there is nothing to resume. Run \`${sentinelCommand()} demo\` to start again.\n`,
          );
          // A prompt may still be reading stdin: end the process here rather than wait for input.
          process.exit(128 + osConstants.signals[received]);
        } finally {
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
        }
      },
    );
}
