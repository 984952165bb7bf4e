/**
 * `sentinel demo` and `sentinel eval`: the local investigator against the embedded simulator.
 */
import type { Command } from 'commander';
import { constants as osConstants } from 'node:os';
import { parseTimeScale } from '../../deploy/sim/cli.ts';
import { SCENARIOS_DIR } from '../../deploy/sim/index.ts';
import { succeeded } from './command.ts';
import { DemoInterrupted, DEFAULT_DEMO_SCENARIO, runDemo } from './demo.ts';
import { evaluateScenario, fullyCorrect, renderEvalTable, scenarioFiles, type EvalResult } from './eval.ts';

/** Adds `sentinel demo` and `sentinel eval`. */
export function registerInvestigatorCommands(program: Command): void {
  program
    .command('demo')
    .description(
      'Walk through an incident end to end on a simulated cluster (no cluster, network or key needed): investigate, see the evidence, approve the fix, watch it verified',
    )
    .option(
      '--scenario <name|file>',
      'incident scenario: a bundled name or a scenario YAML file',
      DEFAULT_DEMO_SCENARIO,
    )
    .option('-y, --yes', 'approve the proposed remediation without asking')
    .option('--json', 'print the report as JSON instead of Markdown')
    .option('--time-scale <n>', 'simulated seconds per real second', parseTimeScale, 10)
    .action(async (options: { scenario: string; yes?: boolean; json?: boolean; timeScale: number }) => {
      // Ctrl-C (or SIGTERM) stops the demo cleanly: simulator and server stopped, temporary data
      // directory removed, exit 128 + the signal's number. Repeated signals (a terminal and a
      // re-executing launcher both deliver Ctrl-C) do not cut the cleanup short.
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
            timeScale: options.timeScale,
            json: options.json ?? false,
            signal: controller.signal,
          },
          { stdout: process.stdout, stderr: process.stderr, terminal: process.stderr.isTTY === true },
        );
        if (!succeeded(report)) process.exitCode = 1;
      } catch (error) {
        if (!(error instanceof DemoInterrupted) || !received) throw error;
        process.stderr.write(
          'Demo stopped. Nothing is left behind: the simulated cluster, its server and their data are gone, so there is nothing to resume. Run `sentinel demo` to start again.\n',
        );
        // A prompt may still be reading stdin: end the process here rather than wait for input.
        process.exit(128 + osConstants.signals[received]);
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });

  program
    .command('eval')
    .description(
      'Run the local investigator against every scenario (approving whatever it asks) and score it: culprit, diagnosis, remediation, unapproved mutations',
    )
    .option('--scenarios <dir>', 'directory of scenario YAML files', SCENARIOS_DIR)
    .option('--json', 'print one JSON object per scenario (a JSON array) instead of a table')
    .option('--time-scale <n>', 'simulated seconds per real second', parseTimeScale, 10)
    .action(async (options: { scenarios: string; json?: boolean; timeScale: number }) => {
      const files = scenarioFiles(options.scenarios);
      const results: EvalResult[] = [];
      for (const file of files) {
        process.stderr.write(`eval: ${file}\n`);
        results.push(await evaluateScenario(file, { timeScale: options.timeScale }));
      }
      process.stdout.write(
        options.json ? `${JSON.stringify(results, null, 2)}\n` : `${renderEvalTable(results)}\n`,
      );
      const allCorrect = results.every(fullyCorrect);
      if (!allCorrect) process.exitCode = 1;
    });
}
