/**
 * `sentinel harness register`: creates or updates, in a TrueForge harness, the MCP connector and the
 * agent that run Sentinel (see register.ts).
 */
import { Option, type Command } from 'commander';
import { DEFAULT_AGENT_SPEC_PATH } from '../agent-spec/light.ts';
import type { HarnessConnectionOptions } from '../agent/index.ts';
import { HARNESS_IDENTITY } from '../agent/light.ts';
import { defaultTokensFile, resolveDataDir } from '../server/light.ts';
import {
  dataDirOption,
  harnessTokenOption,
  harnessUrlOption,
  mcpServerUrlOption,
  timeoutOption,
} from './options.ts';

interface RegisterCliOptions extends HarnessConnectionOptions {
  harness: string;
  model?: string;
  trueforgeToken?: string;
  spec: string;
  dataDir?: string;
  rotateToken?: boolean;
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
    .addOption(mcpServerUrlOption('Sentinel MCP URL as the harness reaches it'))
    .addOption(
      new Option(
        '--trueforge-token <token>',
        `token of the Sentinel identity '${HARNESS_IDENTITY}' for the connector (default: the one in <data-dir>/${HARNESS_IDENTITY}.token, or a new identity)`,
      ).env('SENTINEL_TRUEFORGE_TOKEN'),
    )
    .option(
      '--rotate-token',
      `issue a new token for '${HARNESS_IDENTITY}' (default: keep the one in <data-dir>/${HARNESS_IDENTITY}.token)`,
    )
    .addOption(dataDirOption())
    .addOption(
      new Option('--spec <path>', 'agent spec to register').default(
        DEFAULT_AGENT_SPEC_PATH,
        'agent-spec/sentinel.agent.json',
      ),
    )
    .addOption(timeoutOption())
    .action(async (options: RegisterCliOptions) => {
      // Imported when the command runs, each through its module's index.ts (lint: no deep imports).
      const [
        { harnessClient, harnessToken, harnessTokenFile, registerWithHarness },
        { createIdentityStore },
        { allTools },
        { loadAgentSpec },
      ] = await Promise.all([
        import('../agent/index.ts'),
        import('../server/index.ts'),
        import('../tools/index.ts'),
        import('../agent-spec/index.ts'),
      ]);
      const write = (line: string) => process.stdout.write(`${line}\n`);
      const spec = loadAgentSpec(options.spec);
      const issueToken = () => {
        const dataDir = resolveDataDir(options.dataDir);
        const store = createIdentityStore({ tokensFile: defaultTokensFile(dataDir) });
        const { token, action } = harnessToken(store, harnessTokenFile(dataDir), {
          rotate: options.rotateToken ?? false,
        });
        const what = { created: 'created', kept: 'kept its token', rotated: 'given a new token' }[action];
        write(`Sentinel identity '${HARNESS_IDENTITY}' (caller) ${what} in ${store.tokensFile}`);
        return token;
      };
      const result = await registerWithHarness(harnessClient(options), {
        serverUrl: options.server,
        trueforgeToken: options.trueforgeToken ?? issueToken,
        spec,
        tools: allTools,
        model: options.model,
      });
      write(
        `MCP server '${result.connector.name}' ${result.connector.action}: ${options.server} (auth ${result.connector.authStatus})`,
      );
      write(
        `Agent '${result.agent.name}' ${result.agent.action}: id ${result.agent.id}, model ${result.agent.model}`,
      );
    });
}
