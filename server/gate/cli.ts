/**
 * CLI registrar of the approval gate: `sentinel policy test` (which rule a call matches, offline)
 * and `sentinel freeze on|off|status` (against a running server, admin token).
 */
import { Option, type Command } from 'commander';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { allTools } from '../../tools/index.ts';
import { SentinelError } from '../../tools/errors.ts';
import { createRegistry, type ToolRegistry } from '../../tools/registry.ts';
import { parseToolArguments } from '../arguments.ts';
import { dataDirOption, defaultTokensFile, localTokenFile, resolveDataDir } from '../data-dir.ts';
import type { Identity } from '../identity.ts';
import { createIdentityStore } from '../identity-store.ts';
import { serverBaseUrl, serverUrlOption } from '../server-url.ts';
import { ApiErrorSchema, FreezeStateSchema, type FreezeState } from './approval-request.ts';
import { DEFAULT_POLICY_PATH, loadPolicyFile } from './policy/load.ts';
import type { Verdict } from './policy/evaluate.ts';

export interface PolicyTestOptions {
  tool: string;
  /** JSON object text. */
  args: string;
  identity?: string;
  cluster?: string;
  policy?: string;
  dataDir?: string;
  tokensFile?: string;
}

export interface PolicyTestReport {
  policy: string;
  tool: string;
  risk: string | null;
  arguments: Record<string, unknown>;
  identity: Identity | null;
  cluster: string | null;
  verdict: Verdict;
  /** True when the identity's trust_upstream_approval turns this `ask` into a run on the harness's approval. */
  upstreamApproval: boolean;
}

/**
 * Evaluates one call against a policy file without running anything. Throws
 * `SentinelError('invalid_input')` for JSON that is not an object, arguments the tool's schema
 * rejects (naming the field), an unknown `--identity`, or a policy that does not load.
 */
export function runPolicyTest(
  options: PolicyTestOptions,
  registry: ToolRegistry = createRegistry(allTools),
): PolicyTestReport {
  const policyFile = options.policy === undefined ? DEFAULT_POLICY_PATH : resolve(options.policy);
  const { policy } = loadPolicyFile(policyFile, registry);
  let raw: unknown;
  try {
    raw = JSON.parse(options.args);
  } catch (error) {
    throw new SentinelError('invalid_input', `--args is not valid JSON: ${(error as Error).message}.`, {
      field: '--args',
    });
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new SentinelError('invalid_input', '--args must be a JSON object, e.g. \'{"namespace":"shop"}\'.', {
      field: '--args',
    });
  }
  const tool = registry.get(options.tool);
  const args = tool ? parseToolArguments(tool, raw) : (raw as Record<string, unknown>);
  let identity: Identity | undefined;
  if (options.identity !== undefined) {
    const tokensFile =
      options.tokensFile === undefined
        ? defaultTokensFile(resolveDataDir(options.dataDir))
        : resolve(options.tokensFile);
    identity = createIdentityStore({ tokensFile }).get(options.identity);
    if (!identity) {
      throw new SentinelError('invalid_input', `--identity '${options.identity}' is not in ${tokensFile}.`, {
        field: '--identity',
      });
    }
  }
  const verdict = policy.evaluate({
    toolName: options.tool,
    tool,
    args,
    cluster: options.cluster,
    ...(identity && { identity }),
  });
  return {
    policy: policyFile,
    tool: options.tool,
    risk: tool?.risk ?? null,
    arguments: args,
    identity: identity ?? null,
    cluster: options.cluster ?? null,
    verdict,
    upstreamApproval:
      verdict.decision === 'ask' && identity?.trustUpstreamApproval === true && tool?.risk !== 'read',
  };
}

/** Human-readable lines of a policy test. */
export function formatPolicyTest(report: PolicyTestReport): string {
  const { verdict } = report;
  const validity = verdict.validity === 'once' ? 'once' : `window ${verdict.validity.window}`;
  const lines = [
    `Policy:    ${report.policy}`,
    `Tool:      ${report.tool} (${report.risk ?? 'not registered'})`,
    `Arguments: ${JSON.stringify(report.arguments)}`,
    `Identity:  ${report.identity ? `${report.identity.name} (${report.identity.roles.join(', ')})` : '(any)'}`,
    `Cluster:   ${report.cluster ?? '(any; rules with a cluster condition do not match)'}`,
    `Rule:      ${verdict.rule}${verdict.rules.length > 1 ? ` (also: ${verdict.rules.slice(1).join(', ')})` : ''}`,
    `Decision:  ${verdict.decision}${verdict.dryRun ? ' (dry run)' : ''}`,
    `Reason:    ${verdict.reason}`,
  ];
  if (verdict.decision === 'ask') {
    lines.push(
      `Validity:  up to ${validity}`,
      `Approvers: ${verdict.approvers.join(', ')} (admins as fallback; never the requester)`,
    );
  }
  if (report.upstreamApproval) {
    lines.push(
      `Note:      ${report.identity?.name} has trust_upstream_approval: this call runs on the harness's approval, verified against ${report.identity?.upstreamHarness?.url ?? 'its harness'} (a matching allow no older than ${report.identity?.upstreamHarness?.max_age ?? '2m'}, used once).`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** `--token`, SENTINEL_TOKEN, else the `local` token the server generated in the data dir. */
function tokenFor(options: { token?: string; dataDir?: string }): string {
  if (options.token) return options.token;
  const file = localTokenFile(resolveDataDir(options.dataDir));
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    throw new SentinelError(
      'invalid_input',
      `No token: give --token or SENTINEL_TOKEN (an admin's), or run the server so ${file} exists.`,
      {
        field: '--token',
      },
    );
  }
}

/**
 * `GET|POST|DELETE /freeze` on a running server. Throws `SentinelError` with the server's message
 * (403 for a non-admin token) or `unavailable` when the server cannot be reached.
 */
export async function requestFreeze(
  options: { server: string; token?: string; dataDir?: string },
  change: { frozen: true; reason: string } | { frozen: false } | undefined,
): Promise<FreezeState> {
  const url = `${serverBaseUrl(options.server)}/freeze`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: change === undefined ? 'GET' : change.frozen ? 'POST' : 'DELETE',
      headers: {
        authorization: `Bearer ${tokenFor(options)}`,
        ...(change?.frozen && { 'content-type': 'application/json' }),
      },
      ...(change?.frozen && { body: JSON.stringify({ reason: change.reason }) }),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    throw new SentinelError(
      'unavailable',
      `Cannot reach the Sentinel server at ${url}: ${(error as Error).message}.`,
      {
        cause: error,
      },
    );
  }
  const body: unknown = await response.json().catch(() => undefined);
  if (!response.ok) {
    const apiError = ApiErrorSchema.safeParse(body);
    const message = apiError.success ? apiError.data.error.message : `HTTP ${response.status}`;
    throw new SentinelError(
      response.status === 401 || response.status === 403 ? 'forbidden' : 'unavailable',
      message,
    );
  }
  return FreezeStateSchema.parse(body);
}

function formatFreeze(state: FreezeState): string {
  return state.frozen
    ? `Changes are FROZEN since ${state.since} by ${state.by}: ${state.reason}\nWrite and destructive calls are denied; reads and dry runs continue.\n`
    : 'Changes are not frozen.\n';
}

export function registerGateCommands(program: Command): void {
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
    .option('--tokens-file <file>', 'identities file (default <data-dir>/tokens.yaml)')
    .addOption(dataDirOption())
    .option('--json', 'print the result as JSON', false)
    .action((options: PolicyTestOptions & { json: boolean }) => {
      const report = runPolicyTest(options);
      process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatPolicyTest(report));
    });

  const serverOption = () => serverUrlOption('Sentinel server URL (base or /mcp)', 'base');
  const tokenOption = () =>
    new Option('--token <token>', "an admin's bearer token (default: <data-dir>/local.token)").env(
      'SENTINEL_TOKEN',
    );
  const freeze = program
    .command('freeze')
    .description(
      'Freeze changes on a running server: every write/destructive call is denied; reads continue (admin).',
    );
  freeze
    .command('on')
    .description('Deny every write/destructive call with the given reason until `sentinel freeze off`.')
    .requiredOption('--reason <text>', 'why changes are frozen; shown to every caller')
    .addOption(serverOption())
    .addOption(tokenOption())
    .addOption(dataDirOption())
    .action(async (options: { reason: string; server: string; token?: string; dataDir?: string }) => {
      process.stdout.write(
        formatFreeze(await requestFreeze(options, { frozen: true, reason: options.reason })),
      );
    });
  freeze
    .command('off')
    .description('Lift the freeze.')
    .addOption(serverOption())
    .addOption(tokenOption())
    .addOption(dataDirOption())
    .action(async (options: { server: string; token?: string; dataDir?: string }) => {
      process.stdout.write(formatFreeze(await requestFreeze(options, { frozen: false })));
    });
  freeze
    .command('status')
    .description('Show whether changes are frozen.')
    .addOption(serverOption())
    .addOption(tokenOption())
    .addOption(dataDirOption())
    .action(async (options: { server: string; token?: string; dataDir?: string }) => {
      process.stdout.write(formatFreeze(await requestFreeze(options, undefined)));
    });
}
