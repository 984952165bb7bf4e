/**
 * Before a new local investigation starts: the namespace (and the `--deployment`) it names must
 * exist on the cluster, read through the Sentinel server (`list_namespaces`, `list_deployments`).
 * A name that does not exist is a usage error naming the flag, with the close names that do exist
 * ("did you mean"), like kubectl's `namespaces "shpo" not found` — not an investigation of nothing.
 */
import { didYouMean, SentinelError } from '../../core/index.ts';
import type { ToolCaller, ToolInfo } from './mcp-client.ts';

/** The names a list tool answered (`key` rows' `name`), or undefined when it failed or was bounded. */
async function listedNames(
  caller: ToolCaller,
  tool: string,
  args: Record<string, unknown>,
  key: string,
): Promise<{ names: string[]; context: string | undefined } | undefined> {
  const result = await caller.call(tool, args);
  if (result.kind !== 'result' || !result.structured) return undefined;
  const { omitted, cluster } = result.structured as { omitted?: unknown; cluster?: { context?: unknown } };
  const rows = result.structured[key];
  // A bounded list ("N more") cannot tell that a name is missing.
  if (!Array.isArray(rows) || omitted !== 0) return undefined;
  return {
    names: rows.flatMap((row: { name?: unknown }) => (typeof row?.name === 'string' ? [row.name] : [])),
    context: typeof cluster?.context === 'string' ? cluster.context : undefined,
  };
}

/**
 * Throws `SentinelError('invalid_input')` (exit 2) naming `--namespace` when the cluster's
 * namespaces do not include `namespace`, or `--deployment` when the namespace's Deployments do not
 * include `deployment`, each with the close names. Checks nothing that cannot be told: a server
 * without `list_namespaces`, a call that fails (e.g. `forbidden` under a namespaced Role) or a list
 * bounded with "N more" let the investigation go on.
 */
export async function checkNamesOnCluster(
  caller: ToolCaller,
  tools: Map<string, ToolInfo>,
  target: { namespace: string; deployment?: string | undefined },
): Promise<void> {
  const { namespace, deployment } = target;
  if (tools.has('list_namespaces')) {
    const listed = await listedNames(caller, 'list_namespaces', {}, 'namespaces');
    if (listed && !listed.names.includes(namespace)) {
      const hint = didYouMean(namespace, listed.names);
      throw new SentinelError(
        'invalid_input',
        `--namespace '${namespace}': namespace ${namespace} not found${listed.context ? ` on cluster '${listed.context}'` : ''}.${hint || ' `kubectl get namespaces` lists the namespaces that exist.'}`,
        { field: 'namespace' },
      );
    }
  }
  if (deployment !== undefined && tools.has('list_deployments')) {
    const listed = await listedNames(caller, 'list_deployments', { namespace }, 'deployments');
    if (listed && !listed.names.includes(deployment)) {
      const hint = didYouMean(deployment, listed.names);
      throw new SentinelError(
        'invalid_input',
        `--deployment '${deployment}': Deployment ${deployment} not found in namespace ${namespace}.${hint || ` \`kubectl get deployments -n ${namespace}\` lists the Deployments that exist.`}`,
        { field: 'deployment' },
      );
    }
  }
}
