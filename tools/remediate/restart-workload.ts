/**
 * `restart_service` for the three workload kinds (issue 15): resolving a name — a workload, or a
 * Service — to the one Deployment, StatefulSet or DaemonSet behind it, and restarting a StatefulSet
 * or DaemonSet as `kubectl rollout restart statefulset|daemonset/<name>` does
 * (polymorphichelpers/objectrestarter.go: the pod template annotation `restartedAt`, no paused
 * check for these kinds).
 */
import { SentinelError } from '../errors.ts';
import {
  currentRevisionOf,
  formatLabelSelector,
  matchesLabels,
  nextControllerRevision,
  unsanitized,
  workloadVerdict,
  type AsSent,
  type Deployment,
  type KubeReader,
  type RevisionedWorkload,
} from '../kube/index.ts';
import type { WorkloadKind } from '../workload-kind.ts';
import { attributedPatch, FIELD_MANAGER } from './attribution.ts';
import { containerImages, imageList, type Change } from './changes.ts';
import { podTemplateDigest, effectTargetOf, type ObjectPlan } from './plan.ts';
import {
  onDeleteWarnings,
  workloadManagementWarnings,
  workloadObservationWarnings,
  workloadRef,
  type RevisionedObservation,
} from './workload.ts';

/** The pod template annotation `kubectl rollout restart` sets (objectrestarter.go). */
const RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt';

/** What a restart name resolved to. */
export type ResolvedWorkload =
  | { kind: 'Deployment'; deployment: Deployment; service?: string }
  | { kind: 'StatefulSet' | 'DaemonSet'; object: AsSent<RevisionedWorkload>; service?: string };

const isNotFound = (error: unknown) => error instanceof SentinelError && error.code === 'not_found';

async function byName(
  kube: KubeReader,
  kind: WorkloadKind,
  namespace: string,
  name: string,
): Promise<ResolvedWorkload | undefined> {
  try {
    if (kind === 'Deployment') return { kind, deployment: await kube.getDeployment(namespace, name) };
    const object =
      kind === 'StatefulSet'
        ? await kube.getStatefulSet(namespace, name)
        : await kube.getDaemonSet(namespace, name);
    return { kind, object };
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/**
 * Finds what `name` refers to in `namespace`: the workload of that name (a Deployment when `kind` is
 * absent, else of `kind`); else the Service of that name and the one workload — of any of the three
 * kinds when `kind` is absent, else of `kind` — whose pod template labels match its selector.
 * Errors (nothing is sent): `not_found` when neither exists or the Service selects none;
 * `invalid_input` (field `name`) when the Service has no selector or selects several (listed).
 */
export async function resolveWorkloadTarget(
  kube: KubeReader,
  namespace: string,
  name: string,
  kind?: WorkloadKind,
): Promise<ResolvedWorkload> {
  const named = await byName(kube, kind ?? 'Deployment', namespace, name);
  if (named) return named;
  const what = kind ?? 'Deployment';
  const service = await kube.getService(namespace, name).catch((error: unknown) => {
    if (isNotFound(error)) {
      throw new SentinelError(
        'not_found',
        `Neither a ${what} nor a Service named '${name}' exists in namespace '${namespace}'; ${kind && kind !== 'Deployment' ? `triage_namespace shows the workloads that exist` : 'list_deployments shows the Deployments that exist'}.`,
        { kind: what, namespace, name, field: 'name', cause: error },
      );
    }
    throw error;
  });
  const selector = service.spec?.selector ?? {};
  const ref = `Service ${namespace}/${name}`;
  const kinds = kind ? [kind] : (['Deployment', 'StatefulSet', 'DaemonSet'] as const);
  const kindsText = kinds.length === 1 ? kinds[0] : 'Deployment, StatefulSet or DaemonSet';
  if (Object.keys(selector).length === 0) {
    throw new SentinelError(
      'invalid_input',
      `${ref} has no selector, so it selects no Pods and no ${kindsText} to restart; call restart_service with the workload's name.`,
      { kind: 'Service', namespace, name, field: 'name' },
    );
  }
  const selectorText = formatLabelSelector({ matchLabels: selector });
  const requirements = Object.entries(selector).map(([key, value]) => ({
    key,
    operator: '=' as const,
    values: [value],
  }));
  const selects = (object: { spec?: { template?: { metadata?: { labels?: Record<string, string> } } } }) =>
    matchesLabels(object.spec?.template?.metadata?.labels, requirements);
  const found: ResolvedWorkload[] = [];
  for (const candidate of kinds) {
    if (candidate === 'Deployment') {
      for (const deployment of await kube.listDeployments(namespace))
        if (selects(deployment)) found.push({ kind: 'Deployment', deployment, service: name });
    } else {
      const listed =
        candidate === 'StatefulSet'
          ? await kube.listStatefulSets(namespace)
          : await kube.listDaemonSets(namespace);
      for (const object of listed)
        if (selects(object)) found.push({ kind: candidate, object, service: name });
    }
  }
  if (found.length === 0) {
    throw new SentinelError(
      'not_found',
      `${ref} (selector ${selectorText}) selects the Pods of no ${kindsText}; list_deployments shows the Deployments that exist.`,
      { kind: 'Service', namespace, name, field: 'name' },
    );
  }
  if (found.length > 1) {
    const names = found
      .map((w) => `${w.kind} ${(w.kind === 'Deployment' ? w.deployment : w.object).metadata?.name ?? ''}`)
      .sort();
    const plural = kinds.length === 1 ? `${kinds[0]}s` : 'workloads';
    throw new SentinelError(
      'invalid_input',
      `${ref} (selector ${selectorText}) selects the Pods of ${names.length} ${plural}: ${names.join(', ')}. Restart one of them by its name${kinds.length === 1 ? '' : ' and kind'}; nothing was sent.`,
      { kind: 'Service', namespace, name, field: 'name', details: { workloads: names } },
    );
  }
  return found[0]!;
}

/** RFC 3339 in UTC with whole seconds, as kubectl writes `restartedAt`. */
function rfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Plans a restart of a StatefulSet or DaemonSet, mirroring `kubectl rollout restart`: the pod
 * template annotation `kubectl.kubernetes.io/restartedAt` set to the time of execution by a strategic
 * merge patch (with the attribution annotations); the controller makes a new ControllerRevision
 * (`new_revision`, highest + 1) and replaces the Pods as its update strategy says (none with
 * `OnDelete`: warned). A `restartedAt` equal to the new value is refused with `conflict`, as kubectl
 * refuses an empty patch. The effect binds the kind, the target's uid, revision, current
 * ControllerRevision, template digest, images, the previous `restartedAt` and the new revision —
 * not `metadata.generation`, which an autoscaler moves. Pure.
 */
export function planWorkloadRestart(
  observed: RevisionedObservation & { service?: string | undefined },
  now: () => Date = () => new Date(),
): ObjectPlan {
  const { kind, object, revisions } = observed;
  const namespace = object.metadata?.namespace ?? '';
  const name = object.metadata?.name ?? '';
  const ref = workloadRef(kind, object);
  const template = object.spec?.template;
  const current = currentRevisionOf(
    unsanitized(object),
    revisions.map((r) => unsanitized(r)),
  );
  const revision = current?.revision ?? 0;
  const previous = template?.metadata?.annotations?.[RESTARTED_AT] ?? null;
  const newRevision = nextControllerRevision(revisions);
  const via = observed.service ? `, the ${kind} behind Service ${namespace}/${observed.service}` : '';
  const pods =
    kind === 'StatefulSet'
      ? `its ${object.spec && 'replicas' in object.spec ? (object.spec.replicas ?? 1) : 1} Pods, in order (highest ordinal first)`
      : `its Pods on every node`;
  const restartChange: Change = {
    kind: 'template_annotation',
    key: RESTARTED_AT,
    from: previous,
    to: 'the time of execution (RFC 3339, UTC)',
    text: `pod template annotation ${RESTARTED_AT}: ${previous ?? '(none)'} → the time of execution; the controller replaces ${pods}`,
  };
  return {
    tool: 'restart_service',
    kind,
    object,
    summary: `Restart ${ref}${via} (revision ${revision}, ${imageList(template)}): a rolling update replaces ${pods}`,
    resolvedArguments: { namespace, name, kind },
    effect: {
      tool: 'restart_service',
      kind,
      target: effectTargetOf(object, kind),
      revision,
      controller_revision: current?.metadata?.name ?? '',
      template: podTemplateDigest(unsanitized(object).spec?.template),
      images: containerImages(template),
      restarted_at: previous,
      new_revision: newRevision,
    },
    changes: [restartChange],
    warnings: [
      ...workloadManagementWarnings(kind, object),
      ...workloadObservationWarnings(kind, object),
      ...onDeleteWarnings(kind, object),
    ],
    newRevision,
    action: 'rollout restart',
    makesRevision: true,
    verdict: (written: RevisionedWorkload) => workloadVerdict(kind, written),
    apply: async ({ writer }, stamps) => {
      const restartedAt = rfc3339(now());
      if (restartedAt === previous) {
        throw new SentinelError(
          'conflict',
          `${ref} was already restarted within the past second (restartedAt ${restartedAt}); nothing was sent. Wait a second before restarting it again.`,
          { kind, namespace, name },
        );
      }
      const patch = attributedPatch(
        { template: { metadata: { annotations: { [RESTARTED_AT]: restartedAt } } } },
        unsanitized(object).metadata?.annotations,
        stamps,
      );
      const options = { fieldManager: FIELD_MANAGER };
      return kind === 'StatefulSet'
        ? writer.patchStatefulSetStrategic(namespace, name, patch, options)
        : writer.patchDaemonSetStrategic(namespace, name, patch, options);
    },
  };
}
