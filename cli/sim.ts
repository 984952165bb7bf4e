/**
 * CLI registrar of the simulator: `sentinel sim --scenario <name|file> [--port 0]
 * [--kubeconfig-out <file>] [--time-scale <n>] [--audit-log <file>]`. Runs until Ctrl-C (SIGINT) or SIGTERM.
 */
import { Option, type Command } from 'commander';
import { resolve } from 'node:path';
import { SentinelError } from '../core/light.ts';
import { listScenarios } from '../deploy/light.ts';
import { parsePort, parseTimeScale } from './options.ts';

interface SimCommandOptions {
  scenario: string;
  port: number;
  kubeconfigOut: string;
  timeScale: number;
  auditLog?: string;
}

/** Adds `sim` to the program. */
export function registerSimCommand(program: Command): void {
  program
    .command('sim')
    .description(
      'Run the embedded Kubernetes API simulator (HTTPS on 127.0.0.1) with an incident scenario, and write a kubeconfig for it.',
    )
    .addOption(
      new Option(
        '--scenario <name|file>',
        `bundled scenario (${listScenarios().join(', ')}) or a scenario YAML file`,
      ).makeOptionMandatory(),
    )
    .option('--port <port>', 'TCP port on 127.0.0.1; 0 picks a free one', parsePort, 0)
    .option('--kubeconfig-out <file>', 'where to write the kubeconfig', './sentinel-sim.kubeconfig')
    .option('--time-scale <n>', 'simulated seconds per real second', parseTimeScale, 1)
    .option(
      '--audit-log <file>',
      'append one JSON line per API request (like kube-apiserver --audit-log-path)',
    )
    .action(async (options: SimCommandOptions) => {
      const { startSimulator } = await import('../deploy/index.ts');
      const kubeconfigPath = resolve(options.kubeconfigOut);
      const sim = await startSimulator({
        scenario: options.scenario,
        port: options.port,
        timeScale: options.timeScale,
        kubeconfigPath,
        ...(options.auditLog && { auditLogPath: resolve(options.auditLog) }),
        onInternalError: (error) =>
          process.stderr.write(
            `sim: internal error: ${error instanceof Error ? error.message : String(error)}\n`,
          ),
      }).catch((error: unknown) => {
        throw portInUse(error, options.port) ?? error;
      });
      const namespaces = sim.scenario.namespaces.join(',');
      process.stdout.write(
        [
          `Kubernetes API simulator listening on ${sim.url} (scenario ${sim.scenario.name}, time scale ${options.timeScale})`,
          `kubeconfig: ${kubeconfigPath}`,
          `try: kubectl --kubeconfig ${kubeconfigPath} get pods -n ${sim.scenario.namespaces[0]}`,
          `symptom: ${sim.scenario.symptom}`,
          `namespaces: ${namespaces}. Press Ctrl-C to stop.`,
          '',
        ].join('\n'),
      );
      await new Promise<void>((resolveStop) => {
        const stop = () => resolveStop();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await sim.close();
      process.stdout.write('simulator stopped\n');
    });
}

/**
 * A port in use is a configuration error to fix with --port (exit 2, in the words `serve` uses),
 * not an unreachable dependency; undefined for any other failure.
 */
function portInUse(error: unknown, port: number): SentinelError | undefined {
  const cause = error instanceof Error ? (error.cause as NodeJS.ErrnoException | undefined) : undefined;
  if (cause?.code !== 'EADDRINUSE') return undefined;
  return new SentinelError(
    'invalid_input',
    `Port ${port} on 127.0.0.1 is already in use; choose another with --port (0 picks a free one).`,
    { field: '--port', cause: error },
  );
}
