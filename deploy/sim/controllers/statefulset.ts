/**
 * The StatefulSet controller, ported from k8s.io/kubernetes/pkg/controller/statefulset
 * (stateful_set_control.go `performUpdate`/`updateStatefulSet`/`truncateHistory`,
 * stateful_set_utils.go `newVersionedStatefulSetPod`/`getPatch`, stateful_pod_control.go):
 *
 * - revisions: the template's ControllerRevision (`<set>-<hash>`, `controller.kubernetes.io/hash`
 *   label, the set's annotations) is found by hash and data or created with the next `revision`;
 *   an older revision that becomes the update revision again (a rollback) is renumbered to the next
 *   number; `status.currentRevision`/`updateRevision` name them;
 * - Pods `<set>-<ordinal>` with `controller-revision-hash`, `statefulset.kubernetes.io/pod-name`
 *   and `apps.kubernetes.io/pod-index` labels, hostname/subdomain, and one PVC per
 *   volumeClaimTemplate (`<claim>-<set>-<ordinal>`), created before the Pod and kept on scale-down
 *   and deletion under the default `Retain` policies;
 * - `OrderedReady`: one Pod at a time, each Running and Ready (and available for minReadySeconds)
 *   before the next, scale-down from the highest ordinal, one at a time, only while the rest are
 *   healthy; `Parallel`: all at once;
 * - `RollingUpdate`: from the highest ordinal down to `partition`, delete one Pod not at the update
 *   revision and wait for its replacement to be healthy — a broken Pod stops the rollout, and with
 *   `OrderedReady` it also stops a rollback until someone deletes it (the "forced rollback" of the
 *   StatefulSet docs); Pods below the partition are (re)created at the current revision;
 * - `OnDelete`: Pods are replaced only when deleted; `currentRevision` is not advanced;
 * - status replicas/ready/available/current/updated/observedGeneration as `computeReplicaStatus`,
 *   and `completeRollingUpdate`; revisions beyond `revisionHistoryLimit` not used by a Pod are deleted.
 *
 * Not modelled: `maxUnavailable` (alpha), adoption/release of Pods by label, `ordinals` other than
 * `start`, PVC retention `Delete` on StatefulSet deletion beyond an owner reference.
 */
import { randomUUID } from 'node:crypto';
import { applyPatch } from '../api/patch.ts';
import { labelSelectorToMatcher, matchesLabels } from '../api/selectors.ts';
import type { ControllerRevision, PersistentVolumeClaim, Pod, StatefulSet } from '../types.ts';
import {
  CONTROLLER_REVISION_HASH_LABEL,
  POD_REVISION_LABEL,
  createRevision,
  equalRevision,
  hashControllerRevision,
  newRevision,
  nextRevision,
  ownedRevisions,
  pruneRevisions,
  renumberRevision,
  revisionData,
} from './history.ts';
import { isPodAvailable, podReadySince } from './replicaset.ts';
import { qosClass } from './replicaset.ts';
import { WorkloadController, controllerRef } from './workload-controller.ts';

const SOURCE = { component: 'statefulset-controller' };
export const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
export const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';

type Status = NonNullable<StatefulSet['status']>;

const isCreated = (pod: Pod) => (pod.status?.phase ?? '') !== '';
const isTerminating = (pod: Pod) => pod.metadata.deletionTimestamp !== undefined;
const isRunningAndReady = (pod: Pod) => pod.status?.phase === 'Running' && podReadySince(pod) !== undefined;
const isFailedOrSucceeded = (pod: Pod) => pod.status?.phase === 'Failed' || pod.status?.phase === 'Succeeded';
const podRevision = (pod: Pod) => pod.metadata.labels?.[POD_REVISION_LABEL] ?? '';

/** `getOrdinal`: the trailing number of `<set>-<n>`, -1 when the name is not the set's. */
export function ordinalOf(setName: string, podName: string): number {
  const match = /^(.*)-(\d+)$/.exec(podName);
  if (!match || match[1] !== setName) return -1;
  return Number.parseInt(match[2]!, 10);
}

/** `getPersistentVolumeClaimName`: `<claim>-<set>-<ordinal>`. */
export function claimName(claim: string, setName: string, ordinal: number): string {
  return `${claim}-${setName}-${ordinal}`;
}

export class StatefulSetController extends WorkloadController {
  /** `sync` → `UpdateStatefulSet`. */
  sync(namespace: string, name: string): void {
    const set = this.store.get<StatefulSet>('statefulsets', namespace, name);
    if (!set) return;
    const revisions = ownedRevisions(this.store, set);
    const { current, update, collisionCount } = this.#revisions(set, revisions);
    const currentSet = applyRevision(set, current);
    const updateSet = applyRevision(set, update);
    if (!set.metadata.deletionTimestamp) this.#updatePods(set, currentSet, updateSet, current, update);
    this.#updateStatus(set, current, update, collisionCount);
    this.#truncateHistory(set, current, update);
  }

  #pods(set: StatefulSet): Pod[] {
    const matcher = labelSelectorToMatcher(set.spec.selector);
    return this.store
      .peekControlledBy<Pod>('pods', set.metadata.uid!)
      .filter(
        (pod) =>
          pod.metadata.namespace === set.metadata.namespace && matchesLabels(matcher, pod.metadata.labels),
      )
      .map((pod) => structuredClone(pod) as Pod);
  }

  /** `getStatefulSetRevisions`. */
  #revisions(
    set: StatefulSet,
    revisions: ControllerRevision[],
  ): { current: ControllerRevision; update: ControllerRevision; collisionCount: number } {
    let collisionCount = set.status?.collisionCount ?? 0;
    const data = revisionData(set.spec.template);
    const candidate = newRevision(
      set,
      'StatefulSet',
      set.spec.template.metadata?.labels ?? {},
      data,
      nextRevision(revisions),
      set.metadata.annotations,
    );
    const hash = hashControllerRevision(data, collisionCount);
    candidate.metadata.labels = { ...candidate.metadata.labels, [CONTROLLER_REVISION_HASH_LABEL]: hash };
    const equal = revisions.filter((revision) =>
      equalRevision(revision, candidate, CONTROLLER_REVISION_HASH_LABEL),
    );
    let update: ControllerRevision;
    const latest = revisions[revisions.length - 1];
    if (
      equal.length > 0 &&
      latest &&
      equalRevision(latest, equal[equal.length - 1]!, CONTROLLER_REVISION_HASH_LABEL)
    ) {
      update = latest;
    } else if (equal.length > 0) {
      update = renumberRevision(this.store, equal[equal.length - 1]!, candidate.revision);
    } else {
      const created = createRevision(
        this.store,
        set,
        candidate,
        collisionCount,
        (count) => hashControllerRevision(data, count),
        CONTROLLER_REVISION_HASH_LABEL,
      );
      update = created.revision;
      collisionCount = created.collisionCount;
    }
    const current =
      ownedRevisions(this.store, set).find(
        (revision) => revision.metadata.name === set.status?.currentRevision,
      ) ?? update;
    return { current, update, collisionCount };
  }

  /** `updateStatefulSet`: create, replace and delete Pods. */
  #updatePods(
    set: StatefulSet,
    currentSet: StatefulSet,
    updateSet: StatefulSet,
    current: ControllerRevision,
    update: ControllerRevision,
  ): void {
    const start = set.spec.ordinals?.start ?? 0;
    const replicaCount = set.spec.replicas ?? 1;
    const monotonic = set.spec.podManagementPolicy !== 'Parallel';
    const minReadySeconds = set.spec.minReadySeconds ?? 0;
    const now = this.clock.now();
    const replicas: (Pod | undefined)[] = Array.from({ length: replicaCount }, () => undefined);
    const condemned: Pod[] = [];
    for (const pod of this.#pods(set)) {
      const ordinal = ordinalOf(set.metadata.name, pod.metadata.name);
      if (ordinal >= start && ordinal < start + replicaCount) replicas[ordinal - start] = pod;
      else if (ordinal >= 0) condemned.push(pod);
    }
    condemned.sort(
      (a, b) => ordinalOf(set.metadata.name, a.metadata.name) - ordinalOf(set.metadata.name, b.metadata.name),
    );
    const healthy = (pod: Pod) =>
      isRunningAndReady(pod) && !isTerminating(pod) && isPodAvailable(pod, minReadySeconds, now);
    const firstUnhealthy =
      replicas.find((pod) => pod !== undefined && !healthy(pod)) ?? condemned.find((pod) => !healthy(pod));

    for (let index = 0; index < replicas.length; index++) {
      const ordinal = start + index;
      let pod = replicas[index];
      if (pod && isFailedOrSucceeded(pod)) {
        this.#deletePod(set, pod);
        if (monotonic) return;
        continue;
      }
      if (!pod) {
        pod = this.#newVersionedPod(currentSet, updateSet, current, update, ordinal);
        this.#createPod(set, pod, ordinal);
        if (monotonic) return;
        continue;
      }
      if (!isCreated(pod) && monotonic) return;
      if (isTerminating(pod)) {
        if (monotonic) return;
        continue;
      }
      if (!isRunningAndReady(pod) && monotonic) return;
      if (!isPodAvailable(pod, minReadySeconds, now) && monotonic) {
        this.#requeueAvailable(set, pod, minReadySeconds);
        return;
      }
    }

    for (const pod of [...condemned].reverse()) {
      if (isTerminating(pod)) {
        if (monotonic) return;
        continue;
      }
      if (monotonic && firstUnhealthy && firstUnhealthy.metadata.name !== pod.metadata.name) return;
      this.#deletePod(set, pod);
      if (set.spec.persistentVolumeClaimRetentionPolicy?.whenScaled === 'Delete')
        this.#releaseClaims(set, pod);
      if (monotonic) return;
    }

    if (set.spec.updateStrategy?.type === 'OnDelete') return;
    const partition = set.spec.updateStrategy?.rollingUpdate?.partition ?? 0;
    for (let target = replicas.length - 1; target >= partition; target--) {
      const pod = replicas[target];
      if (!pod) return;
      if (podRevision(pod) !== update.metadata.name && !isTerminating(pod)) {
        this.#deletePod(set, pod);
        return;
      }
      if (!healthy(pod)) return;
    }
  }

  /** `newVersionedStatefulSetPod`: below the partition from the current revision, else the update one. */
  #newVersionedPod(
    currentSet: StatefulSet,
    updateSet: StatefulSet,
    current: ControllerRevision,
    update: ControllerRevision,
    ordinal: number,
  ): Pod {
    const strategy = currentSet.spec.updateStrategy;
    const start = currentSet.spec.ordinals?.start ?? 0;
    const useCurrent =
      strategy?.type === 'RollingUpdate' &&
      (strategy.rollingUpdate === undefined
        ? ordinal < start + (currentSet.status?.currentReplicas ?? 0)
        : ordinal < start + (strategy.rollingUpdate.partition ?? 0));
    const pod = newStatefulSetPod(useCurrent ? currentSet : updateSet, ordinal);
    pod.metadata.labels![POD_REVISION_LABEL] = (useCurrent ? current : update).metadata.name;
    return pod;
  }

  #createPod(set: StatefulSet, pod: Pod, ordinal: number): void {
    for (const template of set.spec.volumeClaimTemplates ?? []) {
      const name = claimName(template.metadata.name, set.metadata.name, ordinal);
      if (this.store.peekOne('persistentvolumeclaims', set.metadata.namespace, name)) continue;
      this.store.create('persistentvolumeclaims', newClaim(set, template, name));
      this.recorder.record(
        set,
        'Normal',
        'SuccessfulCreate',
        `create Claim ${name} Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} success`,
        SOURCE,
      );
    }
    if (this.store.peekOne('pods', set.metadata.namespace, pod.metadata.name)) return;
    this.store.create('pods', pod);
    this.recorder.record(
      set,
      'Normal',
      'SuccessfulCreate',
      `create Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} successful`,
      SOURCE,
    );
  }

  #deletePod(set: StatefulSet, pod: Pod): void {
    const grace = pod.spec.terminationGracePeriodSeconds ?? 30;
    this.store.markDeleting('pods', pod.metadata.namespace, pod.metadata.name, grace);
    this.recorder.record(
      set,
      'Normal',
      'SuccessfulDelete',
      `delete Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} successful`,
      SOURCE,
    );
  }

  /** whenScaled: Delete — the claims of a condemned Pod get it as owner, so they go with it. */
  #releaseClaims(set: StatefulSet, pod: Pod): void {
    const ordinal = ordinalOf(set.metadata.name, pod.metadata.name);
    for (const template of set.spec.volumeClaimTemplates ?? []) {
      const name = claimName(template.metadata.name, set.metadata.name, ordinal);
      const claim = this.store.get<PersistentVolumeClaim>(
        'persistentvolumeclaims',
        set.metadata.namespace,
        name,
      );
      if (!claim) continue;
      const refs = (claim.metadata.ownerReferences ?? []).filter((ref) => ref.uid !== set.metadata.uid);
      claim.metadata.ownerReferences = [
        ...refs,
        {
          apiVersion: 'v1',
          kind: 'Pod',
          name: pod.metadata.name,
          uid: pod.metadata.uid!,
          blockOwnerDeletion: true,
        },
      ];
      this.store.update('persistentvolumeclaims', claim);
    }
  }

  #requeueAvailable(set: StatefulSet, pod: Pod, minReadySeconds: number): void {
    const since = podReadySince(pod);
    if (since === undefined) return;
    const at = since + minReadySeconds * 1000;
    this.resyncAt(set, at, () => this.sync(set.metadata.namespace!, set.metadata.name));
  }

  /** `computeReplicaStatus` + `completeRollingUpdate`, written when it changed. */
  #updateStatus(
    set: StatefulSet,
    current: ControllerRevision,
    update: ControllerRevision,
    collisionCount: number,
  ): void {
    const latest = this.store.get<StatefulSet>('statefulsets', set.metadata.namespace, set.metadata.name);
    if (!latest) return;
    const now = this.clock.now();
    const minReadySeconds = latest.spec.minReadySeconds ?? 0;
    const counts = { replicas: 0, ready: 0, available: 0, current: 0, updated: 0 };
    for (const pod of this.#pods(latest)) {
      if (isCreated(pod)) counts.replicas++;
      if (isRunningAndReady(pod)) {
        counts.ready++;
        if (isPodAvailable(pod, minReadySeconds, now)) counts.available++;
        else this.#requeueAvailable(latest, pod, minReadySeconds);
      }
      if (isCreated(pod) && !isTerminating(pod)) {
        if (podRevision(pod) === current.metadata.name) counts.current++;
        if (podRevision(pod) === update.metadata.name) counts.updated++;
      }
    }
    let currentRevision = current.metadata.name;
    let currentReplicas = counts.current;
    if (
      latest.spec.updateStrategy?.type === 'RollingUpdate' &&
      counts.updated === counts.replicas &&
      counts.ready === counts.replicas
    ) {
      currentReplicas = counts.updated;
      currentRevision = update.metadata.name;
    }
    const status: Status = {
      observedGeneration: latest.metadata.generation ?? 1,
      replicas: counts.replicas,
      ...(counts.ready > 0 && { readyReplicas: counts.ready }),
      ...(currentReplicas > 0 && { currentReplicas }),
      ...(counts.updated > 0 && { updatedReplicas: counts.updated }),
      currentRevision,
      updateRevision: update.metadata.name,
      collisionCount,
      availableReplicas: counts.available,
    };
    latest.status = status;
    this.store.update('statefulsets', latest, undefined, { handOver: true });
  }

  /** `truncateHistory`: delete the oldest revisions no Pod uses beyond `revisionHistoryLimit`. */
  #truncateHistory(set: StatefulSet, current: ControllerRevision, update: ControllerRevision): void {
    const live = new Set([current.metadata.name, update.metadata.name]);
    for (const pod of this.#pods(set)) live.add(podRevision(pod));
    pruneRevisions(
      this.store,
      set,
      (revision) => live.has(revision.metadata.name),
      set.spec.revisionHistoryLimit ?? 10,
    );
  }
}

/** `ApplyRevision`: the set with the revision's template (its data patch applied). */
export function applyRevision(set: StatefulSet, revision: ControllerRevision): StatefulSet {
  if (!revision.data) return structuredClone(set);
  return applyPatch(set, revision.data, 'application/strategic-merge-patch+json') as StatefulSet;
}

/** `newStatefulSetPod`: the Pod of `ordinal` from the set's template, identity and storage set. */
export function newStatefulSetPod(set: StatefulSet, ordinal: number): Pod {
  const template = set.spec.template;
  const name = `${set.metadata.name}-${ordinal}`;
  const spec = structuredClone(template.spec);
  const claims = (set.spec.volumeClaimTemplates ?? []).map((claim) => ({
    name: claim.metadata.name,
    persistentVolumeClaim: { claimName: claimName(claim.metadata.name, set.metadata.name, ordinal) },
  }));
  if (claims.length > 0) {
    const names = new Set(claims.map((claim) => claim.name));
    const volumes = ((spec['volumes'] as { name: string }[] | undefined) ?? []).filter(
      (volume) => !names.has(volume.name),
    );
    spec['volumes'] = [...claims, ...volumes];
  }
  spec['hostname'] = name;
  if (set.spec.serviceName) spec['subdomain'] = set.spec.serviceName;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: set.metadata.namespace,
      labels: {
        ...template.metadata?.labels,
        [POD_NAME_LABEL]: name,
        [POD_INDEX_LABEL]: String(ordinal),
      },
      ...(template.metadata?.annotations && { annotations: { ...template.metadata.annotations } }),
      ownerReferences: [controllerRef(set, 'StatefulSet')],
    },
    spec,
    status: { phase: 'Pending', qosClass: qosClass(spec.containers) },
  };
}

/**
 * A claim from a volumeClaimTemplate, bound at once to a volume named after it (the simulator
 * models no provisioner or storage): labels of the template and the set's selector.
 */
function newClaim(set: StatefulSet, template: PersistentVolumeClaim, name: string): PersistentVolumeClaim {
  const uid = randomUUID();
  const spec = structuredClone(template.spec ?? {});
  spec.volumeMode ??= 'Filesystem';
  spec.volumeName = `pvc-${uid}`;
  const deleteWithSet = set.spec.persistentVolumeClaimRetentionPolicy?.whenDeleted === 'Delete';
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name,
      namespace: set.metadata.namespace,
      uid,
      labels: { ...template.metadata.labels, ...set.spec.selector.matchLabels },
      annotations: {
        'pv.kubernetes.io/bind-completed': 'yes',
        'pv.kubernetes.io/bound-by-controller': 'yes',
      },
      ...(deleteWithSet && {
        ownerReferences: [controllerRef(set, 'StatefulSet')],
      }),
    },
    spec,
    status: {
      phase: 'Bound',
      accessModes: [...(spec.accessModes ?? ['ReadWriteOnce'])],
      capacity: { storage: spec.resources?.requests?.['storage'] ?? '1Gi' },
    },
  };
}
