/**
 * Crash recovery: executions left `executing` by a server that stopped mid-call are settled from the
 * cluster, never by running them again. An approved change carries its approval request id in the
 * Deployment annotation `sentinel.dev/approval-request-id`; when that annotation is there and the
 * Deployment's `metadata.generation` moved past the one observed before the call, the change reached
 * the cluster (`succeeded`); otherwise it did not (`interrupted`: not executed, a new approval is
 * needed). Where the Deployment is read from: the preview's `effect.target` ({namespace, name}) when
 * the tool reports one, else the call's `namespace` and `name` arguments. The generation before the
 * call is the execution's `generation_before` (`recordedEffect`: what the call's own dry run read
 * just before it ran; effects do not bind the generation, an autoscaler moves it), or for an
 * execution recorded before that field existed, its effect's `target.generation`.
 *
 * Every execution settled here is reported to `onSettled` with the evidence read from the cluster
 * (the audit log records it: a settled execution must leave a record like one that finished in a
 * `tools/call`).
 */
import type { Logger } from 'pino';
import { SentinelError } from '../../core/index.ts';
import { type KubeReader, APPROVAL_REQUEST_ANNOTATION } from '../../tools/index.ts';
import { canonicalJson } from './canonical.ts';
import type { ApprovalStore, StoredExecution } from './store/types.ts';

/** The annotation remediation tools stamp on the Deployment they change (defined with them). */
export const APPROVAL_ANNOTATION = APPROVAL_REQUEST_ANNOTATION;

export interface ReconcileReport {
  /** Executions found to have reached the cluster. */
  applied: string[];
  /** Executions found not to have reached the cluster. */
  notApplied: string[];
  /** Executions that could not be settled now (cluster unreachable); still `executing`. */
  unresolved: string[];
}

/** What the reconciler read from the cluster to settle an execution. */
export interface ReconcileEvidence {
  namespace: string;
  name: string;
  /** `metadata.generation` the preview observed before the call; null when it reported none. */
  generationBefore: number | null;
  /** `metadata.generation` read now; null when the Deployment is gone. */
  generationObserved: number | null;
  /** The approval request id the Deployment carries now (`sentinel.dev/approval-request-id`). */
  annotation: string | null;
}

/** One execution the reconciler settled: as stored after settling, and what settled it. */
export interface SettledExecution {
  execution: StoredExecution;
  /** Null when there was no target or approval request id to look for. */
  evidence: ReconcileEvidence | null;
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

/**
 * What the gate records as an execution's effect: the approved `effect` (undefined: none recorded)
 * with `generation_before`, the target's `metadata.generation` as `read` — the call's own dry run,
 * just before it ran — when that dry run reported one for the same target (its effect's `target`
 * equal to the approved one's: kind, namespace, name, uid). The generation sits beside the effect,
 * never inside it: approvals do not bind it (an autoscaler moves it), reconciliation needs it.
 * Without a matching read (no approved effect, another target) the effect is recorded as it is.
 */
export function recordedEffect(
  effect: unknown,
  read: { effect: unknown; generation?: number | undefined } | undefined,
): unknown {
  const approved = record(effect);
  const sameTarget =
    approved?.target !== undefined &&
    canonicalJson(approved.target) === canonicalJson(record(read?.effect)?.target ?? null);
  if (!approved || !sameTarget || read?.generation === undefined) return effect;
  return { ...approved, generation_before: read.generation };
}

/**
 * Namespace, name and pre-change generation of the Deployment an execution targets: its
 * `generation_before`, else (recorded before that field existed) `effect.target.generation`.
 */
export function executionTarget(
  execution: StoredExecution,
): { namespace: string; name: string; generation?: number } | undefined {
  const effect = record(execution.effect);
  const target = record(effect?.target);
  const namespace = target?.namespace ?? execution.arguments.namespace;
  const name = target?.name ?? execution.arguments.name;
  const generation = effect?.generation_before ?? target?.generation ?? effect?.generation;
  if (typeof namespace !== 'string' || typeof name !== 'string') return undefined;
  return { namespace, name, ...(typeof generation === 'number' && { generation }) };
}

/**
 * The approval annotation and generation the target carries now (both undefined when it is gone);
 * undefined when the cluster cannot be read (reconciliation is postponed).
 */
async function readMarks(
  reader: KubeReader,
  target: { namespace: string; name: string },
  executionId: string,
  logger: Logger | undefined,
): Promise<{ annotation?: string | undefined; generation?: number | undefined } | undefined> {
  try {
    const deployment = await reader.getDeployment(target.namespace, target.name);
    return {
      annotation: deployment.metadata?.annotations?.[APPROVAL_ANNOTATION],
      generation: deployment.metadata?.generation,
    };
  } catch (error) {
    if (error instanceof SentinelError && error.code === 'not_found') return {};
    logger?.warn({ err: error, executionId }, 'reconciliation postponed: cluster not readable');
    return undefined;
  }
}

/**
 * The cluster reader reconciliation reads through: a reader, none (no cluster), or a function that
 * resolves to one, asked only once there is an execution to settle (it may connect to the cluster).
 */
export type ClusterReader = KubeReader | undefined | (() => Promise<KubeReader | undefined>);

/** The reader to settle `count` executions with: a function is called only when there are some. */
async function readerFor(clusterReader: ClusterReader, count: number): Promise<KubeReader | undefined> {
  if (typeof clusterReader !== 'function') return clusterReader;
  return count > 0 ? clusterReader() : undefined;
}

/**
 * Settles every `executing` execution in the store. Executions with no approval request id to look
 * for are marked `interrupted` with an outcome saying the result is unknown; without a cluster
 * reader nothing is settled (all `unresolved`). `clusterReader` as a function is called once, at the
 * first execution found. Never executes anything.
 */
export async function reconcileExecutions(
  store: ApprovalStore,
  clusterReader: ClusterReader,
  options: {
    now?: () => Date;
    logger?: Logger;
    /** Told about each execution once it is settled (must not throw; errors are logged). */
    onSettled?: (settled: SettledExecution) => void | Promise<void>;
  } = {},
): Promise<ReconcileReport> {
  const now = options.now ?? (() => new Date());
  const settled = async (id: string, evidence: ReconcileEvidence | null) => {
    const execution = await store.getExecution(id);
    if (!execution || !options.onSettled) return;
    try {
      await options.onSettled({ execution, evidence });
    } catch (error) {
      options.logger?.error({ err: error, executionId: id }, 'settled execution not reported');
    }
  };
  const report: ReconcileReport = { applied: [], notApplied: [], unresolved: [] };
  const executions = await (store.listOrphaned?.() ?? store.listExecuting());
  const reader = await readerFor(clusterReader, executions.length);
  for (const execution of executions) {
    const target = executionTarget(execution);
    if (!reader) {
      // No cluster to ask now: leave it executing (it blocks nothing and is settled on a later start).
      report.unresolved.push(execution.id);
      continue;
    }
    if (!execution.requestId || !target) {
      await store.finishExecution(
        execution.id,
        {
          status: 'interrupted',
          outcome:
            'interrupted: the server stopped during this call and cannot tell from the cluster whether it applied; check the target before doing anything else',
        },
        now(),
      );
      report.notApplied.push(execution.id);
      await settled(execution.id, null);
      continue;
    }
    const marks = await readMarks(reader, target, execution.id, options.logger);
    if (!marks) {
      report.unresolved.push(execution.id);
      continue;
    }
    const { annotation, generation } = marks;
    const applied =
      annotation === execution.requestId &&
      (target.generation === undefined || (generation !== undefined && generation > target.generation));
    const where = `Deployment ${target.namespace}/${target.name}`;
    await store.finishExecution(
      execution.id,
      applied
        ? {
            status: 'succeeded',
            outcome: `reconciled after a restart: the change reached the cluster (${where} carries approval request ${execution.requestId}, generation ${generation})`,
          }
        : {
            status: 'interrupted',
            outcome: `reconciled after a restart: the change did not reach the cluster (${where} does not carry it); not executed, a new approval is needed`,
          },
      now(),
    );
    (applied ? report.applied : report.notApplied).push(execution.id);
    await settled(execution.id, {
      namespace: target.namespace,
      name: target.name,
      generationBefore: target.generation ?? null,
      generationObserved: generation ?? null,
      annotation: annotation ?? null,
    });
    options.logger?.info(
      { executionId: execution.id, approvalRequestId: execution.requestId, applied },
      'execution reconciled',
    );
  }
  return report;
}
