/**
 * `sentinel policy test`: which policy rule a call matches and what it decides, offline (runs nothing).
 */
import { resolve } from 'node:path';
import { allTools, didYouMean, createRegistry, type ToolRegistry } from '../../tools/index.ts';
import { SentinelError } from '../../core/index.ts';
import { parseToolArguments } from '../arguments.ts';
import { defaultTokensFile, resolveDataDir } from '../data-dir.ts';
import type { Identity } from '../identity.ts';
import { createIdentityStore } from '../identity-store.ts';
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
  if (!tool) {
    throw new SentinelError(
      'invalid_input',
      `Unknown tool '${options.tool}': nothing was evaluated.${didYouMean(
        options.tool,
        registry.tools.map((known) => known.name),
      )} The tools are: ${registry.tools.map((known) => known.name).join(', ')}.`,
      { field: '--tool' },
    );
  }
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
