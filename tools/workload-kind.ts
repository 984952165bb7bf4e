/**
 * The `kind` argument of the tools that act on a workload (issue 15): which controller owns the Pods
 * — `Deployment` (the default when absent), `StatefulSet` or `DaemonSet`. One tool per operation
 * takes it (`rollback_deployment`, `get_rollout_history`, ...), as `kubectl rollout undo
 * deployment|statefulset|daemonset/<name>` is one command. Absent means Deployment, and a resolved
 * call names `kind` only when it is not a Deployment, so the canonical form of every Deployment call
 * (and the approvals and grants made for it) is what it was before the argument existed.
 */
import { z } from 'zod';

export const WORKLOAD_KINDS = ['Deployment', 'StatefulSet', 'DaemonSet'] as const;
export type WorkloadKind = (typeof WORKLOAD_KINDS)[number];

const RULE =
  "must be 'Deployment', 'StatefulSet' or 'DaemonSet' (the kind name, capitalised as Kubernetes writes it)";

/** `kind` of a tool acting on any of `kinds` (default all three); optional, absent = Deployment. */
export function workloadKindSchema<K extends readonly [WorkloadKind, ...WorkloadKind[]]>(
  kinds: K = WORKLOAD_KINDS as unknown as K,
) {
  const rule =
    kinds.length === WORKLOAD_KINDS.length ? RULE : `must be ${kinds.map((k) => `'${k}'`).join(' or ')}`;
  return z
    .enum(kinds, { error: rule })
    .optional()
    .describe(
      `Kind of the workload: ${kinds.join(', ')}. Default (absent): Deployment. Same as the resource in kubectl rollout <kind>/<name>.`,
    );
}

/** The kind a parsed call means: its `kind`, else Deployment. */
export function kindOf(args: { kind?: WorkloadKind | undefined }): WorkloadKind {
  return args.kind ?? 'Deployment';
}

/** `{ kind }` for a resolved call: empty for a Deployment (see the module comment). */
export function kindArgument(kind: WorkloadKind): { kind?: WorkloadKind } {
  return kind === 'Deployment' ? {} : { kind };
}

/** The API resource of a kind, as kubectl names it in `kubectl rollout undo <resource>/<name>`. */
export function kubectlResource(kind: WorkloadKind): string {
  return kind.toLowerCase();
}
