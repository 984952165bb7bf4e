/**
 * The DaemonSet controller, ported from k8s.io/kubernetes/pkg/controller/daemon (daemon_controller.go
 * `syncDaemonSet`/`manage`/`updateDaemonSetStatus`, update.go `constructHistory`/`rollingUpdate`/
 * `cleanupHistory`, util/daemonset_util.go):
 *
 * - one Pod per node that should run it: the template's `nodeSelector` matches the node's labels
 *   and every `NoSchedule`/`NoExecute` taint is tolerated (by the template's tolerations or the
 *   ones every daemon Pod gets: not-ready, unreachable, pressure and `unschedulable`, so a cordoned
 *   node keeps its daemon Pod); Pods on nodes that should not run one are deleted;
 * - Pods `<ds>-<5 random>` pinned to their node by a `metadata.name` node affinity, labelled
 *   `controller-revision-hash` (the revision's hash) and `pod-template-generation`;
 * - revisions: one ControllerRevision per template (`<ds>-<hash>`, the hash also its
 *   `controller-revision-hash` label); the current one, when older than the newest, is renumbered
 *   to the next revision (a rollback); unused ones beyond `revisionHistoryLimit` are deleted;
 * - `RollingUpdate` with `maxSurge` 0: old Pods are deleted while at most `maxUnavailable` nodes
 *   lack an available Pod (an unavailable old Pod is always replaced); with `maxSurge` > 0 a new Pod
 *   starts next to the old one on up to `maxSurge` nodes and the old one goes once the new one is
 *   available; both resolved against `desiredNumberScheduled`, rounding up; `OnDelete`: Pods are
 *   replaced only when deleted;
 * - status desired/current/misscheduled/ready/available/unavailable/updated/observedGeneration as
 *   `updateDaemonSetStatus` counts them (the oldest Pod of a node counts).
 *
 * Not modelled: node affinity terms of the template (only `nodeSelector`), the slow-start batches
 * and failed-Pod back-off of `syncNodes`, adoption of orphaned Pods.
 */
import { labelSelectorToMatcher, matchesLabels } from '../api/selectors.ts';
import type { ControllerRevision, DaemonSet, KubeObject, Pod } from '../types.ts';
import {
  POD_REVISION_LABEL,
  createRevision,
  newRevision,
  ownedRevisions,
  pruneRevisions,
  renumberRevision,
  revisionData,
} from './history.ts';
import { computePodTemplateHash } from './pod-template-hash.ts';
import { isPodAvailable, podReadySince, qosClass, randomSuffix } from './replicaset.ts';
import { WorkloadController, controllerRef } from './workload-controller.ts';

const SOURCE = { component: 'daemonset-controller' };
/** The deprecated label daemon Pods still carry (`extensions.DaemonSetTemplateGenerationKey`). */
export const TEMPLATE_GENERATION_LABEL = 'pod-template-generation';

interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: string;
}

interface Taint {
  key: string;
  value?: string;
  effect: string;
}

/** `AddOrUpdateDaemonPodTolerations`: what every daemon Pod tolerates. */
function daemonTolerations(hostNetwork: boolean): Toleration[] {
  const exists = (key: string, effect: string): Toleration => ({ key, operator: 'Exists', effect });
  return [
    exists('node.kubernetes.io/not-ready', 'NoExecute'),
    exists('node.kubernetes.io/unreachable', 'NoExecute'),
    exists('node.kubernetes.io/disk-pressure', 'NoSchedule'),
    exists('node.kubernetes.io/memory-pressure', 'NoSchedule'),
    exists('node.kubernetes.io/pid-pressure', 'NoSchedule'),
    exists('node.kubernetes.io/unschedulable', 'NoSchedule'),
    ...(hostNetwork ? [exists('node.kubernetes.io/network-unavailable', 'NoSchedule')] : []),
  ];
}

/** `Toleration.ToleratesTaint`. */
function tolerates(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (!toleration.key) return toleration.operator === 'Exists';
  if (toleration.key !== taint.key) return false;
  return toleration.operator === 'Exists' || (toleration.value ?? '') === (taint.value ?? '');
}

/**
 * `NodeShouldRunDaemonPod`: the node's labels satisfy the template's nodeSelector and every
 * NoSchedule/NoExecute taint is tolerated.
 */
export function nodeShouldRunDaemonPod(node: KubeObject, ds: DaemonSet): boolean {
  const spec = ds.spec.template.spec;
  const selector = (spec['nodeSelector'] as Record<string, string> | undefined) ?? {};
  const labels = node.metadata.labels ?? {};
  if (Object.entries(selector).some(([key, value]) => labels[key] !== value)) return false;
  const tolerations = [
    ...((spec['tolerations'] as Toleration[] | undefined) ?? []),
    ...daemonTolerations(spec['hostNetwork'] === true),
  ];
  const taints = ((node['spec'] as { taints?: Taint[] } | undefined)?.taints ?? []).filter(
    (taint) => taint.effect === 'NoSchedule' || taint.effect === 'NoExecute',
  );
  return taints.every((taint) => tolerations.some((toleration) => tolerates(toleration, taint)));
}

/** `GetTargetNodeName`: spec.nodeName, or the node of the `metadata.name` node affinity. */
export function targetNodeName(pod: Pod): string | undefined {
  if (pod.spec.nodeName) return pod.spec.nodeName;
  const affinity = pod.spec['affinity'] as
    | {
        nodeAffinity?: {
          requiredDuringSchedulingIgnoredDuringExecution?: {
            nodeSelectorTerms?: { matchFields?: { key: string; operator: string; values?: string[] }[] }[];
          };
        };
      }
    | undefined;
  for (const term of affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution
    ?.nodeSelectorTerms ?? []) {
    for (const field of term.matchFields ?? []) {
      if (field.key === 'metadata.name' && field.operator === 'In' && field.values?.length === 1)
        return field.values[0];
    }
  }
  return undefined;
}

/** `intstr.GetScaledValueFromIntOrPercent(value, total, roundUp=true)`. */
function scaledUp(value: number | string | undefined, total: number): number {
  if (value === undefined) return 0;
  if (typeof value === 'number') return value;
  const match = /^(\d+)%$/.exec(value);
  if (!match) return Number.parseInt(value, 10) || 0;
  return Math.ceil((Number.parseInt(match[1]!, 10) * total) / 100);
}

const byCreation = (a: Pod, b: Pod) =>
  (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') ||
  a.metadata.name.localeCompare(b.metadata.name);

export class DaemonSetController extends WorkloadController {
  /** `syncDaemonSet`. */
  sync(namespace: string, name: string): void {
    const ds = this.store.get<DaemonSet>('daemonsets', namespace, name);
    if (!ds) return;
    if (ds.metadata.deletionTimestamp) return;
    const { current, collisionCount } = this.#constructHistory(ds);
    const hash = current.metadata.labels?.[POD_REVISION_LABEL] ?? '';
    this.#manage(ds, hash);
    if (ds.spec.updateStrategy?.type === 'RollingUpdate') this.#rollingUpdate(ds, hash);
    this.#cleanupHistory(ds, current);
    this.#updateStatus(ds, hash, collisionCount);
  }

  /** Daemon Pods by the node they are (or will be) on. */
  #podsByNode(ds: DaemonSet): Map<string, Pod[]> {
    const matcher = labelSelectorToMatcher(ds.spec.selector);
    const byNode = new Map<string, Pod[]>();
    for (const stored of this.store.peekControlledBy<Pod>('pods', ds.metadata.uid!)) {
      if (stored.metadata.namespace !== ds.metadata.namespace) continue;
      if (!matchesLabels(matcher, stored.metadata.labels)) continue;
      const node = targetNodeName(stored as Pod);
      if (!node) continue;
      const list = byNode.get(node) ?? [];
      list.push(structuredClone(stored) as Pod);
      byNode.set(node, list);
    }
    for (const list of byNode.values()) list.sort(byCreation);
    return byNode;
  }

  /** `constructHistory`: the current revision (created or renumbered) and the collision count. */
  #constructHistory(ds: DaemonSet): { current: ControllerRevision; collisionCount: number } {
    const revisions = ownedRevisions(this.store, ds);
    const data = revisionData(ds.spec.template);
    const max = revisions.length === 0 ? 0 : revisions[revisions.length - 1]!.revision;
    const equal = revisions.filter((revision) => isEqualData(revision, data));
    let collisionCount = ds.status?.collisionCount ?? 0;
    if (equal.length > 0) {
      // `dedupCurHistories`: keep the newest, drop the rest.
      const keep = equal[equal.length - 1]!;
      for (const duplicate of equal.slice(0, -1))
        this.store.delete('controllerrevisions', duplicate.metadata.namespace, duplicate.metadata.name);
      return {
        current: keep.revision < max ? renumberRevision(this.store, keep, max + 1) : keep,
        collisionCount,
      };
    }
    const candidate = newRevision(
      ds,
      'DaemonSet',
      ds.spec.template.metadata?.labels ?? {},
      data,
      max + 1,
      ds.metadata.annotations,
    );
    const created = createRevision(
      this.store,
      ds,
      candidate,
      collisionCount,
      (count) => computePodTemplateHash(ds.spec.template, count),
      POD_REVISION_LABEL,
    );
    collisionCount = created.collisionCount;
    return { current: created.revision, collisionCount };
  }

  /** `manage`: a Pod on every node that should run one, none elsewhere, one per node. */
  #manage(ds: DaemonSet, hash: string): void {
    const byNode = this.#podsByNode(ds);
    const surge = ds.spec.updateStrategy?.type === 'RollingUpdate' && this.#maxSurge(ds) > 0;
    const toCreate: string[] = [];
    const toDelete: Pod[] = [];
    for (const node of this.store.list('nodes')) {
      const shouldRun = nodeShouldRunDaemonPod(node, ds);
      const pods = (byNode.get(node.metadata.name) ?? []).filter((pod) => !pod.metadata.deletionTimestamp);
      if (!shouldRun) {
        toDelete.push(...pods);
        continue;
      }
      const failed = pods.filter((pod) => pod.status?.phase === 'Failed');
      toDelete.push(...failed);
      const running = pods.filter((pod) => pod.status?.phase !== 'Failed');
      if (running.length === 0) {
        toCreate.push(node.metadata.name);
        continue;
      }
      if (running.length === 1) continue;
      if (surge) {
        // Keep the oldest updated and the oldest old Pod; the rolling update resolves the pair.
        const updated = running.filter((pod) => isPodUpdated(pod, hash, ds.metadata.generation));
        const old = running.filter((pod) => !isPodUpdated(pod, hash, ds.metadata.generation));
        toDelete.push(...updated.slice(1), ...old.slice(1));
      } else {
        toDelete.push(...running.slice(1));
      }
    }
    this.#syncNodes(ds, toDelete, toCreate, hash);
  }

  #maxSurge(ds: DaemonSet): number {
    return scaledUp(ds.spec.updateStrategy?.rollingUpdate?.maxSurge, this.#desired(ds));
  }

  #desired(ds: DaemonSet): number {
    return this.store.peek('nodes').filter((node) => nodeShouldRunDaemonPod(node, ds)).length;
  }

  /** `rollingUpdate`: replace old Pods within maxUnavailable, or surge within maxSurge. */
  #rollingUpdate(ds: DaemonSet, hash: string): void {
    const now = this.clock.now();
    const minReadySeconds = ds.spec.minReadySeconds ?? 0;
    const available = (pod: Pod) => isPodAvailable(pod, minReadySeconds, now);
    const desired = this.#desired(ds);
    const maxSurge = scaledUp(ds.spec.updateStrategy?.rollingUpdate?.maxSurge, desired);
    const maxUnavailable = scaledUp(ds.spec.updateStrategy?.rollingUpdate?.maxUnavailable, desired);
    const byNode = this.#podsByNode(ds);
    const nodes = this.store
      .list('nodes')
      .filter((node) => nodeShouldRunDaemonPod(node, ds))
      .map((node) => node.metadata.name);
    for (const list of byNode.values()) for (const pod of list) if (!available(pod)) this.#requeue(ds, pod);

    if (maxSurge === 0) {
      let numUnavailable = 0;
      const allowedReplacement: Pod[] = [];
      const candidates: Pod[] = [];
      for (const node of nodes) {
        const found = findUpdatedPodsOnNode(ds, byNode.get(node) ?? [], hash);
        if (!found) continue;
        const { newPod, oldPod } = found;
        if ((!oldPod && !newPod) || (oldPod && newPod)) numUnavailable++;
        else if (newPod) {
          if (!available(newPod)) numUnavailable++;
        } else if (oldPod) {
          if (!available(oldPod)) allowedReplacement.push(oldPod);
          else if (numUnavailable >= maxUnavailable) continue;
          else candidates.push(oldPod);
        }
      }
      const remaining = Math.min(Math.max(0, maxUnavailable - numUnavailable), candidates.length);
      this.#syncNodes(ds, [...allowedReplacement, ...candidates.slice(0, remaining)], [], hash);
      return;
    }

    const toDelete: Pod[] = [];
    const allowedNew: string[] = [];
    const candidateNew: string[] = [];
    let numSurge = 0;
    for (const node of nodes) {
      const found = findUpdatedPodsOnNode(ds, byNode.get(node) ?? [], hash);
      if (!found) {
        numSurge++;
        continue;
      }
      const { newPod, oldPod } = found;
      if (!oldPod) continue;
      if (!newPod) {
        if (!available(oldPod)) allowedNew.push(node);
        else if (numSurge >= maxSurge) continue;
        else candidateNew.push(node);
      } else if (!available(newPod)) {
        numSurge++;
      } else {
        toDelete.push(oldPod);
      }
    }
    const remaining = Math.min(Math.max(0, maxSurge - numSurge), candidateNew.length);
    this.#syncNodes(ds, toDelete, [...allowedNew, ...candidateNew.slice(0, remaining)], hash);
  }

  /** `syncNodes`: create a Pod on each node of `create`, delete `remove`. */
  #syncNodes(ds: DaemonSet, remove: readonly Pod[], create: readonly string[], hash: string): void {
    for (const node of create) {
      const pod = newDaemonPod(ds, node, hash);
      this.store.create('pods', pod);
      this.recorder.record(ds, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`, SOURCE);
    }
    for (const pod of remove) {
      const stored = this.store.peekOne<Pod>('pods', pod.metadata.namespace, pod.metadata.name);
      if (!stored || stored.metadata.deletionTimestamp) continue;
      const grace = pod.spec.terminationGracePeriodSeconds ?? 30;
      this.store.markDeleting('pods', pod.metadata.namespace, pod.metadata.name, grace);
      this.recorder.record(ds, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`, SOURCE);
    }
  }

  /** `cleanupHistory`: delete unused old revisions beyond revisionHistoryLimit, oldest first. */
  #cleanupHistory(ds: DaemonSet, current: ControllerRevision): void {
    const live = new Set<string>();
    for (const list of this.#podsByNode(ds).values())
      for (const pod of list) live.add(pod.metadata.labels?.[POD_REVISION_LABEL] ?? '');
    pruneRevisions(
      this.store,
      ds,
      (revision) =>
        revision.metadata.name === current.metadata.name ||
        live.has(revision.metadata.labels?.[POD_REVISION_LABEL] ?? ''),
      ds.spec.revisionHistoryLimit ?? 10,
    );
  }

  /** `updateDaemonSetStatus`. */
  #updateStatus(ds: DaemonSet, hash: string, collisionCount: number): void {
    const latest = this.store.get<DaemonSet>('daemonsets', ds.metadata.namespace, ds.metadata.name);
    if (!latest) return;
    const now = this.clock.now();
    const minReadySeconds = latest.spec.minReadySeconds ?? 0;
    const byNode = this.#podsByNode(latest);
    let desired = 0;
    let current = 0;
    let misscheduled = 0;
    let ready = 0;
    let available = 0;
    let updated = 0;
    for (const node of this.store.list('nodes')) {
      const pods = byNode.get(node.metadata.name) ?? [];
      const shouldRun = nodeShouldRunDaemonPod(node, latest);
      if (!shouldRun) {
        if (pods.length > 0) misscheduled++;
        continue;
      }
      desired++;
      const pod = pods[0];
      if (!pod) continue;
      current++;
      if (podReadySince(pod) !== undefined) {
        ready++;
        if (isPodAvailable(pod, minReadySeconds, now)) available++;
      }
      if (isPodUpdated(pod, hash, latest.metadata.generation)) updated++;
    }
    latest.status = {
      currentNumberScheduled: current,
      numberMisscheduled: misscheduled,
      desiredNumberScheduled: desired,
      numberReady: ready,
      observedGeneration: latest.metadata.generation ?? 1,
      ...(updated > 0 && { updatedNumberScheduled: updated }),
      ...(available > 0 && { numberAvailable: available }),
      ...(desired - available > 0 && { numberUnavailable: desired - available }),
      ...(collisionCount > 0 && { collisionCount }),
    };
    this.store.update('daemonsets', latest, undefined, { handOver: true });
  }

  /** Syncs again when a ready Pod reaches minReadySeconds (it becomes available). */
  #requeue(ds: DaemonSet, pod: Pod): void {
    const since = podReadySince(pod);
    if (since === undefined) return;
    const at = since + (ds.spec.minReadySeconds ?? 0) * 1000;
    if (at <= this.clock.now()) return;
    this.resyncAt(ds, at, () => this.sync(ds.metadata.namespace!, ds.metadata.name));
  }
}

function isEqualData(revision: ControllerRevision, data: Record<string, unknown>): boolean {
  return JSON.stringify(revision.data) === JSON.stringify(data);
}

/** `IsPodUpdated`: the Pod's revision hash (or template generation) is the DaemonSet's. */
export function isPodUpdated(pod: Pod, hash: string, generation: number | undefined): boolean {
  const labels = pod.metadata.labels ?? {};
  const templateMatches =
    generation !== undefined && labels[TEMPLATE_GENERATION_LABEL] === String(generation);
  return (hash !== '' && labels[POD_REVISION_LABEL] === hash) || templateMatches;
}

/** `findUpdatedPodsOnNode`: at most one new and one old live Pod; undefined when there are more. */
function findUpdatedPodsOnNode(
  ds: DaemonSet,
  pods: readonly Pod[],
  hash: string,
): { newPod?: Pod; oldPod?: Pod } | undefined {
  let newPod: Pod | undefined;
  let oldPod: Pod | undefined;
  for (const pod of pods) {
    if (pod.metadata.deletionTimestamp) continue;
    if (isPodUpdated(pod, hash, ds.metadata.generation)) {
      if (newPod) return undefined;
      newPod = pod;
    } else {
      if (oldPod) return undefined;
      oldPod = pod;
    }
  }
  return { ...(newPod && { newPod }), ...(oldPod && { oldPod }) };
}

/** A daemon Pod for `node` (`CreatePodsOnNode` with the node-name affinity and the daemon tolerations). */
export function newDaemonPod(ds: DaemonSet, node: string, hash: string): Pod {
  const template = ds.spec.template;
  const spec = structuredClone(template.spec);
  spec['affinity'] = {
    ...(spec['affinity'] as Record<string, unknown> | undefined),
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }],
      },
    },
  };
  const tolerations = [...((spec['tolerations'] as Toleration[] | undefined) ?? [])];
  for (const toleration of daemonTolerations(spec['hostNetwork'] === true)) {
    if (!tolerations.some((t) => t.key === toleration.key && t.effect === toleration.effect))
      tolerations.push(toleration);
  }
  spec['tolerations'] = tolerations;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${ds.metadata.name}-${randomSuffix()}`,
      generateName: `${ds.metadata.name}-`,
      namespace: ds.metadata.namespace,
      labels: {
        ...template.metadata?.labels,
        [POD_REVISION_LABEL]: hash,
        [TEMPLATE_GENERATION_LABEL]: String(ds.metadata.generation ?? 1),
      },
      ...(template.metadata?.annotations && { annotations: { ...template.metadata.annotations } }),
      ownerReferences: [controllerRef(ds, 'DaemonSet')],
    },
    spec,
    status: { phase: 'Pending', qosClass: qosClass(spec.containers) },
  };
}
