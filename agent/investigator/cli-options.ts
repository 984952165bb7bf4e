/**
 * The options `sentinel investigate` takes for the local investigator (the harness has its own in
 * agent/harness/cli-options.ts).
 */
import { Option, type Command } from 'commander';
import { dataDirOption } from '../../server/index.ts';

/** Adds --namespace, --deployment, --json, --resume, --kubeconfig, --context and --data-dir. */
export function addLocalInvestigateOptions(command: Command): Command {
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
