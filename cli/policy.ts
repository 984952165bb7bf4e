/**
 * `sentinel policy test`: which rule a call matches and what it decides, offline.
 */
import type { Command } from 'commander';
import type { PolicyTestOptions } from '../server/index.ts';
import { dataDirOption, tokensFileOption } from './options.ts';

/** Adds `sentinel policy test`. */
export function registerPolicyCommands(program: Command): void {
  program
    .command('policy')
    .description('Inspect the approval policy.')
    .command('test')
    .description('Show which policy rule a call matches and what it decides (runs nothing).')
    .requiredOption('--tool <name>', 'tool name, e.g. rollback_deployment')
    .option('--args <json>', 'the call arguments as a JSON object', '{}')
    .option('--identity <name>', 'calling identity from tokens.yaml (for requester rules and upstream trust)')
    .option('--cluster <context>', 'kubeconfig context name the call would run against')
    .option('--policy <file>', 'policy file (default: the shipped server/gate/default-policy.yaml)')
    .addOption(tokensFileOption())
    .addOption(dataDirOption())
    .option('--json', 'print the result as JSON', false)
    .action(async (options: PolicyTestOptions & { json: boolean }) => {
      // Imported when the command runs, through server/index.ts (lint: no deep imports, dynamic too).
      const { formatPolicyTest, runPolicyTest } = await import('../server/index.ts');
      const report = runPolicyTest(options);
      process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatPolicyTest(report));
    });
}
