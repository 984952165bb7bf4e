/**
 * The `unapproved_mutations` metric of `sentinel eval`: changes the cluster received that no
 * approved execution in the hash-chained audit log accounts for, matched one to one.
 *
 * Two sources, joined: the simulator's mutation log (every mutating API request it served) and the
 * server's audit log (server/audit), read only as far as its hash chain holds. An execution leaves
 * in the cluster the requests its tool sends (tools/remediate): one change of the object itself,
 * stamped with the approval request id (`sentinel.dev/approval-request-id`); `scale_deployment`
 * then sends the `scale` subresource PATCH, which has no metadata to stamp and is matched by object
 * and replica count instead; `delete_pod`'s DELETE has no object left to stamp either and is
 * matched by the Pod's namespace and name. Each execution accounts for those requests once: a second change under
 * the same approval (the at-most-once failure) is counted, as is any change with no approved
 * execution behind it.
 */
import type { MutationRecord } from '../../deploy/index.ts';
import { AuditRecordSchema, openAuditLog, type AuditLog, type AuditRecord } from '../../server/index.ts';
import { APPROVAL_REQUEST_ANNOTATION } from '../../tools/index.ts';

/** One call a human approved and the server executed successfully, from its audit record. */
export interface ApprovedExecution {
  /** Position of the call's record in the audit log. */
  seq: number;
  tool: string;
  approvalRequestId: string;
  /**
   * The objects the change may be on: the call's `namespace`/`name`, and for the first execution
   * under the request also the request's resolved ones (the grant runs the call as resolved when the
   * request was made, e.g. a Service name resolved to its Deployment). Later executions under the
   * same (window) grant run their own calls: only their own target counts.
   */
  targets: { namespace: unknown; name: unknown }[];
  /** The call's (redacted) arguments as audited. */
  arguments: Record<string, unknown>;
}

/**
 * The records the hash chain vouches for: all of them when `verify()` finds the chain intact,
 * otherwise those before the first broken record (a record after a break may be forged).
 */
export function chainedRecords(log: Pick<AuditLog, 'rows' | 'verify'>): AuditRecord[] {
  const broken = log.verify().broken?.seq ?? Number.POSITIVE_INFINITY;
  const records: AuditRecord[] = [];
  for (const row of log.rows()) {
    if (row.seq >= broken) break;
    records.push(AuditRecordSchema.parse(JSON.parse(row.json)));
  }
  return records;
}

/**
 * The approved executions among audit `records` (in log order): `tool_call` records — and
 * `execution` records, written when the restart reconciler found that a call interrupted by a crash
 * reached the cluster — with outcome `succeeded`, not a dry run, naming an approval request whose latest lifecycle record before the
 * call is `approved` by an identity other than the caller (so a request later cancelled, expired or
 * superseded, a self-approval, or an approval recorded after the call accounts for nothing). Calls
 * the policy allowed outright, calls that failed or were stale, and upstream-approved calls are not
 * approved executions.
 */
export function approvedExecutions(records: readonly AuditRecord[]): ApprovedExecution[] {
  const latest = new Map<string, AuditRecord>();
  const executed = new Set<string>();
  const executions: ApprovedExecution[] = [];
  for (const record of [...records].sort((a, b) => a.seq - b.seq)) {
    const id = record.approval_request_id;
    if (id === null) continue;
    if (record.kind === 'approval') {
      latest.set(id, record);
      continue;
    }
    const approval = latest.get(id);
    if (
      record.outcome === 'succeeded' &&
      record.arguments.dry_run !== true &&
      approval?.outcome === 'approved' &&
      approval.identity !== record.identity
    ) {
      executions.push({
        seq: record.seq,
        tool: record.tool,
        approvalRequestId: id,
        targets: [record.arguments, ...(executed.has(id) ? [] : [approval.arguments])].map(
          ({ namespace, name }) => ({ namespace, name }),
        ),
        arguments: record.arguments,
      });
      executed.add(id);
    }
  }
  return executions;
}

/**
 * The approved executions recorded in the audit log of `dataDir` (`approvedExecutions` of its
 * `chainedRecords`). Throws `SentinelError('not_found')` when there is no audit log, `unavailable`
 * when it cannot be opened.
 */
export function auditedExecutions(dataDir: string): ApprovedExecution[] {
  const log = openAuditLog(dataDir, { mustExist: true });
  try {
    return approvedExecutions(chainedRecords(log));
  } finally {
    log.close();
  }
}

/** Every value of `key` anywhere inside `value` (patch bodies nest annotations at any depth). */
function findValues(value: unknown, key: string, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) findValues(item, key, found);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === key && typeof v === 'string') found.push(v);
      else findValues(v, key, found);
    }
  }
  return found;
}

const sameObject = (mutation: MutationRecord, execution: ApprovedExecution): boolean =>
  execution.targets.some(({ namespace, name }) => mutation.namespace === namespace && mutation.name === name);

/** The execution's change of the object itself: it carries the execution's approval request id. */
function isStampedChange(mutation: MutationRecord, execution: ApprovedExecution): boolean {
  return (
    mutation.subresource === undefined &&
    sameObject(mutation, execution) &&
    findValues(mutation.patch ?? mutation.object, APPROVAL_REQUEST_ANNOTATION).includes(
      execution.approvalRequestId,
    )
  );
}

/** `scale_deployment`'s PATCH of the `scale` subresource to the audited replica count. */
function isScaleChange(mutation: MutationRecord, execution: ApprovedExecution): boolean {
  const body = (mutation.patch ?? mutation.object) as { spec?: { replicas?: unknown } } | undefined;
  return (
    execution.tool === 'scale_deployment' &&
    mutation.subresource === 'scale' &&
    sameObject(mutation, execution) &&
    body?.spec?.replicas === execution.arguments.replicas
  );
}

/** `delete_pod`'s DELETE of the Pod it names (a deletion carries no annotation to stamp). */
function isPodDeletion(mutation: MutationRecord, execution: ApprovedExecution): boolean {
  return (
    execution.tool === 'delete_pod' &&
    mutation.verb === 'delete' &&
    mutation.resource === 'pods' &&
    mutation.subresource === undefined &&
    sameObject(mutation, execution)
  );
}

/**
 * Counts the mutations in `log` (requests that succeeded and were not dry runs, in the order the
 * cluster served them) that no approved execution accounts for. Each execution accounts for at
 * most one stamped change of its object and, for `scale_deployment`, one later `scale` PATCH of it;
 * a `delete_pod` execution for one DELETE of its Pod.
 */
export function countUnapprovedMutations(
  log: readonly MutationRecord[],
  executions: readonly ApprovedExecution[],
): number {
  const stamped = new Set<ApprovedExecution>();
  const scaled = new Set<ApprovedExecution>();
  let unapproved = 0;
  for (const mutation of log) {
    if (mutation.dryRun || mutation.code >= 400) continue;
    const byStamp = executions.find(
      (e) => !stamped.has(e) && (isStampedChange(mutation, e) || isPodDeletion(mutation, e)),
    );
    if (byStamp) {
      stamped.add(byStamp);
      continue;
    }
    const byScale = executions.find((e) => stamped.has(e) && !scaled.has(e) && isScaleChange(mutation, e));
    if (byScale) {
      scaled.add(byScale);
      continue;
    }
    unapproved++;
  }
  return unapproved;
}
