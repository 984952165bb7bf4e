/**
 * `sentinel harness register`: creates or updates, in a TrueForge harness, the MCP connector and the
 * agent that run Sentinel (see register.ts).
 */
import { Option, type Command } from 'commander';
import { SentinelError } from '../../tools/errors.ts';
import { DEFAULT_AGENT_SPEC_PATH, loadAgentSpec } from './agent-spec-source.ts';
import {
  harnessClient,
  harnessTokenOption,
  harnessUrlOption,
  serverUrlOption,
  timeoutOption,
  type HarnessCliOptions,
} from './cli-options.ts';
import { HARNESS_IDENTITY } from './names.ts';
import { registerWithHarness } from './register.ts';

interface RegisterCliOptions extends HarnessCliOptions {
  model?: string;
  trueforgeToken?: string;
  spec: string;
}

/** Adds `sentinel harness register`. */
export function registerHarnessCommand(program: Command): void {
  const harness = program.command('harness').description('Run Sentinel in a TrueForge harness');
  harness
    .command('register')
    .description(
      `Create or update the MCP connector and the agent named 'sentinel' in a TrueForge harness (idempotent)`,
    )
    .option('--model <name>', "model the agent runs on, as the harness names it (default: the spec's)")
    .addOption(harnessUrlOption().makeOptionMandatory())
    .addOption(harnessTokenOption())
    .addOption(serverUrlOption('Sentinel MCP URL as the harness reaches it'))
    .addOption(
      new Option(
        '--trueforge-token <token>',
        `bearer token of the Sentinel identity '${HARNESS_IDENTITY}' (a caller) for the connector`,
      ).env('SENTINEL_TRUEFORGE_TOKEN'),
    )
    .addOption(
      new Option('--spec <path>', 'agent spec to register').default(
        DEFAULT_AGENT_SPEC_PATH,
        'agent-spec/sentinel.agent.json',
      ),
    )
    .addOption(timeoutOption())
    .action(async (options: RegisterCliOptions & { harness: string }) => {
      if (!options.trueforgeToken) {
        throw new SentinelError(
          'invalid_input',
          `The connector needs the token of the Sentinel identity '${HARNESS_IDENTITY}': pass --trueforge-token or set SENTINEL_TRUEFORGE_TOKEN (create it with \`sentinel tokens add ${HARNESS_IDENTITY} --role caller\`).`,
          { field: 'trueforge-token' },
        );
      }
      const result = await registerWithHarness(harnessClient(options), {
        serverUrl: options.server,
        trueforgeToken: options.trueforgeToken,
        spec: loadAgentSpec(options.spec),
        model: options.model,
      });
      const write = (line: string) => process.stdout.write(`${line}\n`);
      write(
        `MCP server '${result.connector.name}' ${result.connector.action}: ${options.server} (auth ${result.connector.authStatus})`,
      );
      write(
        `Agent '${result.agent.name}' ${result.agent.action}: id ${result.agent.id}, model ${result.agent.model}`,
      );
    });
}
