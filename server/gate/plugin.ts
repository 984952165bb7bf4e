/**
 * The approval gate as a `sentinel serve` plugin: loads the policy (`--policy`, default the shipped
 * file; a policy that fails to load stops the server with its file, line and field), opens the
 * SQLite store in the data directory, settles executions a crashed server left behind, and adds the
 * `tools/call` middleware and the approvals API (behind bearer authentication).
 */
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Tool, KubeReader } from '../../tools/index.ts';
import type { ClusterAccess } from '../kube.ts';
import { SentinelError, toSentinelError } from '../../core/index.ts';
import {
  loadAgentSpec,
  sentinelServerEntry,
  DEFAULT_REQUIRE_APPROVAL_FOR_TOOLS,
  requiresApproval,
} from '../../agent-spec/index.ts';
import { errorResult } from '../pipeline.ts';
import { runTool } from '../run-tool.ts';
import type { ServerPlugin } from '../plugins.ts';
import type { Logger } from 'pino';
import { credentialOf } from '../identity.ts';
import type { IdentityStore } from '../identity-store.ts';
import { createGate, type PreviewFn } from './index.ts';
import { DEFAULT_POLICY_PATH, loadPolicyFile } from './policy/load.ts';
import { openSqliteStore, STORE_FILE } from './store/sqlite.ts';
import type { ApprovalStore } from './store/types.ts';
import { createUpstreamVerifier } from './upstream.ts';
import { APPROVAL_EVENT_TYPES, type ApprovalEvent } from './events.ts';
import type { EventBridge, RemoteEventNote } from '../postgres/events.ts';
import { randomUUID } from 'node:crypto';

/**
 * Which tools the harness gates for a `trust_upstream_approval` identity: those the agent spec's
 * `require_approval_for_tools` selects (with the annotations the harness receives). When the spec
 * cannot be read, none: every call of such an identity then needs a server-side approval.
 */
export function upstreamGatedBySpec(logger: Logger): (tool: Tool) => boolean {
  try {
    const entry = sentinelServerEntry(loadAgentSpec());
    const selectors = entry.require_approval_for_tools ?? DEFAULT_REQUIRE_APPROVAL_FOR_TOOLS;
    return (tool) => requiresApproval(tool.name, tool.annotations, selectors);
  } catch (error) {
    logger.warn({ err: error }, 'agent spec unreadable: upstream approval is trusted for no tool');
    return () => false;
  }
}

/**
 * The `trust_upstream_approval` identities in tokens.yaml now, as `name:credential` (the gate warns
 * about any other trusted identity when it first calls). Empty when tokens.yaml cannot be read.
 */
export function trustedIdentities(identities: Pick<IdentityStore, 'list'>): Set<string> {
  try {
    return new Set(
      identities
        .list()
        .filter((record) => record.trust_upstream_approval === true)
        .map((record) => `${record.name}:${credentialOf(record.token_sha256)}`),
    );
  } catch {
    return new Set();
  }
}

/** Whether tokens.yaml can be read and validated now (`list` throws its load error otherwise). */
function readable(identities: Pick<IdentityStore, 'list'>): boolean {
  try {
    identities.list();
    return true;
  } catch {
    return false;
  }
}

/** How often a replica on a shared store looks for executions of replicas that stopped (ms). */
const ORPHAN_SWEEP_MS = 2_000;

/** How long a preview for `POST /approvals` may take (ms). */
const PREVIEW_TIMEOUT_MS = 30_000;

/** Runs a tool's dry run with the cluster's read-only client (no writer), outside any `tools/call`. */
export function previewWith(kube: ClusterAccess): PreviewFn {
  return async (tool: Tool, args: Record<string, unknown>): Promise<CallToolResult> => {
    const connection = await kube();
    try {
      if (!connection.configured) throw new SentinelError('unavailable', connection.reason);
      return await runTool(tool, tool.input.parse({ ...args, dry_run: true }), {
        kube: connection.reader,
        cluster: connection.cluster,
        signal: AbortSignal.timeout(PREVIEW_TIMEOUT_MS),
        dryRun: true,
      });
    } catch (error) {
      return errorResult(toSentinelError(error));
    }
  };
}

/** The cluster's reader, connecting on first need; undefined when no cluster is configured. */
function readerOf(kube: ClusterAccess): () => Promise<KubeReader | undefined> {
  return async () => {
    const connection = await kube();
    return connection.configured ? connection.reader : undefined;
  };
}

/**
 * Relays the other replicas' approval events to this one's live views: through PostgreSQL
 * (`LISTEN/NOTIFY`) on a shared PostgreSQL store, else from the other `--workers` workers through
 * the primary. Undefined for a server alone on its store.
 */
async function bridgeEvents(
  context: Parameters<ServerPlugin>[0],
  store: ApprovalStore,
): Promise<EventBridge | undefined> {
  const { approvals, logger } = context;
  const onRemote = (note: RemoteEventNote) => {
    if (!APPROVAL_EVENT_TYPES.includes(note.type as ApprovalEvent['type'])) return;
    store
      .get(note.id)
      .then((request) => {
        if (request) approvals.publishRemote({ type: note.type as ApprovalEvent['type'], request });
      })
      .catch((error: unknown) => logger.warn({ err: error }, 'remote approval event not read back'));
  };
  if (context.storeUrl === undefined) return context.worker?.bridge(onRemote);
  const { startEventBridge } = await import('../postgres/events.ts');
  return startEventBridge({ url: context.storeUrl, replica: randomUUID(), logger, onRemote });
}

/**
 * With a shared store, executions of a replica that died are settled by a surviving one: looks for
 * orphans (the store returns only those whose replica is gone) every few seconds.
 */
function sweepOrphans(
  context: Parameters<ServerPlugin>[0],
  gate: ReturnType<typeof createGate>,
): NodeJS.Timeout {
  const { kube, logger } = context;
  let running = false;
  const sweep = setInterval(() => {
    if (running) return;
    running = true;
    gate
      .reconcile(readerOf(kube))
      .then((settled) => {
        if (settled.applied.length + settled.notApplied.length > 0) {
          logger.warn({ ...settled }, 'settled executions of a replica that stopped');
        }
      })
      .catch((error: unknown) => logger.warn({ err: error }, 'orphaned execution sweep failed'))
      .finally(() => (running = false));
  }, ORPHAN_SWEEP_MS);
  sweep.unref();
  return sweep;
}

export const gatePlugin: ServerPlugin = async (context) => {
  const { registry, identities, kube, logger, approvals } = context;
  const policyFile = context.policyFile ?? DEFAULT_POLICY_PATH;
  const loaded = loadPolicyFile(policyFile, registry);
  for (const warning of loaded.warnings) logger.warn({ policy: policyFile }, warning);
  logger.info({ policy: policyFile, rules: loaded.policy.rules.length }, 'approval policy loaded');
  const store =
    context.storeUrl === undefined
      ? openSqliteStore({ dataDir: context.dataDir })
      : // Loaded only for a PostgreSQL store: a SQLite server never loads the `pg` driver.
        await (await import('./store/postgres.ts')).openPostgresStore({ url: context.storeUrl });
  // A shared store: the other replicas' approval events reach this one's live views (the page).
  const bridge = await bridgeEvents(context, store);
  // The pending message links to where approvers act: the server's real address, known once it listens.
  let baseUrl: string | undefined;
  const gate = createGate({
    approvalsUrl: () => baseUrl,
    // Said by `freeze status`: the freeze is the store's, so every server on it is frozen together.
    storeLocation: context.storeUrl === undefined ? join(context.dataDir, STORE_FILE) : 'postgresql',
    trustedAtStart: trustedIdentities(context.identities),
    registry,
    policy: loaded.policy,
    store,
    logger,
    findIdentity: (name) => identities.get(name),
    identitiesReadable: () => readable(identities),
    cluster: async () => {
      const connection = await kube();
      return connection.configured ? connection.cluster : undefined;
    },
    preview: previewWith(kube),
    upstreamGated: upstreamGatedBySpec(logger),
    // trust_upstream_approval is honoured only on an allow the identity's harness shows.
    upstreamVerifier: createUpstreamVerifier(),
    // Notifications, metrics, audit and the approvals page follow the requests through the hub.
    onEvent: (event) => {
      approvals.publish(event);
      const request = (event as { request?: { id?: unknown } }).request;
      if (bridge && typeof request?.id === 'string') bridge.notify(event.type, request.id);
    },
  });
  approvals.provide(gate.approvals);
  // The cluster is connected only if an execution was interrupted (the reader is asked for lazily).
  const report = await gate.reconcile(readerOf(kube));
  if (report.applied.length + report.notApplied.length + report.unresolved.length > 0) {
    logger.warn({ ...report }, 'settled executions interrupted by the previous server run');
  }
  // With a shared store, executions of a replica that died are settled by a surviving one: look
  // for orphans (the store returns only those whose replica is gone) every few seconds.
  const shared = context.storeUrl !== undefined || context.worker !== undefined;
  const orphanSweep = shared ? sweepOrphans(context, gate) : undefined;
  const router = gate.router();
  return {
    announce: (url) => {
      baseUrl = url;
      return [];
    },
    middlewares: [gate.middleware],
    routes: [
      (app, deps) => {
        app.use(['/approvals', '/freeze'], deps.authenticate);
        app.use(router);
      },
    ],
    close: async () => {
      clearInterval(orphanSweep);
      await bridge?.close();
      return gate.close();
    },
  };
};
