/**
 * Human oversight of the server as one plugin: Prometheus metrics (`/metrics`), the
 * hash-chained audit log, webhook notifications of new approval requests, and the approvals page
 * (`/ui/approvals`, with the one-time login URL `sentinel serve` prints).
 *
 * Its middlewares (metrics, then audit) must wrap the approval gate to see held and denied calls,
 * so this plugin comes before the gate in `serverPlugins`. Approval events and the approvals service
 * come from the gate through the `ApprovalsHub`.
 */
import {
  auditEventListener,
  auditRejectionListener,
  auditSettledListener,
  createAuditMiddleware,
  createUnauthenticatedAudit,
  openAuditLog,
  scheduleCheckpoints,
} from './audit/index.ts';
import { asyncAuditLog } from './audit/async-log.ts';
import { LOCAL_IDENTITY_NAME } from './identity.ts';
import {
  approvalMetricsListener,
  clusterExposition,
  createMetrics,
  createMetricsMiddleware,
  metricsRoute,
  registerReadCacheMetrics,
  type MetricsOptions,
  type SentinelMetrics,
} from './metrics/index.ts';
import { createNotifier, type NotifierOptions } from './notify/index.ts';
import type { RejectedCallListener } from './pipeline.ts';
import type { ServerPlugin } from './plugins.ts';
import type { ClusterAccess } from './kube.ts';
import type { ReadCacheStats } from '../tools/index.ts';
import {
  createSessionStore,
  createUiRouter,
  investigationVerification,
  PAGE_PATH,
  UI_PREFIX,
  type SessionStoreOptions,
} from './ui/index.ts';
import { dataDirSessionTables, postgresSessionTables } from './ui/session-tables.ts';

export interface OversightOptions {
  metrics?: MetricsOptions;
  notifications?: Pick<NotifierOptions, 'timeoutMs' | 'retries' | 'minBackoffMs'>;
  sessions?: SessionStoreOptions;
  /** How often the audit log's head is checkpointed to the data directory (ms). Default 60 s. */
  checkpointIntervalMs?: number;
  /** Window of the aggregated `unauthenticated` audit records (ms). Default 60 s. */
  unauthenticatedWindowMs?: number;
  /** Receives the metrics when the plugin starts (tests read them). */
  onMetrics?: (metrics: SentinelMetrics) => void;
}

/** Distinct remote addresses the unauthenticated-requests metric labels; later ones are `(other)`. */
const MAX_ADDRESS_LABELS = 100;

/**
 * Where refused calls go: an HTTP request refused for its token is counted (by route and remote
 * address) and aggregated into at most one audit record per source and window; every other refusal
 * (unknown tool, invalid arguments, a revoked stdio identity) gets its own record.
 */
function rejectionListener(
  metrics: SentinelMetrics,
  perCall: RejectedCallListener,
  unauthenticated: ReturnType<typeof createUnauthenticatedAudit>,
): RejectedCallListener {
  const addresses = new Set<string>();
  return (rejection) => {
    if (rejection.reason !== 'unauthenticated' || rejection.source === undefined) {
      perCall(rejection);
      return;
    }
    const { source, route = 'unknown' } = rejection;
    if (addresses.size < MAX_ADDRESS_LABELS) addresses.add(source);
    metrics.unauthenticatedRequests.inc({
      route,
      remote_address: addresses.has(source) ? source : '(other)',
    });
    unauthenticated.record({ at: rejection.at, source, route });
  };
}

/**
 * The read cache's stats when the cluster connection is made and has one; never starts the
 * connection (a scrape before the first tool call shows zeros).
 */
function readCacheStats(kube: ClusterAccess): ReadCacheStats | undefined {
  const made = kube.peek ? kube.peek() : kube();
  if (made === undefined || made instanceof Promise || !made.configured) return undefined;
  return made.readCache?.stats();
}

/** Builds the plugin (see the module comment). */
export function createOversightPlugin(options: OversightOptions = {}): ServerPlugin {
  return async ({ dataDir, approvals, identities, logger, storeUrl, worker, kube }) => {
    const metrics = createMetrics(options.metrics);
    registerReadCacheMetrics(metrics.registry, () => readCacheStats(kube));
    // Under --workers, /metrics on any worker answers with the sum over all of them.
    const workerMetrics = worker?.metrics(() => metrics.registry.getMetricsAsJSON());
    options.onMetrics?.(metrics);
    const countAuditFailure = () => metrics.auditWriteFailures.inc();
    // With a PostgreSQL store the log is shared by every replica; checkpoints of its head go to the
    // database's own backups instead of this replica's data dir.
    const shared =
      storeUrl === undefined
        ? undefined
        : await (await import('./audit/postgres.ts')).openPostgresAuditLog({ url: storeUrl, max: 4 });
    const local = shared ? undefined : openAuditLog(dataDir);
    // Appends made in one event-loop turn share one transaction (server/audit/group-commit.ts).
    const log = shared ?? asyncAuditLog(local!);
    const unauthenticated = createUnauthenticatedAudit(log, {
      logger,
      onWriteError: countAuditFailure,
      ...(options.unauthenticatedWindowMs !== undefined && { windowMs: options.unauthenticatedWindowMs }),
    });
    const checkpoints = local
      ? scheduleCheckpoints(local, dataDir, {
          logger,
          ...(options.checkpointIntervalMs !== undefined && { intervalMs: options.checkpointIntervalMs }),
        })
      : undefined;
    let baseUrl: string | undefined;
    const notifier = createNotifier({
      identities,
      pageUrl: () => (baseUrl === undefined ? undefined : `${baseUrl}${PAGE_PATH}`),
      metrics,
      logger,
      ...options.notifications,
    });
    // Login links and sessions in the shared store: one issued by any replica or worker works on all.
    const sessions = createSessionStore({
      ...options.sessions,
      tables: storeUrl === undefined ? dataDirSessionTables(dataDir) : await postgresSessionTables(storeUrl),
    });
    const ui = createUiRouter({
      approvals,
      identities,
      sessions,
      logger,
      verificationOf: investigationVerification(dataDir),
    });
    const subscriptions = [
      approvals.subscribe(approvalMetricsListener(metrics)),
      approvals.subscribe(auditEventListener(log, { logger, onWriteError: countAuditFailure })),
      approvals.subscribeSettled(auditSettledListener(log, { logger, onWriteError: countAuditFailure })),
      approvals.subscribe(notifier.listener),
    ];
    return {
      middlewares: [
        createMetricsMiddleware(metrics),
        createAuditMiddleware({
          log,
          logger,
          onWriteError: countAuditFailure,
        }),
      ],
      onRejected: rejectionListener(
        metrics,
        auditRejectionListener(log, { logger, onWriteError: countAuditFailure }),
        unauthenticated,
      ),
      routes: [
        metricsRoute(metrics, workerMetrics && clusterExposition(() => workerMetrics.gather())),
        (app) => app.use(ui.router),
      ],
      announce: (url) => {
        baseUrl = url;
        return [`Approvals page: ${url}${PAGE_PATH}`];
      },
      credentials: (url) => [
        {
          label: `One-time login link for the approvals page (15 minutes, identity '${LOCAL_IDENTITY_NAME}')`,
          value: `${url}${UI_PREFIX}/login?ticket=${sessions.issueTicket(LOCAL_IDENTITY_NAME)}`,
          file: 'login-link.url',
        },
      ],
      close: async () => {
        ui.close();
        workerMetrics?.close();
        await sessions.close();
        for (const unsubscribe of subscriptions) unsubscribe();
        await notifier.close();
        unauthenticated.close();
        await log.flush(); // the last records, before the head at shutdown is checkpointed
        checkpoints?.close();
        await log.close();
      },
    };
  };
}

/** The plugin with default settings, as `sentinel serve` runs it. */
export const oversightPlugin: ServerPlugin = createOversightPlugin();
