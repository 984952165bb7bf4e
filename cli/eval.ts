/**
 * `sentinel eval`: the local investigator against every scenario, scored.
 */
import type { Command } from 'commander';
import type { EvalResult } from '../agent/index.ts';
import { SCENARIOS_DIR } from '../deploy/light.ts';
import { parseTimeScale, readCacheOption } from './options.ts';

/** Adds `sentinel eval`. */
export function registerEvalCommand(program: Command): void {
  program
    .command('eval')
    .description(
      'Run the local investigator against every scenario (approving whatever it asks) and score it: culprit, diagnosis, remediation, facts, warnings, untouched objects, log reads, unapproved mutations',
    )
    .option('--scenarios <dir>', 'directory of scenario YAML files', SCENARIOS_DIR)
    .option(
      '--json',
      'print one JSON object per investigation (a scenario with steps has several; a JSON array) instead of a table',
    )
    .option('--time-scale <n>', 'simulated seconds per real second', parseTimeScale, 10)
    .addOption(readCacheOption())
    .action(async (options: { scenarios: string; json?: boolean; timeScale: number; readCache?: string }) => {
      const { evaluateScenario, fullyCorrect, renderEvalTable, scenarioFiles } =
        await import('../agent/index.ts');
      const { parseReadCacheMode } = await import('../server/index.ts');
      const readCache = parseReadCacheMode(options.readCache);
      const files = scenarioFiles(options.scenarios);
      const results: EvalResult[] = [];
      for (const file of files) {
        process.stderr.write(`eval: ${file}\n`);
        results.push(...(await evaluateScenario(file, { timeScale: options.timeScale, readCache })));
      }
      process.stdout.write(
        options.json ? `${JSON.stringify(results, null, 2)}\n` : `${renderEvalTable(results)}\n`,
      );
      const allCorrect = results.every(fullyCorrect);
      if (!allCorrect) process.exitCode = 1;
    });
}
