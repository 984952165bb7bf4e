/**
 * The approval gate as a `sentinel serve` plugin: loads the policy (`--policy`, default the shipped
 * file; a policy that fails to load stops the server with its file, line and field), opens the
 * SQLite store in the data directory, settles executions a crashed server left behind, and adds the
 * `tools/call` middleware and the approvals API (behind bearer authentication).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Tool } from '../../tools/define-tool.ts';
import { SentinelError, toSentinelError } from '../../tools/errors.ts';
import type { KubeConnection } from '../../tools/kube/types.ts';
import { errorResult } from '../pipeline.ts';
import type { ServerPlugin } from '../plugins.ts';
import { createGate, type PreviewFn } from './index.ts';
import { DEFAULT_POLICY_PATH, loadPolicyFile } from './policy/load.ts';
import { openSqliteStore } from './store/sqlite.ts';

/** How long a preview for `POST /approvals` may take (ms). */
const PREVIEW_TIMEOUT_MS = 30_000;

/** Runs a tool's dry run with the cluster's read-only client (no writer), outside any `tools/call`. */
export function previewWith(kube: () => KubeConnection): PreviewFn {
  return async (tool: Tool, args: Record<string, unknown>): Promise<CallToolResult> => {
    const connection = kube();
    try {
      if (!connection.configured) throw new SentinelError('unavailable', connection.reason);
      const output = await tool.handler(tool.input.parse({ ...args, dry_run: true }), {
        kube: connection.reader,
        cluster: connection.cluster,
        signal: AbortSignal.timeout(PREVIEW_TIMEOUT_MS),
        dryRun: true,
      });
      return {
        content: [{ type: 'text', text: output.text }],
        ...(output.structured && { structuredContent: output.structured }),
      };
    } catch (error) {
      return errorResult(toSentinelError(error));
    }
  };
}

export const gatePlugin: ServerPlugin = async (context) => {
  const { registry, identities, kube, logger } = context;
  const policyFile = context.policyFile ?? DEFAULT_POLICY_PATH;
  const loaded = loadPolicyFile(policyFile, registry);
  for (const warning of loaded.warnings) logger.warn({ policy: policyFile }, warning);
  logger.info({ policy: policyFile, rules: loaded.policy.rules.length }, 'approval policy loaded');
  const store = openSqliteStore({ dataDir: context.dataDir });
  const gate = createGate({
    registry,
    policy: loaded.policy,
    store,
    logger,
    findIdentity: (name) => identities.get(name),
    cluster: () => {
      const connection = kube();
      return connection.configured ? connection.cluster : undefined;
    },
    preview: previewWith(kube),
  });
  const connection = kube();
  const report = await gate.reconcile(connection.configured ? connection.reader : undefined);
  if (report.applied.length + report.notApplied.length + report.unresolved.length > 0) {
    logger.warn({ ...report }, 'settled executions interrupted by the previous server run');
  }
  const router = gate.router();
  return {
    middlewares: [gate.middleware],
    routes: [
      (app, deps) => {
        app.use(['/approvals', '/freeze'], deps.authenticate);
        app.use(router);
      },
    ],
    close: () => gate.close(),
  };
};
